"""Opening a connection in the right era, and listing the tools.

Without `--protocol-version`, the harness probes the server.
It probes as the 2026-07-28 revision prescribes for a client that speaks both eras.
It asks `server/discover` first.
A result listing a stateless revision means the stateless revision.
So does a `-32022` error naming one.
Anything else means the handshake.
That includes `-32601`, another error, a result listing none, an HTTP refusal, and silence.

An `initialize` answered `-32022` is evidence too.
It comes from a server that took the probe for the stateless era after its timeout.
The probe is then made again.
"""

from __future__ import annotations

from typing import Any

from fuzz.errors import HandshakeError
from fuzz.wire._session import Session
from fuzz.wire.handshake import ACCEPTED_PROTOCOL_VERSIONS, initialize
from fuzz.wire.jsonrpc import UNSUPPORTED_PROTOCOL_VERSION
from fuzz.wire.opening import Refused, ServerDescription, Silent, result_of
from fuzz.wire.replies import NoAnswer, TargetExited
from fuzz.wire.stateless import (
    DISCOVER,
    STATELESS_PROTOCOL_VERSIONS,
    discover,
    discover_params,
    era_evidence,
    spoken_of,
)
from strategies import InvalidSchema, Tool

SPOKEN_PROTOCOL_VERSIONS = (*STATELESS_PROTOCOL_VERSIONS, *ACCEPTED_PROTOCOL_VERSIONS)
"""Every revision the harness speaks, newest first."""
ALL_VERSIONS = "all"
"""`--protocol-version all`: every revision the target speaks, one after the other.

`fuzz.engine.revisions` makes those runs."""
MAX_TOOL_PAGES = 1000


async def open_session(session: Session, *, timeout: float, version: str | None = None) -> ServerDescription:
    """Open `session` under `version`, or else under the newest revision both sides speak.

    The server must speak `version` when it is given."""
    if version in STATELESS_PROTOCOL_VERSIONS:
        return await discover(session, timeout=timeout, version=version)
    if version is not None:
        return await initialize(session, timeout=timeout, version=version)
    newest = STATELESS_PROTOCOL_VERSIONS[0]
    session.transport.speak_stateless(newest)
    probe = await session.request(DISCOVER, discover_params(newest), timeout=timeout)
    if isinstance(probe.reply, TargetExited):
        result_of(probe, DISCOVER, session)
    spoken = era_evidence(probe)
    if spoken is not None:
        return await discover(session, timeout=timeout, version=spoken, probe=probe if spoken == newest else None)
    session.transport.speak_stateless(None)
    try:
        return await initialize(session, timeout=timeout)
    except Silent:
        if isinstance(probe.reply, NoAnswer):
            result_of(probe, f"{DISCOVER} nor initialize", session)  # silent twice: say so, with what the probe saw
        raise
    except Refused as refusal:
        data = refusal.error.get("data") if isinstance(refusal.error, dict) else None
        spoken = spoken_of(data.get("supported")) if refusal.code == UNSUPPORTED_PROTOCOL_VERSION and isinstance(data, dict) else None
        if spoken is None:
            raise
        return await discover(session, timeout=timeout, version=spoken)


async def list_tools(session: Session, *, timeout: float, meta: dict[str, Any] | None = None) -> list[Tool]:
    """Every listed tool, across pages, in order.

    `meta` is the stateless revision's envelope, when it is spoken.
    A name listed twice is included.
    Names SHOULD be unique, but there is no MUST.
    The tool-name rule judges it, and `fuzz.engine.plan` fuzzes the first.

    Raises HandshakeError when the list is not a list of tool definitions.
    The error names the entry and what is wrong with it."""
    tools: list[Tool] = []
    cursor: Any = None
    seen_cursors: set[str] = set()
    for _ in range(MAX_TOOL_PAGES):
        params: dict[str, Any] = {} if cursor is None else {"cursor": cursor}
        if meta is not None:
            params["_meta"] = meta
        exchange = await session.request("tools/list", params or None, timeout=timeout)
        result = result_of(exchange, "tools/list", session)
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
    return tools
