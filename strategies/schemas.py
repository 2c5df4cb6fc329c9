"""JSON Schema dialect handling shared by every strategy.

MCP's default dialect for `inputSchema` and `outputSchema` is JSON Schema 2020-12; a schema may
name another with `$schema` (draft-07 is common: zod-to-json-schema writes it). Whether a value
is valid is always decided by the standard validator for the schema's own dialect, never by a
strategy's belief about what it generated.

`format` is an annotation in 2020-12 (and optional in draft-07): a value that only breaks a
`format` is not invalid. So there are two judgements:

- `accepts(value)`: the dialect's standard verdict, formats as annotations. A value claimed
  *invalid* must be rejected by this.
- `accepts_strictly(value)`: the same with format assertion on. A value claimed *valid* must be
  accepted by this, so that a well-behaved server that also checks formats has no reason to
  refuse it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

import jsonschema
import jsonschema.exceptions
import jsonschema.validators
from jsonschema.protocols import Validator


class InvalidSchema(ValueError):
    """A schema (or tool definition) that is not JSON Schema. Strategies cannot be drawn for it."""


@dataclass(frozen=True, slots=True)
class SchemaCheck:
    """The validators of one schema, in its own dialect."""

    schema: Mapping[str, Any]
    standard: Validator
    strict: Validator

    @classmethod
    def for_schema(cls, schema: Mapping[str, Any], *, where: str = "schema") -> SchemaCheck:
        """Raises InvalidSchema, naming `where` and the offending keyword, when `schema` is not
        a valid schema of its dialect."""
        if not isinstance(schema, Mapping):
            raise InvalidSchema(f"{where} is {type(schema).__name__}, expected a JSON Schema object")
        validator_class = jsonschema.validators.validator_for(
            schema, default=jsonschema.Draft202012Validator
        )
        try:
            # types-jsonschema asks for a dict; jsonschema takes any mapping (its own annotation
            # is `Mapping | bool`).
            validator_class.check_schema(schema)  # type: ignore[arg-type]
        except jsonschema.exceptions.SchemaError as error:
            location = "/".join(str(part) for part in error.absolute_path) or "(root)"
            raise InvalidSchema(
                f"{where} is not valid {_dialect_name(validator_class)} at {location}: {error.message}"
            ) from None
        return cls(
            schema=schema,
            standard=validator_class(schema),
            strict=validator_class(schema, format_checker=_format_checker(validator_class)),
        )

    def accepts(self, value: Any) -> bool:
        return self.standard.is_valid(value)

    def accepts_strictly(self, value: Any) -> bool:
        return self.strict.is_valid(value)

    def errors(self, value: Any) -> Iterator[jsonschema.exceptions.ValidationError]:
        return self.standard.iter_errors(value)

    def subschema_accepts(self, subschema: Mapping[str, Any] | bool, value: Any) -> bool:
        """The standard verdict on `value` against a part of this schema (its `$ref`s resolved
        against the whole), for the generator's checks of `not`, `if` and `contains`."""
        return self.standard.evolve(schema=subschema).is_valid(value)


@functools.cache
def _format_checker(validator_class: type[Validator]) -> jsonschema.FormatChecker:
    """The dialect's own format checker, with `duration` checked by RFC 3339's grammar where
    the dialect defines it (2019-09 and later) rather than by `isoduration`, which jsonschema
    uses when it is installed: isoduration imports `arrow`, 2 MB in every worker process, for one
    regular expression's worth of grammar."""
    checker = jsonschema.FormatChecker(formats=())
    checker.checkers = dict(validator_class.FORMAT_CHECKER.checkers)
    if validator_class not in (jsonschema.Draft3Validator, jsonschema.Draft4Validator, jsonschema.Draft6Validator,
                               jsonschema.Draft7Validator):
        checker.checkers["duration"] = (is_duration, ())
    return checker


