"""Invalid values by mutation of a valid one: the kinds of mutation and where they apply.

The method is Schemathesis's negative testing, applied to values. First draw a valid value.
Walk it together with its schema, to list the *sites*. A site is a node of the value, with the
subschema that constrains it. Draw a site, then one of the mutations that site's keywords make
possible. Keep the result only if the standard validator rejects it *at that site for that
keyword*.

So the label is a checked statement, such as `arguments.address.zip: pattern '^[0-9]{5}$'
violated by ''`. The rest of the value is still the valid value it was drawn from. So shrinking
takes it to its simplest while the one mutation stays.

This module owns the closed set of mutations (`Mutation`). It owns the sites of a value
(`sites`), and the properties an object lacks (`absent_property_sites`). It owns which
mutations each site offers (`Site.mutations`), and how a site's place reads in a label
(`format_path`). How each mutation is made is `strategies._mutators`. The drawing, the check and
the label are `strategies.values`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, TypeAlias, TypeGuard

from strategies.ecma_patterns import is_ecma
from strategies.schemas import matches_pattern, resolve_local_ref

Path: TypeAlias = tuple[str | int, ...]
"""Where a node is in a value: property names and array indices from the root."""


class Mutation(Enum):
    """What a mutation breaks; the value is the JSON Schema keyword the validator reports.

    The order is the order of interest. The kinds servers most often fail to check come first:
    bounds, lengths, patterns, enums. The ones every validator catches come last: types,
    required properties. Hypothesis's simplest draws pick the first kinds a schema offers.
    """

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
    """A node of a value and the subschema that constrains it, resolved."""

    path: Path
    schema: Mapping[str, Any]
    value: Any

    def mutations(self, *, is_root: bool) -> list[Mutation]:
        """The mutations this node's keywords make possible.

        Within each family of keywords, they come in `Mutation`'s order of interest. The root
        keeps its type, enum and const: `arguments` and `structuredContent` must stay objects.
        """
        schema, value = self.schema, self.value
        found: list[Mutation] = []
        if "type" in schema and not is_root:
            found.append(Mutation.WRONG_TYPE)
        if isinstance(value, dict):
            if any(name in value for name in string_items(schema.get("required"))):
                found.append(Mutation.MISSING_REQUIRED)
            if schema.get("additionalProperties") is False:
                found.append(Mutation.ADDITIONAL_PROPERTY)
            if schema.get("unevaluatedProperties") is False:
                found.append(Mutation.UNEVALUATED_PROPERTY)
            for keyword, mutation in (("dependentRequired", Mutation.DEPENDENCY_MISSING), ("dependencies", Mutation.DRAFT_07_DEPENDENCY_MISSING)):
                if triggered_dependencies(schema.get(keyword), value):
                    found.append(mutation)
        if isinstance(value, list):
            if isinstance(schema.get("maxItems"), int):
                found.append(Mutation.TOO_MANY_ITEMS)
            if isinstance(schema.get("minItems"), int) and schema["minItems"] > 0:
                found.append(Mutation.TOO_FEW_ITEMS)
            if schema.get("uniqueItems") is True and value:
                found.append(Mutation.DUPLICATE_ITEMS)
        if is_json_number(value) and is_json_number(schema.get("multipleOf")) and schema["multipleOf"] > 0:
            found.append(Mutation.NOT_MULTIPLE)
        if is_json_number(value):
            for keyword, mutation in (
                ("maximum", Mutation.ABOVE_MAXIMUM),
                ("minimum", Mutation.BELOW_MINIMUM),
                ("exclusiveMaximum", Mutation.AT_EXCLUSIVE_MAXIMUM),
                ("exclusiveMinimum", Mutation.AT_EXCLUSIVE_MINIMUM),
            ):
                if is_json_number(schema.get(keyword)) and math.isfinite(schema[keyword]):
                    found.append(mutation)
        if isinstance(value, str):
            if isinstance(schema.get("pattern"), str) and is_ecma(schema["pattern"]):
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

    It follows `properties`, `patternProperties`, an `additionalProperties` schema, `items` and
    `prefixItems`, and draft-07's array `items` too. It follows them through `$ref`s. At the same
    node it follows every branch of `allOf`, `anyOf`, `oneOf` and `then`/`else`.

    A site inside a branch may not be what makes the value valid. So the caller keeps a mutation
    there only if the validator then rejects the value for that keyword at that place. A label
    never guesses.
    """
    root = schema if root is None else root
    schema = resolve_local_ref(schema, root)
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
        declared_properties = schema.get("properties")
        properties: Mapping[str, Any] = declared_properties if isinstance(declared_properties, Mapping) else {}
        declared_patterns = schema.get("patternProperties")
        patterns: Mapping[str, Any] = declared_patterns if isinstance(declared_patterns, Mapping) else {}
        extra = schema.get("additionalProperties")
        for key, child in value.items():
            matching = [sub for pattern, sub in patterns.items() if matches_pattern(pattern, key)]
            children = [properties[key]] if key in properties else []
            children += matching
            if not children and isinstance(extra, Mapping):
                children = [extra]
            for child_schema in children:
                if isinstance(child_schema, Mapping):
                    yield from sites(child_schema, child, root=root, path=(*path, key))
    elif isinstance(value, list):
        draft_07_items = isinstance(schema.get("items"), list)
        declared_prefix = schema.get("prefixItems")
        prefix: list[Any] = schema["items"] if draft_07_items else (declared_prefix if isinstance(declared_prefix, list) else [])
        items = schema.get("additionalItems") if draft_07_items else schema.get("items")
        for index, child in enumerate(value):
            child_schema = prefix[index] if index < len(prefix) else items
            if isinstance(child_schema, Mapping):
                yield from sites(child_schema, child, root=root, path=(*path, index))


