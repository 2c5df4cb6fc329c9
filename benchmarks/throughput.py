"""tools/call per second and memory: mcp-toolfuzz against a raw client and two peer fuzzers.

    python benchmarks/throughput.py [--rounds 3] [--seconds 10] [--quick] [--json FILE]

Run it with any Python 3.11+; it runs mcp-toolfuzz and the servers from the repository's
`.venv` (the SDK server needs `mcp`), and makes the peers' venvs under `benchmarks/.venvs/`
on first use (each pinned: mcp-fuzzer 0.7.0; mcp-toolproof 0.3.1 with Hypothesis 6.170.9).

Targets: the bundled demo over stdio, the MCP SDK server `tests/servers/python_sdk_highlevel.py`
over stdio, and the same over Streamable HTTP (started per measurement on 127.0.0.1).
Contenders, each on each target:

- raw 1, raw 4: `raw_client.py`, the handshake, then one valid tools/call again and again for
  `--seconds`, with 1 and 4 requests in flight: the ceiling the server allows;
- toolfuzz: `mcp-toolfuzz run --no-corpus --seed 1 --max-time S --max-examples 100000
  --protocol-version 2025-11-25` (the raw client's and the peers' revision)
  (at its defaults, and in one process with one exploration at a time, `--processes 1 --workers 1`,
  as far as `mcp-toolfuzz run --help` offers those options; "–" when it offers neither), and each
  of its phases alone (`--phases boundary`, `random`, `sequence`: a second table, beside the
  defaults' rate, where `run --help` offers `--phases`);
- toolfuzz on fixed workloads, as a user runs it: `mcp-toolfuzz run --no-corpus --seed 1
  --protocol-version 2025-11-25` with no `--max-time` and the default `--max-examples` (all
  phases), and the same with `--phases boundary,random` and with `--phases sequence` (the phase
  split): a fourth table of their seconds and rates, the defaults' rate over mcp-fuzzer's, and
  the defaults' time over boundary + random's (what the sequence phase adds to a run);
- mcp-fuzzer, toolproof: they take a count budget (mcp-fuzzer has no time limit; toolproof's
  `--max-time` only stops its calls, not its Hypothesis loop), so each is first calibrated per
  target to a budget that runs about `--seconds`, untimed, and then measured with that budget.

Throughput is tools/call requests *the server received* (`servers/counting.py` counts them in
the server process: a fuzzer's own tallies include cases it never sent) over the wall seconds
of the contender's process, start-up and report writing included, as a user waits for them;
for the raw client, over its sending window. Rounds interleave every (target, contender) in an
order shuffled with a fixed seed, so that the machine's noise (shared, two cores) spreads over
all of them; the table gives medians over rounds, and each ratio is the median of the rounds'
ratios (both sides measured close together). A third table gives *distinct* requests per
second: the counter records a digest of each request's tool name and arguments, and a request
that asked for what an earlier one of the same run asked is counted once (the raw clients, one
request again and again, have no column there).

Memory, on the demo, of mcp-toolfuzz (at its defaults and in one process) and of toolproof: a
first run with a fresh HOME, XDG_CACHE_HOME and working directory, then a warm run with the
same ones. The peak of the memory summed over the contender's own processes (mcp-toolfuzz's
worker processes are forked: RSS counts the pages they share with their parent once each, an
upper bound; PSS shares them out), sampled every 50 ms, and the largest single process's peak
RSS (`/usr/bin/time`, else getrusage). And the RSS summed over mcp-toolfuzz's processes over a
long run on the demo, sampled every half second with the server's count, at 10k and 100k
tools/call (`--quick` stops at 10k). And the peak of the whole process tree (the contender, its
workers and every server copy they start; RSS summed) of mcp-toolfuzz's fixed-workload default run
and of toolproof, first and warm. Results go to benchmarks/results/throughput-<date>.json.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import random
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH / "servers"))

from counting import count_in, distinct_in  # noqa: E402
from raw_client import http_ceiling, stdio_ceiling  # noqa: E402

PYTHON = ROOT / ".venv" / "bin" / "python"
TOOLFUZZ = ROOT / ".venv" / "bin" / "mcp-toolfuzz"
COUNTING = BENCH / "servers" / "counting.py"
HOOK = BENCH / "servers" / "hook"
VENVS = BENCH / ".venvs"
RESULTS = BENCH / "results"
TIME = Path("/usr/bin/time")
IN_FLIGHT = 4
SEED = 1
LONG_RUN_MILESTONES = (10_000, 100_000)
MISSING = "–"

RUSAGE_WRAPPER = """
import resource, subprocess, sys
code = subprocess.call(sys.argv[2:])
open(sys.argv[1], "w").write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
sys.exit(code)
"""
"""Where /usr/bin/time is missing: run the command, write its peak RSS (KiB on Linux)."""


@dataclass(frozen=True, slots=True)
class Target:
    name: str
    server: str
    """The argument of servers/counting.py: demo or sdk."""
    http: bool = False


TARGETS = (Target("demo stdio", "demo"), Target("sdk stdio", "sdk"), Target("sdk http", "sdk", http=True))
DEMO = TARGETS[0]


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where a contender points: a stdio command to start, or a running server's URL."""

    count_dir: Path
    command: tuple[str, ...] = ()
    url: str | None = None


