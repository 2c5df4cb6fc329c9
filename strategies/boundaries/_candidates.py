"""The values at and one step past each keyword's boundary, for one place of a schema.

Each candidate says what it is meant to be (`Candidate.side`, `Candidate.what`). None is
trusted. `strategies.boundaries._values` places it in an otherwise simplest value. It keeps it
only if the validator agrees. A valid one must be accepted, formats asserted. An invalid one
must be rejected for this keyword at this place, and for nothing else.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from strategies.boundaries._sites import KeywordSite, Side
from strategies.boundaries.simplest import NOTHING, Simplest
from strategies.mutations import is_json_number, string_items
from strategies.verdicts import json_equal

_OTHER_TYPES: tuple[tuple[str, Any], ...] = (("null", None), ("boolean", False), ("integer", 0), ("string", ""), ("array", []), ("object", {}))
"""A value of each JSON type, the simplest, in the order wrong types are tried."""

UNEXPECTED_PROPERTY = "unexpected"


@dataclass(frozen=True, slots=True)
class Candidate:
    value: Any
    side: Side
    what: str
    """What the value is, for the label: `exactly 80 characters`, `6, one past it`."""


def candidates(site: KeywordSite, simplest: Simplest, node: Any) -> list[Candidate]:
    """The candidates of `site`.

    `node` is the simplest value at its place in the base. The keywords that change a value,
    rather than make one, use it.
    """
    make = _MAKERS.get(site.keyword)
    return list(make(site, simplest, node)) if make is not None else []


def _integral(schema: Mapping[str, Any]) -> bool:
    declared = schema.get("type")
    types = {declared} if isinstance(declared, str) else set(declared) if isinstance(declared, list) else set()
    return "integer" in types and "number" not in types


def _numbers(site: KeywordSite, simplest: Simplest, node: Any) -> Iterator[Candidate]:
    """Candidates at a numeric bound.

    For `minimum`/`maximum`: the bound, its neighbour inside and the one outside. For a number
    that is not only an integer, also the next float outside. For exclusive bounds: the
    neighbour inside, and the excluded bound itself.
    """
    bound, keyword = site.bound, site.keyword
    lower = keyword in ("minimum", "exclusiveMinimum")
    step = 1 if lower else -1
    integral = _integral(site.schema)
    if keyword in ("minimum", "maximum"):
        if integral and not float(bound).is_integer():
            inside = math.ceil(bound) if lower else math.floor(bound)
            yield Candidate(inside, Side.VALID, f"{inside}, the nearest integer inside")
            yield Candidate(inside - step, Side.INVALID, f"{inside - step}, the nearest integer outside")
            return
        yield Candidate(bound, Side.VALID, "the bound itself")
        yield Candidate(bound + step, Side.VALID, f"{bound + step}, one inside it")
        yield Candidate(bound - step, Side.INVALID, f"{bound - step}, one past it")
        if not integral:
            past = math.nextafter(float(bound), -math.inf if lower else math.inf)
            yield Candidate(past, Side.INVALID, f"{past!r}, the next number past it")
        return
    if integral and float(bound).is_integer():
        yield Candidate(int(bound) + step, Side.VALID, f"{int(bound) + step}, the nearest integer inside")
    else:
        inside = math.nextafter(float(bound), math.inf if lower else -math.inf)
        yield Candidate(inside, Side.VALID, f"{inside!r}, the nearest number inside")
    yield Candidate(bound, Side.INVALID, "the excluded bound itself")


def _multiple_of(site: KeywordSite, simplest: Simplest, node: Any) -> Iterator[Candidate]:
    factor, schema = site.bound, site.schema
    upper = schema.get("maximum")
    lower = schema.get("minimum")
    if is_json_number(upper):
        at_bound = math.floor(upper / factor) * factor
    elif is_json_number(lower):
        at_bound = math.ceil(lower / factor) * factor
    else:
        at_bound = factor
    at_bound = int(at_bound) if isinstance(factor, int) else at_bound
    yield Candidate(at_bound, Side.VALID, f"{at_bound!r}, a multiple at the bound")
    if isinstance(factor, int) and _integral(schema):
        if factor > 1:
            yield Candidate(at_bound - 1, Side.INVALID, f"{at_bound - 1}, not a multiple")
    else:
        off = at_bound - factor / 2
        yield Candidate(off, Side.INVALID, f"{off!r}, not a multiple")


def _lengths(site: KeywordSite, simplest: Simplest, node: Any) -> Iterator[Candidate]:
    """A string or array of exactly the bound's length, and one just past it.

    Past it is one more for `max…`, or one less for `min…`. Each is the simplest the place's
    other keywords accept at that exact length.
    """
    bound, keyword = site.bound, site.keyword
    low, high = ("minLength", "maxLength") if keyword.endswith("Length") else ("minItems", "maxItems")
    unit = "characters" if keyword.endswith("Length") else "items"
    past = bound - 1 if keyword.startswith("min") else bound + 1
    for length, side in ((bound, Side.VALID), (past, Side.INVALID)):
        if length >= 0:
            value = simplest.value({**site.schema, low: length, high: length})
            if value is not NOTHING:
                yield Candidate(value, side, f"exactly {length} {unit if length != 1 else unit[:-1]}")


def _unique_items(site: KeywordSite, simplest: Simplest, node: Any) -> Iterator[Candidate]:
    if not isinstance(node, list) or not node:
        return
    if len(node) >= 2:
        yield Candidate(node, Side.VALID, f"{len(node)} distinct items")
    yield Candidate([*node, node[0]], Side.INVALID, "its first item twice")
    if len(node) >= 2:
        yield Candidate([*node[:-1], node[0]], Side.INVALID, "its first item twice")


def _enum(site: KeywordSite, simplest: Simplest, node: Any) -> Iterator[Candidate]:
    values = site.bound
    if not isinstance(values, list):
        return
    order = [*values[:1], *values[-1:], *values[1:-1]] if len(values) > 1 else values
    for value in order:
        yield Candidate(value, Side.VALID, f"enum value {_short(value)}")
    yield from _outside(values, Side.INVALID, "a value outside the enum")


def _const(site: KeywordSite, simplest: Simplest, node: Any) -> Iterator[Candidate]:
    yield Candidate(site.bound, Side.VALID, "the const value")
    yield from _outside([site.bound], Side.INVALID, "a value other than the const")


def _outside(members: list[Any], side: Side, what: str) -> Iterator[Candidate]:
    """Values of the members' own types that are none of them: the nearest misses first."""
    tried: list[Any] = []
    for member in members[:1]:
        if isinstance(member, str):
            tried += [member + "_", "", member.upper() if member.upper() != member else member.lower()]
        elif isinstance(member, bool):
            tried.append(not member)
        elif is_json_number(member):
            numbers = [value for value in members if is_json_number(value)]
            tried += [max(numbers) + 1, min(numbers) - 1]
    tried += [value for _, value in _OTHER_TYPES]
    for value in tried:
        if not any(json_equal(value, member) for member in members):
            yield Candidate(value, side, f"{what}: {_short(value)}")


