"""The session against small scripted servers: answers matched by id whatever their order,
and every misbehaviour returned as an outcome, never raised."""

from __future__ import annotations

import contextlib
import os
import sys
import textwrap
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
import trio
import trio.testing

from fuzz.errors import TargetStartError
from fuzz.wire._server_requests import ServerRequestAnswers
from fuzz.wire._session import Session
from fuzz.wire._transport import StdioTransport, TransportClosed
from fuzz.wire.jsonrpc import ServerRequest
from fuzz.wire.replies import AnomalyKind, Answered, Exchange, NoAnswer, TargetExited

PRELUDE = "import json, sys, os, time\ndef send(m):\n    sys.stdout.write(json.dumps(m) + '\\n'); sys.stdout.flush()\n"


def _run(tmp_path: Path, server_body: str, client: Callable[[Session], Awaitable[object]]) -> object:
    script = tmp_path / "server.py"
    script.write_text(PRELUDE + textwrap.dedent(server_body))

    async def main() -> object:
        transport = await StdioTransport.start([sys.executable, str(script)])
        session = Session(transport)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(session.serve)
            try:
                return await client(session)
            finally:
                await transport.aclose()
                nursery.cancel_scope.cancel()

    return trio.run(main)


def test_answers_out_of_order_with_notifications_and_server_requests_between(tmp_path: Path) -> None:
    server = """
        requests = [json.loads(sys.stdin.readline()) for _ in range(10)]
        send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x"}})
        send({"jsonrpc": "2.0", "id": "srv-1", "method": "ping"})
        for request in reversed(requests):
            send({"jsonrpc": "2.0", "method": "notifications/progress", "params": {}})
            send({"jsonrpc": "2.0", "id": request["id"], "result": {"echo": request["params"]["n"]}})
        pong = json.loads(sys.stdin.readline())
        sys.stderr.write("client answered " + json.dumps(pong) + "\\n")
        time.sleep(5)
    """

    async def client(session: Session) -> list[Exchange]:
        exchanges: list[Exchange] = [None] * 10  # type: ignore[list-item]

        async def one(n: int) -> None:
            exchanges[n] = await session.request("echo", {"n": n}, timeout=5)

        async with trio.open_nursery() as nursery:
            for n in range(10):
                nursery.start_soon(one, n)
        return exchanges

    exchanges = _run(tmp_path, server, client)
    for n, exchange in enumerate(exchanges):  # type: ignore[arg-type]
        assert isinstance(exchange.reply, Answered)
        assert exchange.reply.message["id"] == exchange.request["id"]
        assert exchange.reply.message["result"] == {"echo": n}
        assert exchange.anomalies == ()


def test_no_answer_is_an_outcome(tmp_path: Path) -> None:
    async def client(session: Session) -> Exchange:
        return await session.request("tools/call", {}, timeout=0.2)

    exchange = _run(tmp_path, "time.sleep(10)\n", client)
    assert exchange.reply == NoAnswer(0.2)  # type: ignore[union-attr]


def test_target_exit_is_an_outcome_with_its_code_and_stderr(tmp_path: Path) -> None:
    server = """
        sys.stdin.readline()
        sys.stderr.write("dying now\\n"); sys.stderr.flush()
        os._exit(7)
    """

    async def client(session: Session) -> tuple[Exchange, Exchange]:
        first = await session.request("tools/call", {}, timeout=5)
        second = await session.request("tools/call", {}, timeout=5)
        return first, second

    first, second = _run(tmp_path, server, client)  # type: ignore[misc]
    assert first.reply == TargetExited(7)
    assert second.reply == TargetExited(7)
    assert "dying now" in first.stderr


def test_an_answer_with_another_id_and_garbage_are_anomalies(tmp_path: Path) -> None:
    server = """
        request = json.loads(sys.stdin.readline())
        print("Starting server on stdio...", flush=True)
        send({"jsonrpc": "2.0", "id": request["id"] + 1000, "result": {}})
        send({"jsonrpc": "2.0", "id": str(request["id"]), "result": {}})
        time.sleep(10)
    """

    async def client(session: Session) -> Exchange:
        return await session.request("tools/call", {}, timeout=0.5)

    exchange = _run(tmp_path, server, client)
    assert isinstance(exchange.reply, NoAnswer)  # type: ignore[union-attr]
    kinds = [anomaly.kind for anomaly in exchange.anomalies]  # type: ignore[union-attr]
    assert kinds == [AnomalyKind.GARBAGE, AnomalyKind.STRAY_ANSWER, AnomalyKind.STRAY_ANSWER]


