"""Moving bytes to and from a target: the transport protocol, and the stdio transport.

A transport sends framed messages and hands back what arrives, in order.
Each incoming message comes as its bytes.
One past the size limit comes as an `Oversized` record instead.
It is wrapped in `Carried` when it is known which request's exchange carried it.
`Undelivered` markers come for requests whose HTTP exchange ended without an answer.
Over stdio, none come.

What a target writes is read through `fuzz.wire.framing`.
So no line it writes is held whole past the limit, however long it is.

The stdio transport is a subprocess speaking newline-delimited messages.
Its stdout is the protocol channel.
Its stderr is captured line by line into a bounded buffer that findings quote.
It is never parsed as protocol.
The process runs in its own process group.
So closing the transport reaches every process the target started.

The HTTP transport is in `fuzz.wire._streamable_http`.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import subprocess
import time
from collections import deque
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import trio

from fuzz.errors import TargetStartError
from fuzz.wire.framing import DEFAULT_MAX_MESSAGE_BYTES, Frame, Lines, Oversized
from strategies.meta import HeaderOverrides

STDERR_LINES_KEPT = 2000

STDERR_LINE_BYTES = 8192
"""A stderr line longer than this is kept as its beginning and its length.

At most `STDERR_LINES_KEPT` lines are kept.
A target's stderr must not fill the harness's memory."""

STDERR_DRAIN = 0.3
"""After the target exits, how long `wait` gives its stderr to arrive.

The stderr reader is a task of its own.
A wrapper's child may write just after the wrapper exits."""


@dataclass(frozen=True, slots=True)
class StderrLine:
    number: int
    text: str
    in_flight: int = 0
    """How many requests were in flight when the harness read it."""
    alone: str | None = None
    """The one request then in flight, when only one was.

    It is given by its id key (`fuzz.wire.jsonrpc.id_key`)."""

    def quoted_for(self, request: str) -> str:
        """The line as a request's exchange quotes it.

        It is as it is when `request` was the only one in flight.
        Otherwise it is marked as written while other requests were.
        It may be theirs."""
        if self.in_flight == 1 and self.alone == request:
            return self.text
        others = max(1, self.in_flight - 1)
        return f"{OTHERS_MARK.format(others=others, s='s' if others > 1 else '')}{self.text}"


OTHERS_MARK = "[{others} other request{s} in flight] "
"""What precedes a stderr line quoted for a request that was not alone in flight.

That is, not alone when the line was read.
The line may be another request's doing."""


class TransportClosed(Exception):
    """The target's stdin is closed: it has exited or stopped reading."""


@dataclass(frozen=True, slots=True)
class Undelivered:
    """The exchange for request `request_id` is over without its answer.

    It may have been an HTTP status with no JSON-RPC body, or a dropped connection.
    `detail` says what came."""

    request_id: object
    detail: str


@dataclass(frozen=True, slots=True)
class Carried:
    """A message that came back on the HTTP exchange of request `request_id`.

    Anything odd about it is that request's, not every request's in flight."""

    request_id: object
    data: Frame
    status: int | None = None
    """The HTTP status of the response that carried it."""


Arrival = Frame | Carried | Undelivered


