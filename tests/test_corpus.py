"""Reproductions: files written as findings are made, replayed from the file alone, the corpus
replayed first, baselines, export, determinism, and interruption."""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fuzz.corpus import reproductions as corpus
from fuzz.corpus.database import DIRECTORY, directory_database
from fuzz.engine.plan import DestructiveMode, Selection
from tests.conftest import SERVERS, fuzz, mcp_toolfuzz, mcp_toolfuzz_process, python_server, without_jsonrpc_ids

REPO_CORPUS = Path(__file__).parent.parent / "corpus"
BOOK_ONLY = Selection(destructive=DestructiveMode.ALLOW, tools=frozenset({"book"}))


def _buggy_run(directory: Path, protocol_version: str | None = None) -> list[Path]:
    result = fuzz(
        python_server("reference_server.py", "--bug", "arguments-not-validated"),
        selection=BOOK_ONLY,
        corpus=directory,
        envelope=False,
        protocol_version=protocol_version,
    )
    assert [f.rule.id for f in result.findings] == ["arguments-not-validated"]
    return sorted(directory.glob("*/*.json"))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("protocol_version", "opening"),
    [
        (None, ["server/discover"]),  # the reference server is detected as stateless (2026-07-28)
        ("2025-06-18", ["initialize", "notifications/initialized"]),
    ],
)
def test_a_finding_file_alone_replays_still_failing_then_fixed(tmp_path: Path, protocol_version: str | None, opening: list[str]) -> None:
    (made,) = _buggy_run(tmp_path / "corpus", protocol_version)
    alone = tmp_path / "elsewhere"
    alone.mkdir()
    copy = alone / made.name
    shutil.copy(made, copy)
    document = json.loads(copy.read_text())
    assert document["format"] == corpus.FORMAT and document["request"]["params"]["arguments"]["nights"] == 31
    assert [m.get("method") for m in document["handshake"]] == opening
    assert document["reproduce"] == f"mcp-toolfuzz replay {made.name}"

    still = mcp_toolfuzz("replay", made.name, cwd=alone)
    assert still.returncode == 1, still.stdout + still.stderr
    assert still.stdout.startswith(f"STILL FAILING {made.name}: arguments-not-validated")
    fixed = mcp_toolfuzz("replay", made.name, "--", sys.executable, str(SERVERS / "reference_server.py"), cwd=alone)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert fixed.stdout.startswith(f"FIXED         {made.name}")


def test_the_same_finding_found_twice_is_one_file(tmp_path: Path) -> None:
    first = _buggy_run(tmp_path)
    second = _buggy_run(tmp_path)
    assert first == second and len(first) == 1


@pytest.mark.slow
def test_the_repo_corpus_holds_only_the_demos_reproductions_and_they_replay_still_failing_from_anywhere(tmp_path: Path) -> None:
    """The committed corpus is the demo's: each file names the demo (not an interpreter's path),
    and replays from a copy in another directory with the interpreter that runs the harness."""
    files = sorted(REPO_CORPUS.rglob("*.json"))
    assert len(files) >= 10
    assert {path.parent.name for path in files} == {"mcp-toolfuzz-demo--4469577ada"}, "one target's directory: the demo's"
    for path in files:
        assert json.loads(path.read_text())["target"] == {"transport": "stdio", "command": ["python", "-m", "fuzz.demo_server"], "demo": True}, path
    copy = shutil.copytree(REPO_CORPUS, tmp_path / "elsewhere" / "corpus")
    replay = mcp_toolfuzz("replay", str(copy), cwd=tmp_path)
    assert replay.returncode == 1
    assert sum(line.startswith("STILL FAILING ") for line in replay.stdout.splitlines()) == len(files), replay.stdout
    assert f"{len(files)} replayed: 0 FIXED, {len(files)} STILL FAILING, 0 ERROR" in replay.stdout


