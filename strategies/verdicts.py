"""Compiled verdicts for plain schemas: the validator's answers without its machinery.

Every valid case is drawn and then checked by the schema's validator. jsonschema's `is_valid`
walks the schema anew for each value, with a new validator per subschema and a generator per
keyword. That is a large part of what checking a drawn case costs. Most tool schemas use a
handful of keywords, the ones zod and pydantic write: `type`, `properties`, `required`,
`additionalProperties`, `enum`, bounds. For those, a verdict compiled once per schema is a few
comparisons.

`compile_plain` compiles a schema whose every keyword it knows. It gives a predicate with
exactly the dialect's verdict. It also gives a lister of the keyword and instance path of every
error the dialect's validator yields. Schema reach and a mutant's rejection read those, without
building the errors.

It gives None for any other schema, and its callers then ask jsonschema. Such a schema has a
keyword outside the list below (`_KEYWORDS`), or a `$schema` below the root, where the
validator would switch dialects. Or it has `items` as an array. Or its dialect is before
draft-06, whose `exclusiveMinimum` is a boolean and whose integers exclude 1.0. `format` is an
annotation unless formats are asserted, and then unsupported. Keywords that no validator of the
dialect knows are ignored, as jsonschema ignores them.

`tests/test_verdicts.py` holds both to jsonschema's verdicts and errors. It checks them on
drawn schemas and values, in every supported dialect.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterator, Mapping, Sized
from dataclasses import dataclass
from typing import Any

import jsonschema
from jsonschema.protocols import Validator

Verdict = Callable[[Any], bool]
Path = tuple[str | int, ...]
Failure = tuple[str | None, Path]
"""An error as schema reach reads it: the keyword that failed, and where in the instance.

