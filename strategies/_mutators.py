"""How each mutation is made: a site's replacement, and what it breaks, in words.

`mutate` turns a `Site` and one of the mutations it offers (`strategies.mutations`) into a
`Mutant`. A mutant is the node's new value and the description a label carries.

Each mutator's draws shrink towards the plainest breakage. That is one past a bound, one
character too many, or the first required property dropped. So a shrunk case shows the mutation
at its plainest. The caller (`strategies.values`) checks that the validator really rejects the
result there, for that keyword.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from hypothesis import strategies as st

from strategies.characters import JSON_CHARACTERS, json_text
from strategies.drawing import mapped, pick
from strategies.ecma_patterns import verdict
from strategies.mutations import (
    Mutation,
    Site,
    is_json_number,
    string_items,
    triggered_dependencies,
)
from strategies.verdicts import json_equal


@dataclass(frozen=True, slots=True)
class Mutant:
    """The replacement for a site, and what it breaks.

    For MISSING_REQUIRED and ADDITIONAL_PROPERTY, the value is the site's new object value.
    """

    value: Any
    description: str


def mutate(draw: st.DrawFn, mutation: Mutation, site: Site) -> Mutant:
    """What `mutation` makes of `site`, which must offer it (`Site.mutations`)."""
    return _MUTATORS[mutation](draw, site.schema, site.value)


def _wrong_type(draw: st.DrawFn, schema: Mapping[str, Any], value: Any) -> Mutant:
    allowed = _types(schema.get("type"))
    candidates = [name for name in _JSON_TYPES if not _type_allowed(name, allowed)]
    if not candidates:
        return Mutant(value, "no other type")
    coercible = _COERCIBLE.get(next((kind for kind in ("integer", "number", "boolean") if kind in allowed), ""))
    if coercible is not None and "string" in candidates and draw(_COERCE):
        replacement = draw(coercible)
        return Mutant(replacement, f"wrong type: expected {_or(sorted(allowed))}, got string {_show(replacement)} (one a lax server coerces)")
    name = pick(draw, candidates)
    replacement = draw(_NUMERIC_OR_ANY_STRING) if name == "string" and allowed & {"integer", "number"} else draw(_JSON_TYPES[name])
    return Mutant(replacement, f"wrong type: expected {_or(sorted(allowed))}, got {name} {_show(replacement)}")


def _missing_required(draw: st.DrawFn, schema: Mapping[str, Any], value: dict[str, Any]) -> Mutant:
    present = [name for name in string_items(schema.get("required")) if name in value]
    name = pick(draw, present)
    return Mutant({key: item for key, item in value.items() if key != name}, f"required property {name!r} missing")


def _additional_property(draw: st.DrawFn, schema: Mapping[str, Any], value: dict[str, Any]) -> Mutant:
    declared = schema.get("properties") if isinstance(schema.get("properties"), Mapping) else {}
    key = _fresh_key(draw(_KEYS), (declared, value))
    extra = draw(_SCALARS)
    return Mutant({**value, key: extra}, f"property {key!r} not allowed (additionalProperties: false)")


def _above_maximum(draw: st.DrawFn, schema: Mapping[str, Any], value: Any) -> Mutant:
    bound = schema["maximum"]
    return Mutant(_past(draw, bound, +1, schema), f"above maximum {bound}")


def _below_minimum(draw: st.DrawFn, schema: Mapping[str, Any], value: Any) -> Mutant:
    bound = schema["minimum"]
    return Mutant(_past(draw, bound, -1, schema), f"below minimum {bound}")


def _at_exclusive_maximum(draw: st.DrawFn, schema: Mapping[str, Any], value: Any) -> Mutant:
    bound = schema["exclusiveMaximum"]
    replacement = _past(draw, bound, +1, schema) if draw(_PAST_THE_BOUND) else bound
    return Mutant(replacement, f"not below exclusiveMaximum {bound}")


def _at_exclusive_minimum(draw: st.DrawFn, schema: Mapping[str, Any], value: Any) -> Mutant:
    bound = schema["exclusiveMinimum"]
    replacement = _past(draw, bound, -1, schema) if draw(_PAST_THE_BOUND) else bound
    return Mutant(replacement, f"not above exclusiveMinimum {bound}")


def _past(draw: st.DrawFn, bound: float, direction: int, schema: Mapping[str, Any]) -> float | int:
    """A number just past `bound`.

    Past an integral bound, it steps by 1 and shrinks to bound±1. Otherwise it steps by a small
    positive amount.
    """
    if float(bound).is_integer():
        return int(bound) + direction * draw(_INTEGER_STEPS)
    step = draw(_FRACTIONAL_STEPS)
    return bound + direction * step


def _not_in_enum(draw: st.DrawFn, schema: Mapping[str, Any], value: Any) -> Mutant:
    members = schema["enum"]
    replacement = draw(_outside(_json_type_of(value), _frozen(members)))
    return Mutant(replacement, f"{_show(replacement)} not in enum {_show(members)}")


def _not_const(draw: st.DrawFn, schema: Mapping[str, Any], value: Any) -> Mutant:
    constant = schema["const"]
    replacement = draw(_outside(_json_type_of(constant), _frozen([constant])))
    return Mutant(replacement, f"{_show(replacement)} is not const {_show(constant)}")


def _pattern_mismatch(draw: st.DrawFn, schema: Mapping[str, Any], value: Any) -> Mutant:
    pattern = schema["pattern"]
    replacement = draw(_mismatching(pattern))
    return Mutant(replacement, f"pattern {pattern!r} violated by {_show(replacement)}")


def _too_long(draw: st.DrawFn, schema: Mapping[str, Any], value: Any) -> Mutant:
    limit = schema["maxLength"]
    replacement = draw(JSON_CHARACTERS) * (limit + 1 + draw(_A_FEW_MORE))
    return Mutant(replacement, f"{len(replacement)} characters, above maxLength {limit}")


def _too_short(draw: st.DrawFn, schema: Mapping[str, Any], value: Any) -> Mutant:
    limit = schema["minLength"]
    replacement = draw(json_text(max_size=limit - 1))
    return Mutant(replacement, f"{len(replacement)} characters, below minLength {limit}")


def _not_multiple(draw: st.DrawFn, schema: Mapping[str, Any], value: Any) -> Mutant:
    step = schema["multipleOf"]
    fraction = draw(_FRACTIONS)
    replacement = value + step * fraction if is_json_number(value) else step * (1 + fraction)
    return Mutant(replacement, f"{_show(replacement)} is not a multiple of {step}")


def _too_many_items(draw: st.DrawFn, schema: Mapping[str, Any], value: list[Any]) -> Mutant:
    limit = schema["maxItems"]
    filler = value[-1] if value else None
    replacement = [*value, *[filler] * (limit + 1 - len(value))] if len(value) <= limit else value
    return Mutant(replacement, f"{len(replacement)} items, above maxItems {limit}")


def _too_few_items(draw: st.DrawFn, schema: Mapping[str, Any], value: list[Any]) -> Mutant:
    limit = schema["minItems"]
    replacement = value[: pick(draw, range(limit))]
    return Mutant(replacement, f"{len(replacement)} items, below minItems {limit}")


def _duplicate_items(draw: st.DrawFn, schema: Mapping[str, Any], value: list[Any]) -> Mutant:
    index = pick(draw, range(len(value)))
    return Mutant([*value, value[index]], f"item {index} repeated (uniqueItems)")


def _unevaluated_property(draw: st.DrawFn, schema: Mapping[str, Any], value: dict[str, Any]) -> Mutant:
    key = _fresh_key(draw(_KEYS), (value,))
    return Mutant({**value, key: draw(_SCALARS)}, f"property {key!r} not allowed (unevaluatedProperties: false)")


def _dependency_missing(keyword: str) -> Callable[[st.DrawFn, Mapping[str, Any], Any], Mutant]:
    def mutate(draw: st.DrawFn, schema: Mapping[str, Any], value: dict[str, Any]) -> Mutant:
        trigger, needed = pick(draw, triggered_dependencies(schema[keyword], value))
        return Mutant({key: item for key, item in value.items() if key != needed}, f"{needed!r} missing, though {trigger!r} is present ({keyword})")

    return mutate


_MUTATORS: dict[Mutation, Callable[[st.DrawFn, Mapping[str, Any], Any], Mutant]] = {
    Mutation.WRONG_TYPE: _wrong_type,
    Mutation.MISSING_REQUIRED: _missing_required,
    Mutation.ADDITIONAL_PROPERTY: _additional_property,
    Mutation.ABOVE_MAXIMUM: _above_maximum,
    Mutation.BELOW_MINIMUM: _below_minimum,
    Mutation.AT_EXCLUSIVE_MAXIMUM: _at_exclusive_maximum,
    Mutation.AT_EXCLUSIVE_MINIMUM: _at_exclusive_minimum,
    Mutation.NOT_IN_ENUM: _not_in_enum,
    Mutation.NOT_CONST: _not_const,
    Mutation.PATTERN_MISMATCH: _pattern_mismatch,
    Mutation.TOO_LONG: _too_long,
    Mutation.TOO_SHORT: _too_short,
    Mutation.NOT_MULTIPLE: _not_multiple,
    Mutation.TOO_MANY_ITEMS: _too_many_items,
    Mutation.TOO_FEW_ITEMS: _too_few_items,
    Mutation.DUPLICATE_ITEMS: _duplicate_items,
    Mutation.UNEVALUATED_PROPERTY: _unevaluated_property,
    Mutation.DEPENDENCY_MISSING: _dependency_missing("dependentRequired"),
    Mutation.DRAFT_07_DEPENDENCY_MISSING: _dependency_missing("dependencies"),
}

_SCALARS: st.SearchStrategy[Any] = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    json_text(max_size=20),
    st.floats(allow_nan=False, allow_infinity=False),
)

_EXACT_HALVES = 2.0**52 - 1
"""The largest integral float whose half-step is a float too.

