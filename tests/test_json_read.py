"""A run's JSON report read back (`fuzz.reports.json_read`), what `mcp-toolfuzz merge` stands on:
the RunResult it gives is the run's own, so `as_json` of it is the report read and every format
(JUnit, SARIF, Markdown, HTML, the terminal's summary) renders from it what it rendered from the
run; and a document that is not such a report is one line naming the file, the place and what
was expected."""

from __future__ import annotations

import io
import json
import re
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from fuzz import __version__
from fuzz.engine.events import RunFinished
from fuzz.engine.options import RunPhase
from fuzz.engine.plan import DestructiveMode, Selection
from fuzz.errors import HarnessError, ReportError
from fuzz.judging.findings import FindingKey, Replayed, RunResult, ShardOfRun
from fuzz.judging.rules import Level
from fuzz.reports import _html, _json_report, _junit, _markdown, _sarif
from fuzz.reports.json_read import load, result_from_json
from fuzz.reports.terminal import TerminalReporter
from fuzz.wire.target import StdioTarget
from strategies import CaseKind
from tests.conftest import fuzz, python_server
from tests.test_html_report import HOSTILE_TOOL, made_result

DEMO = StdioTarget((sys.executable, "-m", "fuzz.demo_server"))


def _terminal(result: RunResult) -> str:
    stream = io.StringIO()
    TerminalReporter(stream, progress=False)(RunFinished(result))
    return stream.getvalue()


def _junit_stamped(result: RunResult) -> str:
    """The JUnit XML, its suites' `timestamp` (the time it is rendered, to the second) made one."""
    return re.sub(r'timestamp="[^"]*"', 'timestamp="T"', _junit.render(result))


RENDERINGS: dict[str, Callable[[RunResult], object]] = {
    "json": _json_report.as_json,
    "junit": _junit_stamped,
    "sarif": _sarif.as_sarif,
    "markdown": _markdown.render,
    "html": _html.render,
    "terminal": _terminal,
}


def _demo(tmp_path: Path) -> RunResult:
    return fuzz(DEMO, max_examples=10)


def _demo_published_with_a_baseline(tmp_path: Path) -> RunResult:
    """Under the published profile of 2025-06-18 (output-schema a MUST, no tool-name rule), some
    findings known and a baseline entry stale, failing on MUST only."""
    baseline = frozenset({FindingKey("malformed-request", "add", "malformed-request"), FindingKey("tool-failure", "gone", "valid-arguments")})
    return fuzz(DEMO, max_examples=10, profile="published", protocol_version="2025-06-18", baseline=baseline, fail_on=Level.MUST)


def _boundary(tmp_path: Path) -> RunResult:
    return fuzz(python_server("boundary_server.py"), max_examples=10, phases=frozenset({RunPhase.BOUNDARY}))


def _sequences(tmp_path: Path) -> RunResult:
    """The sequence phase alone, on the two tools of one bug (a note deleted twice), as sequences shrink
    slowly: its finding has steps, and values reused from their answers."""
    notes = Selection(destructive=DestructiveMode.ALLOW, tools=frozenset({"create_note", "delete_note"}))
    return fuzz(python_server("notes_server.py"), selection=notes, max_examples=10, phases=frozenset({RunPhase.SEQUENCE}))


def _corpus_replayed(tmp_path: Path) -> RunResult:
    """The second of two runs on one corpus: the first's reproductions replayed, its findings already seen."""
    book = Selection(destructive=DestructiveMode.ALLOW, tools=frozenset({"book"}))
    target = python_server("reference_server.py", "--bug", "arguments-not-validated")
    fuzz(target, selection=book, corpus=tmp_path / "corpus", envelope=False, max_examples=15)
    return fuzz(target, selection=book, corpus=tmp_path / "corpus", envelope=False, max_examples=15)


def _mirror(tmp_path: Path) -> RunResult:
    selection = Selection(destructive=DestructiveMode.ALLOW, unavailable=frozenset({"admin"}), mirror_tool="mirror")
    return fuzz(python_server("reference_server.py", "--bug", "output-schema"), selection=selection, max_examples=10)


