"""The keyword sites of a schema, and which sides of them a value reaches.

A *site* is one keyword at one place of a schema. Examples are `maxLength` of
`arguments.title`, `required` of `arguments.address`, and `minimum` of any item of
`arguments.scores`.

Each site has up to two sides. The *valid* side is reached by a value the keyword accepts at
its boundary. Examples are a string of exactly `maxLength` characters, the `minimum` itself, an
`enum` value, or an object with only its required properties. The *invalid* side is reached by
a value the validator rejects for that keyword at that place.

A side a keyword cannot have is absent. `default` has no invalid side. `additionalProperties:
false` has no valid one, and `minLength: 0` no invalid one.

`keyword_sites` walks a schema once, to `MAX_SITE_DEPTH`. It goes through local `$ref`s,
`properties`, `items`, `prefixItems` and the branches of `allOf`/`anyOf`/`oneOf`. `reached`
says which sides one value sent reached. It reads the value alone, so that any phase is counted
alike.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, TypeAlias

from strategies.mutations import format_path, is_json_number, string_items
from strategies.schemas import SchemaCheck, resolve_local_ref
from strategies.verdicts import json_equal

ANY_ITEM = -1
"""A place's step into every item of an array (`items`).

A label writes it as `tags[]`.
"""

Place: TypeAlias = tuple[str | int, ...]
"""Property names and item indices from the root; `ANY_ITEM` for any item."""

MAX_SITE_DEPTH = 6
"""Nesting past which a schema's keywords are not walked.

Recursive schemas end here.
"""


class Side(Enum):
    VALID = "valid"
    INVALID = "invalid"


_BOTH = (Side.VALID, Side.INVALID)
_VALID_ONLY = (Side.VALID,)
_INVALID_ONLY = (Side.INVALID,)

BOUNDED_NUMBER = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
LENGTHS = ("minLength", "maxLength", "minItems", "maxItems")


@dataclass(frozen=True, slots=True)
class KeywordSite:
    """One keyword at one place of a schema, and the sides it has."""

    place: Place
    pointer: str
    """The JSON Pointer of the (resolved) schema that holds the keyword."""
    keyword: str
    schema: Mapping[str, Any]
    """That schema, its `$ref` resolved."""
    sides: tuple[Side, ...]

    def path(self, prefix: str) -> str:
        """The place as labels name it: `arguments.title`, `arguments.tags[]`."""
        return format_path(self.place, prefix=prefix).replace(f"[{ANY_ITEM}]", "[]")

    @property
    def bound(self) -> Any:
        return self.schema.get(self.keyword)


def keyword_sites(schema: Mapping[str, Any]) -> tuple[KeywordSite, ...]:
    """Every keyword site of `schema` the boundary phase and the coverage know, root first."""
    return tuple(_walk(schema, schema, (), "", 0, frozenset()))


def _walk(schema: Any, root: Mapping[str, Any], place: Place, pointer: str, depth: int, refs: frozenset[str]) -> Iterator[KeywordSite]:
    if not isinstance(schema, Mapping) or depth > MAX_SITE_DEPTH:
        return
    reference = schema.get("$ref")
    if isinstance(reference, str):
        if reference in refs:
            return
        resolved = resolve_local_ref(schema, root)
        if resolved is not schema:
            refs = refs | {reference}
            pointer = reference.removeprefix("#") if reference.startswith("#/") or reference == "#" else pointer
            schema = resolved
    for keyword in schema:
        sides = _sides(keyword, schema, is_root=not place)
        if sides:
            yield KeywordSite(place, pointer, keyword, schema, sides)
    for keyword in ("allOf", "anyOf", "oneOf"):
        branches = schema.get(keyword)
        for index, branch in enumerate(branches if isinstance(branches, list) else []):
            yield from _walk(branch, root, place, f"{pointer}/{keyword}/{index}", depth, refs)
    properties = schema.get("properties")
    for name, child in properties.items() if isinstance(properties, Mapping) else ():
        yield from _walk(child, root, (*place, name), f"{pointer}/properties/{_escaped(name)}", depth + 1, refs)
    items = schema.get("items")
    if isinstance(items, list):
        for index, child in enumerate(items):
            yield from _walk(child, root, (*place, index), f"{pointer}/items/{index}", depth + 1, refs)
    elif isinstance(items, Mapping):
        yield from _walk(items, root, (*place, ANY_ITEM), f"{pointer}/items", depth + 1, refs)
    prefix = schema.get("prefixItems")
    for index, child in enumerate(prefix if isinstance(prefix, list) else []):
        yield from _walk(child, root, (*place, index), f"{pointer}/prefixItems/{index}", depth + 1, refs)


def _sides(keyword: str, schema: Mapping[str, Any], *, is_root: bool) -> tuple[Side, ...]:
    """The sides `keyword` has in `schema`.

    None means a keyword the phase does not walk.
    """
    value = schema[keyword]
    if keyword in BOUNDED_NUMBER:
        return _BOTH if is_json_number(value) and math.isfinite(value) else ()
    if keyword == "multipleOf":
        return _BOTH if is_json_number(value) and value > 0 else ()
    if keyword in LENGTHS:
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            return ()
        return _VALID_ONLY if keyword.startswith("min") and value == 0 else _BOTH
    if keyword == "pattern":
        return _BOTH if isinstance(value, str) else ()
    if keyword == "uniqueItems":
        return _BOTH if value is True else ()
    if keyword in ("enum", "const", "type"):
        if is_root:
            return _VALID_ONLY
        return _BOTH if keyword != "enum" or isinstance(value, list) else ()
    if keyword in ("anyOf", "oneOf"):
        return _BOTH if isinstance(value, list) and value else ()
    if keyword == "required":
        return _BOTH if string_items(value) else ()
    if keyword == "properties":
        optional = set(value) - set(string_items(schema.get("required"))) if isinstance(value, Mapping) else set()
        return _VALID_ONLY if optional else ()
    if keyword == "additionalProperties":
        return _INVALID_ONLY if value is False else ()
    if keyword in ("default", "format"):
        return _VALID_ONLY
    if keyword == "examples":
        return _VALID_ONLY if isinstance(value, list) and value else ()
    return ()


def _escaped(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def nodes_at(value: Any, place: Place) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    """The nodes of `value` at `place`, with their concrete paths.

    `ANY_ITEM` gives every item.
    """
    if not place:
        yield (), value
        return
    step, rest = place[0], place[1:]
    if isinstance(step, str):
        if isinstance(value, dict) and step in value:
            for path, node in nodes_at(value[step], rest):
                yield (step, *path), node
    elif isinstance(value, list):
        indices = range(len(value)) if step == ANY_ITEM else ([step] if step < len(value) else [])
        for index in indices:
            for path, node in nodes_at(value[index], rest):
                yield (index, *path), node


def matches(place: Place, path: Sequence[str | int]) -> bool:
    """Whether a concrete path, such as a validation error's, is at `place`."""
    return len(place) == len(path) and all(step == part or (step == ANY_ITEM and isinstance(part, int)) for step, part in zip(place, path, strict=True))


