"""Arrays and objects a schema accepts: the generator's collection family.

For arrays it reads these keywords:

- `prefixItems` and `items`, and draft-07's array form of `items` and `additionalItems`.
- `minItems` and `maxItems`.
- `uniqueItems`, compared as JSON Schema compares: 1 == 1.0, true != 1.
- `contains`. A witness is added when no item is one.

For objects it reads these keywords:

- `properties`, `required` and `additionalProperties`.
- `unevaluatedProperties: false`, read as `additionalProperties: false` over the merged
  properties.
- `patternProperties` and `propertyNames`.
- `dependentRequired`, and draft-07's array `dependencies`.
- `minProperties` and `maxProperties`.

Items and property values recurse through the context, lazily, for recursive schemas. Past
`MAX_DEPTH`, arrays take their minimum of items and objects only their required properties.

Shrinking leaves optional properties out, value and all, in one step. It drops extra properties
and array items.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hypothesis import strategies as st

from strategies.characters import json_text
from strategies.drawing import drawn
from strategies.ecma_patterns import verdict
from strategies.generation._context import MAX_DEPTH, MAX_EXTRA_PROPERTIES, MAX_ITEMS
from strategies.generation._strings import pattern_keys
from strategies.schemas import matches_pattern

if TYPE_CHECKING:
    from strategies.generation._context import Context, Subschema

_PRESENT = st.integers(0, 2)
"""Whether an optional property is drawn: two times in three, shrinking to absent.

Any value but 0 draws the property; 0 leaves it absent. It is a draw of its own, not
`one_of(absent, value)`. Hypothesis flattens a value strategy that is a `one_of` into its
branches. So how often the property was absent depended on its value's branches: one time in
(its branches + 1). A value of one branch left it absent half the time. An invalid-arguments
draw on a schema of optional properties then often found nothing to mutate in a batch.
"""

_MORE = st.booleans()
"""Whether one more optional item is drawn.

