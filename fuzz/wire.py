"""The shape of a `tools/call` result on the wire (MCP 2025-11-25 `CallToolResult`, which also
covers the shapes of the earlier revisions the harness accepts).

Deliberately lenient where the schema is open (`_meta`, annotations, extra members are allowed)
and strict where it is not (`content` required, each block with its `type` and required fields,
`isError` a boolean, `structuredContent` an object), so that a well-formedness finding is never
a matter of taste.
"""

from __future__ import annotations

from typing import Any

import jsonschema

_RESOURCE_CONTENTS = {
    "type": "object",
    "required": ["uri"],
    "properties": {"uri": {"type": "string"}, "text": {"type": "string"}, "blob": {"type": "string"}},
    "anyOf": [{"required": ["text"]}, {"required": ["blob"]}],
}

CALL_TOOL_RESULT_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["content"],
    "properties": {
        "content": {"type": "array", "items": {"$ref": "#/$defs/ContentBlock"}},
        "isError": {"type": "boolean"},
        "structuredContent": {"type": "object"},
        "_meta": {"type": "object"},
    },
    "$defs": {
        "ContentBlock": {
            "type": "object",
            "required": ["type"],
            "properties": {"type": {"enum": ["text", "image", "audio", "resource_link", "resource"]}},
            "allOf": [
                {"if": {"properties": {"type": {"const": "text"}}},
                 "then": {"required": ["text"], "properties": {"text": {"type": "string"}}}},
                {"if": {"properties": {"type": {"enum": ["image", "audio"]}}},
                 "then": {"required": ["data", "mimeType"],
                          "properties": {"data": {"type": "string"}, "mimeType": {"type": "string"}}}},
                {"if": {"properties": {"type": {"const": "resource_link"}}},
                 "then": {"required": ["uri", "name"],
                          "properties": {"uri": {"type": "string"}, "name": {"type": "string"}}}},
                {"if": {"properties": {"type": {"const": "resource"}}},
                 "then": {"required": ["resource"], "properties": {"resource": _RESOURCE_CONTENTS}}},
            ],
        }
    },
}

_CALL_TOOL_RESULT = jsonschema.Draft202012Validator(CALL_TOOL_RESULT_SCHEMA)


def call_tool_result_problem(result: Any) -> str | None:
    """Why `result` is not a CallToolResult, or None when it is."""
    error = jsonschema.exceptions.best_match(_CALL_TOOL_RESULT.iter_errors(result))
    if error is None:
        return None
    where = "result" + "".join(f"[{p!r}]" if isinstance(p, str) else f"[{p}]" for p in error.absolute_path)
    return f"{where}: {error.message}"


def error_object_problem(error: Any) -> str | None:
    """Why a JSON-RPC `error` member is not an error object (integer `code`, string `message`)."""
    if not isinstance(error, dict):
        return f"error is {error!r:.80}, not an object"
    code = error.get("code")
    if not isinstance(code, int) or isinstance(code, bool):
        return f"error.code is {code!r:.40}, not an integer"
    if not isinstance(error.get("message"), str):
        return f"error.message is {error.get('message')!r:.40}, not a string"
    return None