class Transport(Protocol):
    """What the session needs of a transport."""

    kind: str
    """How the target is reached, as messages name it: "stdio" or "Streamable HTTP"."""

    max_message_bytes: int
    """The longest message read whole.

    A longer one is handed on as `Oversized`."""

    exchange_per_request: bool
    """Each request has an exchange of its own that ends, as an HTTP POST does.

    Its end is marked `Undelivered`.
    Over stdio, all requests share one stream instead."""

    async def background(self) -> None:
        """Work that runs for the transport's whole life: reading stderr, or HTTP exchanges."""

    def speak_stateless(self, version: str | None) -> None:
        """Carry messages as the stateless `version` requires.

        Over HTTP, that means its headers and no session.
        None: carry them as the handshake revisions do."""

    async def send(self, data: bytes, headers: HeaderOverrides = ()) -> None:
        """Send one encoded message. Raises TransportClosed.

        `headers` are header values sent instead of those the message implies.
        They apply where the transport has headers."""

    def incoming(self) -> AsyncIterator[Arrival]:
        """What arrives, in order, until the target is gone."""

    @property
    def blocked_since(self) -> float | None:
        """When an unended message past the size limit began, by `time.monotonic()`.

        Nothing else can arrive before it ends, on stdio's one stream.
        It is never set over HTTP, where each exchange has its own stream.
        None when no such message is being read."""

    @property
    def blocked_bytes(self) -> int:
        """Bytes read so far of that message; 0 when none is being read."""

    @property
    def stderr_mark(self) -> int: ...

    def stderr_since(self, mark: int, *, limit: int = 40, request: str | None = None) -> tuple[str, ...]:
        """The last `limit` stderr lines after `mark`.

        With `request`, an id key, each is quoted for that request (`StderrLine.quoted_for`)."""

    def track_requests(self, in_flight: Mapping[str, object]) -> None:
        """Take the session's requests in flight, by id key.

        The session hands its own mapping, kept live.
        What was in flight when each stderr line was read is noted with the line."""

    def stderr_tail(self, limit: int = 20) -> tuple[str, ...]: ...

    @property
    def returncode(self) -> int | None: ...

    async def wait(self) -> int | None:
        """Wait until the target is gone: a process exited, or a transport closed."""

    def abandon(self, request_id: object) -> None:
        """The session gave up waiting for this request: release what it holds.

        Over HTTP, that is a connection.
        A late answer is no longer wanted."""

    async def aclose(self, *, grace: float = 1.0) -> None:
        """Close the target.

        Where it is a process, it gets `grace` seconds to exit by itself."""


