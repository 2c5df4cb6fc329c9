"""Values a server gave that later calls may reuse, and the arguments they fit.

A call sequence reaches state only when it calls `get_note` with an id `create_note` returned.
So each answer is read for *learnable* values: strings and integers under a key of one of two
families. The id family is `id`, `uuid`, `key`, `slug`, or a name ending in `id` or `Id`, such
as `note_id` and `noteId`. The name family is `name`, or a name ending in `name`/`Name`, such
as `sheet_name`.

They are found anywhere in `structuredContent`, or in a text block that is a JSON object or
array, to `MAX_DEPTH` levels. A later call offers such a value to an argument of the same family
whose schema accepts it: `id` ↔ `note_id` ↔ `noteId`, `name` ↔ `sheet_name`.

Each learned value keeps where it was found, from the result's root (`Learned.path`). So a
replay can find the value the server gives *then* in the same place.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from strategies.schemas import SchemaCheck

MAX_DEPTH = 4
MAX_LEARNED = 16
"""Values kept per answer.

A list of a thousand records offers nothing a few do not.
"""

_ID_WORDS = ("id", "uuid", "key", "slug")


def family(name: str) -> str | None:
    """Which family a key or an argument name belongs to: `id`, `name`, or None."""
    if not isinstance(name, str) or not name:
        return None
    words = [word.lower() for word in re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", name)]
    if not words:
        return None
    last = words[-1]
    if last in _ID_WORDS:
        return "id"
    return "name" if last == "name" else None


@dataclass(frozen=True, slots=True)
class Learned:
    """A value an answer held, its family, and where in the result it was."""

    family: str
    key: str
    value: str | int
    path: tuple[str | int, ...]


def learned_from(result: Any) -> list[Learned]:
    """The learnable values of a `CallToolResult`, in the order they appear, each once."""
    if not isinstance(result, Mapping):
        return []
    found: list[Learned] = []
    if "structuredContent" in result:
        found += _walk(result["structuredContent"], ("structuredContent",), 0)
    content = result.get("content")
    for index, block in enumerate(content if isinstance(content, list) else []):
        if isinstance(block, Mapping) and block.get("type") == "text" and isinstance(block.get("text"), str):
            parsed = _json(block["text"])
            if isinstance(parsed, (dict, list)):
                found += _walk(parsed, ("content", index, "text"), 0)
    kept: list[Learned] = []
    for item in found:
        if all((item.family, item.value) != (other.family, other.value) for other in kept):
            kept.append(item)
    return kept[:MAX_LEARNED]


def _walk(value: Any, path: tuple[str | int, ...], depth: int) -> Iterator[Learned]:
    if depth > MAX_DEPTH:
        return
    if isinstance(value, Mapping):
        for key, child in value.items():
            kind = family(key)
            if kind is not None and _learnable(child):
                yield Learned(kind, key, child, (*path, key))
            else:
                yield from _walk(child, (*path, key), depth + 1)
    elif isinstance(value, list):
        for index, child in enumerate(value[:MAX_LEARNED]):
            yield from _walk(child, (*path, index), depth + 1)


def _learnable(value: Any) -> bool:
    return (isinstance(value, str) and 0 < len(value) <= 200) or (isinstance(value, int) and not isinstance(value, bool))


def _json(text: str) -> Any:
    if text[:1] not in ("{", "["):
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def found_at(result: Any, path: tuple[str | int, ...]) -> Any:
    """The value at `path` in a result, or None.

    A JSON text block on the path is read as JSON.
    """
    here: Any = result
    for step in path:
        inside = (isinstance(step, str) and isinstance(here, Mapping) and step in here) or (
            isinstance(step, int) and isinstance(here, list) and 0 <= step < len(here)
        )
        if not inside:
            return None
        here = here[step]
        if step == "text" and isinstance(here, str):
            here = _json(here)
    return here


def fitting_fields(check: SchemaCheck, kind: str) -> tuple[str, ...]:
    """The top-level arguments of a tool that are of family `kind`.

    They are read from its input schema's `properties`.
    """
    properties = check.schema.get("properties")
    return tuple(name for name in properties if family(name) == kind) if isinstance(properties, Mapping) else ()


def fits(check: SchemaCheck, field: str, value: Any) -> bool:
    """Whether `value` is one the schema of argument `field` accepts."""
    properties = check.schema.get("properties")
    subschema = properties.get(field) if isinstance(properties, Mapping) else None
    return isinstance(subschema, (Mapping, bool)) and check.subschema_accepts(subschema, value)
