"""The session's bookkeeping of requests in flight: who waits for what, and since when.

A `Waiter` is one request awaiting its reply.
The reply may be an answer, an unreadable answer, an undelivered marker, or the target gone.
A `Batch` is the requests sent together and waited on together.
`Marks` say where a send began.
What came meanwhile is then that send's to report.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import trio

from fuzz.wire.jsonrpc import Unreadable
from fuzz.wire.replies import Anomaly


class Batch:
    """Requests sent together and waited on together.

    `done` is set once none is left waiting.
    A request stops waiting when answered, undelivered, or when the target is gone."""

    __slots__ = ("done", "left", "on_end")

    def __init__(self, size: int, on_end: Callable[[], None] | None) -> None:
        self.left = size
        self.done = trio.Event()
        self.on_end = on_end


@dataclass(slots=True)
class Waiter:
    batch: Batch
    message: dict[str, Any] | None = None
    status: int | None = None
    undelivered: str | None = None
    unreadable: Unreadable | None = None
    held_up: bool = False
    """Woken because a line that seems never to end holds the shared stream."""
    answered_at: float = 0.0
    written: int = -1
    """Its place in the order the requests were written; -1 until it is written."""
    written_at: float = 0.0
    anomalies: list[Anomaly] = field(default_factory=list)
    """What was odd about the messages this request's own HTTP exchange carried."""
    ended: trio.Event = field(default_factory=trio.Event)
    """Its HTTP exchange is over: the transport's end marker came."""
    woken: bool = False
    over: bool = False

    def wake(self) -> None:
        """Stop waiting: an answer, an undelivered marker, or the end of the target came."""
        if not self.woken:
            self.woken = True
            self.batch.left -= 1
            if self.batch.left == 0:
                self.batch.done.set()

    def end(self) -> None:
        """Mark its exchange over, and tell the sender's `on_end`, once."""
        if not self.over:
            self.over = True
            if self.batch.on_end is not None:
                self.batch.on_end()


@dataclass(frozen=True, slots=True)
class Marks:
    """Where a send began: the shared anomalies and stderr lines seen so far, and when."""

    anomalies: int
    stderr: int
    started: float
