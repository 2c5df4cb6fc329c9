"""JSON Schema dialect handling shared by every strategy.

MCP's default dialect for `inputSchema` and `outputSchema` is JSON Schema 2020-12. A schema may
name another with `$schema`. Draft-07 is common, since zod-to-json-schema writes it. Whether a
value is valid is always decided by the standard validator for the schema's own dialect. It is
never decided by a strategy's belief about what it generated.

`format` is an annotation in 2020-12, and optional in draft-07. A value that only breaks a
`format` is not invalid. So there are two judgements.

- `accepts(value)` is the dialect's standard verdict, formats as annotations. A value claimed
  *invalid* must be rejected by this.
- `accepts_strictly(value)` is the same with format assertion on. A value claimed *valid* must
  be accepted by this. Then a well-behaved server that also checks formats has no reason to
  refuse it.

`pattern` and `patternProperties` are ECMA-262 regular expressions. The validators judge them
with `strategies.ecma_patterns`, never with Python's `re`. So do `additionalProperties`, which
reads `patternProperties`, and the `regex` format.

Sometimes a verdict needs a pattern that module cannot judge. The pattern is not ECMA-262, or
the text is one engines read differently. Then there is no verdict. `accepts` and
`subschema_accepts` say True: not shown to be rejected. `accepts_strictly` says False: not
shown to be accepted. `errors` stops before it. So no claim rests on it either way.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

import jsonschema
import jsonschema.exceptions
import jsonschema.validators
from jsonschema.exceptions import ValidationError
from jsonschema.protocols import Validator

from strategies.ecma_patterns import Undecided, is_ecma, search, verdict
from strategies.verdicts import Failure, Plain, Verdict, compile_plain


class InvalidSchema(ValueError):
    """A schema, or tool definition, that is not JSON Schema.

    Strategies cannot be drawn for it.
    """


@dataclass(frozen=True, slots=True)
class SchemaCheck:
    """The validators of one schema, in its own dialect."""

    schema: Mapping[str, Any]
    standard: Validator
    strict: Validator
    plain: Plain | None = None
    """`standard` compiled by `strategies.verdicts`, when the schema is plain."""
    plain_strict: Verdict | None = None
    """`strict`'s verdict compiled, when the schema is plain and has no `format`."""

    @classmethod
    def for_schema(cls, schema: Mapping[str, Any], *, where: str = "schema") -> SchemaCheck:
        """The validators of `schema`, in its own dialect.

        Raises InvalidSchema when `schema` is not a valid schema of its dialect. The error names
        `where`, and the offending keyword.
        """
        if not isinstance(schema, Mapping):
            raise InvalidSchema(f"{where} is {type(schema).__name__}, expected a JSON Schema object")
        validator_class = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        try:
            _check_schema(validator_class, schema)
        except jsonschema.exceptions.SchemaError as error:
            location = "/".join(str(part) for part in error.absolute_path) or "(root)"
            raise InvalidSchema(f"{where} is not valid {_dialect_name(validator_class)} at {location}: {error.message}") from None
        ecma_class = _ecma_validator(validator_class, _patterns_under_unevaluated(schema))
        return cls(
            schema=schema,
            standard=ecma_class(schema),
            strict=ecma_class(schema, format_checker=_format_checker(validator_class)),
            plain=compile_plain(schema, validator_class, formats_asserted=False),
            plain_strict=_verdict_of(compile_plain(schema, validator_class, formats_asserted=True)),
        )

    def accepts(self, value: Any) -> bool:
        """Whether `value` is not shown to be rejected; True when there is no verdict."""
        if self.plain is not None:
            return self.plain.verdict(value)
        try:
            return self.standard.is_valid(value)
        except Undecided:
            return True

    def accepts_strictly(self, value: Any) -> bool:
        """Whether `value` is shown to be accepted, formats asserted.

        False when there is no verdict.
        """
        if self.plain_strict is not None:
            return self.plain_strict(value)
        try:
            return self.strict.is_valid(value)
        except Undecided:
            return False

    def errors(self, value: Any) -> Iterator[ValidationError]:
        """The standard errors, up to the first place with no verdict.

        Each is an error of the value, whatever that place's verdict would be.
        """
        try:
            yield from self.standard.iter_errors(value)
        except Undecided:
            return

    def failures(self, value: Any) -> Iterator[Failure]:
        """The keyword and instance path of each of `errors`.

        Where the schema is plain, they come from compiled code. Then schema reach and a
        mutant's rejection build no error.
        """
        if self.plain is not None:
            return self.plain.failures(value, ())
        return ((_keyword(error), tuple(error.absolute_path)) for error in self.errors(value))

    def subschema_accepts(self, subschema: Mapping[str, Any] | bool, value: Any) -> bool:
        """The standard verdict on `value` against a part of this schema; True when there is none.

        The part's `$ref`s are resolved against the whole. The generator uses it to check `not`,
        `if` and `contains`, and known-good values.
        """
        try:
            return self.standard.evolve(schema=subschema).is_valid(value)
        except Undecided:
            return True


