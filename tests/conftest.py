from __future__ import annotations

import _thread
import contextlib
import fcntl
import io
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import traceback
import warnings
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

from fuzz.engine.options import RunOptions, RunPhase
from fuzz.engine.plan import DestructiveMode, Selection
from fuzz.engine.run import run
from fuzz.judging.findings import RunResult
from fuzz.wire.target import HttpTarget, StdioTarget, TargetSpec

SERVERS = Path(__file__).parent / "servers"
TYPESCRIPT_SERVER = SERVERS / "typescript"


def stdlib_server(name: str, *arguments: str) -> list[str]:
    """The command of a hand-written test server: it needs the standard library only.

    It starts with `-S`, without site-packages. The editable install's import hook then costs the
    server nothing: 40 ms of CPU less per start, and the suite starts the notes server thousands of
    times (each sequence on a fresh copy).
    """
    return [sys.executable, "-S", str(SERVERS / name), *arguments]


_WITH_PACKAGES = frozenset({"boundary_server.py", "reference_server.py", "fastmcp_server.py"})
"""The `_server.py` files that import installed packages (jsonschema, fastmcp): started with site."""


def python_server(name: str, *arguments: str) -> StdioTarget:
    """A test server as a stdio target; a hand-written stdlib one starts as `stdlib_server` says."""
    if name.endswith("_server.py") and name not in _WITH_PACKAGES:
        return StdioTarget(tuple(stdlib_server(name, *arguments)))
    return StdioTarget((sys.executable, str(SERVERS / name), *arguments))


ALL_TOOLS = Selection(destructive=DestructiveMode.ALLOW)
"""The test servers are ours to break: every tool gets every case kind."""


def fuzz(
    target: TargetSpec,
    *,
    seed: int = 7,
    max_examples: int = 10,
    timeout: float = 0.5,
    selection: Selection = ALL_TOOLS,
    **options: object,
) -> RunResult:
    """One in-process run of the harness, as `mcp-toolfuzz run` does it, but for the sequence
    phase unless `phases` names it: the tests that use this judge single cases, and sequences
    (a fresh target each) would double their time; tests/test_sequences.py and the CLI's tests
    run all three phases."""
    options.setdefault("phases", frozenset({RunPhase.BOUNDARY, RunPhase.RANDOM}))
    return run(
        RunOptions(target=target, seed=seed, max_examples=max_examples, timeout=timeout, selection=selection, **options)  # type: ignore[arg-type]
    )


_JSONRPC_ID = re.compile(r'(\\?"id\\?": )\d+')


def without_jsonrpc_ids(document: object) -> str:
    """`document` as JSON text with every JSON-RPC id (also those quoted inside messages) made
    the same: with several requests in flight, which id a request gets depends on the others."""
    return _JSONRPC_ID.sub(r"\1N", json.dumps(document, sort_keys=True))


_PYTHON_WARNING_FILTERS = (
    ("default", DeprecationWarning, "__main__"),
    ("ignore", DeprecationWarning, ""),
    ("ignore", PendingDeprecationWarning, ""),
    ("ignore", ImportWarning, ""),
    ("ignore", ResourceWarning, ""),
)
"""The warning filters a Python process starts with (no -W option): every other warning is shown."""


@contextmanager
def _local_constants_of_a_fresh_process() -> Iterator[None]:
    """Hypothesis's local constants as `python -m fuzz` has them, for the block: none.

    Hypothesis mixes into its draws the constants of the modules outside site-packages and the
    standard library (`providers._get_local_constants`). The harness leaves its own modules out
    (`strategies._hypothesis.threads`), so a CLI process has none; this process has the test
    modules' (over a thousand), and one seed draws otherwise here. The modules loaded now are
    marked as read and the constants emptied, as they are in a fresh process; both are put back
    after. (The same private parts the harness relies on, pinned in `strategies._hypothesis`.)"""
    from hypothesis.internal.conjecture import providers

    saved = providers._local_constants, set(providers._seen_modules), providers._sys_modules_len
    empty = providers.SortedSet
    providers._local_constants = type(saved[0])(integers=empty(), floats=empty(key=providers.float_to_int), bytes=empty(), strings=empty())
    providers._seen_modules.update(id(module) for module in list(sys.modules.values()))
    providers._sys_modules_len = None
    providers.CONSTANTS_CACHE.cache.clear()
    try:
        yield
    finally:
        providers._local_constants, seen, providers._sys_modules_len = saved
        providers._seen_modules.clear()
        providers._seen_modules.update(seen)
        providers.CONSTANTS_CACHE.cache.clear()