def _made(tmp_path: Path) -> RunResult:
    """A run put together by hand: hostile text, a finding with HTTP headers and no answer, answers
    counted in another order than the report's, a run stopped by --max-time, corpus replays with and
    without a key, a shard's, with a warning."""
    made = made_result()
    add, hostile = made.tools
    with_headers = replace(add.findings[0], headers=(("Mcp-Name", "other"), ("MCP-Protocol-Version", None)), first_seen=False)
    return replace(
        made,
        tools=(
            replace(
                add,
                findings=(with_headers,),
                refused_fields={"a": 3},
                has_output_schema=True,
                seconds={CaseKind.VALID_ARGUMENTS: 0.123456789},
                answers={**add.answers, CaseKind.VALID_ARGUMENTS: {"tool-error": 5, "success": 5}},
            ),  # not in the report's order
            replace(hostile, takes_arguments=False),
        ),
        stopped_early="--max-time 5 s reached",
        out_of_time=True,
        target_restarts=2,
        excluded_tools=("secret",),
        fail_on=Level.ADVISORY,
        seconds=0.04999,
        warnings=("the example database left out: <redis down>",),
        shard=ShardOfRun(2, 3, "0f1e2d", units=("", "add", HOSTILE_TOOL, "(sequences)"), owned=("", "add")),
        replayed=(
            Replayed("corpus/a.json", "STILL FAILING", "answered -32602", FindingKey("unknown-tool", "", "unknown-tool"), Level.MUST),
            Replayed("corpus/b.json", "ERROR", "cannot be read"),
        ),
    )


RUNS: dict[str, Callable[[Path], RunResult]] = {
    "demo": _demo,
    "demo-published-baseline": _demo_published_with_a_baseline,
    "boundary": _boundary,
    "sequences": _sequences,
    "corpus-replayed": _corpus_replayed,
    "mirror": _mirror,
    "made": _made,
}

SHOWN: dict[str, Callable[[RunResult], bool]] = {
    "demo": lambda result: len(result.findings) > 5 and any(summary.tool == "" for summary in result.tools),
    "demo-published-baseline": lambda result: (
        bool(result.stale_baseline)
        and any(f.key in result.baseline for f in result.findings)
        and any(f.rule.id == "malformed-request" for f in result.findings)
    ),
    "boundary": lambda result: any(summary.schema_coverage and summary.boundary_cases for summary in result.tools) and bool(result.findings),
    "sequences": lambda result: (
        any(f.case is CaseKind.SEQUENCE and f.steps and f.judged_as for f in result.findings) and any(step.uses for f in result.findings for step in f.steps)
    ),
    "corpus-replayed": lambda result: (
        any(r.status == "STILL FAILING" and r.level is not None for r in result.replayed) and any(not f.first_seen for f in result.findings)
    ),
    "mirror": lambda result: (
        any(f.case in (CaseKind.VALID_OUTPUT, CaseKind.INVALID_OUTPUT) for f in result.findings) and any(summary.has_output_schema for summary in result.tools)
    ),
    "made": lambda result: result.out_of_time and bool(result.findings[0].headers) and result.shard is not None and bool(result.warnings),
}
"""What each run must hold for its round trip to prove something."""


@pytest.mark.slow
@pytest.mark.parametrize("name", RUNS)
def test_a_report_reads_back_into_the_run_it_was_written_from(name: str, tmp_path: Path) -> None:
    result = RUNS[name](tmp_path)
    assert SHOWN[name](result), f"the {name} run lacks what its round trip is meant to show"
    _json_report.write(result, tmp_path / "r.json")
    back = load(tmp_path / "r.json")
    assert back == result
    assert _json_report.as_json(back) == _json_report.as_json(result)
    for format_name, render in RENDERINGS.items():
        assert render(back) == render(result), f"{format_name} differs"


def _document() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(json.dumps(_json_report.as_json(_made(Path()))))
    return document


DELETE = object()


