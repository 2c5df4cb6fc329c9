"""Targets that misbehave over stdio are findings, and the harness outlives them: crashes,
hangs, garbage on stdout, wrong ids, double answers, huge answers, floods; --max-time; configs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fuzz.engine.plan import Selection
from fuzz.faces._cli import main
from fuzz.wire.target import StdioTarget
from strategies import CaseKind
from tests.conftest import SERVERS, fuzz, mcp_toolfuzz, processes_running

MISBEHAVING = (sys.executable, str(SERVERS / "misbehaving_server.py"))


@pytest.mark.slow
def test_each_misbehaviour_is_reported_with_its_rule_and_a_minimal_request() -> None:
    marker = f"--label=misbehaving-{os.getpid()}-{time.monotonic_ns()}"
    tools = frozenset({"crash", "hang", "garbage", "wrong_id", "double"})
    result = fuzz(StdioTarget((*MISBEHAVING, marker)), max_examples=10, timeout=1.0, selection=Selection(tools=tools), envelope=False)
    assert not result.stopped_early and result.exit_code == 1
    expected = {
        "crash": "target-alive",
        "hang": "request-answered",
        "garbage": "stdout-not-protocol",
        "wrong_id": "response-well-formed",
        "double": "response-well-formed",
    }
    assert {(f.tool, f.rule.id) for f in result.findings} == set(expected.items()), [f.message for f in result.findings]
    for finding in result.findings:
        assert finding.request["params"]["arguments"] == {"n": 100}, finding.message
    crash = next(f for f in result.findings if f.tool == "crash")
    # (quoted plainly, or after "[N other requests in flight]" when another exploration's request was out: test_stderr_provenance)
    assert any(line.endswith("fatal: n too large") for line in crash.stderr) and "exited (code 3)" in crash.why
    assert result.target_restarts >= 1
    assert processes_running(marker) == [], "the harness left the target running"


HUGE_ANSWERS = (("huge.n", 100), ("flood.n", 100))
"""Known-good values (`--argument`) that make every valid call to `huge` and `flood` misbehave."""


def test_huge_answers_and_floods_of_notifications_are_answers_like_any_other() -> None:
    """A 20 MB answer is an answer under a --max-answer-size above it, and an unreadable one on
    its own request under the default 16 MiB; a flood of notifications is no finding."""
    tools = frozenset({"huge", "flood"})
    # n=100 given as a known-good value: every valid call gets the 20 MB answer (or the flood),
    # whatever the seed draws (three examples may draw no n of 100 or more).
    result = fuzz(
        StdioTarget(MISBEHAVING),
        max_examples=3,
        timeout=10,
        selection=Selection(tools=tools),
        envelope=False,
        max_answer_size=32 * 2**20,
        known_arguments=HUGE_ANSWERS,
    )
    assert result.findings == () and not result.stopped_early
    assert all(sum(summary.cases_sent.values()) >= 3 for summary in result.tools)
    assert all(summary.answers[CaseKind.VALID_ARGUMENTS].get("success", 0) >= 1 for summary in result.tools), result.tools
    capped = fuzz(StdioTarget(MISBEHAVING), max_examples=3, timeout=10, selection=Selection(tools=tools), envelope=False, known_arguments=HUGE_ANSWERS)
    (oversized,) = capped.findings
    assert (oversized.rule.id, oversized.tool) == ("response-well-formed", "huge") and "past the size limit" in oversized.why
    assert oversized.request["params"]["arguments"] == {"n": 100} and capped.target_restarts == 0


@pytest.mark.slow
def test_max_time_is_honoured_while_the_target_hangs_and_findings_are_kept(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    started = time.monotonic()
    run = mcp_toolfuzz(
        "run",
        "--max-time",
        "10",
        "--timeout",
        "60",
        "--tools",
        "crash,hang",
        "--seed",
        "1",
        "--max-examples",
        "50",
        "--report",
        f"json:{report}",
        "--",
        *MISBEHAVING,
        timeout=120,
    )
    elapsed = time.monotonic() - started
    document = json.loads(report.read_text())
    # The run itself stops within the grace of 3 s; the process also pays for Python's start
    # and the target's teardown, which a loaded machine stretches.
    assert document["seconds"] < 10 + 3, document["seconds"]
    assert elapsed < 10 + 15, f"--max-time 10 took {elapsed:.1f} s in all"
    assert document["stoppedEarly"] == "--max-time 10 s reached", run.stdout
    # `crash` (fuzzed first) was found and shrunk before the hang began; the run exits 1 for it.
    assert [(f["tool"], f["rule"]) for f in document["findings"]] == [("crash", "target-alive")]
    assert run.returncode == 1 and "Traceback" not in run.stderr


@pytest.mark.slow
def test_a_time_boxed_run_without_violations_exits_zero() -> None:
    run = mcp_toolfuzz("run", "--max-time", "2", "--max-examples", "100000", "--tools", "slow", "--timeout", "5", "--no-corpus", "--", *MISBEHAVING, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "--max-time 2 s reached" in run.stdout


@pytest.mark.slow
def test_ctrl_c_kills_the_target_and_its_children(tmp_path: Path) -> None:
    marker = f"--label=interrupted-{os.getpid()}-{time.monotonic_ns()}"
    process = subprocess.Popen(
        [sys.executable, "-m", "fuzz", "run", "--tools", "hang", "--timeout", "60", "--no-corpus", "--processes", "2", "--", *MISBEHAVING, marker],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 20
    while len(processes_running(marker)) < 4 and time.monotonic() < deadline:
        time.sleep(0.1)
    # At least: a target being started (forked, not yet exec'd) shows the harness's command line for a moment.
    assert len(processes_running(marker)) >= 4, "the harness (the first worker), the second worker's process and their targets should be running"
    time.sleep(1.0)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=30)
    assert "interrupted (Ctrl-C)" in stdout and "Traceback" not in stderr
    assert processes_running(marker) == [], stdout[-3000:] + stderr[-3000:]


@pytest.mark.slow
def test_a_server_from_an_mcp_servers_config_with_env(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "other": {"url": "http://127.0.0.1:9/mcp"},
                    "misbehaving": {"command": MISBEHAVING[0], "args": [MISBEHAVING[1], "--label=${LABEL}"], "env": {"MISBEHAVING_TOKEN": "${TOKEN}"}},
                }
            }
        )
    )
    env = {"LABEL": "from-config", "TOKEN": "env-secret-8c1d"}
    run = mcp_toolfuzz(
        "run",
        "--config",
        str(config),
        "--server",
        "misbehaving",
        "--tools",
        "double",
        "--seed",
        "3",
        "--max-examples",
        "16",
        "--timeout",
        "0.5",
        "--report",
        f"json:{tmp_path / 'r.json'}",
        timeout=120,
        env=env,
    )
    assert run.returncode == 1, run.stderr
    target = json.loads((tmp_path / "r.json").read_text())["target"]
    assert target["command"][-1] == "--label=from-config" and target["env"] == {"MISBEHAVING_TOKEN": "***"}
    assert "env-secret-8c1d" not in run.stdout + run.stderr + "".join(p.read_text() for p in tmp_path.rglob("*.json"))


def test_bad_configs_are_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    two = tmp_path / "two.json"
    two.write_text(json.dumps({"mcpServers": {"a": {"command": "x"}, "b": {"type": "sse", "url": "http://x"}}}))
    cases = [
        (["--config", str(broken)], "is not JSON"),
        (["--config", str(two)], "configures 2 servers ('a', 'b'); choose one with --server NAME"),
        (["--config", str(two), "--server", "b"], "legacy HTTP+SSE transport"),
        (["--config", str(two), "--server", "c"], "no server named 'c'"),
        (["--config", str(tmp_path / "missing.json")], "could not read the config"),
        (["--url", "ftp://example"], "is not an http:// or https:// URL"),
        (["--header", "A: b"], "--header goes with --url"),
    ]
    for arguments, expected in cases:
        assert main(["run", *arguments]) == 2, arguments
        (line,) = capsys.readouterr().err.strip().splitlines()
        assert line.startswith("mcp-toolfuzz: ") and expected in line, line
