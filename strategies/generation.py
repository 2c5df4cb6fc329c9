"""Values from a JSON Schema, with Hypothesis's public API.

The generator reads the keywords real tool schemas use (see the README's list) and builds a
strategy that *aims* at valid values; it is never trusted: `strategies.values` keeps only what
the dialect's standard validator accepts, formats asserted. Aiming well matters for speed and
for reaching rare shapes; validating matters for truth.

How the hard keywords are read:

- `allOf` and a `$ref` with siblings (2020-12) are merged into one schema where the merge is
  exact (properties, required, bounds, types); what cannot be merged is checked afterwards.
- `anyOf`/`oneOf` draw a branch, merged with the rest of the schema; `oneOf`'s exclusivity and
  `not` are checked afterwards.
- `if`/`then`/`else`: either `if` and `then` both hold, or `else` holds and `if` does not.
- `$ref` is followed lazily and recursion is bounded: past `MAX_DEPTH` nested values, objects
  carry only their required properties and arrays their minimum of items, and a reference
  that must go deeper generates nothing (so `anyOf: [{"$ref": "#"}, {"type": "null"}]` ends in
  null).
- `unevaluatedProperties: false` is read as `additionalProperties: false` over the merged
  properties; `dependentRequired` adds the dependent properties; `dependentSchemas` and
  draft-07 `dependencies` are merged in when their property is required, checked otherwise.
- `format`s: date-time, date, time, email, idn-email, uri, uri-reference, iri, uuid, ipv4,
  ipv6, hostname, idn-hostname, duration, regex; others are annotations and generate plain
  strings.

Shrinking: optional properties are left out, extra properties and array items dropped, numbers
taken towards zero (or the bound), strings towards "": a value shrinks to the required
properties at their simplest.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Callable, Mapping

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from hypothesis.provisional import domains, urls

from strategies.schemas import resolve_local_ref

MAX_DEPTH = 6
"""Nesting past which values take their smallest form (recursive schemas end here)."""

MAX_EXTRA_PROPERTIES = 3
MAX_ITEMS = 5
"""Arrays and extra properties stay small unless the schema asks for more: big values cost the
target time and rarely find more."""

_ABSENT = object()
_TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")
_DRAFT_07_URIS = ("draft-07", "draft-06", "draft-04")


@dataclass(frozen=True, slots=True)
class _Context:
    root: Mapping[str, Any]
    draft_07: bool
    """draft-07 and older: `items` may be an array, `$ref` siblings are ignored, `dependencies`."""
    is_valid: Callable[[Mapping[str, Any] | bool, Any], bool]
    """The dialect's standard verdict on a value against a subschema (refs resolved from root)."""


def from_schema(schema: Mapping[str, Any] | bool, is_valid: Callable[[Mapping[str, Any] | bool, Any], bool]) -> st.SearchStrategy[Any]:
    """A strategy aiming at values `schema` accepts. `is_valid(subschema, value)` is the standard
    validator's verdict, used for what generation cannot aim at (`not`, `oneOf`, unmerged parts)."""
    root = schema if isinstance(schema, Mapping) else {}
    dialect = str(root.get("$schema", ""))
    context = _Context(root, any(marker in dialect for marker in _DRAFT_07_URIS), is_valid)
    return _strategy(schema, context, 0)


def _strategy(schema: Mapping[str, Any] | bool, context: _Context, depth: int) -> st.SearchStrategy[Any]:
    """Values for `schema`, and (as often as all others together) the values its own `examples`
    and `default` document, those that it accepts: what the author knows a tool takes. They are
    the second branch, so a value still shrinks towards the simplest generated one."""
    generated = _generated(schema, context, depth)
    documented = _documented_values(schema, context)
    return st.one_of(generated, st.sampled_from(documented)) if documented else generated


def _documented_values(schema: Mapping[str, Any] | bool, context: _Context) -> list[Any]:
    if not isinstance(schema, Mapping):
        return []
    offered = [*(schema["examples"] if isinstance(schema.get("examples"), list) else ()), *(
        (schema["default"],) if "default" in schema else ())]
    kept: list[Any] = []
    for value in offered:
        try:
            encoded = json.dumps(value, allow_nan=False, sort_keys=True)
        except (TypeError, ValueError):
            continue
        if encoded not in (json.dumps(seen, sort_keys=True) for seen in kept) and context.is_valid(schema, value):
            kept.append(value)
    return kept