def at_boundary(site: KeywordSite, node: Any) -> bool:
    """Whether `node` is at the keyword's boundary.

    `node` is a valid value at the site's place. Being at the boundary is what reaching the
    valid side means.
    """
    keyword, bound = site.keyword, site.bound
    if keyword in ("minimum", "maximum"):
        return is_json_number(node) and node == bound
    if keyword in ("exclusiveMinimum", "exclusiveMaximum"):
        upward = keyword == "exclusiveMinimum"
        return is_json_number(node) and node in (bound + 1 if upward else bound - 1, math.nextafter(bound, math.inf if upward else -math.inf))
    if keyword in ("minLength", "maxLength"):
        return isinstance(node, str) and len(node) == bound
    if keyword in ("minItems", "maxItems"):
        return isinstance(node, list) and len(node) == bound
    if keyword == "uniqueItems":
        return isinstance(node, list) and len(node) >= 2
    if keyword == "default":
        return json_equal(node, bound)
    if keyword == "examples":
        return any(json_equal(node, example) for example in bound)
    if keyword == "required":
        return isinstance(node, dict) and set(node) <= set(string_items(bound))
    if keyword == "properties":
        return isinstance(node, dict) and set(bound) <= set(node)
    if keyword in ("pattern", "format"):
        return isinstance(node, str)
    if keyword == "multipleOf":
        return is_json_number(node)
    return keyword in ("enum", "const", "type", "anyOf", "oneOf")


def reached(sites: Sequence[KeywordSite], check: SchemaCheck, value: Any, *, valid: bool) -> list[tuple[int, Side]]:
    """The sides of `sites` that `value` reached, by index.

    A valid value reaches the valid sides it sits on the boundary of. An invalid one reaches the
    keywords the validator rejects it for, where it rejects them.
    """
    found: list[tuple[int, Side]] = []
    if valid:
        for index, site in enumerate(sites):
            if Side.VALID in site.sides and any(at_boundary(site, node) for _, node in nodes_at(value, site.place)):
                found.append((index, Side.VALID))
        return found
    errors = list(check.failures(value))
    for index, site in enumerate(sites):
        if Side.INVALID in site.sides and any(keyword == site.keyword and matches(site.place, path) for keyword, path in errors):
            found.append((index, Side.INVALID))
    return found