_watched = threading.Lock()
"""Held by `mcp_toolfuzz` and its watchdog while either decides whether the run timed out."""


TEST_DEFAULTS = (("--tries", "0"), ("--processes", "1"))
"""What `mcp_toolfuzz` gives a `run` the test does not set: see its docstring."""


def _with_test_defaults(arguments: tuple[str, ...]) -> tuple[str, ...]:
    if not arguments or arguments[0] != "run":
        return arguments
    separator = arguments.index("--") if "--" in arguments else len(arguments)
    given = arguments[:separator]
    added = [part for option, value in TEST_DEFAULTS if not any(word == option or word.startswith(f"{option}=") for word in given) for part in (option, value)]
    return (*given, *added, *arguments[separator:])


def mcp_toolfuzz(
    *arguments: str,
    cwd: Path | str | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = 180,
    encoding: str = "utf-8",
    errors: str = "strict",
) -> subprocess.CompletedProcess[str]:
    """`mcp-toolfuzz ARGUMENTS`, run in this process, as `subprocess.run(..., capture_output=True,
    text=True)` would report it: exit code, stdout and stderr.

    A process of the CLI costs half a second of CPU before it does anything (its imports), and the
    suite runs hundreds: here it is `fuzz.faces._cli.main`, what the console entry point calls,
    with what a process would have kept apart put back afterwards. Apart, for the run: the
    working directory (`cwd`), the environment (`env` over this one's), `sys.argv`, stdout and
    stderr (each a UTF-8 stream that refuses what cannot be encoded, as a pipe's does), the
    warning filters (a fresh process's, so that a warning the CLI lets through shows on its
    stderr as it would), and Hypothesis's local constants (none, as in a fresh process:
    `_local_constants_of_a_fresh_process`), so that a seed draws what it draws in a process. An
    exception the CLI lets out is a traceback on stderr and exit code 1, as in a process;
    `SystemExit` (argparse's refusals) its exit code. After `timeout` seconds the run is
    interrupted as Ctrl-C would (the CLI stops and reports) and `subprocess.TimeoutExpired` raised.
    With `--processes` above one (given by the test), the run forks this process, as the CLI forks
    its own.

    A `run` here tries its findings again on no fresh target (`--tries 0`) and runs in one process
    (`--processes 1`) unless the test gives those options (`TEST_DEFAULTS`): five more starts of the
    target per run for labels only tests/test_stability.py reads, and a second process and copy of
    the target per run, would cost the suite minutes of CPU. The worker processes have tests of
    their own (tests/test_processes.py, tests/test_corpus.py, and every `mcp_toolfuzz_process`).

    Not done here, but by `console.entry_point` once per process: the allocator's settings, the
    unraisable-exception hook, the collection of finished runs, Hypothesis imported without its
    plugins. The tests of those, of signals, of the worker processes themselves, of runs that
    must agree across processes (each process has its own hash seed), of a fresh process's
    Hypothesis storage, and of the installed command (tests/test_action.py, the workflows') run
    the CLI as a process: `mcp_toolfuzz_process`.
    """
    from fuzz.faces._cli import main
    from fuzz.faces.console import library_warnings_silenced

    stdout, stderr = (io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict", write_through=True) for _ in range(2))
    arguments = _with_test_defaults(arguments)
    saved_cwd, saved_env, saved_argv = os.getcwd(), dict(os.environ), sys.argv
    timed_out = False
    finished = False

    def interrupt() -> None:
        nonlocal timed_out
        with _watched:
            if not finished:
                timed_out = True
                _thread.interrupt_main(signal.SIGINT)

    watchdog = threading.Timer(timeout, interrupt)
    try:
        if cwd is not None:
            os.chdir(cwd)
        os.environ.update(env or {})
        sys.argv = ["mcp-toolfuzz", *arguments]
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr), warnings.catch_warnings(), _local_constants_of_a_fresh_process():
            warnings.resetwarnings()
            for action, category, module in _PYTHON_WARNING_FILTERS:
                warnings.filterwarnings(action, category=category, module=module, append=True)
            warnings.showwarning = lambda message, category, filename, lineno, file=None, line=None: sys.stderr.write(
                warnings.formatwarning(message, category, filename, lineno, line)
            )
            watchdog.start()
            try:
                with library_warnings_silenced():
                    returncode = main(list(arguments))
            except SystemExit as exit:
                if exit.code is None or isinstance(exit.code, int):
                    returncode = exit.code or 0
                else:
                    print(exit.code, file=sys.stderr)
                    returncode = 1
            except KeyboardInterrupt:
                if not timed_out:
                    raise
                returncode = -signal.SIGINT
            except Exception:
                traceback.print_exc()
                returncode = 1
            finally:
                with _watched:
                    finished = True
                watchdog.cancel()
    finally:
        sys.argv = saved_argv
        os.environ.clear()
        os.environ.update(saved_env)
        os.chdir(saved_cwd)
    command = ["mcp-toolfuzz", *arguments]
    out, err = (stream.buffer.getvalue().decode(encoding, errors) for stream in (stdout, stderr))  # type: ignore[attr-defined]
    if timed_out:
        raise subprocess.TimeoutExpired(command, timeout, out, err)
    return subprocess.CompletedProcess(command, returncode, out, err)


