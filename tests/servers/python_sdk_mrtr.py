"""Multi round-trip requests (MRTR, SEP-2322, 2026-07-28) on the official Python SDK, mcp 2.3.0.

Built on `mcp.server.mcpserver.MCPServer` and its resolver API: a tool parameter annotated
`Annotated[ElicitationResult[Confirmation], Resolve(ask)]` is filled by running `ask`, which
returns `Elicit(message, Confirmation)` (or `Sample(...)` for sampling). Under 2026-07-28 the SDK
answers the first `tools/call` with `resultType: "input_required"` and resumes on the retry's
`inputResponses`/`requestState`; under an `initialize` handshake (2025-11-25) it sends a real
`elicitation/create` request instead. The SDK seals `requestState` itself (`RequestStateBoundary`,
an ephemeral AES-256-GCM key per process, TTL 600 s, bound to method, tool name and a digest of the
arguments). Run: `python python_sdk_mrtr.py` serves stdio (newline-delimited JSON-RPC).

Tools (readOnlyHint true on each):
- confirm(item: str): elicits {confirm: bool} (form). accept+true -> "deleted <item>"; accept+false,
  decline, cancel -> "kept <item>".
- confirm_then_break(n: int): the same confirmation; returns `Count` (outputSchema
  {count: integer}, required). decline/cancel -> {count: 0}. accept -> the bug: the tool raises
  `MCPError(-32603)`. MCPServer validates structured output against the return model itself and
  turns a {count: "many"} into an isError result (what SEP-2145 asks), so that bug is not visible
  on this SDK; an `MCPError` raised by a tool is passed through as a JSON-RPC error instead of a
  tool execution error, which the SEP-2145 tool-failure rule flags.
- plain(n: int): no input request, returns "plain <n>".
- ask_model(prompt: str): asks sampling/createMessage (max_tokens 50) through `Sample`; returns
  "model said: <text>".

Hand probes (a plain JSON-RPC client over stdio, no SDK): server/discover and tools/list carry
`ttlMs: 0`, `cacheScope: "private"`; tools/list order is stable. Input request keys are the
resolver's `module:qualname` (`__main__:ask_delete` when run as a script). A call whose
clientCapabilities lack form elicitation (`{}` or url-only) gets -32021 with
`data.requiredCapabilities: {"elicitation": {"form": {}}}` (sampling: `{"sampling": {}}`); a bare
`elicitation: {}` counts as form. A retry without requestState, with no answer, or with an answer
under another key asks again. Tampered, truncated, non-string or foreign (another item's)
requestState -> -32602 "Invalid or expired requestState"; a replayed retry is served again.
Deviations: an accepted `{"confirm": "yes"}` is coerced to true by pydantic's lax mode and deletes
(`"maybe"` -> isError result); `accept` without content -> isError result instead of asking again;
inputResponses not an object or `action: "maybe"` -> -32602 "Invalid request parameters". No
server-to-client request on 2026-07-28 (its session source raises NoBackChannelError there). Under
`initialize` 2025-11-25 the same resolver sends a real `elicitation/create` request when the client
declared elicitation, and -32021 when it did not.
"""

from __future__ import annotations

import logging
from typing import Annotated

from mcp.server.mcpserver import (
    AcceptedElicitation,
    Elicit,
    ElicitationResult,
    MCPServer,
    Resolve,
    Sample,
)
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, CreateMessageResult, SamplingMessage, TextContent, ToolAnnotations
from pydantic import BaseModel

# Tracebacks of the deliberate failures would only slow the calls down; the wire answer is what counts.
logging.disable(logging.CRITICAL)

mcp = MCPServer("toolfuzz-fixture-python-sdk-mrtr", version="0.1.0")
READ_ONLY = ToolAnnotations(read_only_hint=True)


class Confirmation(BaseModel):
    confirm: bool


class Count(BaseModel):
    count: int


def ask_delete(item: str) -> Elicit[Confirmation]:
    return Elicit(f"Delete {item}?", Confirmation)


def ask_count(n: int) -> Elicit[Confirmation]:
    return Elicit(f"Count {n}?", Confirmation)


def ask_the_model(prompt: str) -> Sample:
    return Sample([SamplingMessage(role="user", content=TextContent(type="text", text=prompt))], max_tokens=50)


def _accepted(answer: ElicitationResult[Confirmation]) -> bool:
    return isinstance(answer, AcceptedElicitation) and answer.data.confirm


@mcp.tool(annotations=READ_ONLY, structured_output=False)
def confirm(item: str, answer: Annotated[ElicitationResult[Confirmation], Resolve(ask_delete)]) -> str:
    """Delete an item after a yes/no confirmation (form elicitation)."""
    return f"{'deleted' if _accepted(answer) else 'kept'} {item}"


@mcp.tool(annotations=READ_ONLY)
def confirm_then_break(n: int, answer: Annotated[ElicitationResult[Confirmation], Resolve(ask_count)]) -> Count:
    """Asks a confirmation, then breaks on accept (raises MCPError)."""
    if not _accepted(answer):
        return Count(count=0)
    raise MCPError(code=INTERNAL_ERROR, message=f"confirm_then_break {n} failed after the user accepted")


@mcp.tool(annotations=READ_ONLY, structured_output=False)
def plain(n: int) -> str:
    """No input request; returns "plain n"."""
    return f"plain {n}"


@mcp.tool(annotations=READ_ONLY, structured_output=False)
def ask_model(prompt: str, reply: Annotated[CreateMessageResult, Resolve(ask_the_model)]) -> str:
    """Asks the client's model (sampling/createMessage) and returns its answer."""
    content = reply.content
    block = content[0] if isinstance(content, list) else content
    return f"model said: {block.text if isinstance(block, TextContent) else block.model_dump_json()}"


if __name__ == "__main__":
    mcp.run("stdio")
