"""The official wire types, per spoken protocol version, from the `mcp-types` package.

`tools/call` results are validated strictly (`isError: "yes"` is not a boolean) against the
`CallToolResult` of the version spoken. Extra members are allowed, as every revision's schema
allows them (`Result` is open in each, 2026-07-28 included). Under 2026-07-28 the result must
say what it is: `resultType` `"complete"` (a CallToolResult) or `"input_required"` (an
InputRequiredResult); the schema types it only as a string, and any other value (an
extension's) is wrong here, as the harness negotiates no extension.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from mcp_types.jsonrpc import ErrorData
from mcp_types.methods import SERVER_RESULTS
from pydantic import TypeAdapter, ValidationError

LATEST_KNOWN_VERSION = "2025-11-25"
RESULT_TYPES = ("complete", "input_required")
"""The `resultType` values of the stateless revision's tools/call results."""
WITHOUT_OUTPUT_SCHEMA = ("2024-11-05", "2025-03-26")
"""Revisions whose tools have no `outputSchema` and whose results no `structuredContent`."""
OBJECT_STRUCTURED_CONTENT = ("2025-06-18", "2025-11-25")
"""Revisions whose `structuredContent` is an object (2026-07-28 allows any JSON value)."""


@lru_cache(maxsize=None)
def _call_tool_result(protocol_version: str, result_type: str = "complete") -> TypeAdapter[Any]:
    model = SERVER_RESULTS.get(("tools/call", protocol_version)) or SERVER_RESULTS[("tools/call", LATEST_KNOWN_VERSION)]
    members = getattr(model, "__args__", None)
    if members:
        model = next(m for m in members if (m.__name__ == "InputRequiredResult") == (result_type == "input_required"))
    return TypeAdapter(model)


_TYPED_RESULTS = {("2026-07-28", "tools/call")}
"""Where a result's `resultType` must be one of RESULT_TYPES."""

_ERROR_DATA = TypeAdapter(ErrorData)


def call_tool_result_problem(result: Any, protocol_version: str = LATEST_KNOWN_VERSION) -> str | None:
    """Why `result` is not a CallToolResult (or under 2026-07-28 an InputRequiredResult) of
    `protocol_version`, or None when it is."""
    if isinstance(result, dict) and (protocol_version, "tools/call") in _TYPED_RESULTS:
        kind = result.get("resultType")
        if kind not in RESULT_TYPES:
            shown = "no resultType" if "resultType" not in result else f"resultType {kind!r:.60}"
            return f"not a tools/call result ({protocol_version}): {shown}; the revision's are {', '.join(map(repr, RESULT_TYPES))}"
        if kind == "input_required" and "inputRequests" not in result and "requestState" not in result:
            return f"not an InputRequiredResult ({protocol_version}): it has neither inputRequests nor requestState"
    kind = result.get("resultType", "complete") if isinstance(result, dict) else "complete"
    try:
        _call_tool_result(protocol_version, kind if kind in RESULT_TYPES else "complete").validate_python(result, strict=True, by_name=False)
    except ValidationError as error:
        return f"not a CallToolResult ({protocol_version}): {_first_problem(error, 'result')}"
    return None


def error_object_problem(error: Any) -> str | None:
    """Why a JSON-RPC `error` member is not an error object (integer `code`, string `message`)."""
    try:
        _ERROR_DATA.validate_python(error, strict=True, by_name=False)
    except ValidationError as problem:
        return f"not a JSON-RPC error object: {_first_problem(problem, 'error')}"
    return None


def _first_problem(error: ValidationError, root: str) -> str:
    first = error.errors()[0]
    where = root + "".join(f"[{part!r}]" if isinstance(part, str) else f"[{part}]" for part in first["loc"])
    return f"{where}: {first['msg']}"
