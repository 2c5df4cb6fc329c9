"""The stateless lifecycle of MCP 2026-07-28, which has no `initialize`.

`server/discover` says which revisions a server speaks.
Every request carries the `_meta` envelope.
Over HTTP, it also carries the headers that mirror the envelope.

Liveness has no `ping` in this revision: `server/discover` is asked instead.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from typing import Any

from fuzz import __version__
from fuzz.errors import HandshakeError
from fuzz.wire._session import Session
from fuzz.wire.jsonrpc import UNSUPPORTED_PROTOCOL_VERSION
from fuzz.wire.opening import NotSpoken, ServerDescription, result_of
from fuzz.wire.replies import Answered, Exchange, UnreadableAnswer
from strategies.meta import (
    CLIENT_CAPABILITIES_KEY,
    CLIENT_INFO_KEY,
    METHOD_HEADER,
    NAME_HEADER,
    PROTOCOL_VERSION_KEY,
    VERSION_HEADER,
    HeaderOverrides,
)

STATELESS_PROTOCOL_VERSIONS = ("2026-07-28",)
"""The revisions without the handshake, newest first."""
DISCOVER = "server/discover"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
"""Where a stateless result's `_meta` names the server."""

NAME_BEARING = {
    "tools/call": "name",
    "prompts/get": "name",
    "resources/read": "uri",
    "tasks/get": "taskId",
    "tasks/update": "taskId",
    "tasks/cancel": "taskId",
}
"""The methods whose `Mcp-Name` header mirrors a member of params (the task methods by SEP-2663)."""


def request_meta(version: str) -> dict[str, Any]:
    """The `_meta` envelope every request of `version` carries.

    It declares no client capabilities.
    The harness answers every server request with an error, `ping` aside."""
    return {
        PROTOCOL_VERSION_KEY: version,
        CLIENT_CAPABILITIES_KEY: {},
        CLIENT_INFO_KEY: {"name": "mcp-toolfuzz", "version": __version__},
    }


def discover_params(version: str) -> dict[str, Any]:
    return {"_meta": request_meta(version)}


_HEADER_SAFE = re.compile(r"[\x20-\x7e]*")
_SENTINEL = re.compile(r"=\?base64\?.*\?=")


def encode_header_value(value: str) -> str:
    """A value as a header carries it.

    Printable ASCII goes as it is.
    Anything else goes in the revision's `=?base64?...?=` form.
    That covers non-ASCII, control characters and whitespace at either end."""
    if _HEADER_SAFE.fullmatch(value) and value == value.strip() and not _SENTINEL.fullmatch(value):
        return value
    return f"=?base64?{base64.b64encode(value.encode('utf-8')).decode('ascii')}?="


def mirrored_headers(message: Mapping[str, Any], version: str) -> dict[str, str]:
    """The headers a request's body implies: its revision, its method, and its name.

    The revision is the `_meta` one, when that is a string.
    The name is there for a name-bearing method, when it is a string."""
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    claimed = meta.get(PROTOCOL_VERSION_KEY) if isinstance(meta, dict) else None
    headers = {VERSION_HEADER: claimed if isinstance(claimed, str) and _HEADER_SAFE.fullmatch(claimed) else version}
    method = message.get("method")
    if isinstance(method, str):
        headers[METHOD_HEADER] = encode_header_value(method)
        member = NAME_BEARING.get(method)
        if member is not None and isinstance(params, dict) and isinstance(params.get(member), str):
            headers[NAME_HEADER] = encode_header_value(params[member])
    return headers


def with_overrides(headers: Mapping[str, str], overrides: HeaderOverrides) -> dict[str, str]:
    merged = dict(headers)
    for name, value in overrides:
        if value is None:
            merged.pop(name, None)
        else:
            merged[name] = value
    return merged