class StdioTransport:
    """A started subprocess, spoken to over its stdin and stdout.

    Use `await StdioTransport.start(argv)`, then `send`, `incoming()` and `stderr_since()`.
    Always `aclose()`."""

    kind = "stdio"
    exchange_per_request = False

    def __init__(self, argv: Sequence[str], process: trio.Process, *, max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES) -> None:
        self.argv = tuple(argv)
        self._process = process
        self.max_message_bytes = max_message_bytes
        self._stdout = Lines(max_message_bytes)
        self._blocked_since: float | None = None
        self._stderr: deque[StderrLine] = deque(maxlen=STDERR_LINES_KEPT)
        self._stderr_count = 0
        self._stderr_ended = trio.Event()
        self._in_flight: Mapping[str, object] = {}
        self._send_lock = trio.Lock()

    @classmethod
    async def start(
        cls,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    ) -> StdioTransport:
        """Start `argv` as a subprocess.

        `env` is added to the harness's own environment, as MCP clients' configs mean it.
        A stdout line longer than `max_message_bytes` is handed on as `Oversized`."""
        if not argv:
            raise TargetStartError("no target command given: put the server's command after `--`, e.g. `mcp-toolfuzz run -- python server.py`")
        try:
            process = await trio.lowlevel.open_process(
                list(argv),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                env={**os.environ, **env} if env else None,
                cwd=cwd,
            )
        except FileNotFoundError:
            raise TargetStartError(f"could not start the target: command {argv[0]!r} not found (is it installed and on PATH?)") from None
        except PermissionError:
            raise TargetStartError(
                f"could not start the target: {argv[0]!r} is not executable (check its permissions, or run it through its interpreter)"
            ) from None
        except OSError as error:
            raise TargetStartError(f"could not start the target {argv[0]!r}: {error.strerror or error}") from None
        return cls(argv, process, max_message_bytes=max_message_bytes)

    @property
    def pid(self) -> int:
        return self._process.pid

    @property
    def returncode(self) -> int | None:
        return self._process.poll()

    def speak_stateless(self, version: str | None) -> None:
        """stdio frames every revision alike."""

    async def send(self, data: bytes, headers: HeaderOverrides = ()) -> None:
        """Write one framed message; the caller adds the newline. Raises TransportClosed."""
        assert self._process.stdin is not None
        async with self._send_lock:
            try:
                await self._process.stdin.send_all(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as error:
                raise TransportClosed(str(error)) from None

    async def incoming(self) -> AsyncIterator[Arrival]:
        """stdout, one line at a time without the newline, until the target closes it."""
        assert self._process.stdout is not None
        async for line in _frames(self._process.stdout, self._stdout):
            if isinstance(line, Oversized):
                self._blocked_since = None if line.ended else time.monotonic()
            yield line

    @property
    def blocked_since(self) -> float | None:
        return self._blocked_since

    @property
    def blocked_bytes(self) -> int:
        return self._stdout.oversized_bytes

    async def background(self) -> None:
        """Read stderr into the buffer until the target closes it."""
        assert self._process.stderr is not None
        try:
            async for frame in _frames(self._process.stderr, Lines(STDERR_LINE_BYTES)):
                if isinstance(frame, Oversized) and not frame.ended:
                    continue
                self._stderr_count += 1
                in_flight = len(self._in_flight)
                alone = next(iter(self._in_flight)) if in_flight == 1 else None
                self._stderr.append(StderrLine(self._stderr_count, _stderr_text(frame), in_flight, alone))
        finally:
            self._stderr_ended.set()

    def track_requests(self, in_flight: Mapping[str, object]) -> None:
        self._in_flight = in_flight

    @property
    def stderr_mark(self) -> int:
        """The number of stderr lines seen so far; pass it to `stderr_since` later."""
        return self._stderr_count

    def stderr_since(self, mark: int, *, limit: int = 40, request: str | None = None) -> tuple[str, ...]:
        """The last `limit` lines after `mark`.

        Lines are numbered in order.
        So they are the newest (count - mark) of the buffer, read from its end.
        That avoids reading the whole buffer per request.
        With `request`, an id key, each line is quoted for that request (`StderrLine.quoted_for`)."""
        wanted = min(self._stderr_count - mark, limit)
        if wanted <= 0:
            return ()
        newest = list(itertools.islice(reversed(self._stderr), wanted))
        return tuple(line.text if request is None else line.quoted_for(request) for line in reversed(newest))

    def stderr_tail(self, limit: int = 20) -> tuple[str, ...]:
        return self.stderr_since(0, limit=limit)

    async def wait(self) -> int:
        """Wait until the target exits, and then until its stderr is read to the end.

        The second wait lasts at most STDERR_DRAIN seconds more.
        The last words of a target that exits are in its stderr."""
        code = await self._process.wait()
        with trio.move_on_after(STDERR_DRAIN):
            await self._stderr_ended.wait()
        return code

    def abandon(self, request_id: object) -> None:
        """Nothing to release: a late answer still arrives on stdout and is noted as late."""

    async def aclose(self, *, grace: float = 1.0) -> None:
        """Close stdin, give the target `grace` seconds to exit, then end its process group.

        The group is terminated, then killed.
        Safe to call twice, and shielded from cancellation."""
        with trio.CancelScope(shield=True):
            if self._process.stdin is not None:
                with trio.move_on_after(grace):
                    await self._process.stdin.aclose()
            with trio.move_on_after(grace):
                await self._process.wait()
            for sig in (signal.SIGTERM, signal.SIGKILL):
                if self._process.poll() is not None and not _group_alive(self._process.pid):
                    break
                _signal_group(self._process.pid, sig)
                with trio.move_on_after(grace):
                    await self._process.wait()
            for stream in (self._process.stdout, self._process.stderr):
                if stream is not None:
                    await stream.aclose()


async def _frames(stream: trio.abc.ReceiveStream, lines: Lines) -> AsyncIterator[Frame]:
    while True:
        try:
            chunk = await stream.receive_some(65536)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            chunk = b""
        if not chunk:
            for frame in lines.end():
                yield frame
            return
        for frame in lines.feed(chunk):
            yield frame


def _stderr_text(frame: Frame) -> str:
    if isinstance(frame, Oversized):
        return f"{frame.head.decode('utf-8', errors='replace')}... [a line of {frame.size:,} bytes, cut]"
    return frame.decode("utf-8", errors="replace").rstrip("\r")


def _signal_group(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True