@dataclass(frozen=True, slots=True)
class Scratch:
    """Where a contender runs. Its working directory and HOME (XDG_CACHE_HOME under it) are
    kept across its runs, so that every contender is measured warm, as a developer reruns it:
    Hypothesis builds and caches its Unicode tables on a first run (toolproof's under
    ./.hypothesis, mcp-toolfuzz's in the per-user cache), ~200 MB and seconds of CPU. Logs,
    reports and the server's count go to a directory of the run's own."""

    cwd: Path
    home: Path
    run_dir: Path

    def env(self, **extra: str) -> dict[str, str]:
        return {**os.environ, "HOME": str(self.home), "XDG_CACHE_HOME": str(self.home / ".cache"), **extra}


@dataclass(frozen=True, slots=True)
class Finished:
    seconds: float
    returncode: int | None
    """None: killed at the timeout."""
    peak_rss_kb: int | None
    first_call: float | None = None
    """Seconds from start to the server's first tools/call (watched only when calibrating)."""
    tree_kb: TreeMemory | None = None
    """With `run_process(tree_of=...)`: the peak memory of the contender's own processes."""


@dataclass(frozen=True, slots=True)
class TreeMemory:
    """Peak memory summed over a contender's own processes (mcp-toolfuzz's worker processes, not
    the servers they start), sampled every TREE_EVERY s: RSS counts the pages the forked
    workers share with their parent once per process (an upper bound); PSS shares them out."""

    rss_kb: int
    pss_kb: int


TREE_EVERY = 0.05


@dataclass(frozen=True, slots=True)
class Measurement:
    round: int
    target: str
    contender: str
    calls: int
    """tools/call requests the server received."""
    seconds: float
    peak_rss_kb: int | None = None
    budget: int | None = None
    note: str = ""
    distinct: int | None = None
    """Of those, the requests that asked for something no earlier one of the same run did
    (another tool name or other arguments: `servers/counting.py`)."""

    @property
    def rate(self) -> float:
        return self.calls / self.seconds if self.seconds > 0 else 0.0

    @property
    def distinct_rate(self) -> float:
        return (self.distinct or 0) / self.seconds if self.seconds > 0 else 0.0

    def as_json(self) -> dict[str, object]:
        return {**asdict(self), "rate": round(self.rate, 2)}


@dataclass(frozen=True, slots=True)
class Peer:
    """A fuzzer from PyPI, in its own venv, run for a count budget."""

    name: str
    requirements: tuple[str, ...]
    executable: str
    arguments: Callable[[int, Endpoint, Path], list[str]]
    """(budget, endpoint, the run's directory for reports) -> its arguments."""
    described: str
    """How it is invoked, for the report."""

    @property
    def path(self) -> Path:
        return VENVS / self.name / "bin" / self.executable


def _mcp_fuzzer_arguments(budget: int, endpoint: Endpoint, run_dir: Path) -> list[str]:
    """Tool fuzzing only (its default also fuzzes the protocol), `budget` runs per tool."""
    target = (
        ["--protocol", "streamablehttp", "--endpoint", endpoint.url] if endpoint.url else ["--protocol", "stdio", "--endpoint", shlex.join(endpoint.command)]
    )
    return ["--mode", "tools", "--runs", str(budget), "--seed", str(SEED), "--no-corpus", "--output-dir", str(run_dir / "reports"), *target]


def _toolproof_arguments(budget: int, endpoint: Endpoint, run_dir: Path) -> list[str]:
    """`budget` valid and `budget` invalid inputs per tool."""
    target = ["--url", endpoint.url] if endpoint.url else ["--", *endpoint.command]
    return ["fuzz", "--examples", str(budget), "--seed", str(SEED), "--json", str(run_dir / "toolproof.json"), *target]


PEERS = (
    Peer(
        "mcp-fuzzer",
        ("mcp-fuzzer==0.7.0",),
        "mcp-fuzzer",
        _mcp_fuzzer_arguments,
        "mcp-fuzzer --mode tools --runs R --seed 1 --no-corpus --output-dir DIR --protocol stdio --endpoint 'CMD' | --protocol streamablehttp --endpoint URL",
    ),
    Peer(
        "toolproof",
        ("mcp-toolproof==0.3.1", "hypothesis==6.170.9"),
        "toolproof",
        _toolproof_arguments,
        "toolproof fuzz --examples E --seed 1 --json FILE -- CMD | --url URL",
    ),
)


# ---------------------------------------------------------------- processes and servers