_DURATION_TIME = r"T(?:\d+H(?:\d+M(?:\d+S)?)?|\d+M(?:\d+S)?|\d+S)"
_DURATION = re.compile(
    rf"P(?:(?:\d+D|\d+M(?:\d+D)?|\d+Y(?:\d+M(?:\d+D)?)?)(?:{_DURATION_TIME})?|{_DURATION_TIME}|\d+W)", re.ASCII
)


def is_duration(instance: object) -> bool:
    """RFC 3339 Appendix A's `duration` (what JSON Schema's `duration` format names): `P1Y2M3D`,
    `PT4H5M`, `P3W`, ...; only strings are checked, as for every format."""
    return not isinstance(instance, str) or _DURATION.fullmatch(instance) is not None


def _dialect_name(validator_class: type) -> str:
    return getattr(validator_class, "__name__", "JSON Schema").removesuffix("Validator")


def resolve_local_ref(schema: Mapping[str, Any], root: Mapping[str, Any], *, depth: int = 0) -> Mapping[str, Any]:
    """Follow a `$ref` within the document to the schema it names: a JSON pointer (`#/$defs/x`,
    `#/definitions/x`, `#`), an anchor (`#name`: a 2020-12 `$anchor` or a draft-07 `$id: "#name"`),
    or an embedded `$id` (`item`, or the absolute URI it resolves to).

    Returns `schema` unchanged when it has no `$ref`, or when the reference cannot be followed
    (remote, missing, or a chain deeper than 32): callers then treat the node as unconstrained,
    which can only make them generate less, never claim a wrong label.
    """
    while isinstance(schema, Mapping) and isinstance(schema.get("$ref"), str) and depth < 32:
        target = _named(schema["$ref"], root)
        if not isinstance(target, Mapping):
            return schema
        schema, depth = target, depth + 1
    return schema


def _named(reference: str, root: Mapping[str, Any]) -> Any:
    if reference == "#" or reference.startswith("#/"):
        target: Any = root
        for part in reference[2:].split("/") if reference != "#" else []:
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(target, Mapping) and part in target:
                target = target[part]
            elif isinstance(target, list) and part.isdigit() and int(part) < len(target):
                target = target[int(part)]
            else:
                return None
        return target
    names = _names(root)
    declared_base = root.get("$id")
    base = declared_base if isinstance(declared_base, str) else ""
    for candidate in (reference, urljoin(base, reference), reference.lstrip("#")):
        if candidate in names:
            return names[candidate]
    return None


def _names(root: Mapping[str, Any]) -> dict[str, Any]:
    """Every `$anchor` and `$id` in the document, by the names a `$ref` may use."""
    cached = _NAMES.get(id(root))
    if cached is not None and cached[0] is root:
        return cached[1]
    names: dict[str, Any] = {}
    declared_base = root.get("$id")
    base = declared_base if isinstance(declared_base, str) else ""
    for node in every_object(root):
        if isinstance(node.get("$anchor"), str):
            names[node["$anchor"]] = node
        identifier = node.get("$id")
        if isinstance(identifier, str) and node is not root:
            names[identifier] = node
            names[identifier.lstrip("#")] = node
            names[urljoin(base, identifier)] = node
    if len(_NAMES) > 256:
        _NAMES.clear()
    _NAMES[id(root)] = (root, names)
    return names


_NAMES: dict[int, tuple[Mapping[str, Any], dict[str, Any]]] = {}


def every_object(document: Any) -> Iterator[Mapping[str, Any]]:
    """Every JSON object in a schema document, the root first (subschemas and keyword values
    alike: callers look for keywords)."""
    if isinstance(document, Mapping):
        yield document
        for value in document.values():
            yield from every_object(value)
    elif isinstance(document, list):
        for value in document:
            yield from every_object(value)


def matches_pattern(pattern: str, text: str) -> bool:
    """Whether `text` matches the `pattern` keyword as the validator reads it (Python's
    `re.search`, unanchored); False for a pattern `re` cannot compile."""
    try:
        return re.search(pattern, text) is not None
    except re.error:
        return False


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