def _type(site: KeywordSite, simplest: Simplest, node: Any) -> Iterator[Candidate]:
    declared = site.bound
    names = [declared] if isinstance(declared, str) else [name for name in declared if isinstance(name, str)] if isinstance(declared, list) else []
    if len(names) > 1:
        for name in names:
            value = simplest.value({**site.schema, "type": name})
            if value is not NOTHING:
                yield Candidate(value, Side.VALID, f"of type {name}")
    allowed = set(names) | ({"integer"} if "number" in names else set())
    for name, value in _OTHER_TYPES:
        if name not in allowed:
            yield Candidate(value, Side.INVALID, f"of type {name}, not {' or '.join(names)}")


def _branches(site: KeywordSite, simplest: Simplest, node: Any) -> Iterator[Candidate]:
    rest = {key: value for key, value in site.schema.items() if key != site.keyword}
    for index, branch in enumerate(site.bound):
        value = simplest.value({"allOf": [rest, branch]})
        if value is not NOTHING:
            yield Candidate(value, Side.VALID, f"branch {index}")
    for _, value in _OTHER_TYPES:
        yield Candidate(value, Side.INVALID, f"no branch: {_short(value)}")


def _documented(site: KeywordSite, simplest: Simplest, node: Any) -> Iterator[Candidate]:
    values = [site.bound] if site.keyword == "default" else site.bound
    for index, value in enumerate(values):
        yield Candidate(value, Side.VALID, "its default" if site.keyword == "default" else f"example {index}")


def _pattern(site: KeywordSite, simplest: Simplest, node: Any) -> Iterator[Candidate]:
    if isinstance(node, str):
        yield Candidate(node, Side.VALID, "the simplest match")
    for value in ("", " ", "!", *((node + "!", "!" + node, node + "\n") if isinstance(node, str) else ())):
        yield Candidate(value, Side.INVALID, f"mismatch {_short(value)}")


def _required(site: KeywordSite, simplest: Simplest, node: Any) -> Iterator[Candidate]:
    if not isinstance(node, dict):
        return
    names = string_items(site.bound)
    yield Candidate({key: value for key, value in node.items() if key in names}, Side.VALID, "only its required properties")
    for name in names:
        if name in node:
            yield Candidate({key: value for key, value in node.items() if key != name}, Side.INVALID, f"without {name!r}")


def _properties(site: KeywordSite, simplest: Simplest, node: Any) -> Iterator[Candidate]:
    if not isinstance(node, dict):
        return
    required = set(string_items(site.schema.get("required")))
    optional = [name for name in site.bound if name not in required and name in node]
    bare = {key: value for key, value in node.items() if key in required}
    if set(site.bound) <= set(node):
        yield Candidate(node, Side.VALID, "every optional property")
    for name in optional:
        yield Candidate({**bare, name: node[name]}, Side.VALID, f"only the optional {name!r}")


def _additional(site: KeywordSite, simplest: Simplest, node: Any) -> Iterator[Candidate]:
    if not isinstance(node, dict):
        return
    name = UNEXPECTED_PROPERTY
    while name in node or name in (site.schema.get("properties") or {}):
        name += "_"
    yield Candidate({**node, name: None}, Side.INVALID, f"one property too many ({name!r})")


def _format(site: KeywordSite, simplest: Simplest, node: Any) -> Iterator[Candidate]:
    if isinstance(node, str):
        yield Candidate(node, Side.VALID, f"a {site.bound} string")


def _short(value: Any) -> str:
    import json

    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


_MAKERS: dict[str, Callable[[KeywordSite, Simplest, Any], Iterator[Candidate]]] = {
    "minimum": _numbers,
    "maximum": _numbers,
    "exclusiveMinimum": _numbers,
    "exclusiveMaximum": _numbers,
    "multipleOf": _multiple_of,
    "minLength": _lengths,
    "maxLength": _lengths,
    "minItems": _lengths,
    "maxItems": _lengths,
    "uniqueItems": _unique_items,
    "enum": _enum,
    "const": _const,
    "type": _type,
    "anyOf": _branches,
    "oneOf": _branches,
    "default": _documented,
    "examples": _documented,
    "pattern": _pattern,
    "required": _required,
    "properties": _properties,
    "additionalProperties": _additional,
    "format": _format,
}
