"""Boundary values of a whole schema: each keyword's edge, one place at a time, the rest simplest.

A boundary value starts from the schema's simplest object: its required properties at their
simplest (`strategies.boundaries.simplest`). One place of it is changed to a candidate of one
keyword (`strategies.boundaries._candidates`).

Some places are missing from the simplest object: an optional property, or an item of an empty
array. Such a place is taken from the *rich* object. That is the simplest object with every
optional property and one item of each array, each at its simplest.

Every value is checked before it is kept, as every label is. A valid one must be accepted with
formats asserted. An invalid one must be rejected for its keyword at its place, and for nothing
else. So a value that violates a rule is already minimal. Shrinking it could only undo the one
change that matters.

The values are deterministic: there is no seed, and the same schema gives the same values.
They are also bounded, at most `limit` of each side. They are taken a keyword at a time round
the sites: the first candidate of every site, then the second, and so on. So a long `enum`
loses its middle values first. How many were left out is reported.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import zip_longest
from typing import Any

from strategies.boundaries._candidates import Candidate, candidates
from strategies.boundaries._sites import (
    ANY_ITEM,
    BOUNDED_NUMBER,
    LENGTHS,
    MAX_SITE_DEPTH,
    KeywordSite,
    Side,
    keyword_sites,
    nodes_at,
)
from strategies.boundaries.simplest import NOTHING, Simplest
from strategies.labelled import Labelled
from strategies.schemas import SchemaCheck, resolve_local_ref
from strategies.values import encodes_as_json

BOUNDARY_LIMIT = 200
"""Boundary values of each side per schema, at most.

An enum of 155 values fits.
"""

_WHOLE_OBJECT = ("required", "properties", "additionalProperties")
"""Keywords whose values change a whole object, judged last.