The keyword is None for a `false` schema. The pair mirrors `ValidationError.validator` and
`absolute_path`.
"""
Failures = Callable[[Any, Path], Iterator[Failure]]

_DIALECTS = (jsonschema.Draft6Validator, jsonschema.Draft7Validator, jsonschema.Draft201909Validator, jsonschema.Draft202012Validator)


@dataclass(frozen=True, slots=True)
class Plain:
    """A plain schema compiled.

    `verdict(instance)` is `is_valid`. `failures(instance, ())` gives the keyword and path of
    each error of `iter_errors`.
    """

    verdict: Verdict
    failures: Failures


class _Unsupported(Exception):
    """A keyword or shape this module does not compile."""


def compile_plain(schema: Mapping[str, Any] | bool, validator_class: type[Validator], *, formats_asserted: bool) -> Plain | None:
    """`schema` compiled for `validator_class`, or None when it is not plain.

    Format assertion is on when `formats_asserted`. See the module's docstring for what is
    plain.
    """
    if validator_class not in _DIALECTS:
        return None
    try:
        return _compile(schema, frozenset(validator_class.VALIDATORS), formats_asserted, root=True)
    except _Unsupported:
        return None


def _compile(schema: Any, keywords: frozenset[str], formats_asserted: bool, *, root: bool = False) -> Plain:
    if schema is True:
        return _ALWAYS
    if schema is False:
        return _NEVER
    if not isinstance(schema, Mapping):
        raise _Unsupported
    if "$schema" in schema and not root:
        raise _Unsupported
    parts: list[Plain] = []
    for keyword, value in schema.items():
        if keyword not in keywords or (keyword == "format" and not formats_asserted):
            continue
        make = _KEYWORDS.get(keyword)
        if make is None:
            raise _Unsupported
        parts.append(make(keyword, value, schema, keywords, formats_asserted))
    if not parts:
        return _ALWAYS
    if len(parts) == 1:
        return parts[0]
    checks = [part.verdict for part in parts]

    def every(instance: Any) -> bool:
        for check in checks:  # noqa: SIM110 - a loop costs less than all() over a generator, per value
            if not check(instance):
                return False
        return True

    def failures(instance: Any, path: Path) -> Iterator[Failure]:
        for part in parts:
            yield from part.failures(instance, path)

    return Plain(every, failures)


def json_equal(left: Any, right: Any) -> bool:
    """Equality of JSON values as JSON Schema sees it.

    1 == 1.0, but true != 1 and "1" != 1.
    """
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, (int, float)) and isinstance(right, (int, float)):
        return left == right
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(json_equal(a, b) for a, b in zip(left, right, strict=True))
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(json_equal(left[key], right[key]) for key in left)
    return type(left) is type(right) and left == right


def _no_failures(instance: Any, path: Path) -> Iterator[Failure]:
    return iter(())


def _false_schema(instance: Any, path: Path) -> Iterator[Failure]:
    yield None, path[:-1]  # jsonschema's `descend` returns a `false` schema's error before adding its step


_ALWAYS = Plain(lambda instance: True, _no_failures)
_NEVER = Plain(lambda instance: False, _false_schema)


def _leaf(keyword: str, verdict: Verdict) -> Plain:
    """A keyword that fails, once, where the instance is."""

    def failures(instance: Any, path: Path) -> Iterator[Failure]:
        if not verdict(instance):
            yield keyword, path

    return Plain(verdict, failures)


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


def _type(keyword: str, value: Any, schema: Mapping[str, Any], keywords: frozenset[str], formats_asserted: bool) -> Plain:
    names = [value] if isinstance(value, str) else list(value)
    if any(name not in _TYPES for name in names):
        raise _Unsupported
    if len(names) == 1:
        return _leaf(keyword, _TYPES[names[0]])
    kinds = [_TYPES[name] for name in names]
    return _leaf(keyword, lambda instance: any(kind(instance) for kind in kinds))


def _enum(keyword: str, value: Any, schema: Mapping[str, Any], keywords: frozenset[str], formats_asserted: bool) -> Plain:
    options = list(value)
    return _leaf(keyword, lambda instance: any(json_equal(option, instance) for option in options))


def _const(keyword: str, value: Any, schema: Mapping[str, Any], keywords: frozenset[str], formats_asserted: bool) -> Plain:
    return _leaf(keyword, lambda instance: json_equal(value, instance))


def _bound(compare: Callable[[Any, Any], bool]) -> Callable[..., Plain]:
    def make(keyword: str, value: Any, schema: Mapping[str, Any], keywords: frozenset[str], formats_asserted: bool) -> Plain:
        if not _is_number(value):
            raise _Unsupported
        return _leaf(keyword, lambda instance: not _is_number(instance) or compare(instance, value))

    return make


def _size(kind: type[Sized], compare: Callable[[int, Any], bool]) -> Callable[..., Plain]:
    def make(keyword: str, value: Any, schema: Mapping[str, Any], keywords: frozenset[str], formats_asserted: bool) -> Plain:
        return _leaf(keyword, lambda instance: not isinstance(instance, kind) or compare(len(instance), value))

    return make


def _required(keyword: str, value: Any, schema: Mapping[str, Any], keywords: frozenset[str], formats_asserted: bool) -> Plain:
    names = list(value)
    return _leaf(keyword, lambda instance: not isinstance(instance, dict) or all(name in instance for name in names))


def _properties(keyword: str, value: Any, schema: Mapping[str, Any], keywords: frozenset[str], formats_asserted: bool) -> Plain:
    if not isinstance(value, Mapping):
        raise _Unsupported
    compiled = [(name, _compile(subschema, keywords, formats_asserted)) for name, subschema in value.items()]
    checks = [(name, part.verdict) for name, part in compiled]

    def verdict(instance: Any) -> bool:
        if not isinstance(instance, dict):
            return True
        for name, check in checks:  # noqa: SIM110 - as in every()
            if name in instance and not check(instance[name]):
                return False
        return True

    def failures(instance: Any, path: Path) -> Iterator[Failure]:
        if isinstance(instance, dict):
            for name, part in compiled:
                if name in instance:
                    yield from part.failures(instance[name], (*path, name))

    return Plain(verdict, failures)


def _additional_properties(keyword: str, value: Any, schema: Mapping[str, Any], keywords: frozenset[str], formats_asserted: bool) -> Plain:
    declared = schema.get("properties", {})
    if not isinstance(declared, Mapping):
        raise _Unsupported
    if value is False:
        return _leaf(keyword, lambda instance: not isinstance(instance, dict) or all(key in declared for key in instance))
    part = _compile(value, keywords, formats_asserted)
    check = part.verdict

    def failures(instance: Any, path: Path) -> Iterator[Failure]:
        if isinstance(instance, dict):
            for key, item in instance.items():
                if key not in declared:
                    yield from part.failures(item, (*path, key))

    return Plain(lambda instance: not isinstance(instance, dict) or all(check(item) for key, item in instance.items() if key not in declared), failures)


def _items(keyword: str, value: Any, schema: Mapping[str, Any], keywords: frozenset[str], formats_asserted: bool) -> Plain:
    if not isinstance(value, (Mapping, bool)) or "prefixItems" in schema:
        raise _Unsupported
    if value is False and "prefixItems" in keywords:
        return _leaf(keyword, lambda instance: not isinstance(instance, list) or not instance)  # 2020-12: one error, here
    part = _compile(value, keywords, formats_asserted)
    check = part.verdict

    def failures(instance: Any, path: Path) -> Iterator[Failure]:
        if isinstance(instance, list):
            for index, item in enumerate(instance):
                yield from part.failures(item, (*path, index))

    return Plain(lambda instance: not isinstance(instance, list) or all(check(item) for item in instance), failures)


_KEYWORDS: dict[str, Callable[[str, Any, Mapping[str, Any], frozenset[str], bool], Plain]] = {
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
