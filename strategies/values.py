"""Valid and invalid JSON values from a schema: the machinery behind arguments and outputs."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

from strategies.labelled import Labelled
from strategies.mutations import Mutation, format_path, mutate, sites
from strategies.schemas import SchemaCheck


def valid_objects(check: SchemaCheck) -> st.SearchStrategy[dict[str, Any]]:
    """Objects the schema accepts (formats asserted too), encodable as JSON. Shrinks towards the
    required properties at their simplest."""
    # Imported on first use: importing hypothesis_jsonschema loads Hypothesis's unicode tables,
    # which Hypothesis warns about when it happens while pytest collects a conftest.
    from hypothesis_jsonschema import from_schema

    return (
        from_schema(dict(check.schema))
        .filter(lambda value: isinstance(value, dict))
        .filter(check.accepts_strictly)
        .filter(_encodes_as_json)
    )


def mutated_objects(check: SchemaCheck, *, label_prefix: str) -> st.SearchStrategy[Labelled[dict[str, Any]]]:
    """Objects the schema rejects: a valid object with one mutation at one of its nodes (never
    the root's type: the value stays an object). The validator must reject the result at the
    mutated node, for the mutated keyword; the label says which, e.g.
    `arguments.address.zip: pattern '^[0-9]{5}$' violated by ""`. Shrinks towards the valid
    object at its simplest with one mutation, at the root first."""
    if not can_reject_an_object(check.schema):
        return st.nothing()
    valid_bases = valid_objects(check)

    @st.composite
    def invalid(draw: st.DrawFn) -> Labelled[dict[str, Any]]:
        base = draw(valid_bases)
        candidates = [
            (site, mutation)
            for site in sites(check.schema, base)
            for mutation in site.mutations(is_root=site.path == ())
        ]
        if not candidates:
            draw(st.nothing())
        site, mutation = draw(st.sampled_from(candidates))
        mutant = mutate(draw, mutation, site)
        value = _replace(base, site.path, mutant.value)
        if not isinstance(value, dict) or not _rejected_for(check, value, site.path, mutation):
            draw(st.nothing())
        return Labelled(value, f"{format_path(site.path, prefix=label_prefix)}: {mutant.description}")

    return invalid()


_CONSTRAINING = frozenset(
    {"type", "enum", "const", "required", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
     "pattern", "minLength", "maxLength", "$ref", "anyOf", "oneOf", "allOf", "not", "if", "multipleOf",
     "minItems", "maxItems", "uniqueItems", "items", "prefixItems", "contains", "minProperties",
     "maxProperties", "dependentRequired", "dependentSchemas", "dependencies", "propertyNames", "format"}
)


def can_reject_an_object(schema: Any) -> bool:
    """False only when the schema certainly accepts every object (`{"type": "object"}`, maybe
    with unconstrained properties): then no invalid arguments exist, and searching for them
    would spend Hypothesis's whole budget on rejections. True whenever in doubt."""
    if not isinstance(schema, dict):
        return schema is False
    if any(keyword in schema for keyword in _CONSTRAINING - {"type"}):
        return True
    if schema.get("type") not in (None, "object"):
        return True
    if schema.get("additionalProperties") is False or schema.get("unevaluatedProperties") is False:
        return True
    properties = schema.get("properties", {})
    patterns = schema.get("patternProperties", {})
    extra = schema.get("additionalProperties", {})
    children = [*(properties.values() if isinstance(properties, dict) else []), *(patterns.values() if isinstance(patterns, dict) else []), extra]
    return any(_constrains_a_value(child) for child in children)


def _constrains_a_value(schema: Any) -> bool:
    if schema is True or schema == {}:
        return False
    if not isinstance(schema, dict):
        return True
    if any(keyword in schema for keyword in _CONSTRAINING) or schema.get("additionalProperties") is False:
        return True
    properties = schema.get("properties")
    extra = schema.get("additionalProperties")
    return (isinstance(properties, dict) and any(_constrains_a_value(child) for child in properties.values())) or (
        isinstance(extra, dict) and _constrains_a_value(extra)
    )


def _rejected_for(check: SchemaCheck, value: Any, path: tuple[str | int, ...], mutation: Mutation) -> bool:
    """True when the validator rejects `value` with an error for `mutation`'s keyword at `path`."""
    return any(
        error.validator == mutation.value and tuple(error.absolute_path) == path
        for error in check.errors(value)
    )


def _replace(value: Any, path: tuple[str | int, ...], replacement: Any) -> Any:
    if not path:
        return replacement
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _replace(value[head], rest, replacement)}
    copy = list(value)
    copy[head] = _replace(value[head], rest, replacement)  # type: ignore[index]
    return copy


def _encodes_as_json(value: Any) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except (ValueError, TypeError):
        return False
    return True