def _verdict_of(plain: Plain | None) -> Verdict | None:
    return None if plain is None else plain.verdict


def _keyword(error: ValidationError) -> str | None:
    return error.validator if isinstance(error.validator, str) else None


Keyword = Callable[[Any, Any, Any, Mapping[str, Any]], Iterator[ValidationError]]


def _pattern(validator: Any, pattern: str, instance: Any, schema: Mapping[str, Any]) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(validator: Any, patterns: Mapping[str, Any], instance: Any, schema: Mapping[str, Any]) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(validator: Any, additional: Any, instance: Any, schema: Mapping[str, Any]) -> Iterator[ValidationError]:
    """jsonschema's `additionalProperties`, its messages included, with patterns read by ECMA-262.

    A property is left to it when no pattern of `patternProperties` matches its name by
    ECMA-262.
    """
    if not validator.is_type(instance, "object"):
        return
    properties, patterns = schema.get("properties", {}), schema.get("patternProperties", {})
    extras = {key for key in instance if key not in properties and not _matched_by_any(patterns, key)}
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif not additional and extras:
        named = ", ".join(repr(extra) for extra in sorted(extras, key=str))
        if "patternProperties" in schema:
            listed = ", ".join(repr(pattern) for pattern in sorted(patterns))
            yield ValidationError(f"{named} {'does' if len(extras) == 1 else 'do'} not match any of the regexes: {listed}")
        else:
            yield ValidationError(f"Additional properties are not allowed ({named} {'was' if len(extras) == 1 else 'were'} unexpected)")


def _matched_by_any(patterns: Mapping[str, Any], key: str) -> bool:
    verdicts = [verdict(pattern, key) for pattern in patterns]
    if None in verdicts and True not in verdicts:
        raise Undecided(f"whether a pattern of {list(patterns)!r} matches {key!r}")
    return True in verdicts


def _judging_unevaluated(original: Keyword, patterns: frozenset[str]) -> Keyword:
    """jsonschema's `unevaluatedProperties`, where Python and ECMA-262 agree.

    jsonschema's version reads `patternProperties` with Python's `re`. It is used where Python
    and ECMA-262 agree on every pattern of the document, for every name of the object. Where
    they do not, there is no verdict.
    """

    def unevaluated(validator: Any, value: Any, instance: Any, schema: Mapping[str, Any]) -> Iterator[ValidationError]:
        if validator.is_type(instance, "object") and not all(_python_agrees(pattern, key) for pattern in patterns for key in instance):
            raise Undecided("unevaluatedProperties over a patternProperties pattern that Python's re reads otherwise")
        yield from original(validator, value, instance, schema)

    return unevaluated


def _python_agrees(pattern: str, key: str) -> bool:
    try:
        return (re.search(pattern, key) is not None) is verdict(pattern, key)
    except re.error:
        return False


def _check_schema(validator_class: type[Validator], schema: Mapping[str, Any]) -> None:
    """Raises SchemaError when `schema` is not a schema of its dialect.

    A schema that passed before, with the same JSON text, is not checked again. The check
    against the metaschema is the costliest part of making a `Tool`. And the sequence phase
    makes the tools again from each fresh target's listing. A failure is never remembered.
    """
    try:
        key: tuple[type[Validator], str] | None = (validator_class, json.dumps(schema, sort_keys=True))
    except (TypeError, ValueError):
        key = None
    if key in _PASSED:
        return
    # types-jsonschema asks for a dict; jsonschema takes any mapping (its own annotation is
    # `Mapping | bool`), and a format checker (the protocol's stub omits it).
    validator_class.check_schema(schema, format_checker=_metaschema_format_checker(validator_class))  # type: ignore[arg-type, call-arg]
    if key is not None:
        if len(_PASSED) >= 1024:
            _PASSED.clear()
        _PASSED.add(key)


_PASSED: set[tuple[type[Validator], str]] = set()


@functools.lru_cache(maxsize=64)
def _ecma_validator(validator_class: type[Validator], unevaluated_patterns: frozenset[str]) -> type[Validator]:
    """The dialect's validator, with its pattern keywords judged by ECMA-262.

    Every other keyword is judged as the dialect defines it.
    """
    keywords: dict[str, Keyword] = {"pattern": _pattern, "patternProperties": _pattern_properties, "additionalProperties": _additional_properties}
    original = validator_class.VALIDATORS.get("unevaluatedProperties")
    if unevaluated_patterns and original is not None:
        keywords["unevaluatedProperties"] = _judging_unevaluated(original, unevaluated_patterns)
    ecma = {name: keyword for name, keyword in keywords.items() if name in validator_class.VALIDATORS}
    extended: type[Validator] = jsonschema.validators.extend(validator_class, ecma)  # type: ignore[no-untyped-call]
    return extended