A number that is not an integer is made, never filtered. Most floats Hypothesis draws are
integral. A filter that tried three times often threw away the whole case.
"""

_JSON_TYPES: dict[str, st.SearchStrategy[Any]] = {
    "null": st.none(),
    "boolean": st.booleans(),
    "integer": st.integers(),
    "number": mapped(st.floats(min_value=-_EXACT_HALVES, max_value=_EXACT_HALVES), lambda f: f + 0.5 if f.is_integer() else f),
    "string": json_text(max_size=20),
    "array": st.lists(_SCALARS, max_size=3),
    "object": st.dictionaries(json_text(max_size=8), _SCALARS, max_size=3),
}


_NUMERIC_OR_ANY_STRING = st.one_of(st.integers().map(str), _JSON_TYPES["string"])
_KEYS = json_text(max_size=12)
_COERCE = st.booleans()
"""Whether a wrong type is the string a lax server coerces; true for half of them.

This applies to the wrong types of a number or boolean. Coercing a string is the most common
way a server takes what its schema refuses.
"""
_COERCIBLE: dict[str, st.SearchStrategy[str]] = {
    "integer": st.integers().map(str),
    "number": st.one_of(st.integers().map(str), st.floats(allow_nan=False, allow_infinity=False).map(repr)),
    "boolean": st.sampled_from(["true", "false", "1", "0"]),
}
_PAST_THE_BOUND = st.booleans()
_INTEGER_STEPS = st.integers(min_value=1, max_value=1_000_000)
_FRACTIONAL_STEPS = st.sampled_from([1, 0.5, 0.001])
_FRACTIONS = st.sampled_from([0.5, 0.25, 0.1, 0.001])
_A_FEW_MORE = st.integers(0, 7)


def _fresh_key(key: str, taken: tuple[Any, ...]) -> str:
    """`key`, made unlike every key in `taken` by appending underscores.

    There is no filter to retry.
    """
    while any(key in names for names in taken):
        key += "_"
    return key


def _frozen(members: list[Any]) -> str:
    return json.dumps(members, sort_keys=True)


@lru_cache(maxsize=256)
def _outside(kind: str, members: str) -> st.SearchStrategy[Any]:
    """Values of JSON type `kind` that are none of `members`.

    `members` is JSON text. The strategy is built once per enum.
    """
    excluded = json.loads(members)
    return _JSON_TYPES.get(kind, _SCALARS).filter(lambda v: not _json_member(v, excluded))


@lru_cache(maxsize=256)
def _mismatching(pattern: str) -> st.SearchStrategy[str]:
    """Texts the ECMA-262 `pattern` certainly does not match.

    The validator then rejects them.
    """
    return json_text(max_size=20).filter(lambda text: verdict(pattern, text) is False)


def _types(declared: Any) -> set[str]:
    if isinstance(declared, str):
        return {declared}
    if isinstance(declared, list):
        return {name for name in declared if isinstance(name, str)}
    return set()


def _type_allowed(name: str, allowed: set[str]) -> bool:
    return name in allowed or (name == "integer" and "number" in allowed)


def _json_type_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _json_member(value: Any, members: list[Any]) -> bool:
    return any(json_equal(value, member) for member in members)


def _or(names: list[str]) -> str:
    return " or ".join(names) if names else "a declared type"


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."
