"""Compiled yes/no verdicts for plain schemas: the validator's answer without its machinery.

Every valid case is drawn and then checked by the schema's validator, and jsonschema's
`is_valid` walks the schema anew for each value (a new validator per subschema, a generator
per keyword): about a third of what checking a drawn case costs. Most tool schemas use a
handful of keywords (what zod and pydantic write: `type`, `properties`, `required`,
`additionalProperties`, `enum`, bounds), and for those a verdict compiled once per schema is a
few comparisons.

`plain_verdict` compiles a schema whose every keyword it knows to a predicate with exactly the
dialect's verdict, and gives None for any other schema (its callers then ask jsonschema): a
keyword outside the list below, a `$schema` below the root (the validator would switch
dialects there), `items` as an array, or a
dialect before draft-06 (its `exclusiveMinimum` is a boolean and its integers exclude 1.0).
`format` is an annotation unless formats are asserted, and then unsupported. Keywords that no
validator of the dialect knows are ignored, as jsonschema ignores them.

`tests/test_verdicts.py` holds the predicates to jsonschema's verdicts on drawn schemas and
values, in every supported dialect.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping, Sized
from typing import Any

import jsonschema
from jsonschema.protocols import Validator

Verdict = Callable[[Any], bool]

_DIALECTS = (jsonschema.Draft6Validator, jsonschema.Draft7Validator, jsonschema.Draft201909Validator,
             jsonschema.Draft202012Validator)


class _Unsupported(Exception):
    """A keyword or shape this module does not compile."""


def plain_verdict(schema: Mapping[str, Any] | bool, validator_class: type[Validator], *, formats_asserted: bool) -> Verdict | None:
    """The verdict of `validator_class` on a value against `schema` (format assertion on when
    `formats_asserted`), or None when the schema is not plain (see the module's docstring)."""
    if validator_class not in _DIALECTS:
        return None
    try:
        return _compile(schema, frozenset(validator_class.VALIDATORS), formats_asserted, root=True)
    except _Unsupported:
        return None


def _compile(schema: Any, keywords: frozenset[str], formats_asserted: bool, *, root: bool = False) -> Verdict:
    if schema is True:
        return _always
    if schema is False:
        return _never
    if not isinstance(schema, Mapping):
        raise _Unsupported
    if "$schema" in schema and not root:
        raise _Unsupported
    checks: list[Verdict] = []
    for keyword, value in schema.items():
        if keyword not in keywords or (keyword == "format" and not formats_asserted):
            continue
        make = _KEYWORDS.get(keyword)
        if make is None:
            raise _Unsupported
        checks.append(make(value, schema, keywords, formats_asserted))
    if not checks:
        return _always
    if len(checks) == 1:
        return checks[0]

    def every(instance: Any) -> bool:
        for check in checks:  # noqa: SIM110 - a loop costs less than all() over a generator, per value
            if not check(instance):
                return False
        return True

    return every


def json_equal(left: Any, right: Any) -> bool:
    """Equality of JSON values as JSON Schema sees it: 1 == 1.0, but true != 1 and "1" != 1."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, (int, float)) and isinstance(right, (int, float)):
        return left == right
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(json_equal(a, b) for a, b in zip(left, right, strict=True))
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(json_equal(left[key], right[key]) for key in left)
    return type(left) is type(right) and left == right


def _always(instance: Any) -> bool:
    return True


def _never(instance: Any) -> bool:
    return False


def _is_number(instance: Any) -> bool:
    kind = type(instance)
    if kind is int or kind is float:
        return True
    return not isinstance(instance, bool) and isinstance(instance, numbers.Number)


def _is_integer(instance: Any) -> bool:
    if isinstance(instance, bool):
        return False
    return isinstance(instance, int) or (isinstance(instance, float) and instance.is_integer())


_TYPES: dict[str, Verdict] = {
    "null": lambda instance: instance is None,
    "boolean": lambda instance: isinstance(instance, bool),
    "integer": _is_integer,
    "number": _is_number,
    "string": lambda instance: isinstance(instance, str),
    "array": lambda instance: isinstance(instance, list),
    "object": lambda instance: isinstance(instance, dict),
}


def _type(value: Any, schema: Mapping[str, Any], keywords: frozenset[str], formats_asserted: bool) -> Verdict:
    names = [value] if isinstance(value, str) else list(value)
    if any(name not in _TYPES for name in names):
        raise _Unsupported
    if len(names) == 1:
        return _TYPES[names[0]]
    kinds = [_TYPES[name] for name in names]
    return lambda instance: any(kind(instance) for kind in kinds)


def _enum(value: Any, schema: Mapping[str, Any], keywords: frozenset[str], formats_asserted: bool) -> Verdict:
    options = list(value)
    return lambda instance: any(json_equal(option, instance) for option in options)


def _const(value: Any, schema: Mapping[str, Any], keywords: frozenset[str], formats_asserted: bool) -> Verdict:
    return lambda instance: json_equal(value, instance)


def _bound(compare: Callable[[Any, Any], bool]) -> Callable[..., Verdict]:
    def make(value: Any, schema: Mapping[str, Any], keywords: frozenset[str], formats_asserted: bool) -> Verdict:
        if not _is_number(value):
            raise _Unsupported
        return lambda instance: not _is_number(instance) or compare(instance, value)

    return make


def _size(kind: type[Sized], compare: Callable[[int, Any], bool]) -> Callable[..., Verdict]:
    def make(value: Any, schema: Mapping[str, Any], keywords: frozenset[str], formats_asserted: bool) -> Verdict:
        return lambda instance: not isinstance(instance, kind) or compare(len(instance), value)

    return make


def _required(value: Any, schema: Mapping[str, Any], keywords: frozenset[str], formats_asserted: bool) -> Verdict:
    names = list(value)
    return lambda instance: not isinstance(instance, dict) or all(name in instance for name in names)


def _properties(value: Any, schema: Mapping[str, Any], keywords: frozenset[str], formats_asserted: bool) -> Verdict:
    if not isinstance(value, Mapping):
        raise _Unsupported
    compiled = [(name, _compile(subschema, keywords, formats_asserted)) for name, subschema in value.items()]

    def properties(instance: Any) -> bool:
        if not isinstance(instance, dict):
            return True
        for name, check in compiled:  # noqa: SIM110 - as in every()
            if name in instance and not check(instance[name]):
                return False
        return True

    return properties


def _additional_properties(value: Any, schema: Mapping[str, Any], keywords: frozenset[str], formats_asserted: bool) -> Verdict:
    declared = schema.get("properties", {})
    if not isinstance(declared, Mapping):
        raise _Unsupported
    if value is False:
        return lambda instance: not isinstance(instance, dict) or all(key in declared for key in instance)
    check = _compile(value, keywords, formats_asserted)
    return lambda instance: not isinstance(instance, dict) or all(check(item) for key, item in instance.items() if key not in declared)


def _items(value: Any, schema: Mapping[str, Any], keywords: frozenset[str], formats_asserted: bool) -> Verdict:
    if not isinstance(value, (Mapping, bool)) or "prefixItems" in schema:
        raise _Unsupported
    check = _compile(value, keywords, formats_asserted)
    return lambda instance: not isinstance(instance, list) or all(check(item) for item in instance)


_KEYWORDS: dict[str, Callable[[Any, Mapping[str, Any], frozenset[str], bool], Verdict]] = {
    "type": _type,
    "enum": _enum,
    "const": _const,
    "minimum": _bound(lambda instance, bound: not instance < bound),
    "maximum": _bound(lambda instance, bound: not instance > bound),
    "exclusiveMinimum": _bound(lambda instance, bound: not instance <= bound),
    "exclusiveMaximum": _bound(lambda instance, bound: not instance >= bound),
    "minLength": _size(str, lambda size, bound: not size < bound),
    "maxLength": _size(str, lambda size, bound: not size > bound),
    "minItems": _size(list, lambda size, bound: not size < bound),
    "maxItems": _size(list, lambda size, bound: not size > bound),
    "minProperties": _size(dict, lambda size, bound: not size < bound),
    "maxProperties": _size(dict, lambda size, bound: not size > bound),
    "required": _required,
    "properties": _properties,
    "additionalProperties": _additional_properties,
    "items": _items,
}
