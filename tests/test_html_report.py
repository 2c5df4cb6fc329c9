"""The HTML report (`--report html:PATH`): one self-contained page, read with a real HTML parser
(html5lib, strict: a parse error fails the test), that shows the verdict, each problem, the tools ×
rules matrix, the schema coverage and the answers, every string of the server's as text."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

import html5lib
import pytest

from fuzz.engine.revisions import RevisionRuns
from fuzz.judging.findings import Finding, RunResult, ToolSummary
from fuzz.judging.rules import TOOL_FAILURE, UNKNOWN_TOOL
from fuzz.judging.schema_coverage import KeywordCoverage, SchemaRole, SideReach
from fuzz.reports import WRITERS, _html, by_revision
from fuzz.reports._html_tree import tag
from strategies import CaseKind
from tests.conftest import mcp_toolfuzz

HOSTILE_TOOL = "<script>alert(1)</script>"
HOSTILE_PROPERTY = "<img src=x onerror=alert(2)>"
HOSTILE_MESSAGE = 'Unknown tool: "><b>bold</b> &amp; done'
HOSTILE_SERVER = '"><b>server</b> &amp;'
HOSTILE_STDERR = "</pre><script>alert(3)</script>"
HOSTILE_PATH = 'corpus/"><b>x</b>.json'


def side(sent: int | None, answers: Mapping[str, int] | None = None) -> SideReach | None:
    return None if sent is None else SideReach(sent, dict(answers or {}))


def keyword(path: str, name: str, valid: SideReach | None, invalid: SideReach | None, role: SchemaRole = SchemaRole.INPUT) -> KeywordCoverage:
    pointer = "/properties/" + path.split(".", 1)[1] if "." in path else ""
    return KeywordCoverage(role, path, pointer, name, valid, invalid)


ADD_COVERAGE = (
    keyword("arguments.a", "type", side(5, {"success": 5}), side(3, {"tool-error": 3})),
    keyword("arguments.title", "maxLength", side(2, {"success": 2}), side(0)),
    keyword("arguments", "additionalProperties", None, side(4, {"tool-error": 3, "success": 1})),
    keyword("arguments.tags", "maxItems", side(0), side(1, {"tool-error": 1})),
    keyword("arguments.mode", "default", side(0), None),
)
"""Two reached on every side; three not (maxLength's invalid side, maxItems' valid, default's)."""
HOSTILE_COVERAGE = (keyword(f"arguments.{HOSTILE_PROPERTY}", "minimum", side(1, {"success": 1}), side(2, {"tool-error": 2})),)

UNKNOWN = Finding(
    UNKNOWN_TOOL,
    HOSTILE_TOOL,
    CaseKind.UNKNOWN_TOOL,
    "unknown tool: &amp;",
    {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": HOSTILE_TOOL + "x", "arguments": {}}},
    {"jsonrpc": "2.0", "id": 3, "error": {"code": -32602, "message": HOSTILE_MESSAGE}},
    "unknown-tool (MUST): ...",
    why=f'answered with JSON-RPC error -32602 "{HOSTILE_MESSAGE}"',
    expected="a tool execution error (a result with isError: true)",
    stderr=(HOSTILE_STDERR,),
    reproduction=HOSTILE_PATH,
)
FAILURE = Finding(
    TOOL_FAILURE,
    "add",
    CaseKind.VALID_ARGUMENTS,
    "valid arguments",
    {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 0}}},
    None,
    "tool-failure (MUST): ...",
    why="no answer came",
    expected="a result",
    reproduction="corpus/tool-failure--add--1.json",
)


def made_result() -> RunResult:
    """A run put together by hand: a plain tool and a hostile one, each with schema coverage."""
    add = ToolSummary(
        "add",
        {CaseKind.VALID_ARGUMENTS: 10, CaseKind.INVALID_ARGUMENTS: 8, CaseKind.UNKNOWN_TOOL: 5},
        (FAILURE,),
        answers={
            CaseKind.VALID_ARGUMENTS: {"success": 7, "no-answer": 3},
            CaseKind.INVALID_ARGUMENTS: {"tool-error": 8},
            CaseKind.UNKNOWN_TOOL: {"tool-error": 5},
        },
        schema_coverage=ADD_COVERAGE,
    )
    hostile = ToolSummary(
        HOSTILE_TOOL,
        {CaseKind.UNKNOWN_TOOL: 5, CaseKind.VALID_ARGUMENTS: 2},
        (UNKNOWN,),
        answers={CaseKind.UNKNOWN_TOOL: {"protocol-error": 5}, CaseKind.VALID_ARGUMENTS: {"success": 2}},
        schema_coverage=HOSTILE_COVERAGE,
    )
    return RunResult(
        5,
        {"transport": "stdio", "command": ["python", "server.py"]},
        "python server.py",
        "2025-11-25",
        {"name": HOSTILE_SERVER, "version": "1"},
        {},
        (add, hostile),
        1.5,
    )