def test_a_second_answer_to_one_id_is_an_anomaly(tmp_path: Path) -> None:
    server = """
        first = json.loads(sys.stdin.readline())
        send({"jsonrpc": "2.0", "id": first["id"], "result": {}})
        send({"jsonrpc": "2.0", "id": first["id"], "result": {}})
        second = json.loads(sys.stdin.readline())
        time.sleep(0.3)
        send({"jsonrpc": "2.0", "id": second["id"], "result": {}})
        time.sleep(10)
    """

    async def client(session: Session) -> tuple[Exchange, Exchange]:
        return await session.request("a", timeout=5), await session.request("b", timeout=5)

    first, second = _run(tmp_path, server, client)  # type: ignore[misc]
    assert isinstance(first.reply, Answered)
    # Whichever exchange is in flight when the duplicate is read reports it.
    assert [a.kind for a in first.anomalies + second.anomalies] == [AnomalyKind.DUPLICATE_ANSWER]


def test_closing_kills_the_whole_process_group(tmp_path: Path) -> None:
    server = """
        import subprocess, signal
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        child = subprocess.Popen([sys.executable, "-c", "import time, signal; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)"])
        send({"jsonrpc": "2.0", "id": 0, "result": {"child": child.pid}})
        time.sleep(60)
    """
    script = tmp_path / "server.py"
    script.write_text(PRELUDE + textwrap.dedent(server))

    async def main() -> tuple[int, int]:
        transport = await StdioTransport.start([sys.executable, str(script)])
        async for line in transport.incoming():
            child = int(line.decode().split('"child": ')[1].rstrip("}"))
            break
        await transport.aclose(grace=0.2)
        return transport.pid, child

    parent, child = trio.run(main)
    for pid in (parent, child):
        with pytest.raises(OSError):
            _wait_gone(pid)


def _wait_gone(pid: int) -> None:
    """Raises OSError once `pid` no longer exists (reaping it if it is our zombie)."""
    for _ in range(50):
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
        os.kill(pid, 0)
        trio.run(trio.sleep, 0.05)


def test_a_command_that_does_not_exist_is_a_start_error() -> None:
    with pytest.raises(TargetStartError, match="not found"):
        trio.run(StdioTransport.start, ["definitely-not-a-command-xyz"])


def test_a_late_answer_is_not_a_duplicate(tmp_path: Path) -> None:
    server = """
        first = json.loads(sys.stdin.readline())
        second = json.loads(sys.stdin.readline())
        send({"jsonrpc": "2.0", "id": first["id"], "result": {}})
        send({"jsonrpc": "2.0", "id": second["id"], "result": {}})
        third = json.loads(sys.stdin.readline())
        send({"jsonrpc": "2.0", "id": first["id"], "result": {}})
        time.sleep(10)
    """

    async def client(session: Session) -> tuple[Exchange, Exchange, Exchange]:
        first = await session.request("slow", timeout=0.1)
        second = await session.request("b", timeout=5)
        third = await session.request("c", timeout=0.3)
        return first, second, third

    first, second, third = _run(tmp_path, server, client)  # type: ignore[misc]
    assert isinstance(first.reply, NoAnswer)
    assert isinstance(second.reply, Answered)
    assert [a.kind for a in second.anomalies] == [AnomalyKind.LATE_ANSWER]
    assert [a.kind for a in third.anomalies] == [AnomalyKind.DUPLICATE_ANSWER]


def _build(method: str) -> Callable[[int], dict[str, object]]:
    return lambda request_id: {"jsonrpc": "2.0", "id": request_id, "method": method}


def test_a_batch_goes_out_in_one_write_and_each_request_ends_when_answered(tmp_path: Path) -> None:
    """Over stdio the requests of one `send_requests` reach the target in one read (one write,
    one wake-up of the target), and each is over as its own answer comes, not the slowest's:
    the dispatcher counts requests in flight by `on_end`."""
    server = """
        chunk = os.read(0, 65536)
        requests = [json.loads(line) for line in chunk.decode().splitlines()]
        sys.stderr.write(f"first read held {len(requests)} requests\\n"); sys.stderr.flush()
        for request in requests[1:]:
            send({"jsonrpc": "2.0", "id": request["id"], "result": {"method": request["method"]}})
        time.sleep(0.6)
        send({"jsonrpc": "2.0", "id": requests[0]["id"], "result": {"method": requests[0]["method"]}})
        time.sleep(10)
    """
    ended: list[float] = []

    async def client(session: Session) -> tuple[list[Exchange], float]:
        started = trio.current_time()
        exchanges = await session.send_requests(
            [_build("slow"), _build("quick"), _build("quick")],
            timeout=5,
            on_end=lambda: ended.append(trio.current_time() - started),
        )
        return exchanges, trio.current_time() - started

    exchanges, seconds = _run(tmp_path, server, client)  # type: ignore[misc]
    assert [exchange.reply.message["result"]["method"] for exchange in exchanges] == ["slow", "quick", "quick"]  # type: ignore[union-attr]
    assert exchanges[0].stderr == ("[2 other requests in flight] first read held 3 requests",), "written with the batch in flight"
    assert len(ended) == 3
    assert ended[0] < 0.5 and ended[1] < 0.5, ended
    assert ended[2] >= 0.5 and seconds >= 0.5, (ended, seconds)


