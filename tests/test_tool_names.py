"""The tool-name rule (MCP 2025-11-25, server/tools, *Tool Names*): each listed name outside the
section gets one advisory finding, quoted escaped; compliant names get none. The default
profile judges names under every revision, the published one only under revisions with the
section (2025-11-25 on).

The end-to-end tests run the CLI, as a user does, against `servers/tool_names_server.py` (bad and
good names side by side, otherwise compliant) and the compliant reference server."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from fuzz.engine.plan import (
    BODYLESS_KINDS,
    GENERAL_KINDS,
    DestructiveMode,
    Selection,
    plan,
)
from fuzz.judging.tool_names import listing_findings, name_problems, quoted
from strategies import CaseKind, Tool
from tests.conftest import SERVERS, mcp_toolfuzz


def _server_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("tool_names_server", SERVERS / "tool_names_server.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SERVER = _server_module()


def _tool(name: str, **schema: Any) -> Tool:
    return Tool.from_listing({"name": name, "inputSchema": {"type": "object", **schema}})


def _raw_free(text: str) -> bool:
    """No control character (newline, ESC, ...) and nothing beyond ASCII: safe in any log."""
    return all(" " <= character <= "~" for character in text)


# ------------------------------------------------------------------ the requirements


@pytest.mark.parametrize("name", ["getUser", "DATA_EXPORT_v2", "admin.tools.list", "x", "m" * 128, "a-b_c.D9"])
def test_compliant_names_have_no_problem(name: str) -> None:
    """The section's own examples, and its bounds."""
    assert name_problems(name) == ()


@pytest.mark.parametrize(
    ("name", "times", "expected"),
    [
        ("", 1, ["is empty"]),
        ("n" * 129, 1, ["is 129 characters long"]),
        ("get user", 1, ['" " (space)']),
        ("a,b", 1, ['"," (comma)']),
        ("user/update", 1, ['"/"']),
        ("caf\u00e9", 1, ['"\\u00e9"']),
        ("\n::error title=x::boom", 1, ['"\\n"', '":"']),
        ("\x1b[31mred", 1, ['"\\u001b"', '"["']),
        ("dup", 2, ["is listed 2 times (names SHOULD be unique within a server)"]),
        ("a b" + "c" * 130, 3, ["is 133 characters long", '" " (space)', "is listed 3 times"]),
    ],
)
def test_each_requirement_broken_is_named(name: str, times: int, expected: list[str]) -> None:
    text = "; ".join(name_problems(name, times))
    for part in expected:
        assert part in text, text
    assert _raw_free(text)


def test_names_are_quoted_escaped_and_cut() -> None:
    assert quoted("\n::error title=x::boom") == '"\\n::error title=x::boom"'
    assert quoted("\x1b[2J\u202egnp.exe") == '"\\u001b[2J\\u202egnp.exe"'
    assert quoted("##[error]x ##vso[task.setvariable]y") == '"##\\u005berror]x ##vso\\u005btask.setvariable]y"'
    assert json.loads(quoted("##[error]x")) == "##[error]x"
    long = quoted("z" * 1000)
    assert len(long) < 130 and long.endswith('..."')


def test_one_finding_per_bad_name_of_the_tools_asked_for() -> None:
    """Judged against the whole listing (a duplicate counts though the other copy is not asked
    for); only the names asked for (a process's own tools) get their finding; case-distinct
    names are no duplicate."""
    listing = [_tool(name) for name in ("ok", "Ok", "dup", "bad name", "dup", "\x1b]0;x\x07")]
    found = listing_findings(listing, ["ok", "Ok", "dup", "\x1b]0;x\x07", "not listed"])
    assert list(found) == ["dup", "\x1b]0;x\x07"]
    for name, finding in found.items():
        assert finding.tool == name and finding.rule.id == "tool-name" and finding.case is CaseKind.TOOL_LISTING
        assert finding.rule.level.label == "advisory"
        assert _raw_free(finding.message) and _raw_free(finding.why) and _raw_free(finding.expected)
        assert "Tool names SHOULD be unique within a server." in finding.message
    assert [entry["name"] for entry in found["dup"].response["result"]["tools"]] == ["dup", "dup"]  # type: ignore[index]