def unmirrorable(message: Mapping[str, Any]) -> str | None:
    """What in a request's body no header can mirror, or None.

    That is a `_meta` revision or a name that is not a string.
    Such a request disagrees with its headers, whatever they are.
    So a server may answer it `-32020` as well as `-32602`."""
    params = message.get("params")
    if not isinstance(params, dict):
        return None
    meta = params.get("_meta")
    if isinstance(meta, dict) and PROTOCOL_VERSION_KEY in meta and not isinstance(meta[PROTOCOL_VERSION_KEY], str):
        return "its _meta protocolVersion is not a string"
    member = NAME_BEARING.get(str(message.get("method")))
    if member is not None and params.get(member) is not None and not isinstance(params.get(member), str):
        return f"its {member} is not a string"
    return None


def spoken_of(supported: Any) -> str | None:
    """The newest stateless revision both sides speak, from a server's list, if any."""
    if not isinstance(supported, list):
        return None
    return next((version for version in STATELESS_PROTOCOL_VERSIONS if version in supported), None)


def era_evidence(exchange: Exchange) -> str | None:
    """The stateless revision a `server/discover` probe's answer shows the server speaks.

    The evidence is a result listing one, or a `-32022` naming one in `data.supported`.
    Anything else is no evidence: another error, silence, an HTTP refusal.
    The server is then spoken to with the handshake."""
    reply = exchange.reply
    if not isinstance(reply, Answered):
        return None
    result, error = reply.message.get("result"), reply.message.get("error")
    if isinstance(result, dict):
        return spoken_of(result.get("supportedVersions"))
    if isinstance(error, dict) and error.get("code") == UNSUPPORTED_PROTOCOL_VERSION and isinstance(error.get("data"), dict):
        return spoken_of(error["data"].get("supported"))
    return None


async def discover(session: Session, *, timeout: float, version: str, probe: Exchange | None = None) -> ServerDescription:
    """Open `session` under the stateless `version`.

    `probe` is a `server/discover` exchange at that version, if one was already made.
    Raises HandshakeError when the server does not list `version`."""
    session.transport.speak_stateless(version)
    exchange = probe or await session.request(DISCOVER, discover_params(version), timeout=timeout)
    result = result_of(exchange, DISCOVER, session)
    supported = result.get("supportedVersions")
    if not isinstance(supported, list) or not all(isinstance(v, str) for v in supported):
        raise HandshakeError(f"the target's {DISCOVER} result has supportedVersions = {supported!r:.120}, expected an array of revision strings")
    if version not in supported:
        raise NotSpoken(
            version,
            f"the target's {DISCOVER} lists {', '.join(supported) or 'no revision'}, so it does not speak {version}",
            "leave --protocol-version out to fuzz it under a revision it speaks",
        )
    found_meta = result.get("_meta")
    meta: dict[str, Any] = found_meta if isinstance(found_meta, dict) else {}
    server_info = meta.get(SERVER_INFO_KEY)
    capabilities = result.get("capabilities")
    return ServerDescription(
        protocol_version=version,
        server_info=server_info if isinstance(server_info, dict) else {},
        capabilities=capabilities if isinstance(capabilities, dict) else {},
        handshake=(exchange.request,),
        request_meta=request_meta(version),
        supported_versions=tuple(supported),
    )


async def alive(session: Session, *, timeout: float, version: str) -> bool:
    """Liveness without `ping`: whether the server answers `server/discover`.

    Any answer counts.
    An error, or an answer that cannot be read, is still an answer."""
    exchange = await session.request(DISCOVER, discover_params(version), timeout=timeout)
    return isinstance(exchange.reply, (Answered, UnreadableAnswer))


LISTINGS = 3
"""How many times `listings` asks `tools/list`, to compare its order."""


async def listings(session: Session, *, timeout: float, version: str) -> list[Exchange]:
    """`server/discover`, then `tools/list` `LISTINGS` times (first pages): the answers the listing
    rules of the revision judge (`fuzz.judging.listing_checks`)."""
    sent = [await session.request(DISCOVER, discover_params(version), timeout=timeout)]
    for _ in range(LISTINGS):
        sent.append(await session.request("tools/list", {"_meta": request_meta(version)}, timeout=timeout))
    return sent
