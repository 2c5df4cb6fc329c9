"""A corpus per target: two servers with the same tools and different bugs, fuzzed one after the
other from one directory with the default `--corpus corpus`, each keep, replay and judge "already
in the corpus" against their own reproductions alone (issue 35)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from fuzz.corpus import reproductions as corpus
from fuzz.corpus import tool_lists
from fuzz.corpus.targets import identity_of
from tests.conftest import SERVERS, mcp_toolfuzz

FIRST = [sys.executable, str(SERVERS / "reference_server.py"), "--bug", "unknown-tool"]
"""Answers an unknown tool with JSON-RPC error -32602."""
SECOND = [*FIRST, "--unknown-tool-code", "-32601"]
"""The same tools, answering an unknown tool with -32601."""


def _harness(*arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return mcp_toolfuzz(*arguments, timeout=240, cwd=cwd)


def _run(server: list[str], report: str, cwd: Path) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """A run with the default corpus (`corpus` in `cwd`)."""
    run = _harness(
        "run",
        "--seed",
        "1",
        "--max-examples",
        "16",
        "--tools",
        "divide",
        "--allow-destructive",
        "--no-progress",
        "--report",
        f"json:{report}",
        "--",
        *server,
        cwd=cwd,
    )
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stdout[-3000:] + run.stderr
    return run, json.loads((cwd / report).read_text())


def _unknown_tool_codes(paths: list[Path]) -> set[int]:
    return {json.loads(path.read_text())["response"]["error"]["code"] for path in paths if json.loads(path.read_text())["rule"] == "unknown-tool"}


@pytest.mark.slow
def test_two_servers_from_one_directory_keep_replay_and_judge_their_own_reproductions(tmp_path: Path) -> None:
    _, first = _run(FIRST, "first.json", tmp_path)
    first_files = sorted({tmp_path / finding["reproduction"] for finding in first["findings"]})
    assert first_files and all(finding["firstSeen"] for finding in first["findings"])
    (first_dir,) = {path.parent for path in first_files}
    assert first_dir.parent == tmp_path / "corpus" and first_dir.name.startswith("reference-server--")
    assert _unknown_tool_codes(first_files) == {-32602}

    second_run, second = _run(SECOND, "second.json", tmp_path)
    assert second["replayed"] == [], "the first server's reproductions are not replayed against the second"
    assert second["findings"] and all(finding["firstSeen"] for finding in second["findings"]), "its findings are new"
    assert "already in the corpus" not in second_run.stdout and "new findings: 0" not in second_run.stdout
    second_files = sorted({tmp_path / finding["reproduction"] for finding in second["findings"]})
    (second_dir,) = {path.parent for path in second_files}
    assert second_dir != first_dir and second_dir.parent == tmp_path / "corpus"
    assert all(path.is_file() for path in second_files), "it wrote its own reproductions"
    assert _unknown_tool_codes(second_files) == {-32601}, "its own answers are on disk"
    for line in second_run.stdout.splitlines():
        if line.strip().startswith("replay:") and "mcp-toolfuzz replay" in line:
            assert str(second_dir.relative_to(tmp_path)) in line, f"a replay line points at another target's file: {line}"
    identity = json.loads(second_files[0].read_text())["targetIdentity"]
    assert identity["server"] == "reference-server" and identity["key"] == second_dir.name
    assert identity["launch"].endswith("reference_server.py --bug unknown-tool --unknown-tool-code -32601")

    printed = _harness("replay", str(second_files[0].relative_to(tmp_path)), cwd=tmp_path)
    assert printed.returncode == 1 and "JSON-RPC error -32601" in printed.stdout, "the printed replay command replays the second server"

    third_run, third = _run(FIRST, "third.json", tmp_path)
    replayed = {tmp_path / item["path"]: item["status"] for item in third["replayed"]}
    assert replayed == dict.fromkeys(first_files, "STILL FAILING"), "the first server replays its own, and only its own"
    assert all(not finding["firstSeen"] for finding in third["findings"])
    assert {tmp_path / finding["reproduction"] for finding in third["findings"]} <= set(first_files)
    assert "corpus  STILL FAILING" in third_run.stdout


@pytest.mark.slow
def test_replay_given_files_and_a_target_replays_what_it_is_given(tmp_path: Path) -> None:
    _run(SECOND, "second.json", tmp_path)
    files = corpus.discover([tmp_path / "corpus"])
    assert files and all(path.parent.parent == tmp_path / "corpus" for path in files), "a directory's targets are found"
    fixed = _harness("replay", "corpus", "--", sys.executable, str(SERVERS / "reference_server.py"), cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stdout
    assert f"{len(files)} replayed: {len(files)} FIXED" in fixed.stdout


@pytest.mark.slow
def test_a_corpus_written_before_targets_were_recorded_is_read_as_before_and_said_so_once(tmp_path: Path) -> None:
    _, made = _run(FIRST, "made.json", tmp_path)
    written = sorted({tmp_path / finding["reproduction"] for finding in made["findings"]})
    for path in written:  # as an mcp-toolfuzz that recorded no target wrote them: no identity, in the directory itself
        document = json.loads(path.read_text())
        document.pop("targetIdentity")
        (tmp_path / "corpus" / corpus.Reproduction.from_json(document).legacy_file_name).write_text(json.dumps(document))
        path.unlink()
    (written[0].parent / tool_lists.FILE_NAME).unlink()  # nor did it keep a tool list
    written[0].parent.rmdir()
    document["target"]["command"] = [*document["target"]["command"], "--label", "another"]
    (tmp_path / "corpus" / "another-target.json").write_text(json.dumps(document))

    run, again = _run(FIRST, "again.json", tmp_path)
    legacy = sorted(path.name for path in (tmp_path / "corpus").glob("*.json"))
    assert sorted(Path(item["path"]).name for item in again["replayed"]) == sorted(set(legacy) - {"another-target.json"})
    assert all(item["status"] == "STILL FAILING" for item in again["replayed"])
    notes = [line for line in run.stdout.splitlines() if "written before reproductions named their target" in line]
    assert len(notes) == 1 and f": {len(legacy) - 1} reproduction" in notes[0], run.stdout[:2000]
    assert all(not finding["firstSeen"] for finding in again["findings"]), "the old files hold its findings"
    assert not list((tmp_path / "corpus").glob("*/*.json")), "nothing is written twice (the target's directory holds its tool list alone)"


def test_what_identifies_a_target_across_nights() -> None:
    def key(command: list[str], name: str = "srv", version: str = "1.0") -> str:
        return identity_of({"transport": "stdio", "command": command}, {"name": name, "version": version}).key

    same = key(["python3.11", "/home/ci/app/server.py"])
    assert key(["/opt/venv/bin/python", "/home/ci/app/server.py"], version="2.0") == same, "another interpreter, a new version"
    assert key(["python", "/home/ci/app/server.py"], name="other") != same, "another server name"
    assert key(["python", "/home/ci/app/other.py"]) != same, "a renamed script"
    assert key(["npx", "-y", "@acme/server@1.2.3"]) == key(["npx", "-y", "@acme/server@2.0.0"]), "a new release"
    assert key(["docker", "run", "-p", "8080:80", "ghcr.io/acme/server:v1"]) == key(["docker", "run", "-p", "8080:80", "ghcr.io/acme/server:v2"])
    assert key(["docker", "run", "-p", "8080:80", "acme"]) != key(["docker", "run", "-p", "9090:80", "acme"])
    http = identity_of({"transport": "http", "url": "http://u:***@Host:8000/mcp?token=***"}, {"name": "srv"})
    assert http.launch == "http://host:8000/mcp"
