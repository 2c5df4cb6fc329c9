"""What opening a connection learns, and how the lifecycle reads answers.

`ServerDescription` is what opening learns.
`result_of` is the one way the lifecycle reads an answer it needs.
Anything but a result object is a start failure, said in one line."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fuzz.errors import HandshakeError
from fuzz.text import clip
from fuzz.wire._session import Session
from fuzz.wire.replies import (
    Answered,
    Exchange,
    NoAnswer,
    NotDelivered,
    TargetExited,
    UnreadableAnswer,
)


class Silent(HandshakeError):
    """The target did not answer a lifecycle request in time."""


class Refused(HandshakeError):
    """The target answered a lifecycle request with a JSON-RPC error (`error`)."""

    def __init__(self, text: str, error: Any) -> None:
        super().__init__(text)
        self.error = error

    def __reduce__(self) -> tuple[Any, ...]:
        return Refused, (str(self), self.error)

    @property
    def code(self) -> Any:
        return self.error.get("code") if isinstance(self.error, dict) else None


class NotSpoken(HandshakeError):
    """The target opened, but under another revision than the one asked for.

    `reason` says what it answered instead."""

    def __init__(self, version: str, reason: str, advice: str) -> None:
        super().__init__(f"--protocol-version {version}: {reason}; {advice}")
        self.version, self.reason, self.advice = version, reason, advice

    def __reduce__(self) -> tuple[Any, ...]:
        return NotSpoken, (self.version, self.reason, self.advice)


@dataclass(frozen=True, slots=True)
class ServerDescription:
    """What opening learnt about the server, and how it was opened.

    It holds the revision spoken and the server's name and capabilities.
    It keeps the exact messages that opened it: `initialize`, or `server/discover`.
    Under the stateless revision it also holds two more things.
    One is the `_meta` every request carries; the other, the revisions the server listed."""

    protocol_version: str
    server_info: dict[str, Any]
    capabilities: dict[str, Any]
    handshake: tuple[dict[str, Any], ...] = field(default=(), repr=False)
    request_meta: dict[str, Any] | None = field(default=None, repr=False)
    supported_versions: tuple[str, ...] = ()

    @property
    def stateless(self) -> bool:
        """Spoken without the handshake: every request carries `request_meta`."""
        return self.request_meta is not None


def result_of(exchange: Exchange, method: str, session: Session) -> dict[str, Any]:
    reply = exchange.reply
    stdio = session.transport.kind == "stdio"
    stderr = session.transport.stderr_tail(5)
    hint = f"; its stderr ended with: {' | '.join(stderr)}" if stderr else ("; it wrote nothing on stderr" if stdio else "")
    if isinstance(reply, TargetExited):
        raise HandshakeError(f"the target exited (code {reply.returncode}) before answering {method}{hint}")
    if isinstance(reply, NotDelivered):
        raise HandshakeError(
            f"the target did not answer {method}: {reply.detail}. Is the URL the server's MCP endpoint "
            "(often ending in /mcp), is the server running, and does it need a --header for auth?"
        )
    if isinstance(reply, NoAnswer):
        # What came before the request was written (a banner printed at start-up) counts too.
        garbage = [a.text for a in exchange.anomalies or session.anomalies_seen][:2]
        seen = f"; {'its stdout' if stdio else 'its response'} carried: {' | '.join(garbage)}" if garbage else ""
        ask = (
            "Does it speak MCP over stdio (newline-delimited JSON-RPC on stdout), and is --startup-timeout long enough for it to start?"
            if stdio
            else "Is this the server's MCP endpoint, and is --startup-timeout long enough?"
        )
        raise Silent(f"the target did not answer {method} within {reply.timeout:g} s{seen}{hint}. {ask}")
    if isinstance(reply, UnreadableAnswer):
        raise HandshakeError(f"the target's answer to {method} cannot be read: {reply.reason}: {clip(reply.text, 200)}")
    assert isinstance(reply, Answered)
    message = reply.message
    if "error" in message:
        raise Refused(f"the target answered {method} with an error: {message['error']!r:.300}", message["error"])
    result = message.get("result")
    if not isinstance(result, dict):
        raise HandshakeError(f"the target answered {method} with result {result!r:.200}, expected an object")
    return result