def mcp_toolfuzz_process(
    *arguments: str,
    cwd: Path | str | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = 180,
    encoding: str = "utf-8",
    errors: str = "strict",
) -> subprocess.CompletedProcess[str]:
    """`python -m fuzz ARGUMENTS` in a process of its own, for what `mcp_toolfuzz` cannot show."""
    return subprocess.run(
        [sys.executable, "-m", "fuzz", *arguments],
        capture_output=True,
        text=True,
        encoding=encoding,
        errors=errors,
        timeout=timeout,
        cwd=cwd,
        env=None if env is None else {**os.environ, **env},
    )


def one_line_exit_2(run: subprocess.CompletedProcess[str]) -> str:
    """The one line a harness error prints (exit 2, no traceback), for the tests of bad input."""
    assert run.returncode == 2, (run.stdout, run.stderr)
    assert "Traceback" not in run.stdout + run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    assert lines[0].startswith("mcp-toolfuzz: ")
    return lines[0]


def rule_tool_pairs(result: RunResult) -> set[tuple[str, str]]:
    return {(finding.rule.id, finding.tool) for finding in result.findings}


@pytest.fixture(scope="session")
def typescript_server() -> StdioTarget:
    """The TypeScript SDK fixture. Its packages are installed by the README's test command
    (`npm ci --prefix tests/servers/typescript`); a missing install is an error, not a skip."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not on PATH: the TypeScript SDK server tests need Node.js 20")
    if not (TYPESCRIPT_SERVER / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        pytest.fail("the TypeScript SDK is not installed: run `npm ci --prefix tests/servers/typescript`")
    return StdioTarget((node, str(TYPESCRIPT_SERVER / "server.mjs")))


def pytest_configure(config: pytest.Config) -> None:
    """Ctrl-C as a terminal sends it, whoever started the suite: a shell without job control starts
    a command run in the background (`cmd &`, as CI scripts do) with SIGINT ignored, which every
    process it starts inherits, so that the tests that interrupt a run would wait for it forever.
    A handler of Python's own is reset to the default by `exec`: the targets and runs the tests
    start get Python's KeyboardInterrupt again."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def _run_in_a_scratch_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`mcp-toolfuzz run` keeps a corpus in ./corpus by default: tests run where that is harmless,
    never in the repository, whose corpus/ holds the demo's seed reproductions."""
    monkeypatch.chdir(tmp_path)


def made_once(tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], None]) -> Path:
    """A directory that `make(directory)` fills once per test session, whatever the number of
    xdist workers: a module fixture that costs a whole run is otherwise made again in each
    worker its module's tests are spread over. The first worker to ask makes it, under a lock;
    the others wait for it. Each caller gets a copy of its own, to write beside what was made."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    directory = shared / f"made-once-{name}"
    with open(shared / f"made-once-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not (directory / ".done").exists():
                shutil.rmtree(directory, ignore_errors=True)
                directory.mkdir()
                make(directory)
                (directory / ".done").touch()
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return Path(shutil.copytree(directory, tmp_path_factory.mktemp(name) / name))


@contextmanager
def serving_http(*command: str, startup: float = 20.0) -> Iterator[HttpTarget]:
    """A server started as `command --http PORT` on a free port of 127.0.0.1, as an HttpTarget
    for its /mcp endpoint; its whole process group is killed afterwards."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([*command, "--http", str(port)], start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        give_up = time.monotonic() + startup
        while True:
            if process.poll() is not None:
                pytest.fail(f"{command} exited with code {process.returncode} before listening on port {port}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > give_up:
                    pytest.fail(f"{command} did not listen on port {port} within {startup} s")
                time.sleep(0.1)
        yield HttpTarget(f"http://127.0.0.1:{port}/mcp")
    finally:
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def processes_running(marker: str) -> list[str]:
    """The command lines of live processes (not zombies) whose arguments include `marker`."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            arguments = (proc / "cmdline").read_bytes().split(b"\0")
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in arguments and state != "Z":
            found.append(b" ".join(arguments).decode(errors="replace"))
    return found
