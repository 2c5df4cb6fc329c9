"""Worker processes (`--processes N`, `fuzz.engine._processes`): the tools split between processes, each
with its own copy of the target, merged into one run; that the findings do not depend on the
process count is checked in test_corpus (same seed, 1, 2 and 3 processes, the same report)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from fuzz.engine._processes import assign

SERVERS = Path(__file__).parent / "servers"
REFERENCE = (sys.executable, str(SERVERS / "reference_server.py"))


def _harness(*arguments: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fuzz", *arguments], capture_output=True, text=True, timeout=timeout)


def test_each_tool_goes_to_one_process_the_least_loaded_by_case_kinds() -> None:
    assert assign([1, 4, 4, 3, 2], 2) == [0, 1, 0, 1, 0]
    assert assign([5, 5, 5], 1) == [0, 0, 0]
    assert assign([0, 0, 0], 3) == [0, 1, 2], "a tool with no kind to run (a skipped one) still counts"
    owners = assign([4] * 9, 4)
    assert sorted(owners.count(number) for number in range(4)) == [2, 2, 2, 3]


@pytest.mark.slow
def test_every_process_fuzzes_its_own_copy_of_the_target_and_one_report_has_every_tool(tmp_path: Path) -> None:
    started = tmp_path / "started"
    command = f"echo $$ >> {started}; exec {' '.join(REFERENCE)} --bug unknown-tool"
    report = tmp_path / "report.json"
    run = _harness(
        "run",
        "--seed",
        "5",
        "--max-examples",
        "16",
        "--processes",
        "2",
        "--allow-destructive",
        "--no-corpus",
        "--phases",
        "boundary,random",
        "--tries",
        "0",
        "--report",
        f"json:{report}",
        "--",
        "sh",
        "-c",
        command,
    )
    assert run.returncode == 1, run.stdout[-2000:] + run.stderr
    assert len(set(started.read_text().split())) == 2, "two processes, two copies of the server (the sequence phase and the tries, off here, start their own)"
    document = json.loads(report.read_text())
    listed = [line.split()[0] for line in run.stdout.splitlines() if line.startswith("  ") and " cases  " in line]
    assert [tool["name"] or "(envelope)" for tool in document["tools"]] == listed, "tools reported in plan order, once each (the envelope named null)"
    assert len(listed) >= 3 and listed[0] == "(envelope)"
    assert {finding["rule"] for finding in document["findings"]} == {"unknown-tool"}
    assert {finding["tool"] for finding in document["findings"]} == set(listed[1:]), "every tool's unknown-tool finding, from both processes"


@pytest.mark.slow
def test_a_server_that_allows_one_copy_at_a_time_is_one_line_naming_processes_1(tmp_path: Path) -> None:
    lock = tmp_path / "server.lock"
    command = ["flock", "--nonblock", str(lock), *REFERENCE]
    two = _harness("run", "--seed", "1", "--max-examples", "8", "--processes", "2", "--no-corpus", "--", *command)
    assert two.returncode == 2, two.stdout[-1500:] + two.stderr
    lines = two.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in two.stderr, two.stderr
    assert "a server that allows one copy at a time needs --processes 1" in lines[0]
    one = _harness("run", "--seed", "1", "--max-examples", "8", "--processes", "1", "--no-corpus", "--", *command)
    assert one.returncode == 0, one.stdout[-1500:] + one.stderr


def _workers_of(pid: int) -> list[int]:
    """The harness's forked worker processes: its children running the same command line (not
    servers). The harness's own process runs the first worker's tools."""
    own = Path(f"/proc/{pid}/cmdline").read_bytes()
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    workers = []
    for child in map(int, children):
        try:
            if Path(f"/proc/{child}/cmdline").read_bytes() == own:
                workers.append(child)
        except OSError:
            continue
    return sorted(workers)


def _start_demo(tmp_path: Path) -> tuple[subprocess.Popen[str], Path]:
    """The demo fuzzed by two processes, returned once `echo` (the first process's, after the
    envelope: see `assign`) is reported finished with its findings; its later tools take long."""
    report = tmp_path / "report.json"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "fuzz",
            "run",
            "--seed",
            "3",
            "--max-examples",
            "200",
            "--tool-max-examples",
            "divide=100000",
            "--tool-max-examples",
            "set_volume=8000",
            "--processes",
            "2",
            "--no-progress",
            "--corpus",
            str(tmp_path / "corpus"),
            "--report",
            f"json:{report}",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert process.stdout is not None
    for line in process.stdout:
        if line.startswith("  echo "):
            assert "finding" in line, line
            break
    return process, report


@pytest.mark.slow
def test_a_worker_killed_mid_run_loses_no_finding_it_reported(tmp_path: Path) -> None:
    process, report = _start_demo(tmp_path)
    (forked,) = _workers_of(process.pid)  # the second worker: the harness's own process runs the first
    os.kill(forked, signal.SIGKILL)
    out, err = process.communicate(timeout=300)
    assert "Traceback" not in err, err
    assert "The run stopped early: worker process 2 of 2 ended without a result (exit code -9)" in out, out[-3000:]
    assert process.returncode == 1, "the findings made fail the run"
    document = json.loads(report.read_text())
    tools = [tool["name"] for tool in document["tools"]]
    assert tools[:3] == [None, "add", "echo"], "the tools the killed worker had finished are kept"
    assert {"add", "echo"} <= {finding["tool"] for finding in document["findings"]}
    written = {path.name for path in (tmp_path / "corpus").glob("*/*.json")}
    assert {Path(finding["reproduction"]).name for finding in document["findings"]} <= written


@pytest.mark.slow
def test_ctrl_c_to_the_whole_process_group_stops_every_worker_and_keeps_what_they_found(tmp_path: Path) -> None:
    process, report = _start_demo(tmp_path)
    workers = _workers_of(process.pid)
    assert len(workers) == 1, "the harness's process runs the first worker's tools, one forked process the second's"
    os.killpg(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert "Traceback" not in err, err
    assert "The run stopped early: interrupted (Ctrl-C)" in out
    document = json.loads(report.read_text())
    assert document["stoppedEarly"] == "interrupted (Ctrl-C)"
    assert {"add", "echo"} <= {finding["tool"] for finding in document["findings"]}, "the findings made so far are kept"
    for worker in workers:
        assert not Path(f"/proc/{worker}").exists() or "zombie" in Path(f"/proc/{worker}/status").read_text()
