"""The handshake lifecycle, from the client's side.

The handshake revisions are MCP 2024-11-05 to 2025-11-25.
The client sends `initialize`, then `notifications/initialized`."""

from __future__ import annotations

from typing import Any

from fuzz import __version__
from fuzz.errors import HandshakeError
from fuzz.wire._session import Session
from fuzz.wire.opening import NotSpoken, ServerDescription, result_of

OFFERED_PROTOCOL_VERSION = "2025-11-25"
ACCEPTED_PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
"""The revisions with the `initialize` handshake, newest first.

The harness offers the newest, and a server may answer any of them.
The client then speaks the one it answered."""


CLIENT_CAPABILITIES: dict[str, Any] = {"elicitation": {}, "sampling": {}, "roots": {}}
"""What the harness declares it can do: answer a server's form elicitation, sampling and roots
requests in the middle of a call (`fuzz.wire._server_requests`), so that a tool's body past them
is reached."""


async def initialize(session: Session, *, timeout: float, version: str | None = None) -> ServerDescription:
    """Run the handshake, offering `version` or else the newest revision.

    `version` comes from `--protocol-version`, and the server must answer it.
    Offered the newest, the server may answer any revision it speaks."""
    params = {
        "protocolVersion": version or OFFERED_PROTOCOL_VERSION,
        "capabilities": CLIENT_CAPABILITIES,
        "clientInfo": {"name": "mcp-toolfuzz", "version": __version__},
    }
    exchange = await session.request("initialize", params, timeout=timeout)
    result = result_of(exchange, "initialize", session)
    answered = result.get("protocolVersion")
    if version is not None and answered != version:
        raise NotSpoken(
            version,
            f"the target answered initialize with protocolVersion {answered!r}, so it does not speak {version}",
            "leave --protocol-version out to fuzz it under the revision it answers",
        )
    version = answered
    if version not in ACCEPTED_PROTOCOL_VERSIONS:
        raise HandshakeError(
            f"the target answered initialize with protocolVersion {version!r}; mcp-toolfuzz speaks "
            f"{', '.join(ACCEPTED_PROTOCOL_VERSIONS)}. Is this an MCP server, and which SDK version does it use?"
        )
    session.server_requests.answer_inputs = True
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    await session.notify(initialized["method"])
    return ServerDescription(
        protocol_version=version,
        server_info=_object(result.get("serverInfo")),
        capabilities=_object(result.get("capabilities")),
        handshake=(exchange.request, initialized),
    )


def _object(value: Any) -> dict[str, Any]:
    """`value` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}