def test_a_name_listed_twice_is_fuzzed_once_and_only_by_what_needs_no_definition_if_they_differ() -> None:
    allow = Selection(destructive=DestructiveMode.ALLOW)
    same = plan([_tool("t", required=["a"]), _tool("u", required=["c"]), _tool("t", required=["a"])], allow)
    assert [(p.tool.name, p.kinds) for p in same if p.tool] == [("t", GENERAL_KINDS), ("u", GENERAL_KINDS)]
    differing = plan([_tool("t", required=["a"]), _tool("t", required=["b"])], allow)
    (only,) = differing
    assert only.kinds == BODYLESS_KINDS
    assert {skip.case for skip in only.skips} == {CaseKind.VALID_ARGUMENTS, CaseKind.INVALID_ARGUMENTS}
    assert "2 tools of this name with different definitions" in only.skips[0].reason


# ------------------------------------------------------------------ end to end, through the CLI


def _run(tmp_path: Path, server: str, *options: str) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    report = tmp_path / "report.json"
    run = mcp_toolfuzz(
        "run",
        "--seed",
        "3",
        "--max-examples",
        "3",
        "--no-corpus",
        "--no-progress",
        "--report",
        f"json:{report}",
        *options,
        "--",
        sys.executable,
        str(SERVERS / server),
        timeout=120,
    )
    assert report.exists(), run.stderr
    return run, json.loads(report.read_text())


def _name_findings(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [finding for finding in document["findings"] if finding["rule"] == "tool-name"]


@pytest.mark.slow
@pytest.mark.parametrize("processes", ["1", "2"])
def test_exactly_the_bad_names_get_one_advisory_finding_each(tmp_path: Path, processes: str) -> None:
    """Once per run with worker processes too (each tool's owner judges its name)."""
    run, document = _run(tmp_path, "tool_names_server.py", "--processes", processes)
    assert document["protocolVersion"] == "2025-11-25"
    found = _name_findings(document)
    assert sorted(finding["tool"] for finding in found) == sorted(SERVER.BAD), [f["message"] for f in found]
    assert [finding for finding in document["findings"] if finding["rule"] != "tool-name"] == []
    assert all(finding["level"] == "advisory" and finding["case"] == "tool-listing" for finding in found)
    assert all(_raw_free(finding["message"]) for finding in found)
    messages = {finding["tool"]: finding["message"] for finding in found}
    assert 'the listed tool name "\\n::error title=x::boom" has characters outside' in messages[SERVER.WORKFLOW_COMMAND]
    assert '"\\u001b[31mred"' in messages[SERVER.COLOURED]
    assert "is 129 characters long (names SHOULD be between 1 and 128 characters)" in messages[SERVER.LONG_BAD]
    assert "is listed 2 times" in messages["dup"]
    assert '" " (space)' in messages["get user"] and '"," (comma)' in messages["a,b"]
    assert document["coverage"]["tool-name"]["exercised"] is True
    assert run.returncode == 0, "advisory findings fail no run by default"


@pytest.mark.slow
def test_the_rule_follows_rules_options_and_fail_on(tmp_path: Path) -> None:
    _, document = _run(tmp_path, "tool_names_server.py", "--exclude-rules", "tool-name")
    assert _name_findings(document) == [] and "tool-name" not in document["coverage"]
    run, document = _run(tmp_path, "tool_names_server.py", "--rules", "tool-name", "--fail-on", "advisory")
    assert len(_name_findings(document)) == len(SERVER.BAD) and run.returncode == 1


@pytest.mark.slow
def test_under_a_revision_without_the_section_only_the_default_profile_judges_names(tmp_path: Path) -> None:
    """sep-2145 judges by the accepted texts whatever the revision; published by the spoken
    revision's own text, and 2025-06-18 says nothing of names."""
    _, document = _run(tmp_path, "tool_names_server.py", "--protocol-version", "2025-06-18")
    assert document["protocolVersion"] == "2025-06-18"
    assert sorted(finding["tool"] for finding in _name_findings(document)) == sorted(SERVER.BAD)
    _, document = _run(tmp_path, "tool_names_server.py", "--protocol-version", "2025-06-18", "--profile", "published")
    assert _name_findings(document) == [] and "tool-name" not in document["coverage"]
    assert "tool-name" not in {rule["id"] for rule in document["rules"]}
    _, document = _run(tmp_path, "tool_names_server.py", "--profile", "published")
    assert document["protocolVersion"] == "2025-11-25"
    assert sorted(finding["tool"] for finding in _name_findings(document)) == sorted(SERVER.BAD)


def test_the_compliant_reference_server_gets_no_name_finding(tmp_path: Path) -> None:
    _, document = _run(tmp_path, "reference_server.py")
    assert document["protocolVersion"] == "2026-07-28"
    assert _name_findings(document) == [], [f["message"] for f in document["findings"]]
    assert document["coverage"]["tool-name"]["exercised"] is True
