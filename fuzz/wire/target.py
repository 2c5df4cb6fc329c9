"""A target: a server reached from its description, opened, and restartable.

The description is a command to start, or a URL.
Once reached, the server is opened and its tools listed."""

from __future__ import annotations

import shlex
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import trio

from fuzz.errors import HandshakeError, TargetStartError
from fuzz.redaction import REDACTED, redact_command, redact_names, redact_url
from fuzz.wire._session import Session
from fuzz.wire._transport import StdioTransport, Transport
from fuzz.wire.framing import DEFAULT_MAX_MESSAGE_BYTES
from fuzz.wire.lifecycle import list_tools, open_session
from fuzz.wire.opening import ServerDescription
from fuzz.wire.replies import Answered, UnreadableAnswer
from fuzz.wire.stateless import alive
from fuzz.wire.tasks import TaskEra, task_era
from strategies import Tool
from strategies.meta import Stateless

CLOSE_GRACE = 1.0
"""Seconds a target is given to exit after its stdin is closed, at the end of a run."""

RESTART_GRACE = 0.02
"""Seconds a target is given to exit before a restart.

The target is then dead, silent, or stuck writing a line that does not end.
It will not use more time well.
A server may need a restart after every call, so each restart must stay short."""


@dataclass(frozen=True, slots=True)
class StdioTarget:
    """A server started as a subprocess that speaks MCP on its stdin and stdout."""

    command: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()
    """Variables added to the harness's environment for the server.

    They come from an mcpServers config."""
    demo: bool = False
    """The bundled demo server: printed and recorded without the interpreter's path.

    So its reports read alike on every machine.
    Its reproductions replay on any machine, with the interpreter that runs the harness."""

    def describe(self) -> str:
        """The command as printed and written to reports.

        Secret-looking values are redacted.
        Environment variables are named without their values."""
        env = f" (env {redact_names(name for name, _ in self.env)})" if self.env else ""
        return shlex.join(redact_command(self.shown_command)) + env

    @property
    def shown_command(self) -> tuple[str, ...]:
        """The command as reports show it: the demo's interpreter is `python`."""
        return ("python", *self.command[1:]) if self.demo else self.command

    def as_json(self) -> dict[str, object]:
        if self.demo:
            return {"transport": "stdio", "command": list(self.shown_command), "demo": True}
        recorded: dict[str, object] = {"transport": "stdio", "command": redact_command(self.command)}
        if self.env:
            recorded["env"] = {name: REDACTED for name, _ in sorted(self.env)}
        return recorded

    async def connect(self, *, max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES) -> Transport:
        return await StdioTransport.start(self.command, env=dict(self.env), max_message_bytes=max_message_bytes)


@dataclass(frozen=True, slots=True)
class HttpTarget:
    """A server listening for Streamable HTTP at a URL.

    The harness does not start it."""

    url: str
    headers: tuple[tuple[str, str], ...] = ()
    """Sent with every request, for auth; never printed or written."""

    def describe(self) -> str:
        headers = f" (headers {redact_names(name for name, _ in self.headers)})" if self.headers else ""
        return redact_url(self.url) + headers

    def as_json(self) -> dict[str, object]:
        recorded: dict[str, object] = {"transport": "http", "url": redact_url(self.url)}
        if self.headers:
            recorded["headers"] = {name: REDACTED for name, _ in sorted(self.headers)}
        return recorded

    async def connect(self, *, max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES) -> Transport:
        from fuzz.wire._streamable_http import (
            HttpTransport,  # httpx: ~80 ms of start-up a stdio run does not need
        )

        return HttpTransport(self.url, dict(self.headers), max_message_bytes=max_message_bytes)


TargetSpec = StdioTarget | HttpTarget


def demo_target() -> StdioTarget:
    """The bundled demo server, run with the interpreter that runs the harness."""
    return StdioTarget((sys.executable, "-m", "fuzz.demo_server"), demo=True)