def parsed(text: str) -> ElementTree.Element:
    """The page as a real browser parser reads it; strict: any parse error raises."""
    parser = html5lib.HTMLParser(tree=html5lib.getTreeBuilder("etree"), namespaceHTMLElements=False, strict=True)
    return parser.parse(text)  # type: ignore[no-any-return]


def text(element: ElementTree.Element | None) -> str:
    assert element is not None
    return "".join(element.itertext())


def by_id(tree: ElementTree.Element, name: str) -> ElementTree.Element:
    (found,) = [element for element in tree.iter() if element.get("id") == name]
    return found


def rows(table: ElementTree.Element) -> list[list[str]]:
    return [[text(cell) for cell in row] for row in table.iter("tr")][1:]


@pytest.fixture(scope="module")
def page() -> ElementTree.Element:
    return parsed(_html.render(made_result()))


def test_the_page_is_one_file_that_loads_nothing(page: ElementTree.Element) -> None:
    rendered = _html.render(made_result())
    assert rendered.startswith('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">')
    assert not [element.tag for element in page.iter() if element.tag in ("script", "link", "img", "iframe", "object", "embed", "base")]
    assert all(element.get("href", "#").startswith("#") for element in page.iter()), "links stay inside the page"
    assert not [element for element in page.iter() if "src" in element.attrib or any(name.startswith("on") for name in element.attrib)]
    (style,) = page.iter("style")
    assert not any(word in (style.text or "") for word in ("url(", "@import", "@font-face", "//")), "no font, image or sheet loaded"
    policy = next(meta for meta in page.iter("meta") if meta.get("http-equiv") == "Content-Security-Policy")
    assert policy.get("content", "").startswith("default-src 'none'")
    assert len({element.get("id") for element in page.iter() if element.get("id")}) == len([e for e in page.iter() if e.get("id")])


def test_the_verdict_says_what_the_exit_code_means_and_counts_each_level(page: ElementTree.Element) -> None:
    (verdict,) = [p for p in page.iter("p") if "verdict" in p.get("class", "")]
    assert text(verdict).startswith("The run fails · exit 1: a violation at should level or above")
    levels = next(table for table in page.iter("table") if table.get("class") == "levels")
    assert rows(levels) == [["MUST", "2", "2", "yes"], ["SHOULD", "0", "0", "yes"], ["advisory", "0", "0", "no: reported only"]]
    clean = made_result()
    clean = replace(clean, tools=tuple(replace(summary, findings=()) for summary in clean.tools))
    for result, start in (
        (clean, "The run passes · exit 0: no violation at should level or above"),
        (replace(clean, stopped_early="target lost"), "The run proves nothing yet · exit 2: it stopped early (target lost)"),
    ):
        (verdict,) = [p for p in parsed(_html.render(result)).iter("p") if "verdict" in p.get("class", "")]
        assert text(verdict).startswith(start)


def test_the_coverage_table_lists_each_keyword_those_not_reached_first(page: ElementTree.Element) -> None:
    coverage = by_id(page, "coverage")
    tables = [table for table in coverage.iter("table")]
    assert len(tables) == 2
    assert [text(summary) for summary in coverage.iter("summary")] == [
        "add: keywords 2 of 5 reached on every side",
        f"{HOSTILE_TOOL}: keywords 1 of 1 reached on every side",
    ]
    assert rows(tables[0]) == [
        ["arguments.title", "maxLength", "2", "0", "valid: success 2"],
        ["arguments.tags", "maxItems", "0", "1", "invalid: tool-error 1"],
        ["arguments.mode", "default", "0", "–", "–"],
        ["arguments.a", "type", "5", "3", "valid: success 5; invalid: tool-error 3"],
        ["arguments", "additionalProperties", "–", "4", "invalid: tool-error 3, success 1"],
    ]
    marked = [row.get("class") for row in tables[0].iter("tr")][1:]
    assert marked == ["unreached", "unreached", "unreached", None, None]
    details = list(coverage.iter("details"))
    assert details[0].get("open") is not None and details[1].get("open") is None, "a tool with keywords not reached is open"


def test_each_problem_has_its_rule_sentence_request_answer_stderr_and_replay(page: ElementTree.Element) -> None:
    problems = by_id(page, "problems").findall("section")
    assert [text(problem.find("h3")).split(" · ")[0] for problem in problems] == ["1. unknown-tool MUST", "2. tool-failure MUST"]
    unknown, failure = problems
    assert TOOL_FAILURE.source in text(failure) and UNKNOWN_TOOL.source in text(unknown)
    blocks = [text(pre) for pre in unknown.iter("pre")]
    assert json.loads(blocks[0]) == UNKNOWN.request and json.loads(blocks[1]) == UNKNOWN.response
    assert blocks[2:] == [HOSTILE_STDERR, f"mcp-toolfuzz replay {HOSTILE_PATH}"]
    assert "(none: no answer came)" in text(failure)
    findings = next(table for table in unknown.iter("table") if table.get("class") == "findings")
    assert rows(findings) == [[HOSTILE_TOOL, "unknown tool: &amp;", "JSON-RPC error -32602", HOSTILE_PATH, "new", "not tried"]]


