"""The sequence phase: state learned from answers, which tools take part, the fixed server, and
failures dressed as successes. The bugs only sequences reach, shrunk to the steps they need, and
their reproductions: tests/test_sequence_reproductions.py (one run of the notes server for both)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import trio

from fuzz.engine.options import RunOptions
from fuzz.engine.phases._state_recheck import NOT_ON_A_FRESH_TARGET, checked_on_a_fresh_target
from fuzz.engine.plan import DestructiveMode, Selection, may_take_part
from fuzz.judging._dressed_errors import dressed_error
from fuzz.judging.findings import Finding
from fuzz.judging.oracle import Criteria
from fuzz.judging.rules import RULES_BY_ID
from fuzz.wire.target import StdioTarget, open_target
from strategies import CaseKind, Tool
from strategies.learning import family, found_at, learned_from
from tests.conftest import mcp_toolfuzz, stdlib_server

NOTES = stdlib_server("notes_server.py")


def _run(tmp_path: Path, *arguments: str, server: list[str] = NOTES) -> dict[str, Any]:
    report = tmp_path / "r.json"
    run = mcp_toolfuzz("run", "--no-corpus", "--no-progress", "--report", f"json:{report}", *arguments, "--", *server, timeout=600, cwd=tmp_path)
    assert run.returncode in (0, 1), run.stdout + run.stderr
    assert "Traceback" not in run.stdout + run.stderr
    document: dict[str, Any] = json.loads(report.read_text())
    return document


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("id", "id"),
        ("note_id", "id"),
        ("noteId", "id"),
        ("ID", "id"),
        ("uuid", "id"),
        ("userKey", "id"),
        ("slug", "id"),
        ("name", "name"),
        ("sheet_name", "name"),
        ("fileName", "name"),
        ("valid", None),
        ("paid", None),
        ("title", None),
        ("identity", None),
        ("", None),
    ],
)
def test_ids_and_names_are_matched_by_the_last_word_of_a_key(name: str, expected: str | None) -> None:
    assert family(name) == expected


def test_values_are_learned_from_structured_content_and_json_text_with_where_they_were() -> None:
    result = {
        "content": [{"type": "text", "text": json.dumps({"items": [{"noteId": 7}], "title": "x"})}],
        "structuredContent": {"id": "ab12", "owner": {"name": "ann"}, "count": 3},
    }
    learned = learned_from(result)
    assert [(item.family, item.key, item.value) for item in learned] == [("id", "id", "ab12"), ("name", "name", "ann"), ("id", "noteId", 7)]
    assert [found_at(result, item.path) for item in learned] == ["ab12", "ann", 7]
    assert learned_from({"content": [{"type": "text", "text": "id: 5"}]}) == []


def test_only_tools_a_single_case_may_call_with_valid_arguments_take_part() -> None:
    def tool(name: str, **annotations: bool) -> Tool:
        return Tool.from_listing({"name": name, "inputSchema": {"type": "object"}, "annotations": annotations})

    safe, destructive, plain = tool("get", readOnlyHint=True), tool("delete", destructiveHint=True), tool("plain")
    assert may_take_part(safe, Selection())
    assert not may_take_part(destructive, Selection()) and not may_take_part(plain, Selection())
    assert may_take_part(destructive, Selection(destructive=DestructiveMode.ALLOW))
    assert not may_take_part(safe, Selection(exclude_tools=frozenset({"get"})))
    assert not may_take_part(safe, Selection(unavailable=frozenset({"get"})))


@pytest.mark.slow
def test_without_the_bugs_no_sequence_finds_anything(tmp_path: Path) -> None:
    document = _run(tmp_path, "--allow-destructive", "--max-examples", "20", "--seed", "2", server=[*NOTES, "--fixed"])
    assert document["findings"] == []
    assert document["options"]["phases"] == ["boundary", "random", "sequence", "tasks", "rounds"]  # the default: every phase


@pytest.mark.slow
def test_destructive_tools_stay_out_of_sequences_by_default(tmp_path: Path) -> None:
    document = _run(tmp_path, "--phases", "sequence", "--max-examples", "30", "--seed", "1")
    assert document["findings"] == [], "get_note after delete needs delete_note, which is destructive"
    summary = next(tool for tool in document["tools"] if tool["name"] == "(sequences)")
    assert summary["casesSent"]["sequence"] > 0


@pytest.mark.slow
def test_a_failure_dressed_as_a_success_is_an_advisory_finding_and_no_success(tmp_path: Path) -> None:
    document = _run(tmp_path, "--allow-destructive", "--max-examples", "10", "--seed", "1", "--tools", "get_note", server=[*NOTES, "--dressed"])
    (finding,) = document["findings"]
    assert (finding["rule"], finding["level"]) == ("error-as-success", "advisory")
    assert document["exitCode"] == 0
    get = next(tool for tool in document["tools"] if tool["name"] == "get_note")
    assert "success" not in get["answers"]["valid-arguments"] and get["answers"]["valid-arguments"]["error-as-success"] > 0


@pytest.mark.parametrize(
    ("result", "arguments", "dressed"),
    [
        ({"content": [{"type": "text", "text": "Error: no such sheet"}]}, {}, True),
        ({"content": [{"type": "text", "text": "  failed - quota exceeded"}]}, {}, True),
        ({"content": [{"type": "text", "text": '{"status": "error", "message": "gone"}'}]}, {}, True),
        ({"content": [], "structuredContent": {"success": False}}, {}, True),
        ({"content": [], "structuredContent": {"error": "not found"}}, {}, True),
        ({"content": [{"type": "text", "text": "Error: x"}]}, {"text": "Error: x"}, False),
        ({"content": [{"type": "text", "text": "Error: x"}], "isError": True}, {}, False),
        ({"content": [{"type": "text", "text": "No errors found: 3 files checked"}]}, {}, False),
        ({"content": [], "structuredContent": {"error": None, "result": 3}}, {}, False),
        ({"content": [], "structuredContent": {"errors": 0, "status": "ok"}}, {}, False),
    ],
)
def test_what_counts_as_a_failure_dressed_as_a_success(result: dict[str, Any], arguments: dict[str, Any], dressed: bool) -> None:
    assert (dressed_error(result, arguments) is not None) == dressed


SERVERS = Path(__file__).parent / "servers"


@pytest.mark.slow
@pytest.mark.parametrize(
    "server",
    [
        [sys.executable, str(SERVERS / "reference_server.py")],
        [sys.executable, str(SERVERS / "python_sdk_highlevel.py")],
        ["node", str(SERVERS / "typescript" / "server.mjs")],
    ],
    ids=["reference", "python-sdk", "typescript-sdk"],
)
def test_sequences_find_nothing_on_compliant_servers(server: list[str], tmp_path: Path) -> None:
    document = _run(tmp_path, "--phases", "sequence", "--allow-destructive", "--max-examples", "20", "--seed", "3", server=server)
    assert document["findings"] == []
    summary = next(tool for tool in document["tools"] if tool["name"] == "(sequences)")
    assert summary["casesSent"]["sequence"] >= 20


def _finding_for(rule_id: str, tool: str, arguments: dict[str, Any]) -> Finding:
    request = {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}
    return Finding(
        rule=RULES_BY_ID[rule_id],
        tool=tool,
        case=CaseKind.VALID_ARGUMENTS,
        label="valid arguments",
        request=request,
        response=None,
        message="tool-failure (MUST): ...",
    )


@pytest.mark.parametrize(
    ("server", "finding", "depended"),
    [
        ([*NOTES, "--sheets"], _finding_for("tool-failure", "read_sheet", {"name": ""}), True),
        ([sys.executable, "-m", "fuzz.demo_server"], _finding_for("tool-failure", "divide", {"a": 0, "b": 0}), False),
    ],
    ids=["state-left-by-earlier-cases", "the-tool-s-own-bug"],
)
def test_a_single_case_finding_that_needs_earlier_calls_says_so(server: list[str], finding: Finding, depended: bool) -> None:
    options = RunOptions(target=StdioTarget(tuple(server)), seed=1)

    async def check() -> Finding:
        async with open_target(options.target, startup_timeout=20) as target:
            tool = next(tool for tool in target.tools if tool.name == finding.tool)
            return await checked_on_a_fresh_target(finding, tool, options, Criteria(), target.protocol_version)

    checked = trio.run(check)
    assert (NOT_ON_A_FRESH_TARGET in checked.message) is depended
    assert checked.request == finding.request
