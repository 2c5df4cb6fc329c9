"""Multi round-trip requests (MRTR, SEP-2322, 2026-07-28) on FastMCP 4.2.3.

FastMCP 4 has no resolver or builder for MRTR: a tool asks with its "guard pattern", returning an
`mcp_types.InputRequiredResult` from its body (the `-> str | InputRequiredResult` arm is dropped
from the derived output schema) and reading the retry's answers from `ctx.input_responses` (and
its own state from `ctx.request_state`). FastMCP seals `requestState` on the way out and verifies
it on the way in with the SDK's `RequestStateBoundary` (ephemeral AES-256-GCM key per process, TTL
600 s, bound to method, tool name and a digest of the arguments). `ctx.elicit()` raises on a
2026-07-28 request, so the tools here are written for 2026-07-28 only. Run:
`python fastmcp_mrtr_server.py` serves stdio (newline-delimited JSON-RPC).

Tools (readOnlyHint true on each):
- confirm(item: str): elicits {confirm: boolean} (form). accept+true -> "deleted <item>";
  accept+false, decline, cancel -> "kept <item>". An accepted content without a boolean
  `confirm`, or a retry without an answer, asks again.
- confirm_then_break(n: int): the same confirmation; declares outputSchema {count: integer}
  (required). decline/cancel -> {count: 0}. accept -> the bug: structuredContent
  {"count": "many"}, which FastMCP passes to the wire unchecked.
- plain(n: int): no input request, returns "plain <n>".

No sampling tool: FastMCP has no MRTR helper for it (a tool could hand-build a
`CreateMessageRequest` the same way; the Python SDK and TypeScript fixtures cover sampling).

FastMCP does not gate a guard tool's `inputRequests` on the request's clientCapabilities (a tool
would have to check `ctx.session.check_client_capability(...)` itself, which reads the request's
capabilities but counts a url-only `elicitation` as form); these tools do not, as written from the
guard pattern, so the fixture shows what FastMCP lets through.

Hand probes (a plain JSON-RPC client over stdio, no SDK): server/discover and tools/list carry
`ttlMs: 0`, `cacheScope: "private"`; tools/list order is stable; `str` tools get FastMCP's wrapped
`{"result": string}` outputSchema. Deviations: clientCapabilities `{}` or url-only elicitation
still get the form `elicitation/create` input request (no -32021); confirm_then_break's accept
answers `resultType: "complete"` with `structuredContent: {"count": "many"}`. Tampered, truncated,
non-string or foreign (another item's) requestState -> -32602 "Invalid or expired requestState";
a retry without requestState is served (the tools do not need it); inputResponses not an object or
`action: "maybe"` -> -32602 "Invalid request parameters". No server-to-client request on
2026-07-28. Under `initialize` 2025-11-25 a guard tool gets -32602 ("returned an
InputRequiredResult ... only exists at MCP 2026-07-28"): no `elicitation/create` is sent.
"""

from __future__ import annotations

import json
import logging

from fastmcp import Context, FastMCP
from fastmcp.tools.base import ToolResult
from mcp_types import ElicitRequest, ElicitRequestFormParams, ElicitResult, InputRequiredResult

logging.disable(logging.CRITICAL)

mcp = FastMCP("toolfuzz-fixture-fastmcp-mrtr")
READ_ONLY = {"readOnlyHint": True}
CONFIRM_SCHEMA = {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}
COUNT_SCHEMA = {"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]}


def _ask(message: str, tool: str, item: str) -> InputRequiredResult:
    return InputRequiredResult(
        input_requests={"confirm": ElicitRequest(params=ElicitRequestFormParams(message=message, requested_schema=CONFIRM_SCHEMA))},
        request_state=json.dumps({"tool": tool, "item": item}),
    )


def _answer(ctx: Context) -> bool | None:
    """True/False once the user answered; None when there is no usable answer (ask again)."""
    response = (ctx.input_responses or {}).get("confirm")
    if not isinstance(response, ElicitResult):
        return None
    if response.action != "accept":
        return False
    confirmed = (response.content or {}).get("confirm")
    return confirmed if isinstance(confirmed, bool) else None


@mcp.tool(annotations=READ_ONLY)
def confirm(item: str, ctx: Context) -> str | InputRequiredResult:
    """Delete an item after a yes/no confirmation (form elicitation)."""
    answer = _answer(ctx)
    if answer is None:
        return _ask(f"Delete {item}?", "confirm", item)
    return f"{'deleted' if answer else 'kept'} {item}"


@mcp.tool(annotations=READ_ONLY, output_schema=COUNT_SCHEMA)
def confirm_then_break(n: int, ctx: Context) -> ToolResult | InputRequiredResult:
    """Asks a confirmation, then breaks on accept (structuredContent violates the outputSchema)."""
    answer = _answer(ctx)
    if answer is None:
        return _ask(f"Count {n}?", "confirm_then_break", str(n))
    if not answer:
        return ToolResult(content=f"kept {n}", structured_content={"count": 0})
    return ToolResult(content=f"count {n}", structured_content={"count": "many"})


@mcp.tool(annotations=READ_ONLY)
def plain(n: int) -> str:
    """No input request; returns "plain n"."""
    return f"plain {n}"


if __name__ == "__main__":
    mcp.run(show_banner=False)
