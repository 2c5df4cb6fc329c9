"""A target cannot crash, blind or bloat the harness from the wire (issue 28).

Unit tests of the framing and of reading answers that cannot be decoded, then whole runs against
`servers/hostile_wire_server.py`, one mode per misbehaviour, each judged on the request it
answered. Time and memory against the compliant baseline are measured by
`benchmarks/hostile_wire.py`, not here.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from conftest import ALL_TOOLS, SERVERS, fuzz, mcp_toolfuzz, python_server

from fuzz.judging.findings import RunResult
from fuzz.wire.framing import ENDLESS_FACTOR, KEPT_ENDS, Lines, Oversized
from fuzz.wire.jsonrpc import (
    MAX_DEPTH,
    Garbage,
    Response,
    Unreadable,
    parse_line,
    salvaged_id,
)

HOSTILE = "hostile_wire_server.py"


# --- framing ---------------------------------------------------------------------------------


def test_lines_split_at_newlines_across_chunks_and_keep_the_last_line_without_one() -> None:
    lines = Lines(limit=100)
    assert lines.feed(b'{"a":1}\n{"b"') == [b'{"a":1}']
    assert lines.feed(b":2}\n\n") == [b'{"b":2}', b""]
    assert lines.feed(b"tail") == []
    assert lines.end() == [b"tail"]


def test_sse_lines_split_at_cr_lf_and_crlf_even_when_a_crlf_is_cut_between_chunks() -> None:
    lines = Lines(limit=100, sse=True)
    assert lines.feed(b"data: a\r") == [b"data: a"]
    assert lines.feed(b"\ndata: b\rdata: c\n\n") == [b"data: b", b"data: c", b""]


def test_a_line_past_the_limit_is_reported_as_it_passes_and_at_its_end_keeping_only_its_ends() -> None:
    lines = Lines(limit=400_000)
    head = b'{"jsonrpc":"2.0","id":7,"result":"'
    frames = lines.feed(head + b"x" * 420_000)
    assert len(frames) == 1 and isinstance(frames[0], Oversized) and not frames[0].ended
    assert frames[0].head.startswith(head) and len(frames[0].head) == KEPT_ENDS
    for _ in range(100):
        assert lines.feed(b"y" * 10_000) == []
    (ended, after) = lines.feed(b'z"}\n{"jsonrpc":"2.0","id":8,"result":{}}\n')
    assert isinstance(ended, Oversized) and ended.ended and ended.size == len(head) + 1_420_003
    assert ended.tail.endswith(b'yz"}') and len(ended.tail) == KEPT_ENDS
    assert after == b'{"jsonrpc":"2.0","id":8,"result":{}}', "the lines after an oversized one are read"


def test_a_line_past_the_limit_within_one_chunk_is_reported_once_ended() -> None:
    (frame, rest) = Lines(limit=50).feed(b"a" * 80 + b"\nnext\n")
    assert frame == Oversized(b"a" * 80, b"a" * 80, 80, ended=True) and rest == b"next"


def test_a_line_that_never_ends_is_taken_for_one_at_a_multiple_of_the_limit() -> None:
    lines = Lines(limit=1000)
    seen = [frame for _ in range(ENDLESS_FACTOR * 2) for frame in lines.feed(b"x" * 1000)]
    assert [(f.ended, f.endless) for f in seen if isinstance(f, Oversized)] == [(False, False), (False, True)]
    assert lines.oversized_bytes == ENDLESS_FACTOR * 2 * 1000


# --- answers that cannot be decoded ----------------------------------------------------------


def test_an_answer_nested_past_the_depth_limit_is_unreadable_and_keeps_its_id() -> None:
    deep = b'{"jsonrpc":"2.0","id":3,"result":' + b"[" * 200_000 + b"]" * 200_000 + b"}"
    (unreadable,) = parse_line(deep)
    assert isinstance(unreadable, Unreadable) and unreadable.request_id == 3 and "nested deeper" in unreadable.reason
    shallow_enough = b'{"jsonrpc":"2.0","id":4,"result":{"a":' + b"[" * (MAX_DEPTH - 2) + b"]" * (MAX_DEPTH - 2) + b"}}"
    assert isinstance(parse_line(shallow_enough)[0], Response)
    too_deep = b'{"jsonrpc":"2.0","id":5,"result":{"a":' + b"[" * MAX_DEPTH + b"]" * MAX_DEPTH + b"}}"
    assert isinstance(parse_line(too_deep)[0], Unreadable)


def test_an_answer_that_is_not_utf8_is_unreadable_and_keeps_its_id() -> None:
    (unreadable,) = parse_line(b'{"jsonrpc":"2.0","id":"a","result":{"content":[{"type":"text","text":"caf\xe9"}]}}')
    assert isinstance(unreadable, Unreadable) and unreadable.request_id == "a"
    assert "not UTF-8 (byte 0xe9" in unreadable.reason


def test_the_id_of_an_unreadable_answer_is_read_from_either_end_and_never_from_a_nested_object() -> None:
    assert salvaged_id(b'{"jsonrpc": "2.0", "id": 12, "result": {', b"") == 12
    assert salvaged_id(b'{"id":"x-1","jsonrpc":"2.0"', b"") == "x-1"
    assert salvaged_id(b'{"result":{', b'"}]},"jsonrpc":"2.0","id":12}') == 12
    assert salvaged_id(b'{"result":{', b'{"id":5}}}') is None, "an id inside the result is not the answer's"
    assert salvaged_id(b'{"jsonrpc":"2.0","id":3,"method":"roots/list"', b"") is None, "a request is no answer"


def test_garbage_is_quoted_from_its_beginning_only() -> None:
    (garbage,) = parse_line(b"DEBUG " + b"x" * 10_000_000)
    assert isinstance(garbage, Garbage) and len(garbage.text) <= 2000


# --- whole runs ------------------------------------------------------------------------------


def _run(mode: str, **options: object) -> RunResult:
    return fuzz(python_server(HOSTILE, mode), max_examples=10, timeout=5.0, selection=ALL_TOOLS, **options)


def _pairs(result: RunResult) -> set[tuple[str, str | None]]:
    return {(finding.rule.id, finding.tool) for finding in result.findings}


def test_the_compliant_baseline_has_no_finding() -> None:
    result = _run("compliant")
    assert result.findings == () and result.exit_code == 0


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["deep", "huge", "huge-id-last", "not-utf8"])
def test_an_unreadable_answer_is_a_finding_on_the_request_it_answered(mode: str) -> None:
    result = _run(mode)
    assert _pairs(result) == {("response-well-formed", "echo")}, [f.message for f in result.findings]
    (finding,) = result.findings
    assert finding.request["params"]["arguments"] == {"n": 100}, "shrunk to the minimal trigger"
    assert "cannot be read" in finding.why and finding.response is None and not result.stopped_early
    # A 200 MB line is read past to its end (issue 49): the target is kept, never called dead.
    assert result.target_restarts == 0


def test_one_huge_answer_is_that_call_s_finding_and_the_calls_after_it_are_answered() -> None:
    result = _run("huge-first")
    assert _pairs(result) == {("response-well-formed", "echo")}
    (summary,) = [s for s in result.tools if s.tool == "echo"]
    assert sum(summary.cases_sent.values()) > 20, "the run went on after the huge answer"


@pytest.mark.slow
def test_a_line_that_never_ends_is_a_finding_and_the_target_is_restarted_not_called_dead() -> None:
    result = _run("endless")
    assert _pairs(result) == {("response-well-formed", "echo")}, [f.message for f in result.findings]
    assert "not ended" in result.findings[0].why and result.target_restarts >= 1


def test_a_live_server_that_answers_ping_with_an_error_is_not_called_dead() -> None:
    result = _run("not-utf8-ping-error")
    assert _pairs(result) == {("response-well-formed", "echo")}, [f.message for f in result.findings]
    assert result.target_restarts == 0
    (summary,) = [s for s in result.tools if s.tool == "echo"]
    assert not summary.skips, summary.skips


def test_floods_of_notifications_and_of_server_requests_are_no_findings_and_the_run_goes_on() -> None:
    for mode in ("notification-flood", "request-flood"):
        result = _run(mode)
        assert result.findings == () and not result.stopped_early, (mode, [f.message for f in result.findings])


def test_a_flood_of_answers_to_ids_never_sent_is_a_finding_of_the_request_in_flight() -> None:
    result = _run("stray-flood")
    assert _pairs(result) == {("response-well-formed", "echo")}
    assert "no request in flight has" in result.findings[0].why


@pytest.mark.slow
def test_a_lone_surrogate_is_kept_exactly_in_the_json_report_and_the_reproduction(tmp_path: Path) -> None:
    report, corpus = tmp_path / "report.json", tmp_path / "corpus"
    run = mcp_toolfuzz(
        "run",
        "--seed",
        "1",
        "--max-examples",
        "10",
        "--phases",
        "boundary,random",
        "--corpus",
        str(corpus),
        "--report",
        f"json:{report}",
        "--report",
        f"markdown:{tmp_path / 'report.md'}",
        "--",
        sys.executable,
        str(SERVERS / HOSTILE),
        "lone-surrogate",
        timeout=120,
    )
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
    (finding,) = json.loads(report.read_text(encoding="utf-8"))["findings"]
    assert finding["rule"] == "tool-failure" and finding["response"]["error"]["data"] == "\ud800"
    (reproduction,) = corpus.glob("*/*.json")
    assert json.loads(reproduction.read_text(encoding="utf-8"))["response"]["error"]["message"] == "bad \udfff here"


@pytest.mark.slow
def test_replay_reads_answers_with_the_size_limit_it_is_given(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    server = [sys.executable, str(SERVERS / HOSTILE), "huge"]
    made = mcp_toolfuzz("run", "--seed", "1", "--max-examples", "5", "--phases", "boundary,random", "--corpus", str(corpus), "--", *server, timeout=120)
    assert made.returncode == 1, made.stdout[-2000:]
    (reproduction,) = corpus.glob("*/response-well-formed--*.json")

    def replay(*options: str) -> str:
        done = mcp_toolfuzz("replay", str(reproduction), *options, "--", *server, timeout=120)
        return done.stdout

    assert "STILL FAILING" in replay()
    assert "FIXED" in replay("--max-answer-size", "256MiB"), "the 200 MB answer is read whole, and is a success"
