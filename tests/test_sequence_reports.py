"""A sequence finding in every report (issue 31): its steps before its request, numbered, each
request and its answer, and where each reused value came from; what the server sent in them
escaped as each report escapes it, the JSON in full where a report shows JSON in full."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ElementTree
from dataclasses import replace
from pathlib import Path
from typing import Any

import html5lib
import jsonschema
import pytest
import xmlschema
from markdown_it import MarkdownIt

from fuzz.engine.events import RunFinished
from fuzz.judging.coverage import tool_hint
from fuzz.judging.findings import Finding, RunResult, SequenceStep, ToolSummary, Use
from fuzz.judging.rules import TOOL_FAILURE
from fuzz.reports import _html, _junit, _markdown, _sarif
from fuzz.reports._steps import path_text, use_text
from fuzz.reports.problems import findings_text, group
from fuzz.reports.terminal import STEP_LIMIT, TerminalReporter
from strategies import CaseKind
from strategies.cases import SEQUENCES
from tests.test_escaping import assert_inert
from tests.test_html_report import parsed, text

SCHEMAS = Path(__file__).parent / "report_schemas"
SCRIPT = "<script>alert(1)</script>"
ANSWER_TEXT = f"{SCRIPT} \x1b[31mred\n::error::boom"
"""What the first step's answer says: markup, an ESC, and a workflow command after a line break."""
STDERR = "::error::from stderr"


def call(request_id: int, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}


def result(request_id: int, text: str, structured: dict[str, Any] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"content": [{"type": "text", "text": text}]}
    if structured is not None:
        body["structuredContent"] = structured
    return {"jsonrpc": "2.0", "id": request_id, "result": body}


STEPS = (
    SequenceStep(call(3, "create_note", {"title": SCRIPT}), result(3, ANSWER_TEXT, {"id": "n-1", "title": SCRIPT})),
    SequenceStep(call(4, "delete_note", {"id": "n-1"}), result(4, "deleted n-1" + "!" * 1000), (Use("id", 0, ("structuredContent", "id")),)),
)
CRASH = {"jsonrpc": "2.0", "id": 5, "error": {"code": -32603, "message": f"Internal error {SCRIPT}\x1b[2J"}}
SEQUENCE_FINDING = Finding(
    TOOL_FAILURE,
    "get_note",
    CaseKind.SEQUENCE,
    "sequence step 3: get_note with note_id from earlier answers",
    call(5, "get_note", {"note_id": "n-1"}),
    CRASH,
    "tool-failure (MUST): ...",
    why='answered with JSON-RPC error -32603 "Internal error"',
    expected="a result",
    stderr=(STDERR,),
    steps=STEPS,
    uses=(Use("note_id", 0, ("structuredContent", "id")),),
    judged_as=CaseKind.VALID_ARGUMENTS,
)
SINGLE_FINDING = Finding(
    TOOL_FAILURE,
    "get_note",
    CaseKind.VALID_ARGUMENTS,
    "valid arguments",
    call(9, "get_note", {"note_id": "x"}),
    {"jsonrpc": "2.0", "id": 9, "error": {"code": -32603, "message": "Internal error"}},
    "tool-failure (MUST): ...",
    why='answered with JSON-RPC error -32603 "Internal error"',
    expected="a result",
)
IN_ORDER = [STEPS[0].request, STEPS[0].response, STEPS[1].request, STEPS[1].response, SEQUENCE_FINDING.request, CRASH]
"""Every request and answer of the sequence, in the order they were sent and answered."""


def made_result() -> RunResult:
    """A run of a notes server: a single case's tool-failure on get_note, and a sequence's."""
    get_note = ToolSummary(
        "get_note", {CaseKind.VALID_ARGUMENTS: 10}, (SINGLE_FINDING,), answers={CaseKind.VALID_ARGUMENTS: {"success": 9, "protocol-error": 1}}
    )
    sequences = ToolSummary(
        SEQUENCES, {CaseKind.SEQUENCE: 12}, (SEQUENCE_FINDING,), answers={CaseKind.SEQUENCE: {"success": 10, "tool-error": 1, "protocol-error": 1}}
    )
    return RunResult(
        1,
        {"transport": "stdio", "command": ["python", "notes.py"]},
        "python notes.py",
        "2025-11-25",
        {"name": "notes", "version": "1"},
        {},
        (get_note, sequences),
        2.0,
    )


def terminal_text(run: RunResult) -> str:
    stream = io.StringIO()
    TerminalReporter(stream, progress=False)(RunFinished(run))
    return stream.getvalue()