def _patterns_under_unevaluated(schema: Mapping[str, Any]) -> frozenset[str]:
    """The `patternProperties` patterns of a document that uses `unevaluatedProperties`."""
    nodes = list(every_object(schema))
    if not any("unevaluatedProperties" in node for node in nodes):
        return frozenset()
    return frozenset(name for node in nodes if isinstance(node.get("patternProperties"), Mapping) for name in node["patternProperties"])


@functools.cache
def _format_checker(validator_class: type[Validator]) -> jsonschema.FormatChecker:
    """The dialect's own format checker, with `duration` checked by RFC 3339's grammar.

    That applies where the dialect defines `duration`: 2019-09 and later. When `isoduration` is
    installed, jsonschema uses it instead. But isoduration imports `arrow`, a heavy import in
    every worker process, for one regular expression's worth of grammar.
    """
    checker = jsonschema.FormatChecker(formats=())
    checker.checkers = dict(validator_class.FORMAT_CHECKER.checkers)
    if "regex" in checker.checkers:
        checker.checkers["regex"] = (_is_ecma_text, ())
    if validator_class not in (jsonschema.Draft3Validator, jsonschema.Draft4Validator, jsonschema.Draft6Validator, jsonschema.Draft7Validator):
        checker.checkers["duration"] = (is_duration, ())
    return checker


@functools.cache
def _metaschema_format_checker(validator_class: type[Validator]) -> jsonschema.FormatChecker:
    """The format checker `check_schema` uses by default, but without `regex`.

    There jsonschema reads a schema's patterns with Python's `re`. `re` refuses ECMA-262's
    `\\p{L}` or `(?<name>…)`. That would make a tool unfuzzable for a pattern it means well.
    Patterns are judged where a value meets them (`strategies.ecma_patterns`).
    """
    meta_class = jsonschema.validators.validator_for(validator_class.META_SCHEMA, default=validator_class)
    checker = jsonschema.FormatChecker(formats=())
    checker.checkers = {name: check for name, check in meta_class.FORMAT_CHECKER.checkers.items() if name != "regex"}
    return checker


def _is_ecma_text(instance: object) -> bool:
    """The `regex` format: an ECMA-262 regular expression.

    Python's `re` reads another language.
    """
    return not isinstance(instance, str) or is_ecma(instance)


_DURATION_TIME = r"T(?:\d+H(?:\d+M(?:\d+S)?)?|\d+M(?:\d+S)?|\d+S)"
_DURATION = re.compile(rf"P(?:(?:\d+D|\d+M(?:\d+D)?|\d+Y(?:\d+M(?:\d+D)?)?)(?:{_DURATION_TIME})?|{_DURATION_TIME}|\d+W)", re.ASCII)


def is_duration(instance: object) -> bool:
    """RFC 3339 Appendix A's `duration`, which JSON Schema's `duration` format names.

    Examples are `P1Y2M3D`, `PT4H5M` and `P3W`. Only strings are checked, as for every format.
    """
    return not isinstance(instance, str) or _DURATION.fullmatch(instance) is not None


def _dialect_name(validator_class: type) -> str:
    return getattr(validator_class, "__name__", "JSON Schema").removesuffix("Validator")


def resolve_local_ref(schema: Mapping[str, Any], root: Mapping[str, Any], *, depth: int = 0) -> Mapping[str, Any]:
    """Follow a `$ref` within the document to the schema it names.

    The reference may be a JSON pointer: `#/$defs/x`, `#/definitions/x`, `#`. It may be an
    anchor, `#name`: a 2020-12 `$anchor`, or a draft-07 `$id: "#name"`. Or it may be an embedded
    `$id`: `item`, or the absolute URI it resolves to.

    Returns `schema` unchanged when it has no `$ref`, or when the reference cannot be followed.
    It cannot be followed when remote, missing, or a chain deeper than 32. Callers then treat
    the node as unconstrained. That can only make them generate less, never claim a wrong label.
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
    """Every JSON object in a schema document, the root first.

    Subschemas and keyword values are listed alike, since callers look for keywords.
    """
    if isinstance(document, Mapping):
        yield document
        for value in document.values():
            yield from every_object(value)
    elif isinstance(document, list):
        for value in document:
            yield from every_object(value)


def matches_pattern(pattern: str, text: str) -> bool:
    """Whether `text` matches the `pattern` keyword as the validator reads it.

    The validator reads it by ECMA-262, unanchored (`strategies.ecma_patterns.search`). False
    when there is no verdict: a pattern that is not ECMA-262, or a text engines read
    differently.
    """
    return verdict(pattern, text) is True