@pytest.mark.slow
def test_run_replays_the_corpus_first_and_skips_a_corrupt_file_by_name(tmp_path: Path) -> None:
    directory = tmp_path / "corpus"
    (made,) = _buggy_run(directory)
    (directory / "broken.json").write_text('{"format": "mcp-toolfuzz/reproduction", "version": 1, "rule": 3}')
    (directory / "foreign.json").write_text("[1, 2, 3]")
    (directory / "other-target.json").write_text(made.read_text().replace("reference_server.py", "elsewhere.py"))
    report = tmp_path / "report.json"
    run = mcp_toolfuzz(
        "run",
        "--seed",
        "1",
        "--max-examples",
        "30",
        "--allow-destructive",
        "--tools",
        "book",
        "--corpus",
        str(directory),
        "--report",
        f"json:{report}",
        "--",
        sys.executable,
        str(SERVERS / "reference_server.py"),
        "--bug",
        "arguments-not-validated",
    )
    assert run.returncode == 1, run.stderr
    replayed = {Path(r["path"]).name: r for r in json.loads(report.read_text())["replayed"]}
    assert replayed[made.name]["status"] == "STILL FAILING"
    assert replayed["broken.json"]["status"] == "ERROR" and "damaged" in replayed["broken.json"]["detail"]
    assert replayed["foreign.json"]["status"] == "ERROR" and "not an mcp-toolfuzz reproduction" in replayed["foreign.json"]["detail"]
    assert "other-target.json" not in replayed, "another target's reproductions are left alone"
    assert f"corpus  ERROR         {directory / 'broken.json'}" in run.stdout


@pytest.mark.slow
def test_baselines_accept_known_findings_and_report_stale_ones(tmp_path: Path) -> None:
    base = tmp_path / "baseline.json"
    server = [sys.executable, str(SERVERS / "reference_server.py")]
    common = ["run", "--seed", "1", "--max-examples", "30", "--phases", "boundary,random", "--allow-destructive", "--tools", "book", "--no-corpus"]
    update = mcp_toolfuzz(*common, "--baseline", str(base), "--baseline-update", "--", *server, "--bug", "arguments-not-validated")
    assert update.returncode == 1
    entries = json.loads(base.read_text())["findings"]
    assert {"rule": "arguments-not-validated", "tool": "book", "case": "invalid-arguments"} in entries
    known = mcp_toolfuzz(*common, "--baseline", str(base), "--", *server, "--bug", "arguments-not-validated")
    assert known.returncode == 0, known.stdout[-1500:]
    assert "known: in the baseline" in known.stdout
    fixed = mcp_toolfuzz(*common, "--baseline", str(base), "--", *server)
    assert fixed.returncode == 0
    assert "stale baseline entry (not reproduced by this run): arguments-not-validated · book · invalid-arguments" in fixed.stdout
    new_bug = mcp_toolfuzz(*common, "--baseline", str(base), "--", *server, "--bug", "malformed-request")
    assert new_bug.returncode == 1, "a finding not in the baseline fails the run"


@pytest.mark.slow
def test_a_bad_baseline_file_is_one_line_and_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    run = mcp_toolfuzz("run", "--baseline", str(bad), "--max-examples", "1")
    assert run.returncode == 2 and run.stderr.strip().splitlines() == [
        f'mcp-toolfuzz: --baseline {bad}: not an mcp-toolfuzz baseline (expected "format": "mcp-toolfuzz/baseline" and a "findings" list)'
    ]


@pytest.mark.slow
def test_export_writes_a_pytest_file_that_fails_on_the_bug_and_passes_on_the_fix(tmp_path: Path) -> None:
    _buggy_run(tmp_path / "corpus")
    output = tmp_path / "test_exported.py"
    export = mcp_toolfuzz("export", str(tmp_path / "corpus"), "--pytest", "-o", str(output))
    assert export.returncode == 0, export.stderr
    compiled = compile(output.read_text(), str(output), "exec")
    assert compiled is not None
    buggy = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(output)], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert buggy.returncode == 1 and "1 failed" in buggy.stdout, buggy.stdout[-2000:]
    fixed_command = f"{sys.executable} {SERVERS / 'reference_server.py'}"
    fixed = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(output)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={"MCP_SERVER_COMMAND": fixed_command, "PATH": "/usr/bin:/bin"},
    )
    assert fixed.returncode == 0 and "1 passed" in fixed.stdout, fixed.stdout[-2000:]


def _report_of_run(path: Path, *options: str) -> dict[str, Any]:
    """A run in a process of its own (each with its own hash seed, as two runs would be; and
    `--processes` forks the process it runs in)."""
    run = mcp_toolfuzz_process("run", "--seed", "99", "--max-examples", "15", "--no-corpus", "--report", f"json:{path}", *options)
    assert run.returncode == 1
    document = json.loads(path.read_text())
    document.pop("seconds")
    for tool in document["tools"]:
        assert set(tool.pop("secondsSpent")) == set(tool["casesSent"]), tool
    return document


