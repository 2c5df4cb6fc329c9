"""Sequence reproductions (issue 31): the file holds the whole sequence, its name the same for the
same sequence found again, and a replay on a fresh target sends the steps again, taking each reused
value from this replay's answers (the notes server's ids are random), then judges the last
request: STILL FAILING on the buggy server, FIXED on the fixed one."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import trio

from fuzz.corpus import reproductions as corpus
from fuzz.corpus.replay import ReplayStatus, replay_alone, replay_on
from fuzz.engine.plan import DestructiveMode, Selection
from fuzz.judging.findings import SequenceStep, Use
from fuzz.wire.target import open_target
from strategies import CaseKind
from tests.conftest import SERVERS, fuzz, made_once, mcp_toolfuzz, python_server, serving_http, stdlib_server

NOTES = stdlib_server("notes_server.py")


@pytest.fixture(scope="module")
def sequence_files(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The sequence reproductions one run of the sequence phase writes for the notes server.

    Of its tools, those the bugs below need: each finding is shrunk, every try on a fresh server
    (`update_note` after a delete is one more of the same bug, and `list_notes` only reads)."""

    def search(directory: Path) -> None:
        run = mcp_toolfuzz(
            "run",
            "--phases",
            "sequence",
            "--allow-destructive",
            "--tools",
            "create_note,get_note,delete_note,set_archive,archive_note",
            "--max-examples",
            "50",
            "--seed",
            "1",
            "--corpus",
            str(directory / "corpus"),
            "--report",
            f"json:{directory / 'report.json'}",
            "--",
            *NOTES,
            cwd=directory,
            timeout=600,
        )
        assert run.returncode == 1, run.stdout[-3000:] + run.stderr[-3000:]

    directory = made_once(tmp_path_factory, "notes-sequences", search)
    return sorted((directory / "corpus").glob("*/*.json"))


@pytest.fixture(scope="module")
def sequence_report(sequence_files: list[Path]) -> dict[str, Any]:
    """The JSON report of the same run."""
    document: dict[str, Any] = json.loads((sequence_files[0].parents[2] / "report.json").read_text())
    return document


@pytest.mark.slow
def test_use_after_delete_a_second_delete_and_a_tool_switched_off_are_found_in_the_steps_they_need(sequence_report: dict[str, Any]) -> None:
    document = sequence_report
    found = {(finding["rule"], finding["tool"]): finding for finding in document["findings"]}
    assert {("tool-failure", "get_note"), ("tool-failure", "delete_note"), ("unknown-tool", "archive_note")} <= set(found)
    assert all(finding["case"] == "sequence" for finding in document["findings"])
    get = found["tool-failure", "get_note"]
    assert [step["request"]["params"]["name"] for step in get["steps"]] == ["create_note", "delete_note"]
    created = get["steps"][0]["response"]["result"]["structuredContent"]["id"]
    assert get["steps"][1]["request"]["params"]["arguments"]["id"] == created, "the delete reused the id create_note returned"
    assert get["request"]["params"]["arguments"]["note_id"] == created
    assert get["uses"] == [{"argument": "note_id", "step": 0, "path": ["structuredContent", "id"]}]
    assert get["judgedAs"] == "valid-arguments"
    assert len(found["tool-failure", "delete_note"]["steps"]) == 2
    gone = found["unknown-tool", "archive_note"]
    assert any(step["request"]["params"] == {"name": "set_archive", "arguments": {"enabled": False}} for step in gone["steps"])
    assert gone["judgedAs"] == "unknown-tool" and gone["response"]["error"]["code"] == -32601
    summary = next(tool for tool in document["tools"] if tool["name"] == "(sequences)")
    assert summary["casesSent"]["sequence"] > 50


def alone(path: Path, directory: Path) -> Path:
    """A copy of the file alone in an otherwise empty `directory`."""
    directory.mkdir()
    return Path(shutil.copy(path, directory / path.name))


def test_the_corpus_holds_each_sequence_with_its_steps(sequence_files: list[Path]) -> None:
    documents = [json.loads(path.read_text()) for path in sequence_files]
    assert {(document["rule"], document["tool"]) for document in documents} >= {
        ("tool-failure", "get_note"),
        ("tool-failure", "delete_note"),
        ("unknown-tool", "archive_note"),
    }
    for document in documents:
        assert document["case"] == "sequence" and document["steps"], document
        assert document["judgedAs"] in ("valid-arguments", "invalid-arguments", "unknown-tool")
        assert document["toolDefinition"]["name"] == document["tool"]
        for step in document["steps"]:
            assert step["request"]["method"] == "tools/call" and "uses" in step
    reused = [document for document in documents if document["uses"]]
    assert reused, "no sequence reused a value"
    for document in reused:
        for use in document["uses"]:
            step = document["steps"][use["step"]]
            assert use["path"][0] in ("structuredContent", "content")
            value = document["request"]["params"]["arguments"][use["argument"]]
            assert value in json.dumps(step["response"]), "the value reused was found in that step's answer"
    for path in sequence_files:
        assert corpus.load(path).file_name == path.name


