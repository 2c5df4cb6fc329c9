"""The MCP lifecycle from the client's side: `initialize`, `notifications/initialized`, and a
`tools/list` that follows `nextCursor` to the end."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fuzz import __version__
from fuzz.errors import HandshakeError
from fuzz.wire.session import Answered, Exchange, NoAnswer, NotDelivered, Session, TargetExited
from strategies import InvalidSchema, Tool

OFFERED_PROTOCOL_VERSION = "2025-11-25"
ACCEPTED_PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
"""The revisions with the `initialize` handshake, newest first: offered the newest, a server
may answer any of them (the client then speaks that one)."""
STATELESS_PROTOCOL_VERSION = "2026-07-28"
"""The revision without the handshake (`server/discover`), not spoken yet."""
MAX_TOOL_PAGES = 1000


@dataclass(frozen=True, slots=True)
class ServerDescription:
    """What the handshake learnt: the negotiated version, the server's name and capabilities,
    and the exact messages exchanged (so a reproduction can replay the handshake)."""

    protocol_version: str
    server_info: dict[str, Any]
    capabilities: dict[str, Any]
    handshake: tuple[dict[str, Any], ...] = field(default=(), repr=False)


async def initialize(session: Session, *, timeout: float, version: str | None = None) -> ServerDescription:
    """The handshake, offering `version` (`--protocol-version`: the server must answer it) or
    else the newest revision (the server may answer any it speaks)."""
    params = {
        "protocolVersion": version or OFFERED_PROTOCOL_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "mcp-toolfuzz", "version": __version__},
    }
    exchange = await session.request("initialize", params, timeout=timeout)
    result = _result_of(exchange, "initialize", session)
    answered = result.get("protocolVersion")
    if version is not None and answered != version:
        raise HandshakeError(
            f"--protocol-version {version}: the target answered initialize with protocolVersion {answered!r}, "
            f"so it does not speak {version}; leave --protocol-version out to fuzz it under the revision it answers"
        )
    version = answered
    if version not in ACCEPTED_PROTOCOL_VERSIONS:
        raise HandshakeError(
            f"the target answered initialize with protocolVersion {version!r}; mcp-toolfuzz speaks "
            f"{', '.join(ACCEPTED_PROTOCOL_VERSIONS)}. Is this an MCP server, and which SDK version does it use?"
        )
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    await session.notify(initialized["method"])
    return ServerDescription(
        protocol_version=version,
        server_info=result.get("serverInfo") if isinstance(result.get("serverInfo"), dict) else {},
        capabilities=result.get("capabilities") if isinstance(result.get("capabilities"), dict) else {},
        handshake=(exchange.request, initialized),
    )


async def list_tools(session: Session, *, timeout: float) -> list[Tool]:
    """Every listed tool, across pages. Raises HandshakeError when the list is not a list of
    tool definitions, naming the entry and what is wrong with it."""
    tools: list[Tool] = []
    cursor: Any = None
    seen_cursors: set[str] = set()
    for _ in range(MAX_TOOL_PAGES):
        exchange = await session.request("tools/list", {"cursor": cursor} if cursor is not None else None, timeout=timeout)
        result = _result_of(exchange, "tools/list", session)
        page = result.get("tools")
        if not isinstance(page, list):
            raise HandshakeError(f"the target's tools/list result has tools = {page!r:.120}, expected an array of tool definitions")
        for entry in page:
            try:
                tools.append(Tool.from_listing(entry))
            except InvalidSchema as error:
                raise HandshakeError(f"the target listed a tool mcp-toolfuzz cannot fuzz: {error}") from None
        cursor = result.get("nextCursor")
        if cursor is None:
            break
        if not isinstance(cursor, str) or cursor in seen_cursors:
            raise HandshakeError(f"the target's tools/list returned nextCursor {cursor!r:.80} again or not as a string; pagination would never end")
        seen_cursors.add(cursor)
    names = [tool.name for tool in tools]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise HandshakeError(f"the target lists tools with the same name more than once: {', '.join(map(repr, duplicates))}")
    return tools


def _result_of(exchange: Exchange, method: str, session: Session) -> dict[str, Any]:
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
        garbage = [a.text for a in exchange.anomalies][:2]
        seen = f"; {'its stdout' if stdio else 'its response'} carried: {' | '.join(garbage)}" if garbage else ""
        ask = (
            "Does it speak MCP over stdio (newline-delimited JSON-RPC on stdout), and is --startup-timeout long enough for it to start?"
            if stdio
            else "Is this the server's MCP endpoint, and is --startup-timeout long enough?"
        )
        raise HandshakeError(f"the target did not answer {method} within {reply.timeout:g} s{seen}{hint}. {ask}")
    assert isinstance(reply, Answered)
    message = reply.message
    if "error" in message:
        raise HandshakeError(f"the target answered {method} with an error: {message['error']!r:.300}")
    result = message.get("result")
    if not isinstance(result, dict):
        raise HandshakeError(f"the target answered {method} with result {result!r:.200}, expected an object")
    return result