def _set(path: str, value: object) -> Callable[[dict[str, Any]], object]:
    """A change to the document: the value at `path` (`tools.0.casesSent`) set to `value`, or
    deleted when `value` is DELETE."""

    def change(document: dict[str, Any]) -> object:
        *parents, last = [int(part) if part.isdigit() else part for part in path.split(".")]
        container: Any = document
        for part in parents:
            container = container[part]
        if value is DELETE:
            del container[last]
        else:
            container[last] = value
        return document

    return change


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda document: [document],
            "r.json is not an mcp-toolfuzz JSON report: it holds a list of 1 item; expected the JSON report `mcp-toolfuzz run --report json:PATH` writes",
        ),
        (
            lambda document: {"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0", "runs": []},
            'r.json is not an mcp-toolfuzz JSON report: it has no "format" and "tool": {"name": "mcp-toolfuzz"}',
        ),
        (_set("format", 2), f"r.json is a JSON report of format 2 (by mcp-toolfuzz {__version__}); this mcp-toolfuzz ({__version__}) reads format 1"),
        (
            lambda document: {**document, "protocolVersion": "all", "revisions": [document]},
            "r.json is the report of a run under every revision (--protocol-version all), which cannot be read back (to merge it) as one run",
        ),
        (_set("seed", "5"), 'r.json: seed is the string "5"; expected an integer'),
        (_set("targetRestarts", True), "r.json: targetRestarts is true; expected an integer"),
        (
            _set("tools.0.refusedFields", DELETE),
            f"r.json: tools[0].refusedFields is missing; expected an object (as every JSON report of mcp-toolfuzz {__version__} has)",
        ),
        (_set("tools.1.answers", []), "r.json: tools[1].answers is a list of 0 items; expected an object"),
        (_set("tools.0.casesSent.bogus", 1), 'r.json: a key of tools[0].casesSent is the string "bogus"; expected a case kind: valid-arguments, '),
        (
            _set("findings.0.rule", "no-such-rule"),
            'r.json: findings[0].rule is the string "no-such-rule"; expected the id of a rule of '
            "profile sep-2145 under 2025-11-25: unknown-tool, invalid-arguments, ",
        ),
        (_set("findings.1.case", "bogus"), 'r.json: findings[1].case is the string "bogus"; expected a case kind: valid-arguments, '),
        (_set("profile", "strict"), 'r.json: profile is the string "strict"; expected a profile: sep-2145, published, 2025-11-25'),
        (_set("failOn", "MUST"), 'r.json: failOn is the string "MUST"; expected a level: must, should, advisory'),
        (_set("tools.0.findings", []), "r.json: tools[1].findings[0] is the number 1; expected 0: each finding's place in findings once"),
        (_set("tools.1.findings", []), "r.json: findings[1] is in no tool's findings; expected every finding in one tool's, in order"),
        (_set("findings.0.headers.Mcp-Name", 1), 'r.json: findings[0].headers["Mcp-Name"] is the number 1; expected null or a string'),
        (_set("replayed.0.level", "must"), 'r.json: replayed[0].level is the string "must"; expected null or a level: MUST, SHOULD, advisory'),
    ],
)
def test_a_document_that_is_not_a_report_is_one_line_naming_the_file_the_place_and_what_was_expected(
    change: Callable[[dict[str, Any]], object],
    message: str,
) -> None:
    with pytest.raises(ReportError) as raised:
        result_from_json(change(_document()), "r.json")
    assert isinstance(raised.value, HarnessError) and raised.value.exit_code == 2
    assert str(raised.value).startswith(message) and "\n" not in str(raised.value), str(raised.value)


def test_a_file_that_is_not_json_or_not_there_is_named(tmp_path: Path) -> None:
    (tmp_path / "r.json").write_text('{"format": 1,')
    with pytest.raises(ReportError, match=r"r\.json is not JSON \(.*\); expected the JSON report"):
        load(tmp_path / "r.json")
    with pytest.raises(ReportError, match=r"nope\.json cannot be read: No such file or directory"):
        load(tmp_path / "nope.json")