It shrinks to False, so to fewer items.
"""

_PLAIN_KEYS = json_text(max_size=12)


def arrays_for(schema: Mapping[str, Any], context: Context, depth: int) -> st.SearchStrategy[Any]:
    """Arrays of the schema's items, as many as its bounds allow.

    That is a few more than the least.
    """
    low = schema.get("minItems", 0) if isinstance(schema.get("minItems"), int) else 0
    high = schema.get("maxItems") if isinstance(schema.get("maxItems"), int) else None
    if high is not None and low > high:
        return st.nothing()
    if context.draft_07 and isinstance(schema.get("items"), list):
        prefix, rest = schema["items"], schema.get("additionalItems", True)
    else:
        prefix, rest = (schema.get("prefixItems") if isinstance(schema.get("prefixItems"), list) else []), schema.get("items", True)
    if depth > MAX_DEPTH:
        high = low if high is None else min(high, low)
    cap = high if high is not None else max(low, len(prefix)) + MAX_ITEMS
    unique = schema.get("uniqueItems") is True
    heads_strategies = [context.lazy(sub, depth + 1) for sub in prefix]
    element = context.lazy(rest, depth + 1)
    declared_contains = schema.get("contains")
    contains: Subschema | None = declared_contains if isinstance(declared_contains, (Mapping, bool)) else None
    witnesses = context.lazy(contains, depth + 1) if contains is not None else None

    head_counts = st.integers(min(low, len(prefix), cap), min(len(prefix), cap))
    fewest = max(low - len(prefix), 0)
    tails = st.lists(
        element,
        min_size=fewest,
        max_size=max(min(cap - len(prefix), fewest + MAX_ITEMS), fewest),
        unique_by=_canonical if unique else None,
    )

    def array(draw: st.DrawFn) -> list[Any]:
        heads = draw(head_counts)
        items = [draw(heads_strategies[index]) for index in range(heads)]
        if heads == len(prefix) and rest is not False and cap > heads and not element.is_empty:
            items += draw(tails)
        if contains is not None and witnesses is not None and not any(context.is_valid(contains, item) for item in items):
            witness = draw(witnesses)
            items = [*items, witness] if len(items) < cap else [*items[:-1], witness]
        return items

    return drawn(array)


def objects_for(schema: Mapping[str, Any], context: Context, depth: int) -> st.SearchStrategy[Any]:
    """Objects with the schema's required properties, and some of its optional ones.

    They also hold the properties its dependencies require. Where allowed, they hold a few extra
    ones, named by its patterns or by its `propertyNames`.
    """
    declared_properties = schema.get("properties")
    properties: Mapping[str, Any] = declared_properties if isinstance(declared_properties, Mapping) else {}
    required = [name for name in schema.get("required", []) if isinstance(name, str)] if isinstance(schema.get("required"), list) else []
    declared_dependent = schema.get("dependentRequired")
    dependencies = schema.get("dependencies")
    dependent: dict[str, Any] = {
        **(declared_dependent if isinstance(declared_dependent, Mapping) else {}),
        **({key: value for key, value in dependencies.items() if isinstance(value, list)} if isinstance(dependencies, Mapping) else {}),
    }
    declared_patterns = schema.get("patternProperties")
    patterns: Mapping[str, Any] = declared_patterns if isinstance(declared_patterns, Mapping) else {}
    extra = schema.get("additionalProperties", True)
    if schema.get("unevaluatedProperties") is False and extra is True:
        extra = False
    names = schema.get("propertyNames", True)
    low = schema.get("minProperties", 0) if isinstance(schema.get("minProperties"), int) else 0
    high = schema.get("maxProperties") if isinstance(schema.get("maxProperties"), int) else None

    extra_values = context.lazy(extra if isinstance(extra, (Mapping, bool)) else True, depth + 1)
    declared = {name: context.lazy(sub, depth + 1) for name, sub in properties.items()}
    patterned = {pattern: context.lazy(sub, depth + 1) for pattern, sub in patterns.items()}

    by_patterns: dict[tuple[str, ...], st.SearchStrategy[Any]] = {}

    def value_for(name: str) -> st.SearchStrategy[Any]:
        """The strategy for a property's value.

        For a name that patterns match, it is built on the first draw that needs it, and kept.
        The same patterns match many names.
        """
        if name in declared:
            return declared[name]
        matching = tuple(pattern for pattern in patterns if matches_pattern(pattern, name))
        if not matching:
            return extra_values
        if matching not in by_patterns:
            subschemas = [patterns[pattern] for pattern in matching]
            if name in properties:
                subschemas.append(properties[name])
            by_patterns[matching] = context.lazy({"allOf": subschemas}, depth + 1)
        return by_patterns[matching]

    keys_by_pattern = {pattern: pattern_keys(pattern) for pattern in patterns}
    # An extra property's name is one no pattern matches by ECMA-262, for certain (a name no
    # verdict can be given on would make the object one no claim can be made on).
    extra_keys = _keys(names, context).filter(lambda key: key not in properties and all(verdict(p, key) is False for p in patterns))

    optional = [name for name in properties if name not in required]

    def obj(draw: st.DrawFn) -> dict[str, Any]:
        # An optional property is one choice, then its value: the shrinker drops it, value and
        # all, in one step.
        value: dict[str, Any] = {name: draw(value_for(name)) for name in required}
        if depth <= MAX_DEPTH:
            for name in optional:
                if draw(_PRESENT):
                    value[name] = draw(declared[name])
        for _ in range(len(dependent) + 1):
            for name in list(value):
                for needed in dependent.get(name, []):
                    if isinstance(needed, str) and needed not in value:
                        value[needed] = draw(value_for(needed))
        room = (high if high is not None else len(value) + MAX_EXTRA_PROPERTIES) - len(value)
        wanted = max(low - len(value), 0)
        if (room > 0 and depth <= MAX_DEPTH) or wanted:
            for pattern in patterns:
                if room <= 0 or not draw(_MORE):
                    continue
                key = draw(keys_by_pattern[pattern])
                if key not in value:
                    value[key] = draw(patterned[pattern] if key not in properties else value_for(key))
                    room -= 1
            if extra is not False and not extra_values.is_empty:
                fewest, most = min(wanted, max(room, 0)), max(min(room, wanted + MAX_EXTRA_PROPERTIES), 0)
                added = 0
                for _ in range(most + MAX_EXTRA_PROPERTIES):
                    if added >= most or (added >= fewest and not draw(_MORE)):
                        break
                    key = draw(extra_keys)
                    if key not in value:
                        value[key] = draw(extra_values)
                        added += 1
        return value

    return drawn(obj)


def _keys(names: Any, context: Context) -> st.SearchStrategy[str]:
    """Names for extra properties: those `propertyNames` accepts, else plain text."""
    if isinstance(names, Mapping) and names:
        return context.strategy({**names, "type": "string"}, MAX_DEPTH).filter(lambda key: isinstance(key, str))
    return _PLAIN_KEYS


def _canonical(value: Any) -> str:
    """The key under which JSON Schema's uniqueItems compares values.

    Under it, 1 == 1.0 and true != 1.
    """

    def normal(item: Any) -> Any:
        if isinstance(item, bool) or item is None or isinstance(item, str):
            return item
        if isinstance(item, (int, float)):
            return ["number", float(item) if math.isfinite(item) and float(item).is_integer() and abs(item) < 2**53 else item]
        if isinstance(item, list):
            return [normal(element) for element in item]
        return {key: normal(element) for key, element in sorted(item.items())}

    return json.dumps(normal(value), sort_keys=True)
