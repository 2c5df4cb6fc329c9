"""Invalid values by mutation of a valid one.

The method is Schemathesis's negative testing, applied to values: draw a valid value, walk it
together with its schema to list the *sites* (every node of the value with the subschema that
constrains it), draw a site, draw one of the mutations that site's keywords make possible, and
keep the result only if the standard validator rejects it *at that site for that keyword*. The
label (`arguments.address.zip: pattern '^[0-9]{5}$' violated by ''`) is therefore a checked
statement, and the rest of the value is still the valid value it was drawn from, so shrinking
takes it to its simplest while the one mutation stays.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from typing import Any, Callable, Iterator, Mapping

from hypothesis import strategies as st

from strategies.generation import JSON_CHARACTERS, json_text
from strategies.schemas import json_equal, resolve_local_ref

Path = tuple[str | int, ...]


class Mutation(Enum):
    """What a mutation breaks; the value is the JSON Schema keyword the validator reports.

    The order is the order of interest: the kinds servers most often fail to check come first
    (bounds, lengths, patterns, enums), the ones every validator catches last (types, required
    properties). Hypothesis's simplest draws pick the first kinds a schema offers."""

    ABOVE_MAXIMUM = "maximum"
    BELOW_MINIMUM = "minimum"
    AT_EXCLUSIVE_MAXIMUM = "exclusiveMaximum"
    AT_EXCLUSIVE_MINIMUM = "exclusiveMinimum"
    TOO_LONG = "maxLength"
    TOO_SHORT = "minLength"
    PATTERN_MISMATCH = "pattern"
    NOT_IN_ENUM = "enum"
    NOT_CONST = "const"
    NOT_MULTIPLE = "multipleOf"
    TOO_MANY_ITEMS = "maxItems"
    TOO_FEW_ITEMS = "minItems"
    DUPLICATE_ITEMS = "uniqueItems"
    ADDITIONAL_PROPERTY = "additionalProperties"
    UNEVALUATED_PROPERTY = "unevaluatedProperties"
    DEPENDENCY_MISSING = "dependentRequired"
    DRAFT_07_DEPENDENCY_MISSING = "dependencies"
    MISSING_REQUIRED = "required"
    WRONG_TYPE = "type"


@dataclass(frozen=True, slots=True)
class Site:
    """A node of a value and the (resolved) subschema that constrains it."""

    path: Path
    schema: Mapping[str, Any]
    value: Any

    def mutations(self, *, is_root: bool) -> list[Mutation]:
        schema, value = self.schema, self.value
        found: list[Mutation] = []
        if "type" in schema and not is_root:
            found.append(Mutation.WRONG_TYPE)
        if isinstance(value, dict):
            if any(name in value for name in _strings(schema.get("required"))):
                found.append(Mutation.MISSING_REQUIRED)
            if schema.get("additionalProperties") is False:
                found.append(Mutation.ADDITIONAL_PROPERTY)
            if schema.get("unevaluatedProperties") is False:
                found.append(Mutation.UNEVALUATED_PROPERTY)
            for keyword, mutation in (("dependentRequired", Mutation.DEPENDENCY_MISSING), ("dependencies", Mutation.DRAFT_07_DEPENDENCY_MISSING)):
                if _triggered_dependencies(schema.get(keyword), value):
                    found.append(mutation)
        if isinstance(value, list):
            if isinstance(schema.get("maxItems"), int):
                found.append(Mutation.TOO_MANY_ITEMS)
            if isinstance(schema.get("minItems"), int) and schema["minItems"] > 0:
                found.append(Mutation.TOO_FEW_ITEMS)
            if schema.get("uniqueItems") is True and value:
                found.append(Mutation.DUPLICATE_ITEMS)
        if _is_number(value) and _is_number(schema.get("multipleOf")) and schema["multipleOf"] > 0:
            found.append(Mutation.NOT_MULTIPLE)
        if _is_number(value):
            for keyword, mutation in (
                ("maximum", Mutation.ABOVE_MAXIMUM),
                ("minimum", Mutation.BELOW_MINIMUM),
                ("exclusiveMaximum", Mutation.AT_EXCLUSIVE_MAXIMUM),
                ("exclusiveMinimum", Mutation.AT_EXCLUSIVE_MINIMUM),
            ):
                if _is_number(schema.get(keyword)) and math.isfinite(schema[keyword]):
                    found.append(mutation)
        if isinstance(value, str):
            if isinstance(schema.get("pattern"), str) and _compiles(schema["pattern"]):
                found.append(Mutation.PATTERN_MISMATCH)
            if isinstance(schema.get("maxLength"), int):
                found.append(Mutation.TOO_LONG)
            if isinstance(schema.get("minLength"), int) and schema["minLength"] > 0:
                found.append(Mutation.TOO_SHORT)
        if isinstance(schema.get("enum"), list) and not is_root:
            found.append(Mutation.NOT_IN_ENUM)
        if "const" in schema and not is_root:
            found.append(Mutation.NOT_CONST)
        return found