def absent_property_sites(site: Site, *, root: Mapping[str, Any]) -> Iterator[Site]:
    """A site for each property `site`'s schema declares and its object value lacks.

    There a mutation can add the property, with a value its schema refuses. The site's value
    stands for the absent one, as far as `Site.mutations` reads it. It is the enum's first
    member, or the const, or else None. So only the mutations that do not start from a value are
    offered: a wrong type, or a value outside the enum or the const.
    """
    declared = site.schema.get("properties")
    if not isinstance(site.value, dict) or not isinstance(declared, Mapping):
        return
    for key, child in declared.items():
        if key in site.value or not isinstance(child, Mapping):
            continue
        schema = resolve_local_ref(child, root)
        enum = schema.get("enum")
        stand_in = enum[0] if isinstance(enum, list) and enum else schema.get("const")
        yield Site((*site.path, key), schema, stand_in)


def format_path(path: Path, *, prefix: str) -> str:
    """A place in a value as a label names it.

    Examples are `arguments.address.zip`, `arguments.tags[2]` and `arguments['odd key']`.
    """
    text = prefix
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if _is_identifier(part) else f"[{part!r}]")
    return text


def triggered_dependencies(dependencies: Any, value: dict[str, Any]) -> list[tuple[str, str]]:
    """Dependencies that can be broken by a deletion.

    Each is a pair: a present property, and the property it requires.
    """
    if not isinstance(dependencies, Mapping):
        return []
    return [
        (trigger, needed)
        for trigger, required in dependencies.items()
        if trigger in value and isinstance(required, list)
        for needed in required
        if isinstance(needed, str) and needed in value and needed != trigger
    ]


def is_json_number(value: object) -> TypeGuard[int | float]:
    """A JSON number (a boolean is not one)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def string_items(value: Any) -> list[str]:
    """The strings of a keyword's array value, such as `required`'s.

    None when the value is not an array.
    """
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _is_identifier(text: str) -> bool:
    return text.replace("-", "_").isidentifier()