def _difference(first: dict[str, Any], second: dict[str, Any]) -> str:
    """Where two reports differ (JSON-RPC ids aside), one line per value, by its path in the
    report (a tool by its name, a finding by rule, tool and case): a failure's message must say
    what differs, and must never fail itself. (`without_jsonrpc_ids` writes each id as a bare
    `N`, which is not JSON: the reports are compared as read back with every id made 0.)"""
    try:
        lines = list(_differing(*(_ids_as_zero(report) for report in (first, second))))
    except Exception as error:
        return f"the reports differ; where could not be shown ({error!r})"
    if len(lines) > _DIFFERENCES_SHOWN:
        lines[_DIFFERENCES_SHOWN:] = [f"... and {len(lines) - _DIFFERENCES_SHOWN} more"]
    return "the reports differ (path: first | second):\n" + "\n".join(lines or ["nowhere but in their JSON-RPC ids"])


_DIFFERENCES_SHOWN = 40


def _ids_as_zero(report: dict[str, Any]) -> Any:
    return json.loads(re.sub(r'(?<!\\)("id": )N\b', r"\g<1>0", without_jsonrpc_ids(report)))


def _differing(first: Any, second: Any, path: str = "report") -> Iterator[str]:
    """The paths at which `first` and `second` differ, each with both values (shortened)."""
    if isinstance(first, dict) and isinstance(second, dict):
        for key in [*first, *(key for key in second if key not in first)]:
            yield from _differing(first.get(key, _ABSENT), second.get(key, _ABSENT), f"{path}.{key}")
    elif isinstance(first, list) and isinstance(second, list):
        ones, others = _by_label(first), _by_label(second)
        for label in [*ones, *(label for label in others if label not in ones)]:
            yield from _differing(ones.get(label, _ABSENT), others.get(label, _ABSENT), f"{path}[{label}]")
    elif isinstance(first, str) and isinstance(second, str) and first != second:
        at = next((index for index, (one, other) in enumerate(zip(first, second, strict=False)) if one != other), min(len(first), len(second)))
        yield f"{path}, from character {at}: {_short(first[max(0, at - 40) :])} | {_short(second[max(0, at - 40) :])}"
    elif first != second:
        yield f"{path}: {_short(first)} | {_short(second)}"


_ABSENT = "(absent)"


def _by_label(items: list[Any]) -> dict[str, Any]:
    """A list's items by what names them (a tool's name, null for the envelope; a finding's rule,
    tool and case), or by place when that does not tell them apart."""
    labels = [_label(item) for item in items]
    if None in labels or len(set(labels)) < len(labels):
        return {str(index): item for index, item in enumerate(items)}
    return dict(zip(labels, items, strict=True))  # type: ignore[arg-type]


def _label(item: Any) -> str | None:
    if isinstance(item, dict) and "name" in item:
        return json.dumps(item["name"]).strip('"')
    if isinstance(item, dict) and "rule" in item:
        return " · ".join(str(item.get(key)) for key in ("rule", "tool", "case"))
    return None


def _short(value: Any) -> str:
    text = value if value is _ABSENT else json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 200 else f"{text[:200]}... ({len(text)} characters)"


@pytest.mark.slow
def test_two_runs_with_one_seed_give_identical_reports_but_for_timings_and_ids(tmp_path: Path) -> None:
    """The JSON-RPC ids a request gets depend on what else was in flight (other explorations'
    batches, the canonical cases sent ahead); everything else is the same, whatever --workers and
    --processes (each process has its own connection, and its own ids)."""
    first, second = (_report_of_run(tmp_path / f"{name}.json", "--workers", "4", "--processes", "2") for name in ("first", "second"))
    assert first["findings"], "the demo has findings at this budget"
    assert without_jsonrpc_ids(first) == without_jsonrpc_ids(second), _difference(first, second)
    alone = [_report_of_run(tmp_path / f"{name}.json", "--workers", "1", "--processes", "1") for name in ("alone-1", "alone-2")]
    assert without_jsonrpc_ids(alone[0]) == without_jsonrpc_ids(alone[1]), _difference(alone[0], alone[1])
    three = _report_of_run(tmp_path / "three.json", "--workers", "1", "--processes", "3")
    for report in (first, three, *alone):
        report["options"].pop("workers")
        report["options"].pop("processes")
    assert without_jsonrpc_ids(alone[0]) == without_jsonrpc_ids(first), _difference(alone[0], first)
    assert without_jsonrpc_ids(alone[0]) == without_jsonrpc_ids(three), _difference(alone[0], three)


