"""Stderr quoted with its provenance: a line read while other requests were in flight is marked
as such in every exchange that quotes it, and a request alone in flight quotes its own lines as
they are; a finding never presents another request's traceback as its own (issue 35)."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest
import trio

from fuzz.wire._session import Session
from fuzz.wire._transport import StdioTransport
from fuzz.wire.replies import Answered, Exchange, NoAnswer
from tests.conftest import SERVERS, mcp_toolfuzz

SCRIPT = """
    import json, sys, time
    def send(m):
        sys.stdout.write(json.dumps(m) + "\\n"); sys.stdout.flush()
    silent, noisy = (json.loads(sys.stdin.readline()) for _ in range(2))
    sys.stderr.write("Traceback (most recent call last):\\nRuntimeError: the noisy one failed\\n"); sys.stderr.flush()
    time.sleep(0.3)  # the harness reads stderr before the answer
    send({"jsonrpc": "2.0", "id": noisy["id"], "error": {"code": -32603, "message": "Internal error"}})
    alone = json.loads(sys.stdin.readline())
    sys.stderr.write("warning: the lone request's own line\\n"); sys.stderr.flush()
    time.sleep(0.3)
    send({"jsonrpc": "2.0", "id": alone["id"], "result": {}})
    time.sleep(5)
"""


def test_lines_read_while_other_requests_were_in_flight_are_marked_and_a_lone_request_s_are_not(tmp_path: Path) -> None:
    script = tmp_path / "server.py"
    script.write_text(textwrap.dedent(SCRIPT))

    async def main() -> tuple[list[Exchange], Exchange]:
        transport = await StdioTransport.start([sys.executable, str(script)])
        session = Session(transport)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(session.serve)
            try:
                together = await session.send_requests(
                    [lambda i: {"jsonrpc": "2.0", "id": i, "method": "silent"}, lambda i: {"jsonrpc": "2.0", "id": i, "method": "noisy"}],
                    timeout=1.5,
                )
                alone = await session.request("alone", timeout=5)
                return together, alone
            finally:
                await transport.aclose()
                nursery.cancel_scope.cancel()

    (silent, noisy), alone = trio.run(main)
    assert isinstance(silent.reply, NoAnswer) and isinstance(noisy.reply, Answered)
    marked = ("[1 other request in flight] Traceback (most recent call last):", "[1 other request in flight] RuntimeError: the noisy one failed")
    assert silent.stderr == marked, "the unanswered request does not quote the other's traceback as its own"
    assert noisy.stderr == marked, "nor does the noisy one: both were in flight when it was read"
    assert alone.stderr == ("warning: the lone request's own line",), "a request alone in flight quotes its lines as they are"
    assert transport_lines_unmarked(script)


def transport_lines_unmarked(script: Path) -> bool:
    """`stderr_since` without a request (the target's last words, `stderr_tail`) quotes lines as
    they are."""

    async def main() -> tuple[str, ...]:
        transport = await StdioTransport.start([sys.executable, "-c", "import sys; sys.stderr.write('a\\nb\\n')"])
        async with trio.open_nursery() as nursery:
            nursery.start_soon(transport.background)
            await transport.wait()
            nursery.cancel_scope.cancel()
        tail = transport.stderr_tail(5)
        await transport.aclose()
        return tail

    return trio.run(main) == ("a", "b")


@pytest.mark.slow
def test_a_finding_about_an_unanswered_request_never_quotes_another_request_s_traceback_as_its_own(tmp_path: Path) -> None:
    """`job` hangs on an even `n` and writes a traceback for an odd one: batches of valid calls
    mix both, so unanswered calls are in flight while others write their tracebacks."""
    report = tmp_path / "report.json"
    run = mcp_toolfuzz(
        "run",
        "--seed",
        "2",
        "--max-examples",
        "16",
        "--timeout",
        "1",
        "--allow-destructive",
        "--no-corpus",
        "--no-progress",
        "--report",
        f"json:{report}",
        "--",
        sys.executable,
        str(SERVERS / "stderr_server.py"),
        timeout=300,
        cwd=tmp_path,
    )
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stdout[-3000:] + run.stderr
    findings = {finding["rule"]: finding for finding in json.loads(report.read_text())["findings"]}
    assert findings["request-answered"]["request"]["params"]["arguments"]["n"] % 2 == 0
    for line in findings["request-answered"]["stderr"]:
        assert line.startswith("[") and " in flight] " in line, f"a line of another request's is quoted as the hang's own: {line!r}"
    failure = findings["tool-failure"]
    assert any(line.endswith(f"RuntimeError: job {failure['request']['params']['arguments']['n']} failed") for line in failure["stderr"])
