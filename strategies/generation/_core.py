"""The generator's entry: a schema read as a whole, each type handed to its family.

It owns `from_schema` and what concerns a schema as a whole:

- `$ref`s and `allOf`, merged.
- `anyOf`/`oneOf`, `not`, `if`/`then`/`else`, and `const`/`enum`.
- The values a schema documents: `examples` and `default`.
- The choice of type. The type's strategy comes from `_numbers`, `_strings` or `_collections`.

It also owns `json_values`: what an unconstrained schema (`true`, `{}`) generates.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from hypothesis import strategies as st

from strategies.characters import edge_rich_text, json_text
from strategies.drawing import deferred
from strategies.generation._collections import arrays_for, objects_for
from strategies.generation._context import MAX_DEPTH, Context, Subschema, Verdict
from strategies.generation._numbers import floats_for, integers_for, is_finite_number
from strategies.generation._strings import strings_for
from strategies.schemas import resolve_local_ref

_TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")
_DRAFT_07_URIS = ("draft-07", "draft-06", "draft-04")


def from_schema(schema: Subschema, is_valid: Verdict) -> st.SearchStrategy[Any]:
    """A strategy aiming at values `schema` accepts.

    `is_valid(subschema, value)` is the standard validator's verdict. It is used for what
    generation cannot aim at: `not`, `oneOf`, and parts that were not merged.
    """
    return from_subschema(schema if isinstance(schema, Mapping) else {}, schema, is_valid)


def from_subschema(root: Mapping[str, Any], subschema: Subschema, is_valid: Verdict) -> st.SearchStrategy[Any]:
    """`from_schema` for a part of `root`: the values one place of a schema accepts.

    The part's `$ref`s and dialect are read from `root`.
    """
    dialect = str(root.get("$schema", ""))
    context = Context(root, any(marker in dialect for marker in _DRAFT_07_URIS), is_valid, build=_strategy)
    return _strategy(subschema, context, 0)


def json_values(depth: int = 0) -> st.SearchStrategy[Any]:
    """Any JSON value: every scalar kind with JSON's edges, nested a little.

    The edges are big integers, -0.0, integral floats, astral and combining characters, and NUL.
    Shrinks towards null.
    """
    return _JSON_VALUES[depth > MAX_DEPTH]


def _json_values(shallow: bool) -> st.SearchStrategy[Any]:
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=False, allow_infinity=False),
        edge_rich_text(0, 20),
    )
    if shallow:
        return scalars
    return st.recursive(
        scalars,
        lambda children: st.one_of(st.lists(children, max_size=3), st.dictionaries(json_text(max_size=8), children, max_size=3)),
        max_leaves=6,
    )


_JSON_VALUES = {shallow: _json_values(shallow) for shallow in (False, True)}
"""Built once.