def sites(schema: Mapping[str, Any], value: Any, *, root: Mapping[str, Any] | None = None, path: Path = ()) -> Iterator[Site]:
    """Every node of `value` with the subschema that constrains it, root first.

    Follows `properties`, `patternProperties`, `additionalProperties` (a schema), `items` and
    `prefixItems` (draft-07's array `items` too), through `$ref`s, and every branch of `allOf`,
    `anyOf`, `oneOf` and `then`/`else` at the same node. A site inside a branch may not be what
    makes the value valid; the caller keeps a mutation there only if the validator then rejects
    the value for that keyword at that place, so a label never guesses.
    """
    root = schema if root is None else root
    schema = resolve_local_ref(schema, root)
    if not isinstance(schema, Mapping):
        return
    yield Site(path, schema, value)
    for keyword in ("allOf", "anyOf", "oneOf"):
        branches = schema.get(keyword)
        for branch in branches if isinstance(branches, list) else []:
            if isinstance(branch, Mapping):
                yield from sites(branch, value, root=root, path=path)
    for keyword in ("then", "else"):
        if isinstance(schema.get(keyword), Mapping):
            yield from sites(schema[keyword], value, root=root, path=path)
    if isinstance(value, dict):
        properties = schema.get("properties") if isinstance(schema.get("properties"), Mapping) else {}
        patterns = schema.get("patternProperties") if isinstance(schema.get("patternProperties"), Mapping) else {}
        extra = schema.get("additionalProperties")
        for key, child in value.items():
            matching = [sub for pattern, sub in patterns.items() if _matches(pattern, key)]
            children = [properties[key]] if key in properties else []
            children += matching
            if not children and isinstance(extra, Mapping):
                children = [extra]
            for child_schema in children:
                if isinstance(child_schema, Mapping):
                    yield from sites(child_schema, child, root=root, path=(*path, key))
    elif isinstance(value, list):
        draft_07_items = isinstance(schema.get("items"), list)
        prefix = schema["items"] if draft_07_items else (schema.get("prefixItems") if isinstance(schema.get("prefixItems"), list) else [])
        items = schema.get("additionalItems") if draft_07_items else schema.get("items")
        for index, child in enumerate(value):
            child_schema = prefix[index] if index < len(prefix) else items
            if isinstance(child_schema, Mapping):
                yield from sites(child_schema, child, root=root, path=(*path, index))


def format_path(path: Path, *, prefix: str) -> str:
    text = prefix
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if _is_identifier(part) else f"[{part!r}]")
    return text


@dataclass(frozen=True, slots=True)
class Mutant:
    """The replacement for a site (or, for MISSING_REQUIRED / ADDITIONAL_PROPERTY, the site's new
    object value) and what it breaks."""

    value: Any
    description: str


def mutate(draw: st.DrawFn, mutation: Mutation, site: Site) -> Mutant:
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
    if name == "string" and allowed & {"integer", "number"}:
        replacement = draw(_NUMERIC_OR_ANY_STRING)
    else:
        replacement = draw(_JSON_TYPES[name])
    return Mutant(replacement, f"wrong type: expected {_or(sorted(allowed))}, got {name} {_show(replacement)}")


def _missing_required(draw: st.DrawFn, schema: Mapping[str, Any], value: dict[str, Any]) -> Mutant:
    present = [name for name in _strings(schema.get("required")) if name in value]
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
    """A number just past `bound`: by one step of 1 for integral bounds (shrinks to bound±1),
    otherwise by a small positive amount."""
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
    replacement = value + step * fraction if _is_number(value) else step * (1 + fraction)
    return Mutant(replacement, f"{_show(replacement)} is not a multiple of {step}")


def _too_many_items(draw: st.DrawFn, schema: Mapping[str, Any], value: list[Any]) -> Mutant:
    limit = schema["maxItems"]
    filler = value[-1] if value else None
    replacement = [*value, *[filler] * (limit + 1 - len(value))] if len(value) <= limit else value
    return Mutant(replacement, f"{len(replacement)} items, above maxItems {limit}")