@pytest.mark.slow
def test_each_sequence_replays_still_failing_from_an_empty_directory_then_fixed(sequence_files: list[Path], tmp_path: Path) -> None:
    for index, path in enumerate(sequence_files):
        copy = alone(path, tmp_path / f"empty{index}")
        steps = len(json.loads(copy.read_text())["steps"]) + 1
        still = mcp_toolfuzz("replay", copy.name, "--", *NOTES, cwd=copy.parent, timeout=120)
        assert still.returncode == 1, still.stdout + still.stderr
        assert still.stdout.startswith(f"STILL FAILING {copy.name}: "), still.stdout
        assert f"(sequence of {steps} steps)" in still.stdout.splitlines()[0]
        fixed = mcp_toolfuzz("replay", copy.name, "--", *NOTES, "--fixed", cwd=copy.parent, timeout=120)
        assert fixed.returncode == 0, fixed.stdout + fixed.stderr
        assert fixed.stdout.startswith(f"FIXED         {copy.name}: "), fixed.stdout
        assert f"no longer violated (sequence of {steps} steps)" in fixed.stdout.splitlines()[0]


def test_a_directory_of_sequences_replays_each_on_a_fresh_process(sequence_files: list[Path], tmp_path: Path) -> None:
    directory = tmp_path / "several"
    directory.mkdir()
    for path in sequence_files:
        shutil.copy(path, directory / path.name)
    still = mcp_toolfuzz("replay", str(directory), "--", *NOTES, cwd=tmp_path, timeout=120)
    assert still.returncode == 1 and still.stdout.count("STILL FAILING ") == len(sequence_files), still.stdout + still.stderr


def test_a_running_target_is_restarted_before_each_sequence(sequence_files: list[Path]) -> None:
    reproduction = corpus.load(sequence_files[0])

    async def replay_twice() -> tuple[list[ReplayStatus], int]:
        async with open_target(python_server("notes_server.py"), startup_timeout=20, protocol_version=reproduction.protocol_version) as target:
            statuses = [(await replay_on(target, reproduction)).status for _ in range(2)]
            return statuses, target.restarts

    statuses, restarts = trio.run(replay_twice)
    assert statuses == [ReplayStatus.STILL_FAILING] * 2 and restarts == 2


def test_a_value_no_answer_holds_is_sent_as_recorded_and_said(sequence_files: list[Path]) -> None:
    (path,) = [path for path in sequence_files if path.name.startswith("tool-failure--get_note--")]
    reproduction = corpus.load(path)
    assert reproduction.uses
    lost = replace(reproduction, uses=tuple(replace(use, path=("structuredContent", "gone")) for use in reproduction.uses))
    outcome = trio.run(replay_alone, python_server("notes_server.py"), lost)
    # the recorded id is of another run: this server never made it, and answers a tool execution error
    assert outcome.status is ReplayStatus.FIXED, outcome.detail
    assert "holds no value at structuredContent.gone; sent the recorded value" in outcome.detail


@pytest.mark.slow
def test_an_exported_sequence_replays_its_steps(sequence_files: list[Path], tmp_path: Path) -> None:
    directory = tmp_path / "target"
    directory.mkdir()
    for path in sequence_files:
        shutil.copy(path, directory / path.name)
    output = tmp_path / "test_exported_sequences.py"
    export = mcp_toolfuzz("export", str(directory), "--pytest", "-o", str(output), cwd=tmp_path)
    assert export.returncode == 0, export.stderr

    def pytest_with(*command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(output)],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
            env={"MCP_SERVER_COMMAND": " ".join(command), "PATH": "/usr/bin:/bin"},
        )

    buggy = pytest_with(*NOTES)
    assert buggy.returncode == 1 and f"{len(sequence_files)} failed" in buggy.stdout, buggy.stdout[-2000:]
    fixed = pytest_with(*NOTES, "--fixed")
    assert fixed.returncode == 0 and f"{len(sequence_files)} passed" in fixed.stdout, fixed.stdout[-2000:]


