"""`--protocol-version all`: the same fuzzing under every revision a target speaks, one report
with a section per revision, and the differences called out (issue 15).

Each server was probed by hand first; the comments say what it answered.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import junitparser
import pytest
import xmlschema

from tests.conftest import SERVERS, mcp_toolfuzz
from tests.test_stateless_revision import _typescript_v2

pytestmark = pytest.mark.slow
"""Every test here starts real servers or whole runs (the fast tier, `-m "not slow"`, leaves them out)."""

SCHEMAS = Path(__file__).parent / "report_schemas"
HANDSHAKE_REVISIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]
EVERY_REVISION = ["2026-07-28", *HANDSHAKE_REVISIONS]


def _all(
    tmp_path: Path, *command: str, reports: tuple[str, ...] = ("json",), extra: tuple[str, ...] = (), sequences: bool = False
) -> subprocess.CompletedProcess[str]:
    """`run --protocol-version all`; the sequence phase only where a test compares sequences (a
    sequence restarts the server, and the SDK servers cost a second of CPU a start)."""
    written = [argument for kind in reports for argument in ("--report", f"{kind}:{tmp_path / ('r.' + kind)}")]
    phases = () if sequences else ("--phases", "boundary,random")
    return mcp_toolfuzz(
        "run",
        "--no-corpus",
        "--no-progress",
        "--seed",
        "5",
        "--max-examples",
        "8",
        "--timeout",
        "2",
        "--protocol-version",
        "all",
        *phases,
        *written,
        *extra,
        "--",
        *command,
        timeout=300,
        cwd=tmp_path,
    )


def _report(tmp_path: Path) -> dict:  # type: ignore[type-arg]
    return json.loads((tmp_path / "r.json").read_text())


def _difference(report: dict, tool: str, case: str) -> dict:  # type: ignore[type-arg]
    return next(d for d in report["differences"] if (d["tool"], d["case"]) == (tool, case))


def test_the_low_level_sdk_server_classifies_an_unknown_tool_differently_under_the_stateless_revision(tmp_path: Path) -> None:
    """mcp 2.3.0's low-level `Server` speaks every revision; an unknown tool raises inside its
    call handler, which it answers with JSON-RPC error code 0 under the handshake revisions and
    -32603 "Internal server error" under 2026-07-28 (probed by hand). Both break SEP-2145's
    unknown-tool rule; the difference is the code, for the same `{"name": ""}` call."""
    run = _all(tmp_path, sys.executable, str(SERVERS / "python_sdk_lowlevel.py"), reports=("json", "junit", "sarif", "markdown"))
    assert run.returncode == 1, run.stdout + run.stderr
    assert "Traceback" not in run.stderr
    report = _report(tmp_path)
    assert [section["protocolVersion"] for section in report["revisions"]] == EVERY_REVISION
    assert report["unfuzzed"] == [] and report["exitCode"] == 1
    unknown = _difference(report, "add", "unknown-tool")["revisions"]
    assert unknown["2026-07-28"]["findings"] == [{"rule": "unknown-tool", "answer": "JSON-RPC error -32603"}]
    for version in HANDSHAKE_REVISIONS:
        assert unknown[version]["findings"] == [{"rule": "unknown-tool", "answer": "JSON-RPC error 0"}]
        assert unknown[version]["params"] == unknown["2026-07-28"]["params"] == {"name": "", "arguments": {}}
    # Every revision's section is that revision's own whole report.
    for section in report["revisions"]:
        assert {finding["rule"] for finding in section["findings"]} >= {"unknown-tool"}
        assert section["protocolVersion"] == section["options"]["protocolVersion"]
    assert "Differences: " in run.stdout
    assert "    2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05: unknown-tool: JSON-RPC error 0" in run.stdout
    assert run.stdout.count("== under ") == 5

    xmlschema.XMLSchema(SCHEMAS / "JUnit.xsd").validate(tmp_path / "r.junit")
    suites = {suite.name for suite in junitparser.JUnitXml.fromfile(str(tmp_path / "r.junit"))}
    assert {f"mcp-toolfuzz.{version}.add" for version in EVERY_REVISION} <= suites
    schema = json.loads((SCHEMAS / "sarif-schema-2.1.0.json").read_text())
    sarif = json.loads((tmp_path / "r.sarif").read_text())
    jsonschema.validators.validator_for(schema)(schema).validate(sarif)
    assert [run["automationDetails"]["id"] for run in sarif["runs"]] == [f"mcp-toolfuzz/{v}/" for v in EVERY_REVISION]
    markdown = (tmp_path / "r.markdown").read_text()
    assert all(f"## Under {version}: " in markdown for version in EVERY_REVISION)


def test_the_compliant_reference_server_differs_in_nothing_and_passes(tmp_path: Path) -> None:
    """The reference server answers `initialize` with 2025-06-18 whatever it is offered, and
    lists 2026-07-28 in `server/discover`: those two are fuzzed, the others are not spoken."""
    run = _all(
        tmp_path, sys.executable, str(SERVERS / "reference_server.py"), extra=("--unavailable", "admin", "--mirror-tool", "mirror", "--allow-destructive")
    )
    assert run.returncode == 0, run.stdout + run.stderr
    report = _report(tmp_path)
    assert [section["protocolVersion"] for section in report["revisions"]] == ["2026-07-28", "2025-06-18"]
    assert all(section["findings"] == [] for section in report["revisions"])
    assert report["differences"] == []
    unfuzzed = {item["protocolVersion"]: item["reason"] for item in report["unfuzzed"]}
    assert set(unfuzzed) == {"2025-11-25", "2025-03-26", "2024-11-05"}
    assert unfuzzed["2025-11-25"] == "the target answered initialize with protocolVersion '2025-06-18', so it does not speak 2025-11-25"
    assert "Differences: none" in run.stdout


def test_a_modern_only_server_is_fuzzed_under_the_stateless_revision_alone(tmp_path: Path) -> None:
    """The TypeScript SDK v2 with legacy rejected answers `initialize` with -32022 naming
    2026-07-28 as the one revision it supports."""
    run = _all(tmp_path, *_typescript_v2("--modern-only"))
    assert run.returncode == 1, run.stdout + run.stderr
    report = _report(tmp_path)
    assert [section["protocolVersion"] for section in report["revisions"]] == ["2026-07-28"]
    unfuzzed = {item["protocolVersion"]: item["reason"] for item in report["unfuzzed"]}
    assert set(unfuzzed) == set(HANDSHAKE_REVISIONS)
    assert all("-32022" in reason for reason in unfuzzed.values())


def test_a_handshake_only_server_is_fuzzed_under_each_handshake_revision(tmp_path: Path) -> None:
    """The TypeScript SDK 1.32.2 answers `server/discover` with -32601 and negotiates every
    handshake revision it is offered."""
    run = _all(tmp_path, "node", str(SERVERS / "typescript" / "server.mjs"))
    assert run.returncode == 1, run.stdout + run.stderr
    report = _report(tmp_path)
    assert [section["protocolVersion"] for section in report["revisions"]] == HANDSHAKE_REVISIONS
    (unfuzzed,) = report["unfuzzed"]
    assert unfuzzed["protocolVersion"] == "2026-07-28" and "-32601" in unfuzzed["reason"]


def test_a_target_that_answers_under_no_revision_is_one_line_and_exit_2(tmp_path: Path) -> None:
    """Silent to `server/discover` and to `initialize`: the other handshake revisions are not
    tried (each would cost the startup timeout again)."""
    run = _all(tmp_path, sys.executable, "-c", "import time; time.sleep(60)", extra=("--startup-timeout", "1"))
    assert run.returncode == 2
    (line,) = run.stderr.strip().splitlines()
    assert line.startswith("mcp-toolfuzz: --protocol-version all: the target opened under none of the revisions mcp-toolfuzz speaks (")
    assert "2026-07-28: the target did not answer server/discover within 1 s" in line
    assert "2025-11-25: the target did not answer initialize within 1 s" in line
    assert "2025-06-18" not in line


def test_a_baseline_update_under_every_revision_is_refused_in_one_line(tmp_path: Path) -> None:
    run = _all(tmp_path, sys.executable, str(SERVERS / "reference_server.py"), extra=("--baseline", str(tmp_path / "b.json"), "--baseline-update"))
    assert run.returncode == 2
    (line,) = run.stderr.strip().splitlines()
    assert "--baseline-update with --protocol-version all" in line
    assert not (tmp_path / "b.json").exists()


def test_what_one_revision_alone_judged_is_listed_apart_not_hidden_behind_no_differences(tmp_path: Path) -> None:
    """The reference server with its unsupported-version bug (a -32022 without `data.requested`):
    the kind exists under 2026-07-28 alone, so that revision has findings and 2025-06-18 none, and
    nothing both judged differs. The comparison says what it compared, and lists apart what one
    revision alone judged, with its findings (issue 35)."""
    run = _all(
        tmp_path,
        sys.executable,
        str(SERVERS / "reference_server.py"),
        "--bug",
        "unsupported-version",
        extra=("--allow-destructive", "--tools", "book,echo"),
        sequences=True,
    )
    assert run.returncode == 1, run.stdout + run.stderr
    report = _report(tmp_path)
    assert [section["protocolVersion"] for section in report["revisions"]] == ["2026-07-28", "2025-06-18"]
    assert report["differences"] == []
    apart = {(item["tool"], item["case"]): item for item in report["notCompared"]}
    kinds = ("malformed-meta", "unsupported-version", "invalid-input-response")
    assert set(apart) == {(tool, case) for tool in ("book", "echo") for case in kinds} | {("(rounds)", "request-state")}
    for tool in ("book", "echo"):
        item = apart[tool, "unsupported-version"]
        assert item["notJudgedUnder"] == ["2025-06-18"] and list(item["revisions"]) == ["2026-07-28"]
        assert item["revisions"]["2026-07-28"]["findings"] == [{"rule": "unsupported-version", "answer": "JSON-RPC error -32022"}]
        params = item["revisions"]["2026-07-28"]["params"]
        assert params["name"] == tool and params["arguments"], "the envelope case carries arguments the tool takes"
        assert apart[tool, "malformed-meta"]["revisions"]["2026-07-28"]["findings"] == []
    comparison = run.stdout[run.stdout.rindex("\nRevisions\n") :]
    compared = 1 + 2 * 4 + 1  # the envelope's malformed requests, 4 kinds of each tool, and the sequences
    assert f"Differences: none (the same tool and case kind classified differently, of {compared} judged under more than one revision)" in comparison
    assert "Judged under some revisions only: 7 (tool and case kinds not compared" in comparison
    assert "  under 2026-07-28 only: 7, 2 with findings" in comparison
    assert "    book · unsupported-version cases: unsupported-version: JSON-RPC error -32022 · answers: " in comparison
    assert "    without a finding: book malformed-meta, book invalid-input-response, echo malformed-meta and 2 more" in comparison
