"""Where Hypothesis keeps its examples (`--database URL|PATH|none`, `--database-read-only`), against
real `redis-server` processes (`tests/redis_server.py`): what a run shrank is what a later run
tries first, whatever its seed, process count and corpus; a Redis server that cannot be used is
one line and exit 2 before the target is even started; one that goes away mid-run costs a
warning, never a finding; read-only leaves the examples in place; credentials stay secret."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from fuzz.corpus.database import DatabaseChoice, ExampleStore
from fuzz.engine._process_events import Done, ShardMerger
from fuzz.engine.events import Event, RunStarted, Warned
from fuzz.engine.options import RunOptions
from fuzz.judging.findings import RunResult
from fuzz.wire.target import demo_target
from tests.conftest import SERVERS, mcp_toolfuzz, mcp_toolfuzz_process, one_line_exit_2, without_jsonrpc_ids
from tests.redis_server import RedisServer, free_port, redis_server


def started(output: Path, *arguments: str) -> subprocess.Popen[bytes]:
    """A run going on, its stdout and stderr written to `output` and `output`.err (a pipe could
    fill while the test waits, and stall the run)."""
    with output.open("wb") as stdout, output.with_suffix(".err").open("wb") as stderr:
        return subprocess.Popen([sys.executable, "-m", "fuzz", *arguments], stdout=stdout, stderr=stderr)


def findings_of(report: Path) -> list[str]:
    """The report's findings, each as its rule, tool, case kind and minimal request (ids made equal)."""
    return sorted(without_jsonrpc_ids([f["rule"], f["tool"], f["case"], f["request"]]) for f in json.loads(report.read_text())["findings"])


@pytest.fixture
def server() -> Any:
    with redis_server() as running:
        yield running


# ------------------------------------------------------------------ a database that cannot be used


def test_an_unreachable_redis_is_one_line_and_exit_2_before_the_target_starts(tmp_path: Path) -> None:
    port = free_port()  # nothing listens on it
    marker = tmp_path / "target-started"
    target = [sys.executable, "-c", f"open({str(marker)!r}, 'w'); import fuzz.demo_server as d; d.main()"]
    line = one_line_exit_2(
        mcp_toolfuzz("run", "--database", f"redis://user:secret@127.0.0.1:{port}/0", "--report", f"json:{tmp_path / 'r.json'}", "--", *target)
    )
    assert f"--database redis://user:***@127.0.0.1:{port}/0: PING failed (ConnectionError:" in line
    assert "Connection refused" in line and "--database none" in line
    assert not marker.exists(), "no target was started, so no case was sent"
    assert not (tmp_path / "r.json").exists()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("ftp://x", "--database 'ftp://x' is not a place for Hypothesis's examples: give a directory, a Redis URL"),
        ("https://user:secret@example.com/db", "--database 'https://user:***@example.com/db' is not a place for"),
        ("redis://:secret@127.0.0.1:notaport/0", "--database redis://:***@127.0.0.1:notaport/0 is not a Redis URL redis-py can use"),
        ("unix:///nonexistent/redis.sock?password=secret", "--database unix:///nonexistent/redis.sock?password=***: PING failed"),
    ],
)
def test_a_wrong_database_is_one_line_and_exit_2(value: str, expected: str) -> None:
    line = one_line_exit_2(mcp_toolfuzz("run", "--database", value, "--max-examples", "1"))
    assert expected in line
    assert "secret" not in line


def test_without_the_redis_package_the_line_says_which_extra_to_install() -> None:
    blocked = "import sys; sys.modules['redis'] = None; from fuzz.faces._cli import main; sys.exit(main(sys.argv[1:]))"
    run = subprocess.run([sys.executable, "-c", blocked, "run", "--database", "redis://127.0.0.1:1/0"], capture_output=True, text=True, timeout=60)
    line = one_line_exit_2(run)
    assert "needs the redis package, which is not installed: pip install 'mcp-toolfuzz[redis]'" in line


# ------------------------------------------------------------------ Redis gone mid-run


def _until_redis_holds_an_example(server: RedisServer, run: subprocess.Popen[bytes], within: float = 60.0) -> None:
    give_up = time.monotonic() + within
    while not server.examples():
        assert run.poll() is None, "the run ended before Redis held an example: make it longer"
        assert time.monotonic() < give_up, "no example reached Redis"
        time.sleep(0.02)


DEMO_RUN = ("run", "--phases", "random", "--max-examples", "30", "--seed", "5", "--no-corpus", "--no-progress")
"""The random search alone: its findings are shrunk, and each shrink writes examples to the
database (a rule the boundary phase's canonical cases found first is not shrunk again)."""


