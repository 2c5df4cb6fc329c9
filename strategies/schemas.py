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

from dataclasses import dataclass
from typing import Any, Iterator, Mapping

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
            validator_class.check_schema(schema)
        except jsonschema.exceptions.SchemaError as error:
            location = "/".join(str(part) for part in error.absolute_path) or "(root)"
            raise InvalidSchema(
                f"{where} is not valid {_dialect_name(validator_class)} at {location}: {error.message}"
            ) from None
        return cls(
            schema=schema,
            standard=validator_class(schema),
            strict=validator_class(schema, format_checker=validator_class.FORMAT_CHECKER),
        )

    def accepts(self, value: Any) -> bool:
        return self.standard.is_valid(value)

    def accepts_strictly(self, value: Any) -> bool:
        return self.strict.is_valid(value)

    def errors(self, value: Any) -> Iterator[jsonschema.exceptions.ValidationError]:
        return self.standard.iter_errors(value)


def _dialect_name(validator_class: type) -> str:
    return getattr(validator_class, "__name__", "JSON Schema").removesuffix("Validator")


def resolve_local_ref(schema: Mapping[str, Any], root: Mapping[str, Any], *, depth: int = 0) -> Mapping[str, Any]:
    """Follow a local `$ref` (`#/$defs/...`, `#/definitions/...`, `#`) to the schema it names.

    Returns `schema` unchanged when it has no local `$ref`, or when the reference cannot be
    followed (remote, missing, or a chain deeper than 32): callers then treat the node as
    unconstrained, which can only make them generate less, never claim a wrong label.
    """
    while isinstance(schema, Mapping) and isinstance(schema.get("$ref"), str) and depth < 32:
        reference: str = schema["$ref"]
        if not reference.startswith("#"):
            return schema
        target: Any = root
        for part in reference[1:].split("/")[1:] if reference != "#" else []:
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(target, Mapping) and part in target:
                target = target[part]
            else:
                return schema
        if not isinstance(target, Mapping):
            return schema
        schema, depth = target, depth + 1
    return schema


def json_equal(left: Any, right: Any) -> bool:
    """Equality of JSON values as JSON Schema sees it: 1 == 1.0, but true != 1 and "1" != 1."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, (int, float)) and isinstance(right, (int, float)):
        return left == right
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(json_equal(a, b) for a, b in zip(left, right))
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(json_equal(left[key], right[key]) for key in left)
    return type(left) is type(right) and left == right