An unconstrained subschema is common, and `st.recursive` is costly to build.
"""


def _strategy(schema: Subschema, context: Context, depth: int) -> st.SearchStrategy[Any]:
    """Values for `schema`, and as often the values it documents.

    The documented values are those its own `examples` and `default` hold, and that it accepts.
    They are what the author knows a tool takes. They are drawn as often as all other values
    together. They are the second branch, so a value still shrinks towards the simplest
    generated one.
    """
    generated = _generated(schema, context, depth)
    documented = _documented_values(schema, context)
    return st.one_of(generated, st.sampled_from(documented)) if documented else generated


def _documented_values(schema: Subschema, context: Context) -> list[Any]:
    if not isinstance(schema, Mapping):
        return []
    offered = [*(schema["examples"] if isinstance(schema.get("examples"), list) else ()), *((schema["default"],) if "default" in schema else ())]
    kept: list[Any] = []
    for value in offered:
        try:
            encoded = json.dumps(value, allow_nan=False, sort_keys=True)
        except (TypeError, ValueError):
            continue
        if encoded not in (json.dumps(seen, sort_keys=True) for seen in kept) and context.is_valid(schema, value):
            kept.append(value)
    return kept


def _generated(schema: Subschema, context: Context, depth: int) -> st.SearchStrategy[Any]:
    if schema is True or schema == {}:
        return json_values(depth)
    if schema is False or not isinstance(schema, Mapping):
        return st.nothing()
    flat = _flatten(schema, context, depth)
    if flat is None:
        return st.nothing()
    if "not" in flat:
        negated = flat["not"]
        rest = {key: value for key, value in flat.items() if key != "not"}
        return _strategy(rest, context, depth).filter(lambda value: not context.is_valid(negated, value))
    if "if" in flat and isinstance(flat.get("if"), (Mapping, bool)):
        return _conditional(flat, context, depth)
    for keyword in ("anyOf", "oneOf"):
        if isinstance(flat.get(keyword), list) and flat[keyword]:
            rest = {key: value for key, value in flat.items() if key != keyword}
            branches = [_deferred_merge(rest, branch, context, depth) for branch in flat[keyword]]
            return st.one_of(branches)
    if "const" in flat:
        return st.just(flat["const"])
    if isinstance(flat.get("enum"), list):
        return st.sampled_from(flat["enum"]) if flat["enum"] else st.nothing()
    return st.one_of([_typed(name, flat, context, depth) for name in _types_of(flat)])


def _flatten(schema: Mapping[str, Any], context: Context, depth: int) -> dict[str, Any] | None:
    """The schema with `$ref`s and `allOf` merged in.

    Parts that do not merge exactly are kept in `allOf`, for the final check. None when a
    reference cannot be followed, or must go deeper than MAX_DEPTH. Each reference followed
    counts as a level.
    """
    flat = dict(schema)
    held: list[Any] = []
    while True:
        if isinstance(flat.get("$ref"), str):
            if depth > MAX_DEPTH:
                return None
            target = resolve_local_ref({"$ref": flat.pop("$ref")}, context.root)
            if "$ref" in target:
                return None
            flat = _merge(dict(target), {} if context.draft_07 else flat)
            depth += 1
        elif isinstance(flat.get("allOf"), list):
            for part in flat.pop("allOf"):
                if part is False:
                    return None
                if isinstance(part, Mapping):
                    flat_part = _flatten(part, context, depth)
                    if flat_part is None:
                        return None
                    flat = _merge(flat, flat_part)
            held += flat.pop("allOf", [])
        else:
            break
    if held:
        flat["allOf"] = held
    return flat


def _merge(left: Mapping[str, Any], right: Mapping[str, Any]) -> dict[str, Any]:
    """Both schemas at once, merged exactly where that is easy.

    Otherwise the right one's keyword nests into an `allOf`, for the final check to enforce.
    """
    merged = dict(left)
    postponed: list[Any] = []
    for key, value in right.items():
        if key not in merged:
            merged[key] = value
        elif key == "properties" and isinstance(value, Mapping) and isinstance(merged[key], Mapping):
            properties = dict(merged[key])
            for name, sub in value.items():
                properties[name] = {"allOf": [properties[name], sub]} if name in properties and properties[name] != sub else sub
            merged[key] = properties
        elif key == "required" and isinstance(value, list) and isinstance(merged[key], list):
            merged[key] = list(dict.fromkeys([*merged[key], *value]))
        elif key == "type":
            mine, theirs = _as_types(merged[key]), _as_types(value)
            both = [name for name in mine if _type_admitted(name, theirs)]
            both += [name for name in theirs if name == "integer" and "number" in mine and name not in both]
            merged[key] = both or ["__none__"]
        elif key in ("minimum", "minLength", "minItems", "minProperties", "exclusiveMinimum") and is_finite_number(value) and is_finite_number(merged[key]):
            merged[key] = max(merged[key], value)
        elif key in ("maximum", "maxLength", "maxItems", "maxProperties", "exclusiveMaximum") and is_finite_number(value) and is_finite_number(merged[key]):
            merged[key] = min(merged[key], value)
        elif key in ("title", "description", "default", "examples", "$comment", "$schema", "$id", "$defs", "definitions"):
            continue
        elif merged[key] != value:
            postponed.append({key: value})
    if postponed:
        merged["allOf"] = [*merged.get("allOf", []), *postponed]
    return merged


def _deferred_merge(rest: Mapping[str, Any], branch: Any, context: Context, depth: int) -> st.SearchStrategy[Any]:
    if not isinstance(branch, Mapping):
        return _strategy(rest, context, depth) if branch is True else st.nothing()
    return deferred(lambda: _strategy(_merge(rest, {"allOf": [branch]}), context, depth))


def _conditional(schema: Mapping[str, Any], context: Context, depth: int) -> st.SearchStrategy[Any]:
    rest = {key: value for key, value in schema.items() if key not in ("if", "then", "else")}
    condition = schema["if"]
    then_branch = {"allOf": [condition, schema.get("then", True)]}
    when_true = _deferred_merge(rest, then_branch, context, depth).filter(lambda value: context.is_valid(condition, value))
    when_false = _deferred_merge(rest, schema.get("else", True), context, depth).filter(lambda value: not context.is_valid(condition, value))
    return st.one_of(when_true, when_false)


def _types_of(schema: Mapping[str, Any]) -> list[str]:
    declared = _as_types(schema.get("type")) if "type" in schema else []
    if declared:
        return [name for name in declared if name in _TYPES] or ["__none__"]
    hinted = [
        name
        for name, keywords in (
            (
                "object",
                (
                    "properties",
                    "required",
                    "additionalProperties",
                    "patternProperties",
                    "propertyNames",
                    "minProperties",
                    "maxProperties",
                    "dependentRequired",
                    "unevaluatedProperties",
                ),
            ),
            ("array", ("items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains")),
            ("string", ("pattern", "minLength", "maxLength", "format")),
            ("number", ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")),
        )
        if any(keyword in schema for keyword in keywords)
    ]
    return hinted or list(_TYPES)


def _typed(name: str, schema: Mapping[str, Any], context: Context, depth: int) -> st.SearchStrategy[Any]:
    if name == "null":
        return st.none()
    if name == "boolean":
        return st.booleans()
    if name == "integer":
        return integers_for(schema)
    if name == "number":
        return st.one_of(integers_for(schema), floats_for(schema))
    if name == "string":
        return strings_for(schema)
    if name == "array":
        return arrays_for(schema, context, depth)
    if name == "object":
        return objects_for(schema, context, depth)
    return st.nothing()


def _as_types(declared: Any) -> list[str]:
    if isinstance(declared, str):
        return [declared]
    return [name for name in declared if isinstance(name, str)] if isinstance(declared, list) else []


def _type_admitted(name: str, allowed: list[str]) -> bool:
    return name in allowed or (name == "integer" and "number" in allowed)