def _generated(schema: Mapping[str, Any] | bool, context: _Context, depth: int) -> st.SearchStrategy[Any]:
    if schema is True or schema == {}:
        return json_values(depth)
    if schema is False or not isinstance(schema, Mapping):
        return st.nothing()
    schema = _flatten(schema, context, depth)
    if schema is None:
        return st.nothing()
    if "not" in schema:
        negated = schema["not"]
        rest = {key: value for key, value in schema.items() if key != "not"}
        return _strategy(rest, context, depth).filter(lambda value: not context.is_valid(negated, value))
    if "if" in schema and isinstance(schema.get("if"), (Mapping, bool)):
        return _conditional(schema, context, depth)
    for keyword in ("anyOf", "oneOf"):
        if isinstance(schema.get(keyword), list) and schema[keyword]:
            rest = {key: value for key, value in schema.items() if key != keyword}
            branches = [_deferred_merge(rest, branch, context, depth) for branch in schema[keyword]]
            return st.one_of(branches)
    if "const" in schema:
        return st.just(schema["const"])
    if isinstance(schema.get("enum"), list):
        return st.sampled_from(schema["enum"]) if schema["enum"] else st.nothing()
    return st.one_of([_typed(name, schema, context, depth) for name in _types_of(schema)])


def _flatten(schema: Mapping[str, Any], context: _Context, depth: int) -> dict[str, Any] | None:
    """The schema with `$ref`s and `allOf` merged in (parts that do not merge exactly are kept in
    `allOf`, for the final check). None when a reference must go deeper than MAX_DEPTH (each
    reference followed counts as a level) or cannot be followed."""
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
                    part = _flatten(part, context, depth)
                    if part is None:
                        return None
                    flat = _merge(flat, part)
            held += flat.pop("allOf", [])
        else:
            break
    if held:
        flat["allOf"] = held
    return flat


def _merge(left: Mapping[str, Any], right: Mapping[str, Any]) -> dict[str, Any]:
    """Both schemas at once, exactly where it is easy; otherwise the right one's keyword nests
    into an `allOf`, for the final check to enforce."""
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
        elif key in ("minimum", "minLength", "minItems", "minProperties", "exclusiveMinimum") and _number(value) and _number(merged[key]):
            merged[key] = max(merged[key], value)
        elif key in ("maximum", "maxLength", "maxItems", "maxProperties", "exclusiveMaximum") and _number(value) and _number(merged[key]):
            merged[key] = min(merged[key], value)
        elif key in ("title", "description", "default", "examples", "$comment", "$schema", "$id", "$defs", "definitions"):
            continue
        elif merged[key] != value:
            postponed.append({key: value})
    if postponed:
        merged["allOf"] = [*merged.get("allOf", []), *postponed]
    return merged


def _deferred_merge(rest: Mapping[str, Any], branch: Any, context: _Context, depth: int) -> st.SearchStrategy[Any]:
    if not isinstance(branch, Mapping):
        return _strategy(rest, context, depth) if branch is True else st.nothing()
    return st.deferred(lambda: _strategy(_merge(rest, {"allOf": [branch]}), context, depth))


def _conditional(schema: Mapping[str, Any], context: _Context, depth: int) -> st.SearchStrategy[Any]:
    rest = {key: value for key, value in schema.items() if key not in ("if", "then", "else")}
    condition = schema["if"]
    then_branch = {"allOf": [condition, schema.get("then", True)]}
    when_true = _deferred_merge(rest, then_branch, context, depth).filter(lambda value: context.is_valid(condition, value))
    when_false = _deferred_merge(rest, schema.get("else", True), context, depth).filter(
        lambda value: not context.is_valid(condition, value)
    )
    return st.one_of(when_true, when_false)