@pytest.fixture(scope="module")
def without_redis(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The findings of DEMO_RUN without a database, from a process of its own (as the run it is
    compared with)."""
    report = tmp_path_factory.mktemp("without-redis") / "r.json"
    assert mcp_toolfuzz_process(*DEMO_RUN, "--processes", "1", "--database", "none", "--report", f"json:{report}").returncode == 1
    return findings_of(report)


@pytest.mark.slow
@pytest.mark.parametrize("processes", ["1", "2"])
def test_redis_killed_mid_run_is_one_warning_and_loses_no_finding(server: RedisServer, tmp_path: Path, processes: str, without_redis: list[str]) -> None:
    report = tmp_path / "with-redis.json"
    output = tmp_path / "run.out"
    run = started(
        output, *DEMO_RUN, "--processes", processes, "--database", server.url, "--report", f"json:{report}", "--report", f"markdown:{tmp_path / 'summary.md'}"
    )
    _until_redis_holds_an_example(server, run)
    server.kill()
    run.wait(timeout=180)
    stdout, stderr = output.read_text(), output.with_suffix(".err").read_text()
    assert run.returncode == 1, stdout[-3000:] + stderr
    assert stderr == ""  # (stdout quotes the demo's leaked traceback: a finding)
    live = [line for line in stdout.splitlines() if line.startswith("warning ")]
    summed = [line for line in stdout.splitlines() if line.startswith("  warning: ")]
    # One process: said once. Two: once per distinct text, and each process fails alike.
    assert len(live) == 1 if processes == "1" else 1 <= len(live) <= 2, stdout
    for line in live:
        assert f"example database Redis {server.url} failed (ConnectionError:" in line
        assert "left out for the rest of the run, which goes on without an example database" in line
    assert [line.removeprefix("  warning: ") for line in summed] == [line.removeprefix("warning ") for line in live]
    document = json.loads(report.read_text())
    assert document["warnings"] == [line.removeprefix("warning ") for line in live]
    assert document["exitCode"] == 1 and document["stoppedEarly"] is None
    summary = (tmp_path / "summary.md").read_text()
    assert summary.count("> Warning: example database Redis ") == len(live), "the CI job summary says it too"
    assert findings_of(report) == without_redis, "the run without Redis made the same findings"


def test_a_store_says_its_first_error_once_and_goes_on_with_the_directory(server: RedisServer, tmp_path: Path) -> None:
    store = ExampleStore(DatabaseChoice.parse(server.url), tmp_path / "corpus")
    database = store.database
    assert database is not None
    database.save(b"key", b"before")
    assert server.examples() == {b"hypothesis-example:key": {b"before"}}
    server.kill()
    started_at = time.monotonic()
    database.save(b"key", b"after")
    database.delete(b"key", b"before")
    database.save(b"key", b"later")
    assert sorted(database.fetch(b"key")) == [b"after", b"later"], "the directory database goes on"
    assert time.monotonic() - started_at < 10, "a gone server costs one short timeout, not one per call"
    (warning,) = store.warnings
    assert warning.startswith(f"example database Redis {server.url} failed (ConnectionError:")
    assert warning.endswith(f"which goes on with the directory {tmp_path / 'corpus' / '.hypothesis'}")


def test_a_forked_worker_s_warning_reaches_the_listener_once_and_the_merged_result() -> None:
    told: list[Event] = []
    options = RunOptions(target=demo_target(), seed=1, processes=2, envelope=False, phases=frozenset())
    merger = ShardMerger(options, told.append, 2, time.monotonic())
    gone = "example database Redis redis://127.0.0.1:1/0 failed (ConnectionError: ...)"
    begun = RunStarted(seed=1, target="demo", protocol_version="2025-11-25", server_name="demo", tool_names=(), profile="sep-2145")
    merger.take(1, Warned(gone))  # the forked worker's, held until every process has started
    merger.take(0, begun)
    merger.take(1, begun)
    merger.take(0, Warned(gone))
    merger.take(1, Warned("another"))
    assert [event.warning for event in told if isinstance(event, Warned)] == [gone, "another"]
    result = RunResult(1, {}, "demo", "2025-11-25", {}, {}, (), 1.0)
    merger.take(0, Done(result))
    merger.take(1, Done(RunResult(1, {}, "demo", "2025-11-25", {}, {}, (), 1.0, warnings=(gone, "a third"))))
    assert merger.result(None, exit_codes=[0, 0]).warnings == (gone, "another", "a third")


# ------------------------------------------------------------------ what a later run tries first

LOOKUP = ("run", "--tools", "lookup", "--phases", "random", "--no-progress")
"""The demo's `lookup` of "gamma" leaks a traceback (internal-details-leak, on valid arguments);
the simplest valid call, `{"key": "alpha"}`, does not. A random search of one example tries
only the simplest (Hypothesis's first example, whatever the seed): without a database it
cannot find the leak. Up to 15 examples, a batch holds one case, so --max-examples 15 and 1
explore under the same database key (which names the batch size)."""


def _leaks(report: Path) -> list[dict[str, Any]]:
    leak = ("internal-details-leak", "lookup", "valid-arguments")
    return [f for f in json.loads(report.read_text())["findings"] if (f["rule"], f["tool"], f["case"]) == leak]


def test_a_failure_shrunk_into_redis_is_what_a_later_run_tries_first(server: RedisServer, tmp_path: Path) -> None:
    """Each run a process of its own: what one stored, another finds (and two of them fork)."""
    first, later, control = tmp_path / "first.json", tmp_path / "later.json", tmp_path / "control.json"
    assert (
        mcp_toolfuzz_process(
            *LOOKUP,
            "--max-examples",
            "15",
            "--seed",
            "11",
            "--processes",
            "1",
            "--corpus",
            str(tmp_path / "X"),
            "--database",
            server.url,
            "--report",
            f"json:{first}",
        ).returncode
        == 1
    )
    (found,) = _leaks(first)
    assert found["request"]["params"]["arguments"] == {"key": "gamma"}
    assert server.examples(), "the shrunk failure is in Redis"
    # Another seed, another shard count (the first of two shards: lookup's, the envelopes go to the
    # second), two worker processes, an empty corpus directory: only Redis can hold what the first
    # run found.
    common = ("--max-examples", "1", "--seed", "12", "--processes", "2", "--shard", "1/2")
    run = mcp_toolfuzz_process(*LOOKUP, *common, "--corpus", str(tmp_path / "Y"), "--database", server.url, "--report", f"json:{later}")
    assert run.returncode == 1, run.stderr
    assert "lookup" in json.loads(later.read_text())["shard"]["owned"]
    (again,) = _leaks(later)
    assert again["request"]["params"] == found["request"]["params"]
    assert json.loads(later.read_text())["replayed"] == [], "no reproduction was replayed: Y was empty"
    sent = next(t for t in json.loads(later.read_text())["tools"] if t["name"] == "lookup")["casesSent"]["valid-arguments"]
    assert sent <= 3, "the stored case, its shrink check and its lone resend: no search"
    assert mcp_toolfuzz_process(*LOOKUP, *common, "--corpus", str(tmp_path / "Z"), "--database", "none", "--report", f"json:{control}").returncode == 1
    assert _leaks(control) == [], "the control: the same run without the database does not find it"


# ------------------------------------------------------------------ read-only

SHIM = """import os, runpy, sys
sys.path.insert(0, {servers!r})
bug = os.environ.get("TOOLFUZZ_TEST_BUG")
sys.argv = [{server!r}, *(["--bug", bug] if bug else [])]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


@pytest.mark.slow
def test_read_only_leaves_the_examples_of_fixed_failures_where_a_writing_run_deletes_them(server: RedisServer, tmp_path: Path) -> None:
    """The same command (so the same database key) is the buggy server, then the fixed one: the
    bug comes from the environment, which the target's description does not show."""
    shim = tmp_path / "server.py"
    shim.write_text(SHIM.format(servers=str(SERVERS), server=str(SERVERS / "reference_server.py")))
    common = (
        "run",
        "--tools",
        "divide",
        "--allow-destructive",
        "--phases",
        "random",
        "--max-examples",
        "8",
        "--no-corpus",
        "--processes",
        "1",
        "--no-progress",
        "--database",
        server.url,
    )
    buggy = mcp_toolfuzz(*common, "--seed", "1", "--", sys.executable, str(shim), env={"TOOLFUZZ_TEST_BUG": "tool-failure"})
    assert buggy.returncode == 1 and "tool-failure [MUST] · tool divide · valid-arguments" in buggy.stdout, buggy.stdout[-2000:]
    kept = server.examples()
    assert kept, "the failure is in Redis"
    fixed_read_only = mcp_toolfuzz(*common, "--seed", "2", "--database-read-only", "--", sys.executable, str(shim))
    assert fixed_read_only.returncode == 0, fixed_read_only.stdout[-2000:]
    assert f"database Redis {server.url} (read-only)" in fixed_read_only.stdout
    assert server.examples() == kept, "read-only: the examples that no longer fail stay for the nightly run"
    fixed = mcp_toolfuzz(*common, "--seed", "2", "--", sys.executable, str(shim))
    assert fixed.returncode == 0, fixed.stdout[-2000:]
    assert server.examples() == {}, "Hypothesis deletes an example that no longer fails when it may write"


# ------------------------------------------------------------------ directories, none, settings, secrets


DIVIDE = ("--tools", "divide", "--max-examples", "16", "--phases", "random", "--seed", "3")
"""A short demo run that shrinks a failure (divide by zero) into the database."""


def _examples_in(directory: Path) -> list[Path]:
    return [path for path in directory.rglob("*") if path.is_file()] if directory.is_dir() else []


@pytest.mark.slow
def test_none_writes_no_directory_and_a_path_is_where_examples_go(tmp_path: Path) -> None:
    none = mcp_toolfuzz("run", *DIVIDE, "--corpus", "corpus-a", "--database", "none", cwd=tmp_path)
    assert none.returncode == 1, none.stderr
    assert (tmp_path / "corpus-a").is_dir() and not (tmp_path / "corpus-a" / ".hypothesis").exists()
    assert not list(tmp_path.rglob(".hypothesis"))
    elsewhere = mcp_toolfuzz("run", *DIVIDE, "--corpus", "corpus-b", "--database", "examples", "--report", "json:r.json", cwd=tmp_path)
    assert elsewhere.returncode == 1, elsewhere.stderr
    assert _examples_in(tmp_path / "examples") and not (tmp_path / "corpus-b" / ".hypothesis").exists()
    assert json.loads((tmp_path / "r.json").read_text())["options"]["database"] == {"directory": "examples", "redis": None, "readOnly": False}
    default = mcp_toolfuzz("run", *DIVIDE, "--corpus", "corpus-c", cwd=tmp_path)
    assert default.returncode == 1 and _examples_in(tmp_path / "corpus-c" / ".hypothesis"), "the default: beside the corpus"


@pytest.mark.slow
def test_the_settings_file_keys(tmp_path: Path) -> None:
    settings = tmp_path / "mcp-toolfuzz.toml"
    settings.write_text('database = "kept-examples"\ndatabase-read-only = true\nmax-examples = 16\nphases = "random"\nno-corpus = true\n')
    read_only = mcp_toolfuzz("run", "--tools", "divide", "--seed", "3", "--report", "json:r.json", cwd=tmp_path)
    assert read_only.returncode == 1, read_only.stderr
    assert json.loads((tmp_path / "r.json").read_text())["options"]["database"] == {"directory": "kept-examples", "redis": None, "readOnly": True}
    assert not _examples_in(tmp_path / "kept-examples"), "read-only: nothing written"
    settings.write_text('database = "kept-examples"\nmax-examples = 16\nphases = "random"\nno-corpus = true\n')
    writing = mcp_toolfuzz("run", "--tools", "divide", "--seed", "3", cwd=tmp_path)
    assert writing.returncode == 1 and _examples_in(tmp_path / "kept-examples")
    assert not (tmp_path / "corpus").exists()
    settings.write_text('database = "ftp://x"\n')
    line = one_line_exit_2(mcp_toolfuzz("run", cwd=tmp_path))
    assert f"{settings}: database 'ftp://x' is not a place for Hypothesis's examples" in line


@pytest.mark.slow
def test_a_redis_password_is_used_and_never_printed_or_written(tmp_path: Path) -> None:
    with redis_server(password="s3cr3t-pw") as guarded:
        report = tmp_path / "r.json"
        run = mcp_toolfuzz("run", *DIVIDE, "--database", guarded.url, "--report", f"json:{report}", cwd=tmp_path)
        assert run.returncode == 1, run.stderr
        assert guarded.examples(), "authenticated: the examples are in Redis"
        written = [report, *(path for path in (tmp_path / "corpus").rglob("*.json"))]
        assert "s3cr3t-pw" not in run.stdout + run.stderr + "".join(path.read_text() for path in written)
        assert json.loads(report.read_text())["options"]["database"] == {
            "directory": "corpus/.hypothesis",
            "redis": f"redis://:***@127.0.0.1:{guarded.port}/0",
            "readOnly": False,
        }
        wrong = one_line_exit_2(mcp_toolfuzz("run", "--database", f"redis://:not-{guarded.password}@127.0.0.1:{guarded.port}/0"))
        assert "PING failed (AuthenticationError:" in wrong and "not-s3cr3t-pw" not in wrong
