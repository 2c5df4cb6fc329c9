"""`--protocol-version`: the handshake revisions, forced (the stateless 2026-07-28 revision has
`test_stateless_revision`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fuzz.wire.handshake import ACCEPTED_PROTOCOL_VERSIONS
from tests.conftest import SERVERS, mcp_toolfuzz

REFERENCE = [sys.executable, str(SERVERS / "reference_server.py")]
"""Answers initialize with 2025-06-18, whatever it is offered."""


def _harness(*arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return mcp_toolfuzz(*arguments, timeout=180, cwd=cwd)


@pytest.mark.slow
@pytest.mark.parametrize("version", ACCEPTED_PROTOCOL_VERSIONS)
def test_the_demo_is_fuzzed_under_the_revision_asked_for_and_its_reproductions_replay_it(tmp_path: Path, version: str) -> None:
    corpus, report = tmp_path / "corpus", tmp_path / "report.json"
    run = _harness(
        "run",
        "--seed",
        "3",
        "--max-examples",
        "8",
        "--tools",
        "add",
        "--protocol-version",
        version,
        "--corpus",
        str(corpus),
        "--report",
        f"json:{report}",
        "--no-progress",
        cwd=tmp_path,
    )
    assert run.returncode == 1, run.stdout[-2000:] + run.stderr
    document = json.loads(report.read_text())
    assert document["protocolVersion"] == version and document["options"]["protocolVersion"] == version
    files = sorted(corpus.glob("*/*.json"))
    assert files
    for path in files:
        reproduction = json.loads(path.read_text())
        assert reproduction["protocolVersion"] == version
        assert reproduction["handshake"][0]["params"]["protocolVersion"] == version, "the handshake offered it"
    replay = _harness("replay", str(corpus), cwd=tmp_path)
    assert replay.returncode == 1 and "STILL FAILING" in replay.stdout, replay.stdout


@pytest.mark.slow
def test_a_revision_the_target_does_not_answer_is_one_line_and_exit_2(tmp_path: Path) -> None:
    run = _harness("run", "--max-examples", "4", "--no-corpus", "--protocol-version", "2025-11-25", "--", *REFERENCE, cwd=tmp_path)
    assert run.returncode == 2
    (line,) = run.stderr.strip().splitlines()
    assert "--protocol-version 2025-11-25: the target answered initialize with protocolVersion '2025-06-18'" in line
    same = _harness("run", "--max-examples", "4", "--no-corpus", "--protocol-version", "2025-06-18", "--allow-destructive", "--", *REFERENCE, cwd=tmp_path)
    assert same.returncode == 0, same.stdout[-2000:]


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("2025-13-01", "'2025-13-01' is not an MCP revision mcp-toolfuzz speaks: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28, or all"),
    ],
)
def test_a_revision_not_spoken_is_refused_in_one_line(tmp_path: Path, value: str, says: str) -> None:
    run = _harness("run", "--protocol-version", value, cwd=tmp_path)
    assert run.returncode == 2 and says in run.stderr and "Traceback" not in run.stderr


@pytest.mark.slow
def test_the_plugin_takes_the_revision_as_a_keyword(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "tests").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[tool.pytest.ini_options]\ntestpaths = ['tests']\n")
    (project / "tests" / "test_invariants.py").write_text(
        "from fuzz.pytest_plugin import invariants\n\n"
        f"test_newest = invariants(*{REFERENCE!r}, protocol_version='2025-11-25', tools=['book'], max_examples=8)\n"
        f"test_answered = invariants(*{REFERENCE!r}, protocol_version='2025-06-18', tools=['book'], max_examples=8)\n"
    )
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q"], cwd=project, capture_output=True, text=True, timeout=180)
    assert run.returncode == 2, run.stdout[-2000:]
    assert run.stdout.count("ERROR collecting") == 1 and "does not speak 2025-11-25" in run.stdout