def _types_of(schema: Mapping[str, Any]) -> list[str]:
    declared = _as_types(schema.get("type")) if "type" in schema else []
    if declared:
        return [name for name in declared if name in _TYPES] or ["__none__"]
    hinted = [
        name
        for name, keywords in (
            ("object", ("properties", "required", "additionalProperties", "patternProperties", "propertyNames", "minProperties", "maxProperties", "dependentRequired", "unevaluatedProperties")),
            ("array", ("items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains")),
            ("string", ("pattern", "minLength", "maxLength", "format")),
            ("number", ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")),
        )
        if any(keyword in schema for keyword in keywords)
    ]
    return hinted or list(_TYPES)


def _typed(name: str, schema: Mapping[str, Any], context: _Context, depth: int) -> st.SearchStrategy[Any]:
    if name == "null":
        return st.none()
    if name == "boolean":
        return st.booleans()
    if name == "integer":
        return _integers(schema)
    if name == "number":
        return st.one_of(_integers(schema), _floats(schema))
    if name == "string":
        return _strings(schema)
    if name == "array":
        return _arrays(schema, context, depth)
    if name == "object":
        return _objects(schema, context, depth)
    return st.nothing()


def _integers(schema: Mapping[str, Any]) -> st.SearchStrategy[Any]:
    low, high = _integer_bounds(schema)
    if low is not None and high is not None and low > high:
        return st.nothing()
    step = schema.get("multipleOf")
    if _number(step) and step > 0 and float(step).is_integer():
        step = int(step)
        first = None if low is None else -(-low // step)
        last = None if high is None else high // step
        base = st.integers(first, last).map(lambda k: k * step)
    elif _number(step) and step > 0:
        return _multiples(schema, step).filter(lambda value: float(value).is_integer()).map(int)
    else:
        base = st.integers(low, high)
    # An integral float is an integer in JSON Schema; a server must take 2.0 for 2.
    return st.one_of(base, base.filter(lambda k: abs(k) < 2**53).map(float))


def _integer_bounds(schema: Mapping[str, Any]) -> tuple[int | None, int | None]:
    low = high = None
    if _number(schema.get("minimum")):
        low = math.ceil(schema["minimum"])
    if _number(schema.get("exclusiveMinimum")):
        bound = math.floor(schema["exclusiveMinimum"]) + 1
        low = bound if low is None else max(low, bound)
    if _number(schema.get("maximum")):
        high = math.floor(schema["maximum"])
    if _number(schema.get("exclusiveMaximum")):
        bound = math.ceil(schema["exclusiveMaximum"]) - 1
        high = bound if high is None else min(high, bound)
    return low, high


def _floats(schema: Mapping[str, Any]) -> st.SearchStrategy[Any]:
    step = schema.get("multipleOf")
    if _number(step) and step > 0:
        return _multiples(schema, step)
    low = schema.get("minimum") if _number(schema.get("minimum")) else None
    high = schema.get("maximum") if _number(schema.get("maximum")) else None
    exclude_low = exclude_high = False
    if _number(schema.get("exclusiveMinimum")) and (low is None or schema["exclusiveMinimum"] >= low):
        low, exclude_low = schema["exclusiveMinimum"], True
    if _number(schema.get("exclusiveMaximum")) and (high is None or schema["exclusiveMaximum"] <= high):
        high, exclude_high = schema["exclusiveMaximum"], True
    if low is not None and high is not None and (low > high or (low == high and (exclude_low or exclude_high))):
        return st.nothing()
    return st.floats(
        min_value=low, max_value=high, exclude_min=exclude_low and low is not None, exclude_max=exclude_high and high is not None,
        allow_nan=False, allow_infinity=False,
    )


def _multiples(schema: Mapping[str, Any], step: float) -> st.SearchStrategy[Any]:
    """k * multipleOf computed in decimal, so that 3 * 0.01 is 0.03 and not 0.030000000000000002
    (the validator still has the last word on float rounding)."""
    exact = Decimal(repr(step))
    low, high = _integer_bounds({key: value / step for key, value in schema.items() if key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum") and _number(value)})
    return st.integers(low, high).map(lambda k: float(Decimal(k) * exact))


_EDGE_CHARACTERS = "\0\u0301\u05d0\u0627\u202e\u200d\ufeff\U0001f600\U00010348\u2028"
"""NUL, a combining acute, Hebrew and Arabic letters (right-to-left), the RLO override, a zero
width joiner, a BOM, an emoji and a Gothic letter (astral planes), LINE SEPARATOR (raw in JSON
text, a line break to some readers): what servers mishandle, mixed into any text."""

JSON_CHARACTERS = st.characters(exclude_categories=("Cs",))
"""Every character JSON text can carry: any code point but the lone surrogates, which RFC 8259
leaves undefined, I-JSON forbids, and UTF-8 cannot encode. Every text strategy draws from it
(through `json_text`). Spelled by category, not as `characters(codec="utf-8")` (the same set, and
Hypothesis's default alphabet for `text()` and `from_regex`): the codec spelling makes Hypothesis
encode each of the 1.1 million code points once per machine, ~200 MiB of peak memory on a first
run."""


def json_text(min_size: int = 0, max_size: int | None = None) -> st.SearchStrategy[str]:
    """`st.text` over `JSON_CHARACTERS`: the one way strategies here draw free text."""
    return st.text(JSON_CHARACTERS, min_size=min_size, max_size=max_size)

_EDGY_CHARACTERS = st.sampled_from(_EDGE_CHARACTERS + "a0 ")
"""The edge characters, with a few plain ones between them."""


def _texts(low: int, high: int) -> st.SearchStrategy[str]:
    """Text of `low` to `high` characters: from every character JSON can carry, or (as often) from
    the edge characters. Hypothesis merges the alphabets of `text(one_of(...))` into one set of
    code points, which drowned ten edge characters among a million (1 in 200 characters drawn);
    a choice between two texts keeps them frequent, and each text is still drawn whole."""
    return st.one_of(json_text(low, high), st.text(_EDGY_CHARACTERS, min_size=low, max_size=high))

_FORMATS: dict[str, st.SearchStrategy[str]] = {
    "date-time": st.datetimes().map(lambda moment: moment.isoformat() + "Z"),
    "date": st.dates().map(lambda day: day.isoformat()),
    "time": st.times().map(lambda moment: moment.isoformat() + "Z"),
    "email": st.emails(),
    "idn-email": st.emails(),
    "uri": urls(),
    "iri": urls(),
    "uri-reference": st.one_of(urls(), st.from_regex(r"\A(/[a-z0-9]{1,8}){0,3}\Z", alphabet=JSON_CHARACTERS)),
    "uuid": st.uuids().map(str),
    "ipv4": st.ip_addresses(v=4).map(str),
    "ipv6": st.ip_addresses(v=6).map(str),
    "hostname": domains(),
    "idn-hostname": domains(),
    "duration": st.one_of(
        st.integers(0, 10_000).map(lambda days: f"P{days}D"),
        st.tuples(st.integers(0, 99), st.integers(0, 59), st.integers(0, 59)).map(lambda t: f"PT{t[0]}H{t[1]}M{t[2]}S"),
        st.integers(0, 99).map(lambda weeks: f"P{weeks}W"),
    ),
    "regex": st.sampled_from(["", "^a$", "[0-9]+", "\\w+@\\w+"]),
}


def _strings(schema: Mapping[str, Any]) -> st.SearchStrategy[Any]:
    low = schema.get("minLength", 0) if isinstance(schema.get("minLength"), int) else 0
    high = schema.get("maxLength") if isinstance(schema.get("maxLength"), int) else None
    if high is not None and low > high:
        return st.nothing()
    pattern = _joined_literal_patterns(schema) or schema.get("pattern")
    known_format = _FORMATS.get(schema.get("format"))  # type: ignore[arg-type]
    if isinstance(pattern, str):
        try:
            base: st.SearchStrategy[str] = st.from_regex(_python_regex(_sized(pattern, low, high)), alphabet=JSON_CHARACTERS)
        except (re.error, ValueError):
            base = json_text()
        if known_format is not None:
            # A format's text is ASCII; so are the digits it means by `\d` (Python's are not).
            try:
                ascii_base = st.from_regex(_python_regex(_sized(pattern, low, high)), alphabet=st.characters(codec="ascii"))
            except (re.error, ValueError, InvalidArgument):
                ascii_base = base
            base = st.one_of(known_format.filter(lambda text: _search(pattern, text)), ascii_base)
    elif known_format is not None:
        base = known_format
    else:
        return _texts(low, high if high is not None else max(low, 0) + 40)
    return base.filter(lambda text: low <= len(text) and (high is None or len(text) <= high))


def _python_regex(pattern: str) -> str:
    """ECMA-262 named groups (`(?<name>`) as Python writes them; the validator reads patterns
    with Python's `re` too, so nothing else is translated."""
    return re.sub(r"\(\?<(?![=!])", "(?P<", pattern)


_LITERAL_PATTERN = re.compile(r"(\^)?(\.\*)?([^\\^$.*+?()\[\]{}|]*)(\.\*)?(\$)?")


def _joined_literal_patterns(schema: Mapping[str, Any]) -> str | None:
    """Several patterns that each pin a literal to the start, the end or anywhere (zod's
    startsWith/endsWith/includes: `^sk_.*`, `.*_x$`, `test`) as one pattern that satisfies all
    (`^sk_.*test.*_x$`), so that no candidate is thrown away for missing one of them."""
    parts = [schema.get("pattern")] + [
        part.get("pattern") for part in schema.get("allOf", []) if isinstance(part, Mapping) and set(part) <= {"pattern", "type"}
    ]
    patterns = [pattern for pattern in parts if isinstance(pattern, str)]
    if len(patterns) < 2:
        return None
    starts, ends, middles = [], [], []
    for pattern in patterns:
        match = _LITERAL_PATTERN.fullmatch(pattern)
        if match is None:
            return None
        anchored_start, free_start, literal, free_end, anchored_end = match.groups()
        if anchored_start and not free_start:
            starts.append(literal)
        elif anchored_end and not free_end:
            ends.append(literal)
        else:
            middles.append(literal)
    if len(starts) > 1 or len(ends) > 1:
        return None
    return "^" + ".*".join([*starts, "", *middles, "", *ends]) + "$"


_REPEATED_ATOM = re.compile(r"^\^(\[[^\]]*\]|\\[dwsDWS]|\.)[+*]\$$")


def _sized(pattern: str, low: int, high: int | None) -> str:
    """`^[0-9]+$` with minLength 6 and maxLength 6 as `^[0-9]{6,6}$`: a length filter over a
    pattern that ignores it would throw almost every string away."""
    match = _REPEATED_ATOM.match(pattern)
    if match is None or (low == 0 and high is None):
        return pattern
    fewest = max(low, 1 if pattern.endswith("+$") else 0)
    return f"^{match.group(1)}{{{fewest},{'' if high is None else high}}}$"


def _arrays(schema: Mapping[str, Any], context: _Context, depth: int) -> st.SearchStrategy[Any]:
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
    heads_strategies = [_lazy(sub, context, depth + 1) for sub in prefix]
    element = _lazy(rest, context, depth + 1)
    contains = schema.get("contains")
    witnesses = _lazy(contains, context, depth + 1) if isinstance(contains, (Mapping, bool)) else None

    head_counts = st.integers(min(low, len(prefix), cap), min(len(prefix), cap))
    fewest = max(low - len(prefix), 0)
    tails = st.lists(
        element,
        min_size=fewest,
        max_size=max(min(cap - len(prefix), fewest + MAX_ITEMS), fewest),
        unique_by=_canonical if unique else None,
    )

    @st.composite
    def array(draw: st.DrawFn) -> list[Any]:
        heads = draw(head_counts)
        items = [draw(heads_strategies[index]) for index in range(heads)]
        if heads == len(prefix) and rest is not False and cap > heads and not element.is_empty:
            items += draw(tails)
        if witnesses is not None and not any(context.is_valid(contains, item) for item in items):
            witness = draw(witnesses)
            items = [*items, witness] if len(items) < cap else [*items[:-1], witness]
        return items

    return array()


def _objects(schema: Mapping[str, Any], context: _Context, depth: int) -> st.SearchStrategy[Any]:
    properties: Mapping[str, Any] = schema.get("properties") if isinstance(schema.get("properties"), Mapping) else {}
    required = [name for name in schema.get("required", []) if isinstance(name, str)] if isinstance(schema.get("required"), list) else []
    dependent = schema.get("dependentRequired") if isinstance(schema.get("dependentRequired"), Mapping) else {}
    dependencies = schema.get("dependencies") if isinstance(schema.get("dependencies"), Mapping) else {}
    dependent = {**dependent, **{key: value for key, value in dependencies.items() if isinstance(value, list)}}
    patterns: Mapping[str, Any] = schema.get("patternProperties") if isinstance(schema.get("patternProperties"), Mapping) else {}
    extra = schema.get("additionalProperties", True)
    if schema.get("unevaluatedProperties") is False and extra is True:
        extra = False
    names = schema.get("propertyNames", True)
    low = schema.get("minProperties", 0) if isinstance(schema.get("minProperties"), int) else 0
    high = schema.get("maxProperties") if isinstance(schema.get("maxProperties"), int) else None

    extra_values = _lazy(extra if isinstance(extra, (Mapping, bool)) else True, context, depth + 1)
    declared = {name: _lazy(sub, context, depth + 1) for name, sub in properties.items()}
    patterned = {pattern: _lazy(sub, context, depth + 1) for pattern, sub in patterns.items()}

    by_patterns: dict[tuple[str, ...], st.SearchStrategy[Any]] = {}

    def value_for(name: str) -> st.SearchStrategy[Any]:
        """The strategy for a property's value; for a name that patterns match, built on the
        first draw that needs it and kept (the same patterns match many names)."""
        if name in declared:
            return declared[name]
        matching = tuple(pattern for pattern in patterns if _search(pattern, name))
        if not matching:
            return extra_values
        if matching not in by_patterns:
            subschemas = [patterns[pattern] for pattern in matching]
            if name in properties:
                subschemas.append(properties[name])
            by_patterns[matching] = _lazy({"allOf": subschemas}, context, depth + 1)
        return by_patterns[matching]

    pattern_keys = {pattern: _pattern_keys(pattern) for pattern in patterns}
    extra_keys = _keys(names, context).filter(lambda key: key not in properties and not any(_search(p, key) for p in patterns))

    optional = [name for name in properties if name not in required]
    maybe = {name: st.one_of(st.just(_ABSENT), declared[name]) for name in optional}

    @st.composite
    def obj(draw: st.DrawFn) -> dict[str, Any]:
        # An optional property is one choice, absent or a value: the shrinker drops it, value and
        # all, in one step.
        value: dict[str, Any] = {name: draw(value_for(name)) for name in required}
        if depth <= MAX_DEPTH:
            for name in optional:
                drawn = draw(maybe[name])
                if drawn is not _ABSENT:
                    value[name] = drawn
        for _ in range(len(dependent) + 1):
            for name in list(value):
                for needed in dependent.get(name, []):
                    if isinstance(needed, str) and needed not in value:
                        value[needed] = draw(value_for(needed))
        room = (high if high is not None else len(value) + MAX_EXTRA_PROPERTIES) - len(value)
        wanted = max(low - len(value), 0)
        if room > 0 and depth <= MAX_DEPTH or wanted:
            for pattern in patterns:
                if room <= 0 or not draw(_MORE):
                    continue
                key = draw(pattern_keys[pattern])
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

    return obj()


_MORE = st.booleans()
"""Whether one more optional item is drawn: shrinks to False, so to fewer items."""


def _lazy(schema: Any, context: _Context, depth: int) -> st.SearchStrategy[Any]:
    """The strategy for a subschema, built on first use and then kept: built eagerly, a
    recursive schema would never finish; built per draw, every draw would pay for it."""
    return st.deferred(lambda: _strategy(schema, context, depth))


def _keys(names: Any, context: _Context) -> st.SearchStrategy[str]:
    if isinstance(names, Mapping) and names:
        return _strategy({**names, "type": "string"}, context, MAX_DEPTH).filter(lambda key: isinstance(key, str))
    return _PLAIN_KEYS


_PLAIN_KEYS = json_text(max_size=12)


def _pattern_keys(pattern: str) -> st.SearchStrategy[str]:
    try:
        return st.from_regex(_python_regex(pattern), alphabet=JSON_CHARACTERS)
    except (re.error, ValueError):
        return st.nothing()


def _search(pattern: str, text: str) -> bool:
    try:
        return re.search(pattern, text) is not None
    except re.error:
        return False


def json_values(depth: int = 0) -> st.SearchStrategy[Any]:
    """Any JSON value: every scalar kind, with JSON's edges (big integers, -0.0, integral floats,
    astral and combining characters, NUL), nested a little."""
    return _JSON_VALUES[depth > MAX_DEPTH]


def _json_values(shallow: bool) -> st.SearchStrategy[Any]:
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=False, allow_infinity=False),
        _texts(0, 20),
    )
    if shallow:
        return scalars
    return st.recursive(
        scalars,
        lambda children: st.one_of(st.lists(children, max_size=3), st.dictionaries(json_text(max_size=8), children, max_size=3)),
        max_leaves=6,
    )


_JSON_VALUES = {shallow: _json_values(shallow) for shallow in (False, True)}
"""Built once: an unconstrained subschema is common, and `st.recursive` is costly to build."""


def _canonical(value: Any) -> str:
    """The key under which JSON Schema's uniqueItems compares values (1 == 1.0, true != 1)."""

    def normal(item: Any) -> Any:
        if isinstance(item, bool) or item is None or isinstance(item, str):
            return item
        if isinstance(item, (int, float)):
            return ["number", float(item) if math.isfinite(item) and float(item).is_integer() and abs(item) < 2**53 else item]
        if isinstance(item, list):
            return [normal(element) for element in item]
        return {key: normal(element) for key, element in sorted(item.items())}

    return json.dumps(normal(value), sort_keys=True)


def _as_types(declared: Any) -> list[str]:
    if isinstance(declared, str):
        return [declared]
    return [name for name in declared if isinstance(name, str)] if isinstance(declared, list) else []


def _type_admitted(name: str, allowed: list[str]) -> bool:
    return name in allowed or (name == "integer" and "number" in allowed)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
