"""Answering what a server asks, without ever holding up reading its answers.

Under the handshake revisions a server may send requests in the middle of a call. The harness
answers `ping`; once the handshake has declared the client's capabilities (`answer_inputs`), it
answers `elicitation/create`, `sampling/createMessage` and `roots/list` as a multi round-trip call's
inputs are answered under 2026-07-28 (`strategies.inputs.responses`), by the plainest plan: accept,
with the plainest content. A request cannot be told apart by the call it serves when several are in
flight, so the plan is one for all. Every other request is refused with -32601, and under
2026-07-28, which has no server requests, every request but `ping`.

The answers are written by a task of their own, from a bounded queue.
The reader only queues.
Otherwise a server could flood requests and not read its stdin.
The harness would then stop reading its stdout, and both would wait on each other for good.
Past the queue's size, requests go unanswered.
A server that asks faster than it reads cannot be answered anyway.
"""

from __future__ import annotations

import contextlib
from typing import Any

import trio

from fuzz.wire._transport import Transport, TransportClosed
from fuzz.wire.jsonrpc import JSONRPC_VERSION, METHOD_NOT_FOUND, ServerRequest, encode
from strategies.inputs import Inputs, responses

QUEUED = 64
"""Answers waiting to be written."""
INPUT_METHODS = ("elicitation/create", "sampling/createMessage", "roots/list")
"""The server requests answered once the client declared the capabilities they need."""
PLAIN = Inputs()


class ServerRequestAnswers:
    """The answers to a server's requests, written apart from the reading.

    `queue` each request as it is read; `run` writes the answers until `close`."""

    def __init__(self, transport: Transport) -> None:
        self._transport = transport
        self._to_send, self._to_write = trio.open_memory_channel[dict[str, Any]](QUEUED)
        self.answer_inputs = False
        """Whether the client declared the capabilities the input requests need (the handshake did)."""

    def queue(self, request: ServerRequest) -> None:
        result = self._result(request)
        if result is not None:
            answer: dict[str, Any] = {"jsonrpc": JSONRPC_VERSION, "id": request.id, "result": result}
        else:
            answer = {
                "jsonrpc": JSONRPC_VERSION,
                "id": request.id,
                "error": {"code": METHOD_NOT_FOUND, "message": f"mcp-toolfuzz does not support {request.method}"},
            }
        # Full, closed, or its writer gone with the target's stdin (`run` returned): unanswered.
        with contextlib.suppress(trio.WouldBlock, trio.ClosedResourceError, trio.BrokenResourceError):
            self._to_send.send_nowait(answer)

    def _result(self, request: ServerRequest) -> dict[str, Any] | None:
        if request.method == "ping":
            return {}
        if not self.answer_inputs or request.method not in INPUT_METHODS:
            return None
        return responses({"asked": request.message}, PLAIN, 0).get("asked")

    async def run(self) -> None:
        async with self._to_write:
            async for answer in self._to_write:
                try:
                    await self._transport.send(encode(answer))
                except TransportClosed:
                    return

    def close(self) -> None:
        self._to_send.close()