def in_order(haystack: str, *needles: str) -> bool:
    """Whether each of `needles` is in `haystack`, each after the one before."""
    at = 0
    for needle in needles:
        found = haystack.find(needle, at)
        if found < 0:
            return False
        at = found + len(needle)
    return True


def test_a_sequence_finding_is_a_problem_of_its_own_and_says_it_is_a_sequence_case() -> None:
    problems = group(made_result().findings)
    assert [(problem.rule.id, problem.case) for problem in problems] == [("tool-failure", CaseKind.VALID_ARGUMENTS), ("tool-failure", CaseKind.SEQUENCE)]
    output = terminal_text(made_result())
    assert "2. tool-failure [MUST] · tool get_note · sequence case" in output


def test_a_reused_value_says_which_steps_answer_it_came_from_and_where() -> None:
    assert use_text(Use("note_id", 0, ("structuredContent", "id"))) == "note_id from step 1's answer (structuredContent.id)"
    assert path_text(("content", 0, "text", "notes", 2, "id")) == "content[0].text.notes[2].id"
    assert path_text(("structuredContent", "note id", "\x1b")) == 'structuredContent["note id"]["\\u001b"]'
    assert use_text(Use("a\x1b[2J", 1, ("x",))) == "a\\x1b[2J from step 2's answer (x)"


def test_the_terminal_shows_a_line_per_request_and_answer_before_the_request_clipped_and_escaped() -> None:
    output = terminal_text(made_result())
    assert_inert(output, "the terminal")
    problem = output.split("\n2. tool-failure", 1)[1].split("\nAnswers", 1)[0]
    lines = [line.strip() for line in problem.splitlines() if line.strip()]
    labels = [line.split(":", 1)[0] for line in lines]
    assert labels[:10] == [
        "[MUST] · tool get_note · sequence case",
        "sent",
        "problem",
        "step 1",
        "answer 1",
        "step 2",
        "reused",
        "answer 2",
        "request",
        "reused",
    ]
    assert labels[10:12] == ["answer", "stderr"]
    assert lines[6] == "reused:   id from step 1's answer (structuredContent.id)"
    assert lines[9] == "reused:   note_id from step 1's answer (structuredContent.id)"
    assert lines[3].startswith('step 1:   {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "create_note"')
    assert "\\u001b[31mred\\n::error::boom" in lines[4], "the answer's text, escaped on its one line"
    assert lines[7].endswith("...") and len(lines[7]) == len("answer 2: ") + STEP_LIMIT, "a long answer is clipped"
    assert "(sequences)  sequence 12: 10 success, 1 protocol-error, 1 tool-error" in output
    assert "\n  (sequences)        x      \n" in output, "its row of the tools × rules table"
    assert "hint:" not in output and " · 1 tool · 22 cases · " in output, "the sequences are no tool"


def test_no_hint_for_the_sequences_whatever_their_answers() -> None:
    sequences = made_result().tools[1]
    refused = replace(sequences, answers={CaseKind.VALID_ARGUMENTS: {"tool-error": 5}}, refused_fields={"id": 5})
    assert tool_hint(refused) is None
    assert tool_hint(replace(refused, tool="get_note")) is not None


def test_markdown_shows_every_step_in_full_in_order_as_text() -> None:
    rendered = _markdown.render(made_result())
    assert_inert(rendered, "Markdown")
    section = rendered.split("\n## 2. ", 1)[1]
    assert section.startswith("`tool-failure` [MUST] · tool `get_note` · sequence case")
    assert in_order(
        section,
        "Steps: the 2 calls the sequence made before the request, in order.",
        "Step 1, request to `create_note`:",
        "Step 1, answer:",
        "Step 2, request to `delete_note`, reusing `id` from step 1's answer (`structuredContent.id`):",
        "Step 2, answer:",
        "Request (step 3), reusing `note_id` from step 1's answer (`structuredContent.id`):",
        "Answer:",
    )
    page = html5lib.parse(MarkdownIt("commonmark").render(section), treebuilder="etree", namespaceHTMLElements=False)
    assert not [element.tag for element in page.iter() if element.tag in ("script", "b", "img")]
    blocks = [json.loads(text(block)) for block in page.iter("code") if (block.get("class") or "") == "language-json"]
    assert blocks == IN_ORDER, "each request and answer in full, the server's text exactly"