def run_process(
    argv: Sequence[str], scratch: Scratch, *, env: dict[str, str], timeout: float, watch: Path | None = None, tree_of: str | None = None
) -> Finished:
    """Run `argv` in `scratch.cwd` under a peak-RSS wrapper, output to run_dir/output.log.

    With `watch` (a count directory), also note when the server's first tools/call arrived; with
    `tree_of`, the peak memory of the processes in its group whose command line holds it ("":
    every process of the group, the servers it started included)."""
    rss_file = scratch.run_dir / "peak-rss-kb"
    wrapped = [str(TIME), "-f", "%M", "-o", str(rss_file), *argv] if TIME.exists() else [sys.executable, "-c", RUSAGE_WRAPPER, str(rss_file), *argv]
    with open(scratch.run_dir / "output.log", "ab") as log:
        started = time.perf_counter()
        process = subprocess.Popen(wrapped, cwd=scratch.cwd, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            returncode, first_call, tree = _wait(process, started, timeout, watch, tree_of)
        finally:  # interrupted (Ctrl-C, SIGTERM): leave no contender behind
            if process.poll() is None:
                _end_group(process)
        seconds = time.perf_counter() - started
    return Finished(seconds, returncode, _peak_rss(rss_file), first_call, tree)


def _wait(
    process: subprocess.Popen[bytes], started: float, timeout: float, watch: Path | None, tree_of: str | None
) -> tuple[int | None, float | None, TreeMemory | None]:
    first_call = None
    peak = TreeMemory(0, 0) if tree_of is not None else None
    seen: set[tuple[int, int]] = set()
    while True:
        try:
            return process.wait(timeout=TREE_EVERY if watch or tree_of is not None else timeout), first_call, peak
        except subprocess.TimeoutExpired:
            elapsed = time.perf_counter() - started
            if watch is not None and first_call is None and count_in(watch):
                first_call = elapsed
            if tree_of is not None and peak is not None:
                now = tree_memory(process.pid, tree_of, seen)
                peak = TreeMemory(max(peak.rss_kb, now.rss_kb), max(peak.pss_kb, now.pss_kb))
            if elapsed >= timeout:
                _end_group(process)
                return None, first_call, peak


def tree_memory(group: int, marker: str, seen: set[tuple[int, int]] | None = None) -> TreeMemory:
    """RSS and PSS summed over the processes of process group `group` whose command line holds
    `marker` (from /proc/PID/smaps_rollup).

    With `seen` (kept by the caller from one sample to the next), a process counts only from the
    second sample that finds it: a child between vfork and exec (how subprocess starts a server)
    still has its parent's command line and shares its parent's address space, so its
    smaps_rollup is the parent's, and counting it counts the parent twice (one sample in about
    ten on the demo caught one: 140 MB for 95). It lives for milliseconds; a worker process for
    the run. `seen` is updated to the processes of this sample (by pid and start time)."""
    rss = pss = 0
    found: set[tuple[int, int]] = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) != group:
                continue
            if marker not in (entry / "cmdline").read_bytes().decode(errors="replace"):
                continue
            process = (int(entry.name), int(fields[19]))
            found.add(process)
            if seen is not None and process not in seen:
                continue
            for line in (entry / "smaps_rollup").read_text().splitlines():
                if line.startswith("Rss:"):
                    rss += int(line.split()[1])
                elif line.startswith("Pss:"):
                    pss += int(line.split()[1])
        except (OSError, ValueError, IndexError):
            continue
    if seen is not None:
        seen.clear()
        seen.update(found)
    return TreeMemory(rss, pss)


def _end_group(process: subprocess.Popen[bytes], grace: float = 5.0) -> None:
    """SIGTERM the process group (the contender and what it started in it), then SIGKILL."""
    for number in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, number)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            continue