@pytest.mark.slow
def test_a_sequence_replayed_over_http_says_its_target_is_not_fresh(tmp_path: Path) -> None:
    with serving_http(sys.executable, str(SERVERS / "reference_server.py"), "--bug", "arguments-not-validated") as target:
        fuzz(target, selection=Selection(destructive=DestructiveMode.ALLOW, tools=frozenset({"book"})), corpus=tmp_path, envelope=False, timeout=5.0)
        (path,) = tmp_path.glob("*/arguments-not-validated--*.json")
        single = corpus.load(path)
        sequence = replace(single, case=CaseKind.SEQUENCE, steps=(SequenceStep(single.request, single.response),), judged_as=single.case)
        outcome = trio.run(replay_alone, target, sequence)
    assert outcome.status is ReplayStatus.STILL_FAILING, outcome.detail
    assert outcome.detail.endswith("(sequence of 2 steps; not on a fresh target: one given by URL cannot be restarted, so the steps met the state it had)")


# Without a run: the file format.


def _sequence(created: str = "1a2b3c4d") -> corpus.Reproduction:
    create = {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "create_note", "arguments": {"title": ""}}}
    created_answer = {
        "jsonrpc": "2.0",
        "id": 4,
        "result": {"content": [{"type": "text", "text": json.dumps({"id": created})}], "structuredContent": {"id": created, "title": ""}},
    }
    delete = {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "delete_note", "arguments": {"id": created}}}
    return corpus.Reproduction(
        rule="tool-failure",
        level="MUST",
        profile="sep-2145",
        tool="get_note",
        case=CaseKind.SEQUENCE,
        label="sequence step 3: get_note",
        target={"transport": "stdio", "command": [*NOTES]},
        protocol_version="2025-11-25",
        tool_listing=None,
        handshake=(),
        request={"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "get_note", "arguments": {"note_id": created}}},
        response={"jsonrpc": "2.0", "id": 6, "error": {"code": -32603, "message": "Internal error"}},
        message="...",
        seed=1,
        timeout=5.0,
        steps=(
            SequenceStep(create, created_answer),
            SequenceStep(delete, {"jsonrpc": "2.0", "id": 5, "result": {"content": []}}, (Use("id", 0, ("structuredContent", "id")),)),
        ),
        uses=(Use("note_id", 0, ("content", 0, "text", "id")),),
        judged_as=CaseKind.VALID_ARGUMENTS,
    )


def test_a_sequence_reproduction_round_trips_and_is_named_without_its_reused_values(tmp_path: Path) -> None:
    written = corpus.write(_sequence(), tmp_path)
    document = json.loads(written.read_text())
    assert document["judgedAs"] == "valid-arguments" and len(document["steps"]) == 2
    assert document["steps"][1]["uses"] == [{"argument": "id", "step": 0, "path": ["structuredContent", "id"]}]
    assert document["uses"] == [{"argument": "note_id", "step": 0, "path": ["content", 0, "text", "id"]}]
    loaded = corpus.load(written)
    assert loaded == _sequence() and loaded.source == written
    assert _sequence("ffff0000").file_name == written.name, "the ids a server gives change from run to run"
    other_step = replace(
        _sequence(),
        steps=(
            replace(_sequence().steps[0], request={**_sequence().steps[0].request, "params": {"name": "create_note", "arguments": {"title": "other"}}}),
            _sequence().steps[1],
        ),
    )
    assert other_step.file_name != written.name
    single = replace(_sequence(), case=CaseKind.VALID_ARGUMENTS, steps=(), uses=(), judged_as=None)
    assert "steps" not in single.as_json() and corpus.Reproduction.from_json(single.as_json()).steps == ()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("steps", "says"),
    [
        (None, "'steps' is None; a sequence's reproduction lists the requests before the one judged"),
        ([{"request": "tools/call"}], "'steps'[0] is {'request': 'tools/call'}, expected"),
        ([{"request": {}, "response": None, "uses": [{"argument": "id", "step": 3, "path": []}]}], "'steps'[0]['uses'] holds"),
    ],
)
def test_a_damaged_sequence_is_one_clear_line_and_exit_2(tmp_path: Path, steps: Any, says: str) -> None:
    document = _sequence().as_json()
    document["steps"] = steps
    path = tmp_path / "damaged.json"
    path.write_text(json.dumps(document))
    with pytest.raises(corpus.CorruptReproduction, match=r"damaged\.json is damaged: ") as raised:
        corpus.load(path)
    assert says in str(raised.value)
    replay = mcp_toolfuzz("replay", str(path), cwd=tmp_path, timeout=120)
    assert replay.returncode == 2, replay.stdout + replay.stderr
    (line,) = [line for line in replay.stdout.splitlines() if line.startswith("ERROR")]
    assert line.startswith(f"ERROR         {path}: {path} is damaged: ") and says in line