def test_html_shows_every_step_in_order_as_text() -> None:
    page = parsed(_html.render(made_result()))
    assert not [element.tag for element in page.iter() if element.tag in ("script", "b", "img")]
    problems = [section for section in page.iter("section") if "problem" in (section.get("class") or "")]
    (sequence,) = [problem for problem in problems if "sequence case" in text(problem.find("h3"))]
    blocks = [text(pre) for pre in sequence.iter("pre")]
    assert [json.loads(block) for block in blocks[:6]] == IN_ORDER, "each request and answer in full, the server's text exactly"
    assert blocks[6] == "\\x3a:error::from stderr"
    headings = [text(h5) for h5 in sequence.iter("h5")]
    assert headings[:6] == [
        "Steps: the 2 calls the sequence made before the request, in order",
        "Step 1: request to create_note",
        "Step 1: answer",
        "Step 2: request to delete_note",
        "Step 2: answer",
        "Request (step 3)",
    ]
    assert [text(p) for p in sequence.iter("p") if p.get("class") == "reused"] == [
        "Reused: id from step 1's answer (structuredContent.id)",
        "Reused: note_id from step 1's answer (structuredContent.id)",
    ]
    (single,) = [problem for problem in problems if "valid-arguments case" in text(problem.find("h3"))]
    assert "Steps" not in text(single) and "Request (step" not in text(single)
    assert_inert(_html.render(made_result()), "HTML")


def test_junit_fails_the_sequences_rule_with_the_steps_in_its_text() -> None:
    rendered = _junit.render(made_result())
    assert_inert(rendered, "JUnit")
    xmlschema.XMLSchema(SCHEMAS / "JUnit.xsd").validate(ElementTree.fromstring(rendered.encode()))
    suites = {suite.get("name"): suite for suite in ElementTree.fromstring(rendered.encode()).iter("testsuite")}
    (failure,) = suites[f"mcp-toolfuzz.{SEQUENCES}"].iter("failure")
    assert failure.get("type") == "tool-failure" and failure.text is not None
    lines = failure.text.splitlines()
    assert [line.split(":", 1)[0] for line in lines[2:10]] == ["step 1", "answer 1", "step 2", "reused", "answer 2", "request", "reused", "answer"]
    assert json.loads(lines[4].split(":", 1)[1]) == STEPS[1].request, "in full"
    assert json.loads(lines[6].split(":", 1)[1]) == STEPS[1].response, "in full, however long"
    assert lines[5] == "reused:  id from step 1's answer (structuredContent.id)"
    assert failure.text == findings_text((SEQUENCE_FINDING,)), "the pytest plugin's failure text too"
    (single,) = suites["mcp-toolfuzz.get_note"].iter("failure")
    assert "step 1:" not in (single.text or "")


def test_sarif_has_the_steps_in_its_message_and_its_properties() -> None:
    log = _sarif.as_sarif(made_result(), Path.cwd())
    schema = json.loads((SCHEMAS / "sarif-schema-2.1.0.json").read_text())
    jsonschema.validators.validator_for(schema)(schema).validate(log)
    single, sequence = log["runs"][0]["results"]
    message = sequence["message"]["text"]
    assert_inert(message, "SARIF message")
    assert in_order(
        message,
        "sequence case",
        "Steps before the request: step 1: {",
        "create_note",
        "answered {",
        "step 2: {",
        "delete_note",
        "(reused: id from step 1's answer (structuredContent.id)), answered {",
        "Minimal request: {",
        "get_note",
        "(reused: note_id from step 1's answer (structuredContent.id))",
    )
    properties = sequence["properties"]
    assert properties["steps"] == [step.as_json() for step in STEPS] and properties["judgedAs"] == "valid-arguments"
    assert properties["uses"] == [{"argument": "note_id", "step": 0, "path": ["structuredContent", "id"]}]
    assert "steps" not in single["properties"] and "Steps before" not in single["message"]["text"]
    assert single["partialFingerprints"] != sequence["partialFingerprints"]


@pytest.mark.parametrize("render", [_markdown.render, _html.render, _junit.render, terminal_text], ids=["markdown", "html", "junit", "terminal"])
def test_several_sequence_findings_of_a_rule_are_one_problem_that_says_each_has_its_steps(render: Any) -> None:
    other = replace(SEQUENCE_FINDING, tool="archive_note", label="sequence step 3: archive_note")
    run = made_result()
    sequences = replace(run.tools[1], findings=(SEQUENCE_FINDING, other))
    rendered = render(replace(run, tools=(run.tools[0], sequences)))
    if render is _junit.render:
        assert rendered.count("step 1:") == 2, "each finding of the suite's rule with its steps"
        return
    assert "the sequence that ended in the request to" in rendered and "the JSON report has each one" in rendered
