"""Cutting a byte stream into messages, without trusting the stream.

Every transport reads what a target writes through this module.
A target decides how long its lines are.
A reader that buffers until the newline holds whatever the target writes.
That may be a huge line, or a line that never ends.
A reader that searches the whole buffer for the newline at each chunk spends quadratic time.

`Lines` holds at most `limit` bytes of any message.
Past that, it keeps only the message's ends and counts the rest.
The ends are enough to quote the message and to read its id.
It searches each byte once.

A message past the limit is handed on as an `Oversized` up to three times.
The first comes when the limit is passed, with `ended` False.
So a line that never ends is still reported.
The second comes if it passes `ENDLESS_FACTOR` times the limit (`endless`).
The last comes when it ends.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024
"""The longest message read whole by default: far past any sane answer.

A message is a stdout line, an HTTP body, or an SSE event's data.
`--max-answer-size` changes the limit."""

ENDLESS_FACTOR = 4
"""How far past the limit a line is still read on to its end, as a multiple.

By default that is 64 MiB.
A line not ended by then is taken for a line that never ends."""

KEPT_ENDS = 4096
"""Bytes kept of each end of an oversized message: to quote it, and to find its id."""


@dataclass(frozen=True, slots=True)
class Oversized:
    """A message longer than the limit, of which only the ends were kept."""

    head: bytes
    tail: bytes
    """The last bytes read (empty until `ended`)."""
    size: int
    """Bytes read of it so far (all of it once `ended`)."""
    ended: bool
    """Its end came.

If False, it was reported as the limit was passed, and the rest is still coming."""
    endless: bool = False
    """Not ended at `ENDLESS_FACTOR` times the limit: taken for a line that never ends.

    This is a third report of the same line, before its end, if that ever comes."""


Frame = bytes | Oversized

_LF = re.compile(rb"\n")
_CR_OR_LF = re.compile(rb"[\r\n]")


class Lines:
    """Splits a stream into lines, holding at most `limit` bytes of each.

    Lines end at LF, as stdio frames them.
    With `sse`, they end at CR, LF or CRLF, as the event-stream format has it.
    `feed` each chunk as it comes, then call `end` once at the stream's end."""

    def __init__(self, limit: int = DEFAULT_MAX_MESSAGE_BYTES, *, sse: bool = False) -> None:
        self.limit = limit
        self._separator = _CR_OR_LF if sse else _LF
        self._buffer = bytearray()
        self._scanned = 0
        """How far `_buffer` is known to hold no separator."""
        self._skip_lf = False
        """The last line ended with CR (sse): a LF right after it belongs to it."""
        self._discarding: _Discarded | None = None
        """The oversized line being read past, if any."""

    @property
    def oversized_bytes(self) -> int:
        """Bytes read so far of the oversized line being read past.

        0 when no line is being read past."""
        return 0 if self._discarding is None else self._discarding.size

    def feed(self, chunk: bytes | bytearray) -> list[Frame]:
        frames: list[Frame] = []
        position = 0
        if self._skip_lf and chunk:
            self._skip_lf = False
            if chunk[0] == 10:
                position = 1
        if self._discarding is not None:
            found = self._separator.search(chunk, position)
            if found is None:
                before = self._discarding.size
                self._discarding.take(chunk[position:])
                endless = ENDLESS_FACTOR * self.limit
                if before < endless <= self._discarding.size:
                    frames.append(Oversized(self._discarding.head, b"", self._discarding.size, ended=False, endless=True))
                return frames
            self._discarding.take(chunk[position : found.start()])
            frames.append(self._discarding.ended())
            self._discarding = None
            position = self._after(chunk, found.start())
        self._buffer += chunk[position:] if position else chunk
        self._split(frames)
        if len(self._buffer) > self.limit:
            self._discarding = _Discarded(bytes(self._buffer[:KEPT_ENDS]))
            self._discarding.take(self._buffer)
            frames.append(Oversized(self._discarding.head, b"", self._discarding.size, ended=False))
            self._buffer.clear()
            self._scanned = 0
        return frames

    def end(self) -> list[Frame]:
        """What is left when the stream ends: a last line without its newline."""
        if self._discarding is not None:
            last, self._discarding = self._discarding.ended(), None
            return [last]
        if not self._buffer:
            return []
        line = bytes(self._buffer)
        self._buffer.clear()
        return [line]

    def _split(self, frames: list[Frame]) -> None:
        start = 0
        buffer = self._buffer
        while (found := self._separator.search(buffer, max(start, self._scanned))) is not None:
            end = found.start()
            frames.append(self._frame(buffer, start, end))
            start = self._after(buffer, end)
        if start:
            del buffer[:start]
        self._scanned = len(buffer)

    def _frame(self, buffer: bytearray, start: int, end: int) -> Frame:
        if end - start <= self.limit:
            return bytes(buffer[start:end])
        head = bytes(buffer[start : min(end, start + KEPT_ENDS)])
        return Oversized(head, bytes(buffer[max(start, end - KEPT_ENDS) : end]), end - start, ended=True)

    def _after(self, data: bytes | bytearray, separator_at: int) -> int:
        """Where the next line starts, after the separator at `separator_at`.

        A CR's LF may be in the next chunk."""
        if data[separator_at] == 13:
            if separator_at + 1 == len(data):
                self._skip_lf = True
            elif data[separator_at + 1] == 10:
                return separator_at + 2
        return separator_at + 1


class _Discarded:
    """The ends of an oversized line, and its length so far."""

    __slots__ = ("head", "size", "tail")

    def __init__(self, head: bytes) -> None:
        self.head = head
        self.tail = b""
        self.size = 0

    def take(self, data: bytes | bytearray) -> None:
        self.size += len(data)
        self.tail = (self.tail + bytes(data[-KEPT_ENDS:]))[-KEPT_ENDS:]

    def ended(self) -> Oversized:
        return Oversized(self.head, self.tail, self.size, ended=True)