@pytest.mark.slow
@pytest.mark.parametrize("signal_number", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_run_leaves_every_finding_on_disk_complete(tmp_path: Path, signal_number: int) -> None:
    directory = tmp_path / "corpus"
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
            "60",
            "--allow-destructive",
            "--tool-max-examples",
            "mirror=100000",  # the last tool's long search: the run is still going when the signal comes
            "--corpus",
            str(directory),
            "--report",
            f"json:{report}",
            "--",
            sys.executable,
            str(SERVERS / "reference_server.py"),
            "--bug",
            "unknown-tool",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    for line in process.stdout:
        if line.startswith("  book "):
            break
    process.send_signal(signal_number)
    out, err = process.communicate(timeout=60)
    assert "Traceback" not in err
    expected = "interrupted (Ctrl-C)" if signal_number == signal.SIGINT else "terminated (SIGTERM)"
    assert f"The run stopped early: {expected}" in out
    assert json.loads(report.read_text())["stoppedEarly"] == expected
    files = sorted(directory.glob("*/*.json"))
    assert files, "the findings made before the signal are on disk"
    for path in files:
        assert corpus.load(path).rule == "unknown-tool"
    assert not list(directory.glob("*/.*.tmp")), "no half-written file is left"


def test_the_example_database_survives_missing_read_only_and_corrupt_states(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert type(directory_database(tmp_path / "fresh" / DIRECTORY, read_only=False)).__name__ == "DirectoryBasedExampleDatabase"
    assert (tmp_path / "fresh" / ".hypothesis").is_dir()
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    nothing = directory_database(blocked / DIRECTORY, read_only=False)
    nothing.save(b"key", b"value")
    assert type(nothing).__name__ == "ReadOnlyDatabase" and list(nothing.fetch(b"key")) == []
    readonly = tmp_path / "readonly"
    (readonly / ".hypothesis").mkdir(parents=True)
    monkeypatch.setattr("fuzz.corpus.database.os.access", lambda path, mode: False)
    assert type(directory_database(readonly / DIRECTORY, read_only=False)).__name__ == "ReadOnlyDatabase"
    monkeypatch.undo()
    assert type(directory_database(tmp_path / "asked" / DIRECTORY, read_only=True)).__name__ == "ReadOnlyDatabase"
    assert not (tmp_path / "asked").exists(), "read-only (--database-read-only), nothing is made"
    directory = tmp_path / "corrupt"
    for junk in ("aa", "bb/cc"):
        (directory / ".hypothesis" / junk).mkdir(parents=True)
        (directory / ".hypothesis" / junk / "0123").write_bytes(b"\xff\x00garbage")
    result = fuzz(
        python_server("reference_server.py", "--bug", "arguments-not-validated"), selection=BOOK_ONLY, corpus=directory, envelope=False, max_examples=10
    )
    assert [f.rule.id for f in result.findings] == ["arguments-not-validated"]


@pytest.mark.slow
def test_secrets_in_the_command_are_never_written(tmp_path: Path) -> None:
    token = "sk-live-0123456789abcdef"
    report = tmp_path / "report.json"
    run = mcp_toolfuzz(
        "run",
        "--seed",
        "1",
        "--max-examples",
        "30",
        "--allow-destructive",
        "--tools",
        "book",
        "--corpus",
        str(tmp_path / "c"),
        "--report",
        f"json:{report}",
        "--",
        sys.executable,
        str(SERVERS / "reference_server.py"),
        "--bug",
        "arguments-not-validated",
        "--label",
        f"API_TOKEN={token}",
    )
    assert run.returncode == 1
    written = [report, *(tmp_path / "c").glob("*/*.json")]
    assert len(written) >= 2
    for path in written:
        assert token not in path.read_text()
    assert token not in run.stdout + run.stderr
    replay = mcp_toolfuzz("replay", str(tmp_path / "c"))
    assert replay.returncode == 2 and "secrets redacted; give the target with `-- COMMAND` or --config" in replay.stdout
