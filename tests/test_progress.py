"""Live progress: the engine reports what runs, cases sent and findings every half second; the
terminal redraws one line in place on a terminal, prints a plain line now and then otherwise."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

from fuzz.engine.events import Event, Progress, ToolFinished
from fuzz.engine.options import RunOptions
from fuzz.engine.run import run
from fuzz.judging.findings import ToolSummary
from fuzz.reports.terminal import TerminalReporter
from tests.conftest import ALL_TOOLS, mcp_toolfuzz, python_server


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.slow
def test_the_engine_reports_progress_while_explorations_run() -> None:
    events: list[Event] = []
    options = RunOptions(target=python_server("lax_server.py"), seed=1, max_examples=200, timeout=5, selection=ALL_TOOLS)
    result = run(options, events.append)
    progress = [event for event in events if isinstance(event, Progress)]
    assert progress, "a run of over a second sends Progress events"
    assert all(event.left is None for event in progress)
    assert [event.cases for event in progress] == sorted(event.cases for event in progress), "cases only grow"
    assert 0 < progress[-1].cases <= sum(summary.total_sent for summary in result.tools)
    assert {tool for event in progress for tool, _ in event.running} <= {"", "toggle", "read_lines"}
    assert any(event.running for event in progress)


def test_a_terminal_gets_one_line_redrawn_and_cleared_before_other_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    stream = _Terminal()
    reporter = TerminalReporter(stream)
    event = Progress((("toggle", "invalid-arguments"), ("", "malformed-request")), 1234, 1, 3.2, 56.7)
    reporter(event)
    reporter(ToolFinished(ToolSummary("toggle", {}, ())))
    written = stream.getvalue()
    assert written.startswith("\r\x1b[K  … toggle invalid-arguments, (envelope) malformed-request · 1,234 cases · 1 finding · 3 s, 57 s left")
    assert "\r\x1b[K  toggle" in written, "the status line is cleared before the next line"
    monkeypatch.setenv("COLUMNS", "40")
    narrow = _Terminal()
    TerminalReporter(narrow)(event)
    assert len(narrow.getvalue().removeprefix("\r\x1b[K")) < 40, "clipped to the terminal's width"


def test_a_log_gets_a_plain_line_now_and_then_and_none_with_no_progress() -> None:
    log = io.StringIO()
    reporter = TerminalReporter(log, plain_progress_every=10)
    for second in range(0, 25):
        reporter(Progress((("toggle", "valid-arguments"),), second * 100, 0, float(second), None))
    lines = [line for line in log.getvalue().splitlines() if line.startswith("  progress: ")]
    assert len(lines) == 2 and "\x1b" not in log.getvalue()
    quiet = io.StringIO()
    silent = TerminalReporter(quiet, progress=False)
    silent(Progress((), 5, 0, 100.0, None))
    assert quiet.getvalue() == ""


@pytest.mark.slow
def test_no_progress_is_an_option() -> None:
    run = mcp_toolfuzz("run", "--no-progress", "--no-corpus", "--max-examples", "8", timeout=120)
    assert run.returncode == 1 and "progress:" not in run.stdout and "\x1b" not in run.stdout, run.stderr


@pytest.mark.slow
def test_a_pseudo_terminal_shows_progress_redrawn_and_a_pipe_shows_no_control_characters(tmp_path) -> None:
    command = [
        sys.executable,
        "-m",
        "fuzz",
        "run",
        "--no-corpus",
        "--seed",
        "1",
        # Two seconds at least, whatever the machine's speed: the status line is redrawn every half second.
        "--max-examples",
        "100000",
        "--max-time",
        "2",
        "--",
        *python_server("lax_server.py").command,
    ]
    # Bytes, not text: text mode would turn each "\r" into a newline.
    in_a_terminal = subprocess.run(["script", "-qec", " ".join(command), "/dev/null"], capture_output=True, timeout=180, cwd=tmp_path)
    shown = in_a_terminal.stdout.decode()
    assert in_a_terminal.returncode == 1, shown[-2000:]
    assert shown.count("\r\x1b[K  … ") >= 2, "the status line is redrawn in place"
    piped = subprocess.run(command, capture_output=True, timeout=180, cwd=tmp_path)
    assert piped.returncode == 1 and b"\x1b" not in piped.stdout and b"\r" not in piped.stdout
