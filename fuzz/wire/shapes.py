"""The official wire types, per negotiated protocol version, from the `mcp-types` package.

`tools/call` results are validated strictly (`isError: "yes"` is not a boolean) against the
`CallToolResult` of the version the handshake negotiated; extra members are allowed, as the
schema allows them.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from mcp_types.jsonrpc import ErrorData
from mcp_types.methods import SERVER_RESULTS
from pydantic import TypeAdapter, ValidationError

LATEST_KNOWN_VERSION = "2025-11-25"


@lru_cache(maxsize=None)
def _call_tool_result(protocol_version: str) -> TypeAdapter[Any]:
    model = SERVER_RESULTS.get(("tools/call", protocol_version)) or SERVER_RESULTS[("tools/call", LATEST_KNOWN_VERSION)]
    return TypeAdapter(model)


_ERROR_DATA = TypeAdapter(ErrorData)


def call_tool_result_problem(result: Any, protocol_version: str = LATEST_KNOWN_VERSION) -> str | None:
    """Why `result` is not a CallToolResult of `protocol_version`, or None when it is."""
    try:
        _call_tool_result(protocol_version).validate_python(result, strict=True, by_name=False)
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