class Target:
    """A running, opened server.

    Open it with `open_target`.
    `restart` replaces a dead process with a new one, and keeps the same tools.
    The new one is opened again, under the revision first spoken."""

    def __init__(
        self,
        spec: TargetSpec,
        nursery: trio.Nursery,
        *,
        startup_timeout: float,
        protocol_version: str | None = None,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    ) -> None:
        self.spec = spec
        self.max_message_bytes = max_message_bytes
        """The longest answer read whole (`--max-answer-size`); see `fuzz.wire.framing`."""
        self.protocol_version = protocol_version
        """The revision to ask for (`--protocol-version`).

        None: the newest, or what the server answers."""
        self._nursery = nursery
        self._startup_timeout = startup_timeout
        self._scope: trio.CancelScope | None = None
        self._transport: Transport | None = None
        self._closing = False
        """Set when the run ends: no restart after that.

        A worker thread may still be sending, say after Ctrl-C.
        It must not start a process nobody will stop."""
        self.session: Session
        self.description: ServerDescription
        self.tools: list[Tool] = []
        """Every entry `tools/list` gave, in order, a name listed twice included.

        `fuzz.engine.plan` fuzzes each name once."""
        self.restarts = 0
        self._long_lines_end = True
        """(`long_lines_end`) Whether an answer past the size limit is waited for to its end.

        At first it is, however long the answer is.
        It is read past: the target is kept, and the next request answered.
        That lasts until one such answer does not end within the timeout.
        From then on, one past `ENDLESS_FACTOR` times the limit is taken for a line that never ends.
        The target is then restarted at once (`Session.stream_frees`).
        So a server that writes without end costs one timeout.
        It does not cost one per request it answers so."""

    @property
    def long_lines_end(self) -> bool:
        return self._long_lines_end

    @long_lines_end.setter
    def long_lines_end(self, value: bool) -> None:
        self._long_lines_end = value
        if hasattr(self, "session"):
            self.session.long_lines_end = value

    async def start(self) -> None:
        transport = self._transport = await self.spec.connect(max_message_bytes=self.max_message_bytes)
        if self._closing:
            await self.aclose(grace=RESTART_GRACE)
            self._refuse_when_closing()
        session = Session(transport)
        session.long_lines_end = self._long_lines_end
        self._scope = await self._nursery.start(_serve, session)
        self.session = session
        try:
            self.description = await open_session(session, timeout=self._startup_timeout, version=self.protocol_version)
            self.protocol_version = self.description.protocol_version
            self.tools = await list_tools(session, timeout=self._startup_timeout, meta=self.description.request_meta)
        except HandshakeError as error:
            await self.aclose()
            failure = TargetStartError(f"{self.spec.describe()}: {error}")
            failure.opening = error
            raise failure from None

    async def restart(self) -> None:
        """Replace the process with a new one, opened again.

        The fuzzing goes on with the tools first listed, whatever the new process lists."""
        self._refuse_when_closing()
        tools = self.tools
        await self.aclose(grace=RESTART_GRACE)
        self._refuse_when_closing()
        await self.start()
        self.tools = tools
        self.restarts += 1

    def _refuse_when_closing(self) -> None:
        """Refuse a restart once the run is ending.

        A restart runs in a task of trio's own: a worker thread's `trio.from_thread.run`.
        The run's end does not cancel that task.
        So this is checked before the old process is closed, and before a new one is spawned.
        It is checked again after, since spawning waits on a thread.
        So no process outlives the run."""
        if self._closing:
            raise TargetStartError(f"{self.spec.describe()}: not restarted: the run is ending")

    @property
    def request_meta(self) -> dict[str, Any] | None:
        """The `_meta` every request carries under the stateless revision.

        None under the handshake."""
        return self.description.request_meta

    @property
    def task_era(self) -> TaskEra:
        """Which tasks the server declares for `tools/call`, if any."""
        return task_era(self.description)

    @property
    def stateless(self) -> Stateless | None:
        """What the strategies need of the stateless revision, when it is spoken."""
        description = self.description
        if description.request_meta is None:
            return None
        return Stateless(description.protocol_version, description.request_meta, description.supported_versions, over_http=isinstance(self.spec, HttpTarget))

    async def ping(self, *, timeout: float) -> bool:
        """Whether the target answers `ping`, or `server/discover` where there is no ping.

        Any answer counts, an error or one that cannot be read included.
        A live server that answers badly is not dead.
        A line past the size limit still being written counts too.
        The answer cannot come before that line ends: the target is writing, not silent."""
        if self.description.stateless:
            answered = await alive(self.session, timeout=timeout, version=self.description.protocol_version)
        else:
            exchange = await self.session.request("ping", timeout=timeout)
            answered = isinstance(exchange.reply, (Answered, UnreadableAnswer))
        return answered or self.session.blocked

    async def close_for_good(self, *, grace: float = CLOSE_GRACE) -> None:
        """Close it, and refuse any restart after.

        A worker thread's call still in flight may ask for a restart.
        That restart must not start a process nobody will stop."""
        self._closing = True
        await self.aclose(grace=grace)

    async def aclose(self, *, grace: float = CLOSE_GRACE) -> None:
        """Close the transport, giving its process `grace` seconds to exit before it is killed.

        This also closes one started by a `start` that was cancelled before its session was served.
        Ctrl-C during a restart does that."""
        if self._transport is not None:
            session = getattr(self, "session", None)
            if session is not None:
                session.closing = True
            await self._transport.aclose(grace=grace)
            self._transport = None
        if self._scope is not None:
            self._scope.cancel()
            self._scope = None


async def _serve(session: Session, task_status: trio.TaskStatus[trio.CancelScope] = trio.TASK_STATUS_IGNORED) -> None:
    with trio.CancelScope() as scope:
        task_status.started(scope)
        await session.serve()


@asynccontextmanager
async def open_target(
    spec: TargetSpec,
    *,
    startup_timeout: float,
    protocol_version: str | None = None,
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
) -> AsyncIterator[Target]:
    async with trio.open_nursery() as nursery:
        target = Target(spec, nursery, startup_timeout=startup_timeout, protocol_version=protocol_version, max_message_bytes=max_message_bytes)
        try:
            await target.start()
            yield target
        finally:
            await target.close_for_good()
