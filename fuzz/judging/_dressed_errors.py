"""Failures dressed as successes: a result without `isError` whose content says it failed.

Real servers do this with a lookup of a deleted record.
They do it with any failure their tool code catches.
The answer is a success whose text is `Error: ...`.
Or its JSON is `{"status": "error", ...}`.
SEP-2145 asks for a tool execution error (`isError: true`) instead.
A client, and a model, reads a success as a success.

The evidence has to be strong, since a tool may well return text that mentions an error.
One of two things must hold.

First: every text block of the result is non-empty, and the first says it failed.
It starts with `Error:` or `Error -`, in any case.
`Failed:`, `Failure:` and `Exception:` count too.

Second: its JSON says it failed.
The JSON is its `structuredContent`, or a text block that is a JSON object.
It has `"status"` of `"error"`, `"failed"` or `"failure"`.
Or it has `"success": false` or `"ok": false`.
Or it has an `"error"` that is a non-empty string or object, and no result beside it.

A text that only echoes an argument the call sent is not evidence.
An `echo` tool sent `"Error: x"` is an example.
This is judged on the successes of calls with valid arguments.
The rule is `error-as-success`, and it is advisory.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

_ERROR_TEXT = re.compile(r"\s*(?:error|failed|failure|exception)\s*(?::|\s-\s)", re.IGNORECASE)
_FAILED_STATUS = ("error", "failed", "failure")


def dressed_error(result: Mapping[str, Any] | None, arguments: Any = None) -> str | None:
    """Why `result` (a success) is a failure dressed as one, or None."""
    if not isinstance(result, Mapping) or result.get("isError") is True:
        return None
    sent = set(_strings(arguments))
    content = result.get("content")
    blocks = [block.get("text") for block in content if isinstance(block, Mapping) and block.get("type") == "text"] if isinstance(content, list) else []
    texts = [text for text in blocks if isinstance(text, str) and text.strip()]
    if texts and len(texts) == len(blocks):
        first = texts[0]
        if _ERROR_TEXT.match(first) and not any(value in first for value in sent if _ERROR_TEXT.match(value)):
            return f"its text says it failed ({first.strip()[:80]!r}) but the result has no isError: true"
    for where, value in (("structuredContent", result.get("structuredContent")), *(("text", _json(text)) for text in texts[:1])):
        why = _failed_object(value)
        if why is not None:
            return f"its {where} says it failed ({why}) but the result has no isError: true"
    return None


def _failed_object(value: Any) -> str | None:
    if not isinstance(value, Mapping):
        return None
    status = value.get("status")
    if isinstance(status, str) and status.lower() in _FAILED_STATUS:
        return f'"status": {json.dumps(status)}'
    for key in ("success", "ok"):
        if value.get(key) is False:
            return f'"{key}": false'
    error = value.get("error")
    if ((isinstance(error, str) and error.strip()) or (isinstance(error, Mapping) and error)) and not ({"result", "data"} & set(value)):
        return f'"error": {json.dumps(error)[:60]}'
    return None


def _json(text: Any) -> Any:
    if not isinstance(text, str) or not text.lstrip().startswith("{"):
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for child in value.values():
            yield from _strings(child)
    elif isinstance(value, list):
        for child in value:
            yield from _strings(child)