A value may be made both by one of them and by a keyword of one place. It is then labelled by
the place's keyword, which is the more telling.
"""

_BOUND_SHOWN = (*BOUNDED_NUMBER, *LENGTHS, "multipleOf", "pattern", "const", "format")


@dataclass(frozen=True, slots=True)
class Boundaries:
    """A schema's boundary values, valid and invalid, with their labels.

    `left_out` says how many of each side the limit left out.
    """

    valid: tuple[Labelled[dict[str, Any]], ...] = ()
    invalid: tuple[Labelled[dict[str, Any]], ...] = ()
    left_out: Mapping[Side, int] | None = None

    def of(self, side: Side) -> tuple[Labelled[dict[str, Any]], ...]:
        return self.valid if side is Side.VALID else self.invalid


def boundary_values(check: SchemaCheck, *, prefix: str, known: Mapping[str, Sequence[Any]] | None = None, limit: int = BOUNDARY_LIMIT) -> Boundaries:
    """The boundary values of `check`'s schema.

    The schema is an object schema, for arguments or structured output. `prefix` names the root
    in labels. `known` holds known-good values by top-level property. Every value holds them, as
    far as the schema allows.
    """
    simplest = Simplest(check)
    minimal = simplest.value(check.schema)
    if not isinstance(minimal, dict):
        return Boundaries()
    minimal = _with_known(check, minimal, known)
    rich = _enriched(check, simplest, minimal)
    per_site: dict[Side, list[list[Labelled[dict[str, Any]]]]] = {Side.VALID: [], Side.INVALID: []}
    seen: set[str] = set()
    sites = keyword_sites(check.schema)
    for site in sorted(sites, key=lambda site: site.keyword in _WHOLE_OBJECT):
        place = tuple(0 if step == ANY_ITEM else step for step in site.place)
        node = next((found for _, found in nodes_at(rich, place)), NOTHING)
        kept: dict[Side, list[Labelled[dict[str, Any]]]] = {Side.VALID: [], Side.INVALID: []}
        for candidate in candidates(site, simplest, node):
            if candidate.side not in site.sides:
                continue
            value = _placed(minimal, rich, place, candidate.value)
            if value is NOTHING or not _holds(check, site, place, candidate, value):
                continue
            key = json.dumps([candidate.side.value, value], sort_keys=True)
            if key not in seen:
                seen.add(key)
                kept[candidate.side].append(Labelled(value, _label(site, candidate, prefix)))
        for side, values in kept.items():
            if values:
                per_site[side].append(values)
    chosen = {side: _round_robin(lists) for side, lists in per_site.items()}
    return Boundaries(
        valid=tuple(chosen[Side.VALID][:limit]),
        invalid=tuple(chosen[Side.INVALID][:limit]),
        left_out={side: max(0, len(values) - limit) for side, values in chosen.items()},
    )


def _with_known(check: SchemaCheck, minimal: dict[str, Any], known: Mapping[str, Sequence[Any]] | None) -> dict[str, Any]:
    for name, choices in (known or {}).items():
        if choices:
            holding = {**minimal, name: choices[0]}
            if check.accepts_strictly(holding):
                minimal = holding
    return minimal


def _enriched(check: SchemaCheck, simplest: Simplest, minimal: dict[str, Any]) -> dict[str, Any]:
    """`minimal` with every optional property and one item in each empty array.

    This is done recursively, each part at its simplest. A part that would make the whole
    invalid is left out.
    """
    rich = copy.deepcopy(minimal)
    _enrich(check, simplest, rich, check.schema, (), 0)
    return rich


def _enrich(check: SchemaCheck, simplest: Simplest, rich: dict[str, Any], schema: Any, place: tuple[str | int, ...], depth: int) -> None:
    schema = resolve_local_ref(schema, check.schema) if isinstance(schema, Mapping) else schema
    if not isinstance(schema, Mapping) or depth > MAX_SITE_DEPTH:
        return
    properties = schema.get("properties")
    items = schema.get("items")
    if isinstance(properties, Mapping):
        for name, subschema in properties.items():
            _try_adding(check, simplest, rich, (*place, name), subschema)
        for name, subschema in properties.items():
            _enrich(check, simplest, rich, subschema, (*place, name), depth + 1)
    elif isinstance(items, Mapping):
        _try_adding(check, simplest, rich, (*place, 0), items)
        _enrich(check, simplest, rich, items, (*place, 0), depth + 1)


def _try_adding(check: SchemaCheck, simplest: Simplest, rich: dict[str, Any], place: tuple[str | int, ...], subschema: Any) -> None:
    parent = next((found for _, found in nodes_at(rich, place[:-1])), NOTHING)
    last = place[-1]
    if isinstance(parent, dict) and isinstance(last, str) and last not in parent:
        value = simplest.value(subschema)
        if value is not NOTHING:
            parent[last] = value
            if not check.accepts_strictly(rich):
                del parent[last]
    elif isinstance(parent, list) and last == 0 and not parent:
        value = simplest.value(subschema)
        if value is not NOTHING:
            parent.append(value)
            if not check.accepts_strictly(rich):
                parent.pop()


def _placed(minimal: dict[str, Any], rich: dict[str, Any], place: tuple[str | int, ...], value: Any) -> Any:
    """`minimal` with `value` at `place`.

    The containers on the way that `minimal` lacks are taken from `rich`. NOTHING when neither
    has them.
    """
    if not place:
        return copy.deepcopy(value)
    result = copy.deepcopy(minimal)
    here: Any = result
    there: Any = rich
    for step in place[:-1]:
        there = _child(there, step)
        child = _child(here, step)
        if child is NOTHING:
            if there is NOTHING or not _settable(here, step):
                return NOTHING
            child = copy.deepcopy(there)
            _set(here, step, child)
        here = child
    last = place[-1]
    if not _settable(here, last):
        return NOTHING
    _set(here, last, copy.deepcopy(value))
    return result


def _child(container: Any, step: str | int) -> Any:
    if isinstance(step, str):
        return container[step] if isinstance(container, dict) and step in container else NOTHING
    return container[step] if isinstance(container, list) and step < len(container) else NOTHING


def _settable(container: Any, step: str | int) -> bool:
    return (isinstance(step, str) and isinstance(container, dict)) or (isinstance(step, int) and isinstance(container, list) and step <= len(container))


def _set(container: Any, step: str | int, value: Any) -> None:
    if isinstance(container, list) and isinstance(step, int) and step == len(container):
        container.append(value)
    else:
        container[step] = value


def _holds(check: SchemaCheck, site: KeywordSite, place: tuple[str | int, ...], candidate: Candidate, value: Any) -> bool:
    """Whether `value` is what the candidate claims.

    A valid candidate must be accepted, formats asserted. An invalid one must be rejected for
    the site's keyword at its place, and for nothing else.
    """
    if not encodes_as_json(value):
        return False
    if candidate.side is Side.VALID:
        return check.accepts_strictly(value)
    errors = list(check.errors(value))
    return bool(errors) and all(error.validator == site.keyword and tuple(error.absolute_path) == place for error in errors)


def _label(site: KeywordSite, candidate: Candidate, prefix: str) -> str:
    bound = f" {json.dumps(site.bound, ensure_ascii=False)}" if site.keyword in _BOUND_SHOWN else ""
    return f"boundary: {site.path(prefix)}: {site.keyword}{bound}: {candidate.what} ({candidate.side.value})"


def _round_robin(lists: Iterable[list[Labelled[dict[str, Any]]]]) -> list[Labelled[dict[str, Any]]]:
    return [value for row in zip_longest(*lists) for value in row if value is not None]