def test_the_matrix_marks_each_judged_rule_on_each_tool(page: ElementTree.Element) -> None:
    matrix = next(table for table in by_id(page, "matrix").iter("table") if table.get("class") == "matrix")
    head = [text(cell) for cell in next(matrix.iter("tr"))]
    assert head[0] == "tool" and {"unknown-tool", "tool-failure", "invalid-arguments"} <= set(head)
    marks = {row[0]: dict(zip(head[1:], row[1:], strict=True)) for row in rows(matrix)}
    assert marks["add"]["tool-failure"] == "✗" and marks["add"]["invalid-arguments"] == "✓"
    assert marks[HOSTILE_TOOL]["unknown-tool"] == "✗" and marks[HOSTILE_TOOL]["invalid-arguments"] == "–"


def test_the_answers_table_counts_each_kind_of_answer(page: ElementTree.Element) -> None:
    (answers,) = by_id(page, "answers").iter("table")
    assert [text(cell) for cell in next(answers.iter("tr"))] == ["tool", "case kind", "cases", "success", "tool-error", "protocol-error", "no-answer"]
    assert ["add", "valid-arguments", "10", "7", "", "", "3"] in rows(answers)
    assert [HOSTILE_TOOL, "unknown-tool", "5", "", "", "5", ""] in rows(answers)


def test_a_hostile_servers_strings_are_text_and_nothing_else(page: ElementTree.Element) -> None:
    assert not [element.tag for element in page.iter() if element.tag in ("script", "img", "b")]
    assert f"{HOSTILE_SERVER} 1" in {text(dd) for dd in page.iter("dd")}
    codes = {text(code) for code in page.iter("code")}
    assert {HOSTILE_TOOL, f"arguments.{HOSTILE_PROPERTY}", HOSTILE_PATH} <= codes
    assert f'answered with JSON-RPC error -32602 "{HOSTILE_MESSAGE}"' in {text(dd) for dd in page.iter("dd")}
    assert HOSTILE_TOOL in {text(th) for th in page.iter("th")}
    (title,) = page.iter("title")
    assert title.text == "mcp-toolfuzz: 2 problems (2 findings on 2 tools)"


def test_control_and_bidi_characters_are_shown_as_escapes() -> None:
    result = made_result()
    odd = replace(result.tools[0], tool="add\x1b[2J\u202eevil")
    page = parsed(_html.render(replace(result, tools=(odd, *result.tools[1:]))))
    assert "add\\x1b[2J\\u202eevil" in {text(code) for code in page.iter("code")}
    assert not any(character in _html.render(replace(result, tools=(odd,))) for character in "\x1b\u202e")


def test_the_builder_makes_no_element_a_browser_reads_raw_and_links_nowhere_else() -> None:
    for name in ("script", "style", "textarea", "title", "img onerror=x"):
        with pytest.raises(ValueError, match="does not make"):
            tag(name, "x")
    with pytest.raises(ValueError, match="only inside"):
        tag("a", "x", href="https://example.com/")
    with pytest.raises(ValueError, match="attributes"):
        tag("p", "x", onclick="alert(1)")


def test_every_revision_is_a_section_of_one_page() -> None:
    first = made_result()
    second = replace(first, protocol_version="2025-06-18", tools=first.tools[:1])
    runs = RevisionRuns((first, second), (), (), 3.0)
    page = parsed(_html.render_runs(runs.runs, by_revision.comparison_lines(runs), runs.exit_code))
    assert [text(h2) for h2 in page.iter("h2")] == ["Under 2025-11-25: 2 problems (2 findings on 2 tools)", "Under 2025-06-18: 1 problem (1 finding on 1 tool)"]
    assert "Revisions" in text(next(page.iter("pre")))
    ids = [element.get("id") for element in page.iter() if element.get("id")]
    assert len(ids) == len(set(ids)) and {"r0-coverage", "r1-coverage"} <= set(ids)
    assert set(by_revision.WRITERS) == set(WRITERS), "every format is written under --protocol-version all too"


@pytest.mark.slow
def test_the_demos_html_report_names_its_findings(tmp_path: Path) -> None:
    run = mcp_toolfuzz(
        "run",
        "--seed",
        "3",
        "--max-examples",
        "5",
        "--no-corpus",
        "--report",
        f"html:{tmp_path / 'r.html'}",
        "--report",
        f"json:{tmp_path / 'r.json'}",
        timeout=180,
    )
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
    document = json.loads((tmp_path / "r.json").read_text())
    page = parsed((tmp_path / "r.html").read_text(encoding="utf-8"))
    shown = set()
    for problem in by_id(page, "problems").findall("section"):
        rule = text(problem.find("h3")).split(" ")[1]
        findings = next(table for table in problem.iter("table") if table.get("class") == "findings")
        shown |= {(row[0], rule) for row in rows(findings)}
    assert shown == {(finding["tool"], finding["rule"]) for finding in document["findings"]}
    assert text(next(p for p in page.iter("p") if "verdict" in p.get("class", ""))).startswith("The run fails · exit 1")
    assert len(rows(next(by_id(page, "matrix").iter("table")))) == len(document["tools"])
