"""Answering what a server asks, without ever holding up reading its answers.

The harness declares no client capabilities.
So it answers `ping`, and refuses every other request with -32601.

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

QUEUED = 64
"""Answers waiting to be written."""


class ServerRequestAnswers:
    """The answers to a server's requests, written apart from the reading.

    `queue` each request as it is read; `run` writes the answers until `close`."""

    def __init__(self, transport: Transport) -> None:
        self._transport = transport
        self._to_send, self._to_write = trio.open_memory_channel[dict[str, Any]](QUEUED)

    def queue(self, request: ServerRequest) -> None:
        if request.method == "ping":
            answer: dict[str, Any] = {"jsonrpc": JSONRPC_VERSION, "id": request.id, "result": {}}
        else:
            answer = {
                "jsonrpc": JSONRPC_VERSION,
                "id": request.id,
                "error": {"code": METHOD_NOT_FOUND, "message": f"mcp-toolfuzz does not support {request.method}"},
            }
        # Full, closed, or its writer gone with the target's stdin (`run` returned): unanswered.
        with contextlib.suppress(trio.WouldBlock, trio.ClosedResourceError, trio.BrokenResourceError):
            self._to_send.send_nowait(answer)

    async def run(self) -> None:
        async with self._to_write:
            async for answer in self._to_write:
                try:
                    await self._transport.send(encode(answer))
                except TransportClosed:
                    return

    def close(self) -> None:
        self._to_send.close()