def test_a_batch_with_one_request_unanswered_waits_the_timeout_for_it_alone(tmp_path: Path) -> None:
    server = """
        requests = [json.loads(line) for line in os.read(0, 65536).decode().splitlines()]
        send({"jsonrpc": "2.0", "id": requests[1]["id"], "result": {}})
        time.sleep(10)
    """

    async def client(session: Session) -> list[Exchange]:
        return await session.send_requests([_build("dropped"), _build("answered")], timeout=0.4)

    dropped, answered = _run(tmp_path, server, client)  # type: ignore[misc]
    assert dropped.reply == NoAnswer(0.4, overtaken=True)
    assert isinstance(answered.reply, Answered)


def test_the_opening_quotes_what_the_target_printed_before_the_first_request(tmp_path: Path) -> None:
    """A banner printed on stdout at start-up, before the harness wrote anything, is in the
    one-line error when the target then answers nothing (it came in no request's exchange)."""
    from fuzz.wire.lifecycle import open_session
    from fuzz.wire.opening import Silent

    async def client(session: Session) -> str:
        await trio.sleep(1.0)  # the banner has come and been read before the first request
        with pytest.raises(Silent) as raised:
            await open_session(session, timeout=0.3)
        return str(raised.value)

    message = _run(tmp_path, "print('Listening on port 8080', flush=True)\ntime.sleep(30)\n", client)
    assert "its stdout carried: Listening on port 8080" in message, message  # type: ignore[operator]


def test_a_target_that_exits_is_quoted_with_what_came_on_stderr_as_it_went(tmp_path: Path) -> None:
    """The stderr written as a target exits is read before the exit is reported: here by the
    target's own child, a tenth of a second after the target itself is gone (a wrapper such as
    `npx` or a shell script exits before what it started has had its last word)."""
    server = """
        import subprocess
        sys.stdin.readline()
        subprocess.Popen([sys.executable, "-c", "import sys, time; time.sleep(0.1); sys.stderr.write('missing API key\\\\n')"],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        os._exit(3)
    """

    async def client(session: Session) -> tuple[Exchange, tuple[str, ...]]:
        exchange = await session.request("server/discover", timeout=5)
        return exchange, session.transport.stderr_tail(5)

    exchange, stderr = _run(tmp_path, server, client)  # type: ignore[misc]
    assert exchange.reply == TargetExited(3)
    assert "missing API key" in stderr


class _ClosedStdin:
    """A transport whose target has closed its stdin: every write fails."""

    kind = "stdio"
    max_message_bytes = 1 << 20
    exchange_per_request = False

    def __init__(self) -> None:
        self.writes = 0

    async def send(self, data: bytes) -> None:
        self.writes += 1
        raise TransportClosed()


def test_a_server_request_read_after_the_answer_writer_stopped_goes_unanswered_without_raising() -> None:
    """The target died while its request was read: the writer task saw the closed stdin and
    ended, closing its end of the queue. Queueing the next request raised BrokenResourceError
    out of the session's reader and crashed the run (seen once in a CI run of the reference
    server's target-alive bug)."""
    transport = _ClosedStdin()
    answers = ServerRequestAnswers(transport)  # type: ignore[arg-type]

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(answers.run)
            answers.queue(ServerRequest(1, "ping", {"jsonrpc": "2.0", "id": 1, "method": "ping"}))
            await trio.testing.wait_all_tasks_blocked()
            answers.queue(ServerRequest(2, "roots/list", {"jsonrpc": "2.0", "id": 2, "method": "roots/list"}))
            answers.close()

    trio.run(main)
    assert transport.writes == 1, "the first answer was tried once; the writer then stopped"