def _too_few_items(draw: st.DrawFn, schema: Mapping[str, Any], value: list[Any]) -> Mutant:
    limit = schema["minItems"]
    replacement = value[: draw(st.integers(0, limit - 1))]
    return Mutant(replacement, f"{len(replacement)} items, below minItems {limit}")


def _duplicate_items(draw: st.DrawFn, schema: Mapping[str, Any], value: list[Any]) -> Mutant:
    index = draw(st.integers(0, len(value) - 1))
    return Mutant([*value, value[index]], f"item {index} repeated (uniqueItems)")


def _unevaluated_property(draw: st.DrawFn, schema: Mapping[str, Any], value: dict[str, Any]) -> Mutant:
    key = _fresh_key(draw(_KEYS), (value,))
    return Mutant({**value, key: draw(_SCALARS)}, f"property {key!r} not allowed (unevaluatedProperties: false)")


def _dependency_missing(keyword: str) -> Callable[[st.DrawFn, Mapping[str, Any], Any], Mutant]:
    def mutate(draw: st.DrawFn, schema: Mapping[str, Any], value: dict[str, Any]) -> Mutant:
        trigger, needed = pick(draw, _triggered_dependencies(schema[keyword], value))
        return Mutant({key: item for key, item in value.items() if key != needed}, f"{needed!r} missing, though {trigger!r} is present ({keyword})")

    return mutate


def _triggered_dependencies(dependencies: Any, value: dict[str, Any]) -> list[tuple[str, str]]:
    """(present property, the property it requires) pairs that can be broken by a deletion."""
    if not isinstance(dependencies, Mapping):
        return []
    return [
        (trigger, needed)
        for trigger, required in dependencies.items()
        if trigger in value and isinstance(required, list)
        for needed in required
        if isinstance(needed, str) and needed in value and needed != trigger
    ]


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

_JSON_TYPES: dict[str, st.SearchStrategy[Any]] = {
    "null": st.none(),
    "boolean": st.booleans(),
    "integer": st.integers(),
    "number": st.floats(allow_nan=False, allow_infinity=False).filter(lambda f: not f.is_integer()),
    "string": json_text(max_size=20),
    "array": st.lists(_SCALARS, max_size=3),
    "object": st.dictionaries(json_text(max_size=8), _SCALARS, max_size=3),
}


_NUMERIC_OR_ANY_STRING = st.one_of(st.integers().map(str), _JSON_TYPES["string"])
_KEYS = json_text(max_size=12)
_COERCE = st.booleans()
"""Half the wrong types of a number or boolean are the string a lax server turns into one (the
most common way a server takes what its schema refuses)."""
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


def pick(draw: st.DrawFn, items: list[Any]) -> Any:
    """One of `items`, shrinking to the first, with a strategy built once per length (not one
    `sampled_from` per draw)."""
    return items[draw(_indices(len(items)))]




@lru_cache(maxsize=64)
def _indices(count: int) -> st.SearchStrategy[int]:
    return st.integers(0, count - 1)


def _fresh_key(key: str, taken: tuple[Any, ...]) -> str:
    """`key`, made unlike every key in `taken` by appending underscores (no filter to retry)."""
    while any(key in names for names in taken):
        key += "_"
    return key


def _frozen(members: list[Any]) -> str:
    return json.dumps(members, sort_keys=True)


@lru_cache(maxsize=256)
def _outside(kind: str, members: str) -> st.SearchStrategy[Any]:
    """Values of JSON type `kind` that are none of `members` (JSON text), built once per enum."""
    excluded = json.loads(members)
    return _JSON_TYPES.get(kind, _SCALARS).filter(lambda v: not _json_member(v, excluded))


@lru_cache(maxsize=256)
def _mismatching(pattern: str) -> st.SearchStrategy[str]:
    compiled = re.compile(pattern)
    return json_text(max_size=20).filter(lambda text: compiled.search(text) is None)


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


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _strings(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _matches(pattern: str, key: str) -> bool:
    try:
        return re.search(pattern, key) is not None
    except re.error:
        return False


def _compiles(pattern: str) -> bool:
    try:
        re.compile(pattern)
    except re.error:
        return False
    return True


def _is_identifier(text: str) -> bool:
    return text.replace("-", "_").isidentifier()


def _or(names: list[str]) -> str:
    return " or ".join(names) if names else "a declared type"


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."