def _peak_rss(path: Path) -> int | None:
    """The last integer line of the wrapper's file (time(1) prefixes a note when killed)."""
    try:
        lines = [line for line in path.read_text().split() if line.isdigit()]
    except OSError:
        return None
    return int(lines[-1]) if lines else None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_for_port(port: int, process: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the HTTP server exited with {process.returncode} before listening")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"the HTTP server did not listen on port {port} within {timeout:.0f} s")


@contextmanager
def endpoint(target: Target, run_dir: Path) -> Iterator[Endpoint]:
    """A fresh count directory and, for HTTP, a fresh server for the one measurement."""
    count_dir = run_dir / "counts"
    count_dir.mkdir(parents=True)
    command = (str(PYTHON), str(COUNTING), "--count-dir", str(count_dir), target.server)
    if not target.http:
        yield Endpoint(count_dir, command=command)
        return
    port = _free_port()
    with open(run_dir / "server.log", "wb") as log:
        server = subprocess.Popen(
            [*command, "--http", str(port)], cwd=run_dir, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        _wait_for_port(port, server)
        yield Endpoint(count_dir, url=f"http://127.0.0.1:{port}/mcp")
    finally:
        _end_group(server)


# ---------------------------------------------------------------- contenders


@dataclass(frozen=True, slots=True)
class Context:
    """What every measurement needs: the time budget, where scratch files go, peer budgets."""

    seconds: float
    scratch_root: Path
    single: tuple[str, ...]
    """The options that run the harness in one process, one exploration at a time (`single_options`)."""
    phases: tuple[tuple[str, tuple[str, ...]], ...]
    """Each phase alone: its column's name and its options (`phase_options`)."""
    budgets: dict[tuple[str, str], int]

    def scratch(self, label: str, contender: str) -> Scratch:
        name = contender.replace(" ", "_")
        cwd, home = self.scratch_root / f"cwd-{name}", self.scratch_root / f"home-{name}"
        cwd.mkdir(exist_ok=True)
        home.mkdir(exist_ok=True)
        return Scratch(cwd, home, Path(tempfile.mkdtemp(prefix=f"{label.replace(' ', '_')}-", dir=self.scratch_root)))

    @property
    def timeout(self) -> float:
        return 4 * self.seconds + 120


def toolfuzz_command(
    target: Target, point: Endpoint, *, seconds: float | None, run_dir: Path, extra: Sequence[str] = (), max_examples: int | None = 100_000
) -> tuple[list[str], dict[str, str]]:
    """The harness's command line, and the variables that make the demo count its calls.

    The demo is fuzzed as a user would, with no target arguments: the harness starts
    `python -m fuzz.demo_server` itself, and servers/hook/sitecustomize.py counts its calls.
    The revision is the raw client's and the peers' (2025-11-25, the handshake): mcp 2.3.0
    would otherwise be fuzzed under 2026-07-28, which it answers at another cost. `seconds` and
    `max_examples` None: the defaults (a fixed workload)."""
    argv = [str(TOOLFUZZ), "run", "--no-corpus", "--seed", str(SEED), "--protocol-version", "2025-11-25", "--report", f"json:{run_dir / 'report.json'}"]
    argv += ["--max-time", f"{seconds:g}"] if seconds is not None else []
    argv += ["--max-examples", str(max_examples)] if max_examples is not None else []
    argv += list(extra)
    if target is DEMO:
        return argv, {"PYTHONPATH": str(HOOK), "TOOLFUZZ_BENCH_COUNT_DIR": str(point.count_dir)}
    return argv + (["--url", point.url] if point.url else ["--", *point.command]), {}


def measure_raw(context: Context, target: Target, round_: int, in_flight: int) -> Measurement:
    name = f"raw {in_flight}"
    scratch = context.scratch(f"r{round_}-{target.name}-{name}", name)
    with endpoint(target, scratch.run_dir) as point:
        if point.url:
            result = http_ceiling(point.url, seconds=context.seconds, in_flight=in_flight)
        else:
            result = stdio_ceiling(point.command, seconds=context.seconds, in_flight=in_flight, cwd=scratch.cwd)
        calls, distinct = count_in(point.count_dir), distinct_in(point.count_dir)
    note = "" if abs(calls - result.answered) <= in_flight else f"client read {result.answered} answers"
    return Measurement(round_, target.name, name, calls, result.seconds, note=note, distinct=distinct)


def measure_toolfuzz(context: Context, target: Target, round_: int, options: Sequence[str], name: str = "toolfuzz", *, fixed: bool = False) -> Measurement:
    """One run of the harness: for `--seconds` (`--max-time`), or (`fixed`) at its default
    example counts, to its end."""
    scratch = context.scratch(f"r{round_}-{target.name}-{name}", "toolfuzz")
    with endpoint(target, scratch.run_dir) as point:
        argv, extra = toolfuzz_command(
            target, point, seconds=None if fixed else context.seconds, run_dir=scratch.run_dir, extra=options, max_examples=None if fixed else 100_000
        )
        finished = run_process(argv, scratch, env=scratch.env(**extra), timeout=context.timeout)
        calls, distinct = count_in(point.count_dir), distinct_in(point.count_dir)
    return Measurement(
        round_,
        target.name,
        name,
        calls,
        finished.seconds,
        finished.peak_rss_kb,
        note=_exit_note(finished, ok=(0, 1), log=scratch.run_dir / "output.log"),
        distinct=distinct,
    )


def warm_up(context: Context) -> None:
    """One short, unmeasured run of each fuzzer on the demo, so that calibration and rounds find
    their caches filled (see `Scratch`); and mcp-toolfuzz's bytecode written first.

    The peers come from `pip install`, which compiles what it installs; mcp-toolfuzz is the
    checkout's editable install, whose modules are compiled on import, and not at all where
    PYTHONDONTWRITEBYTECODE is set (these machines set it): each run then compiled every module
    changed since its bytecode was last written, 0.14 s of start-up on the demo."""
    subprocess.run([str(PYTHON), "-m", "compileall", "-q", str(ROOT / "fuzz"), str(ROOT / "strategies")], check=True)
    scratch = context.scratch("warm-up", "toolfuzz")
    count_dir = scratch.run_dir / "counts"
    count_dir.mkdir()
    argv, extra = toolfuzz_command(DEMO, Endpoint(count_dir), seconds=1, run_dir=scratch.run_dir)
    run_process(argv, scratch, env=scratch.env(**extra), timeout=context.timeout)
    for peer in PEERS:
        run_peer(context, peer, DEMO, 1, f"warm-up-{peer.name}")


def run_peer(context: Context, peer: Peer, target: Target, budget: int, label: str, *, watch: bool = False) -> tuple[Finished, int, Scratch, int]:
    """One run of `peer` on a fresh endpoint: how it ended, the server's count, its scratch, and
    how many of the requests counted were distinct."""
    scratch = context.scratch(label, peer.name)
    with endpoint(target, scratch.run_dir) as point:
        argv = [str(peer.path), *peer.arguments(budget, point, scratch.run_dir)]
        finished = run_process(argv, scratch, env=scratch.env(), timeout=context.timeout, watch=point.count_dir if watch else None)
        return finished, count_in(point.count_dir), scratch, distinct_in(point.count_dir)


def measure_peer(context: Context, peer: Peer, target: Target, round_: int) -> Measurement:
    budget = context.budgets[(peer.name, target.name)]
    finished, calls, scratch, distinct = run_peer(context, peer, target, budget, f"r{round_}-{target.name}-{peer.name}")
    return Measurement(
        round_,
        target.name,
        peer.name,
        calls,
        finished.seconds,
        finished.peak_rss_kb,
        budget,
        _exit_note(finished, ok=(0, 1), log=scratch.run_dir / "output.log"),
        distinct,
    )


def _exit_note(finished: Finished, *, ok: tuple[int, ...], log: Path) -> str:
    if finished.returncode is None:
        return "killed at the timeout"
    if finished.returncode in ok:
        return ""
    tail = log.read_text(errors="replace").strip().splitlines()[-1:] if log.exists() else []
    return f"exit {finished.returncode}: {tail[0][:160] if tail else ''}"


def calibrate(context: Context, peer: Peer, target: Target) -> int:
    """The count budget with which `peer` runs about `context.seconds` on `target`.

    Two runs, untimed, fit wall seconds = start-up + budget x seconds per unit: a small budget,
    then one sized from the first's rate after its first tools/call. Start-up and shutdown
    (seconds for these peers) make a rate-only estimate overshoot. When noise makes the second
    run no longer than the first, the second's budget is kept."""
    small = 5
    first, calls, _, _ = run_peer(context, peer, target, small, f"calibrate0-{target.name}-{peer.name}", watch=True)
    if calls == 0 or first.returncode is None:
        return small
    active = max(first.seconds - (first.first_call or 0.0), 0.1)
    wanted = calls / active * max(context.seconds - (first.first_call or 0.0), 1.0)
    large = max(4 * small, min(1_000_000, round(small * wanted / calls)))
    second, calls, _, _ = run_peer(context, peer, target, large, f"calibrate1-{target.name}-{peer.name}")
    per_unit = (second.seconds - first.seconds) / (large - small)
    if calls == 0 or second.returncode is None or per_unit <= 0:
        return large
    start_up = first.seconds - per_unit * small
    return max(1, min(1_000_000, round((context.seconds - start_up) / per_unit)))


# ---------------------------------------------------------------- memory


def first_and_warm(context: Context, contender: str, run: Callable[[Scratch], Finished]) -> dict[str, dict[str, int | None]]:
    """Peak memory of a first run (fresh HOME, XDG_CACHE_HOME and cwd), then of a second with
    the same: summed over the contender's processes (RSS, PSS) and of its largest process."""
    cwd = Path(tempfile.mkdtemp(prefix=f"memory-cwd-{contender}-", dir=context.scratch_root))
    home = Path(tempfile.mkdtemp(prefix=f"memory-home-{contender}-", dir=context.scratch_root))
    peaks = {}
    for run_name in ("first", "warm"):
        run_dir = Path(tempfile.mkdtemp(prefix=f"memory-{run_name}-{contender}-", dir=context.scratch_root))
        finished = run(Scratch(cwd, home, run_dir))
        tree = finished.tree_kb
        peaks[run_name] = {"rssKb": tree.rss_kb if tree else None, "pssKb": tree.pss_kb if tree else None, "largestRssKb": finished.peak_rss_kb}
    return peaks


def memory(context: Context) -> dict[str, dict[str, dict[str, int | None]]]:
    def toolfuzz(options: Sequence[str], *, fixed: bool = False, tree: bool = False) -> Callable[[Scratch], Finished]:
        def run(scratch: Scratch) -> Finished:
            count_dir = scratch.run_dir / "counts"
            count_dir.mkdir()
            argv, extra = toolfuzz_command(
                DEMO,
                Endpoint(count_dir),
                seconds=None if fixed else context.seconds,
                run_dir=scratch.run_dir,
                extra=options,
                max_examples=None if fixed else 100_000,
            )
            return run_process(argv, scratch, env=scratch.env(**extra), timeout=context.timeout, tree_of="" if tree else str(TOOLFUZZ))

        return run

    def toolproof(*, tree: bool = False) -> Callable[[Scratch], Finished]:
        def run(scratch: Scratch) -> Finished:
            peer = PEERS[1]
            count_dir = scratch.run_dir / "counts"
            count_dir.mkdir()
            command = (str(PYTHON), str(COUNTING), "--count-dir", str(count_dir), DEMO.server)
            budget = context.budgets[(peer.name, DEMO.name)]
            argv = [str(peer.path), *peer.arguments(budget, Endpoint(count_dir, command), scratch.run_dir)]
            return run_process(argv, scratch, env=scratch.env(), timeout=context.timeout, tree_of="" if tree else str(peer.path))

        return run

    return {
        "toolfuzz": first_and_warm(context, "toolfuzz", toolfuzz(())),
        **({SINGLE: first_and_warm(context, "toolfuzz-single", toolfuzz(context.single))} if context.single else {}),
        "toolproof": first_and_warm(context, "toolproof", toolproof()),
        WHOLE_TREE_TOOLFUZZ: first_and_warm(context, "toolfuzz-tree", toolfuzz((), fixed=True, tree=True)),
        WHOLE_TREE_TOOLPROOF: first_and_warm(context, "toolproof-tree", toolproof(tree=True)),
    }


@dataclass(frozen=True, slots=True)
class Sample:
    seconds: float
    calls: int
    rss_kb: int


def long_run(context: Context, milestones: Sequence[int], cap_seconds: float) -> dict[str, object]:
    """mcp-toolfuzz on the demo, at its defaults, until the server has seen the last milestone's
    calls: the RSS summed over the harness's processes (`tree_memory`) then.

    The harness is run without a wrapper, so that its process group is its pid; it gets
    SIGTERM (which it handles) once the last milestone is passed, or stops at `cap_seconds`."""
    scratch = context.scratch("long-run", "toolfuzz")
    count_dir = scratch.run_dir / "counts"
    count_dir.mkdir()
    argv, extra = toolfuzz_command(DEMO, Endpoint(count_dir), seconds=cap_seconds, run_dir=scratch.run_dir, max_examples=10_000_000)
    samples: list[Sample] = []
    with open(scratch.run_dir / "output.log", "wb") as log:
        started = time.perf_counter()
        process = subprocess.Popen(
            argv, cwd=scratch.cwd, env=scratch.env(**extra), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        seen: set[tuple[int, int]] = set()
        try:
            while process.poll() is None:
                time.sleep(0.5)
                rss = tree_memory(process.pid, str(TOOLFUZZ), seen).rss_kb
                if not seen:
                    break
                if not rss:
                    continue
                samples.append(Sample(time.perf_counter() - started, count_in(count_dir), rss))
                if samples[-1].calls >= milestones[-1] or samples[-1].seconds > cap_seconds + 60:
                    break
        finally:
            _end_group(process, grace=30)
    reached = {}
    for milestone in milestones:
        sample = next((s for s in samples if s.calls >= milestone), None)
        reached[str(milestone)] = asdict(sample) if sample else None
    return {
        "milestones": reached,
        "peak_rss_kb": max((s.rss_kb for s in samples), default=None),
        "calls": count_in(count_dir),
        "seconds": round(time.perf_counter() - started, 1),
        "samples": [asdict(s) for s in samples],
    }


# ---------------------------------------------------------------- setup


def ensure_peer(peer: Peer) -> None:
    """Its own venv, as run-generation.sh makes one: toolproof's Hypothesis pin must not meet ours."""
    if peer.path.exists():
        return
    print(f"installing {' '.join(peer.requirements)} into {peer.path.parent.parent}", flush=True)
    subprocess.run([sys.executable, "-m", "venv", str(VENVS / peer.name)], check=True)
    subprocess.run([str(VENVS / peer.name / "bin" / "pip"), "install", "-q", *peer.requirements], check=True)


def versions() -> dict[str, str]:
    found = {"python": platform.python_version()}
    for name, python, distribution in [
        ("mcp-toolfuzz", PYTHON, "mcp-toolfuzz"),
        ("mcp", PYTHON, "mcp"),
        *[(peer.name, VENVS / peer.name / "bin" / "python", peer.requirements[0].split("==")[0]) for peer in PEERS],
    ]:
        answer = subprocess.run([str(python), "-c", f"import importlib.metadata as m; print(m.version({distribution!r}))"], capture_output=True, text=True)
        found[name] = answer.stdout.strip() or "?"
    commit = subprocess.run(["git", "-C", str(ROOT), "describe", "--always", "--dirty"], capture_output=True, text=True)
    found["repository"] = commit.stdout.strip() or "?"
    return found


def run_help() -> str:
    """What `mcp-toolfuzz run --help` prints: which of the options below this mcp-toolfuzz has."""
    return subprocess.run([str(TOOLFUZZ), "run", "--help"], capture_output=True, text=True).stdout


def phase_options(helped: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Each of mcp-toolfuzz's phases run alone at the defaults (`--phases PHASE`), so that each
    phase's rate stands beside the others' and the whole run's; () when `helped` (`run_help`)
    offers no `--phases`."""
    return tuple((f"{phase} alone", ("--phases", phase)) for phase in PHASES) if "--phases" in helped else ()


def single_options(helped: str) -> tuple[str, ...]:
    """`--processes 1 --workers 1` (one process, one exploration at a time), or those of them
    `helped` (`run_help`) offers; () for none (a "–" column)."""
    return tuple(part for option in ("--processes", "--workers") if option in helped for part in (option, "1"))


# ---------------------------------------------------------------- report

SINGLE = "toolfuzz, 1 process"
PHASES = ("boundary", "random", "sequence")
PHASE_COLUMNS = ("toolfuzz", *(f"{phase} alone" for phase in PHASES))
PHASE_RATIOS = tuple((f"{phase}/raw1", f"{phase} alone", "raw 1") for phase in PHASES)
"""The second table: the harness at its defaults (all its phases), then each phase alone. The
boundary phase ends when its values are sent (a few seconds on the demo), whatever the budget;
its rate counts its start-up and its report as the others' do."""
COLUMNS = ("raw 1", "raw 4", SINGLE, "toolfuzz", "mcp-fuzzer", "toolproof")
RATIOS = (
    ("toolfuzz/raw1", "toolfuzz", "raw 1"),
    ("toolfuzz/raw4", "toolfuzz", "raw 4"),
    ("1-process/raw1", SINGLE, "raw 1"),
    ("toolfuzz/mcp-fuzzer", "toolfuzz", "mcp-fuzzer"),
    ("toolfuzz/toolproof", "toolfuzz", "toolproof"),
)
"""`toolfuzz` is the harness at its defaults (two worker processes on a 2-core machine);
`toolfuzz, 1 process` is it in one process with one exploration at a time (its batches of 16
still in flight)."""


FIXED = (("fixed: defaults", ()), ("fixed: boundary+random", ("--phases", "boundary,random")), ("fixed: sequence", ("--phases", "sequence")))
"""The harness on fixed workloads, as a user runs it (no --max-time, the default --max-examples):
at its defaults (all phases), and the phase split."""
FIXED_COLUMNS = (*(name for name, _ in FIXED), "mcp-fuzzer")
WHOLE_TREE_TOOLFUZZ = "toolfuzz fixed defaults, whole tree"
WHOLE_TREE_TOOLPROOF = "toolproof, whole tree"


def fixed_summary(measurements: Sequence[Measurement]) -> list[Row]:
    """Per target: the median seconds and rate of each fixed-workload run (and mcp-fuzzer's rate,
    at its calibrated budget), the median per-round ratio of the defaults' rate to mcp-fuzzer's,
    and of the defaults' seconds to boundary + random's."""
    rows = []
    for target in TARGETS:
        by: dict[str, dict[int, Measurement]] = {}
        for m in measurements:
            if m.target == target.name and m.contender in FIXED_COLUMNS:
                by.setdefault(m.contender, {})[m.round] = m
        row: Row = {"target": target.name}
        for column in FIXED_COLUMNS:
            runs = by.get(column, {}).values()
            row[f"{column} s"] = statistics.median(m.seconds for m in runs) if runs else None
            row[f"{column} /s"] = statistics.median(m.rate for m in runs) if runs else None
        defaults, base, peer = (by.get(name, {}) for name in ("fixed: defaults", "fixed: boundary+random", "mcp-fuzzer"))
        over_peer = [defaults[r].rate / peer[r].rate for r in defaults if r in peer and peer[r].rate]
        over_base = [defaults[r].seconds / base[r].seconds for r in defaults if r in base and base[r].seconds]
        row["defaults/mcp-fuzzer"] = statistics.median(over_peer) if over_peer else None
        row["defaults time / boundary+random time"] = statistics.median(over_base) if over_base else None
        rows.append(row)
    return rows


def fixed_table(rows: Sequence[Row]) -> str:
    headers = ["target", *(f"{c} {unit}" for c in FIXED_COLUMNS for unit in ("s", "/s")), "defaults/mcp-fuzzer", "defaults time / boundary+random time"]
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for row in rows:
        cells = [str(row["target"])]
        for column in FIXED_COLUMNS:
            seconds = row[f"{column} s"]
            cells += [MISSING if seconds is None else f"{seconds:.1f}", _rate(row[f"{column} /s"])]  # type: ignore[arg-type]
        cells += [_ratio(row["defaults/mcp-fuzzer"]), _ratio(row["defaults time / boundary+random time"])]  # type: ignore[arg-type]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _column(contender: str) -> str:
    return contender


Row = dict[str, "str | float | None"]


DISTINCT_COLUMNS = ("toolfuzz", SINGLE, "mcp-fuzzer", "toolproof")
DISTINCT_RATIOS = (("toolfuzz/mcp-fuzzer", "toolfuzz", "mcp-fuzzer"), ("toolfuzz/toolproof", "toolfuzz", "toolproof"))
"""The third table: distinct requests per second (a request that asked for what an earlier one
of the same run asked is not counted again). The raw clients send one request again and again:
they have no column there."""


def summarise(
    measurements: Sequence[Measurement], columns: Sequence[str] = COLUMNS, ratios: Sequence[tuple[str, str, str]] = RATIOS, *, distinct: bool = False
) -> list[Row]:
    """Per target: the median rate of each contender (of distinct requests with `distinct`), and
    the median of each per-round ratio."""
    rows = []
    for target in TARGETS:
        rates: dict[str, dict[int, float]] = {}
        for m in measurements:
            if m.target == target.name and m.calls > 0:
                rates.setdefault(_column(m.contender), {})[m.round] = m.distinct_rate if distinct else m.rate
        row: Row = {"target": target.name}
        for column in columns:
            row[column] = statistics.median(rates[column].values()) if rates.get(column) else None
        for ratio, top, bottom in ratios:
            if top not in rates or bottom not in rates:
                row[ratio] = None
                continue
            both = [rates[top][r] / rates[bottom][r] for r in rates[top] if r in rates[bottom] and rates[bottom][r]]
            row[ratio] = statistics.median(both) if both else None
        rows.append(row)
    return rows


def _rate(value: float | None) -> str:
    return MISSING if value is None else f"{value:.0f}" if value >= 100 else f"{value:.1f}"


def _ratio(value: float | None) -> str:
    return MISSING if value is None else f"{value:.3g}x"


def _mb(kb: int | None) -> str:
    return MISSING if kb is None else f"{kb / 1024:.0f} MB"


def table(rows: Sequence[Row], columns: Sequence[str] = COLUMNS, ratios: Sequence[tuple[str, str, str]] = RATIOS) -> str:
    headers = ["target", *columns, *(r for r, _, _ in ratios)]
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for row in rows:
        cells = [str(row["target"]), *(_rate(row[c]) for c in columns), *(_ratio(row[r]) for r, _, _ in ratios)]  # type: ignore[arg-type]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def memory_lines(peaks: dict[str, dict[str, dict[str, int | None]]], long: dict[str, object]) -> list[str]:
    lines = ["peak memory on the demo, first run / warm run (RSS summed over the contender's processes; PSS; the largest process's RSS):"]
    for name, p in peaks.items():
        first, warm = p["first"], p["warm"]
        lines.append(
            f"  {name}: RSS {_mb(first['rssKb'])} / {_mb(warm['rssKb'])}; PSS {_mb(first['pssKb'])} / "
            f"{_mb(warm['pssKb'])}; largest {_mb(first['largestRssKb'])} / {_mb(warm['largestRssKb'])}"
        )
    reached = long["milestones"]
    assert isinstance(reached, dict)
    parts = []
    for milestone, sample in reached.items():
        parts.append(
            f"{int(milestone) // 1000}k calls: "
            + (
                f"{_mb(sample['rss_kb'])} (at {sample['calls']} calls, {sample['seconds']:.0f} s)"
                if sample
                else f"not reached ({long['calls']} calls in {long['seconds']} s)"
            )
        )
    lines.append("mcp-toolfuzz RSS (summed over its processes) over a long run on the demo: " + "; ".join(parts))
    return lines


# ---------------------------------------------------------------- main


def rounds(context: Context, count: int) -> list[Measurement]:
    jobs: list[Callable[[Target, int], Measurement]] = [
        lambda t, r: measure_raw(context, t, r, 1),
        lambda t, r: measure_raw(context, t, r, IN_FLIGHT),
        lambda t, r: measure_toolfuzz(context, t, r, ()),
        *([lambda t, r: measure_toolfuzz(context, t, r, context.single, SINGLE)] if context.single else []),
        *[lambda t, r, name=name, options=options: measure_toolfuzz(context, t, r, options, name) for name, options in context.phases],
        *[
            lambda t, r, name=name, options=options: measure_toolfuzz(context, t, r, options, name, fixed=True)
            for name, options in FIXED
            if not options or context.phases
        ],
        *[lambda t, r, peer=peer: measure_peer(context, peer, t, r) for peer in PEERS],
    ]
    measurements = []
    for round_ in range(1, count + 1):
        order = [(target, job) for target in TARGETS for job in jobs]
        random.Random(SEED * 1000 + round_).shuffle(order)
        for target, job in order:
            m = job(target, round_)
            measurements.append(m)
            print(
                f"[round {round_}/{count}] {target.name:<10} {m.contender:<20} {m.calls:>7} calls "
                f"in {m.seconds:6.1f} s = {_rate(m.rate):>6}/s{f'  ({m.note})' if m.note else ''}",
                flush=True,
            )
    return measurements


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    parser.add_argument("--seconds", type=float, default=10.0, help="time budget per measurement (default 10)")
    parser.add_argument("--quick", action="store_true", help="long run to 10k tools/call only")
    parser.add_argument("--json", type=Path, default=None, help="write the results here instead")
    parser.add_argument("--keep", action="store_true", help="keep the scratch directories (logs, reports)")
    options = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(128 + number))  # unwind: stop the servers started
    if not TOOLFUZZ.exists():
        print(f"{TOOLFUZZ} is missing: make the venv (python -m venv .venv && .venv/bin/pip install '.[test]')", file=sys.stderr)
        return 2
    for peer in PEERS:
        ensure_peer(peer)
    scratch_root = Path(tempfile.mkdtemp(prefix="toolfuzz-throughput-"))
    started = time.perf_counter()
    try:
        helped = run_help()
        context = Context(options.seconds, scratch_root, single_options(helped), phase_options(helped), {})
        single = " ".join(context.single) or "no option for one process"
        print(f"{options.rounds} rounds of {options.seconds:g} s per measurement; {SINGLE}: {single}; scratch {scratch_root}", flush=True)
        warm_up(context)
        for peer in PEERS:
            for target in TARGETS:
                context.budgets[(peer.name, target.name)] = calibrate(context, peer, target)
                print(f"calibrated {peer.name} on {target.name}: budget {context.budgets[(peer.name, target.name)]}", flush=True)
        measurements = rounds(context, options.rounds)
        peaks = memory(context)
        milestones = LONG_RUN_MILESTONES[:1] if options.quick else LONG_RUN_MILESTONES
        long = long_run(context, milestones, cap_seconds=600 if options.quick else 2400)
    finally:
        if not options.keep:
            shutil.rmtree(scratch_root, ignore_errors=True)
    rows = summarise(measurements)
    phase_rows = summarise(measurements, PHASE_COLUMNS, PHASE_RATIOS) if context.phases else []
    print("\ntools/call per second received by the server (medians over rounds; ratios: medians of per-round ratios)\n")
    print(table(rows))
    if phase_rows:
        print("\nmcp-toolfuzz at its defaults and each of its phases alone (the same measure)\n")
        print(table(phase_rows, PHASE_COLUMNS, PHASE_RATIOS))
    fixed_rows = fixed_summary(measurements)
    print(
        "\nfixed workloads, as a user runs them (no --max-time, the default --max-examples): seconds and tools/call per "
        "second of mcp-toolfuzz at its defaults and of its phase split, mcp-fuzzer's rate at its budget\n"
    )
    print(fixed_table(fixed_rows))
    distinct_rows = summarise(measurements, DISTINCT_COLUMNS, DISTINCT_RATIOS, distinct=True)
    print("\ndistinct tools/call per second: requests that asked for something (a tool name and arguments) no earlier request of the same run did\n")
    print(table(distinct_rows, DISTINCT_COLUMNS, DISTINCT_RATIOS))
    print()
    for line in memory_lines(peaks, long):
        print(line)
    notes = [m for m in measurements if m.note]
    for m in notes:
        print(f"note: round {m.round} {m.target} {m.contender}: {m.note}")
    path = options.json or RESULTS / f"throughput-{datetime.date.today().isoformat()}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(
            {
                "date": datetime.datetime.now().isoformat(timespec="seconds"),
                "machine": {"cpus": os.cpu_count(), "platform": platform.platform()},
                "versions": versions(),
                "options": {
                    "rounds": options.rounds,
                    "seconds": options.seconds,
                    "quick": options.quick,
                    "inFlight": IN_FLIGHT,
                    "single": list(context.single),
                    "phases": [list(o) for _, o in context.phases],
                    "seed": SEED,
                },
                "invocations": {
                    "toolfuzz": "mcp-toolfuzz run --no-corpus --seed 1 --max-time S --max-examples 100000 --protocol-version 2025-11-25 "
                    "--report json:FILE [--processes 1 --workers 1 | --phases PHASE] [-- CMD | --url URL] (demo: no target)",
                    **{peer.name: peer.described for peer in PEERS},
                },
                "budgets": {f"{peer} on {target}": budget for (peer, target), budget in context.budgets.items()},
                "table": rows,
                "phaseTable": phase_rows,
                "fixedTable": fixed_rows,
                "distinctTable": distinct_rows,
                "memory": {"peakRssKb": peaks, "longRun": long},
                "measurements": [m.as_json() for m in measurements],
                "wallSeconds": round(time.perf_counter() - started, 1),
            },
            indent=1,
            ensure_ascii=False,
        )
    )
    print(f"\nwritten to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
