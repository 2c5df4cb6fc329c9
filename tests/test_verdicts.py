"""The compiled verdicts and failures of plain schemas (`strategies.verdicts`) agree with jsonschema's.

Schemas are drawn from the keywords the module compiles, in every dialect it compiles, and
values from the JSON around them (the schemas' own property names, integers that are floats,
booleans beside 0 and 1); each verdict is compared with the dialect's validator, formats
asserted and not. A schema with a keyword the module does not compile gets no verdict.
"""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from strategies import SchemaCheck
from strategies.verdicts import compile_plain

DIALECTS = {
    "draft-06": ("http://json-schema.org/draft-06/schema#", jsonschema.Draft6Validator),
    "draft-07": ("http://json-schema.org/draft-07/schema#", jsonschema.Draft7Validator),
    "2019-09": ("https://json-schema.org/draft/2019-09/schema", jsonschema.Draft201909Validator),
    "2020-12": ("https://json-schema.org/draft/2020-12/schema", jsonschema.Draft202012Validator),
}
NAMES = ("a", "b", "c")
KEYS = (*NAMES, "d")
TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")

scalars = st.sampled_from([None, True, False, 0, 1, -1, 1.0, 2.5, -3.0, 11, 12, "", "a", "abc", "alpha", "1"])
values = st.recursive(
    scalars,
    lambda inner: st.dictionaries(st.sampled_from(KEYS), inner, max_size=4) | st.lists(inner, max_size=3),
    max_leaves=8,
)
objects = st.dictionaries(st.sampled_from(KEYS), values, max_size=4)
bounds = st.sampled_from([0, 1, 2, 3, 1.5, -1, 11])
sizes = st.integers(0, 3)


KEYWORDS: dict[str, st.SearchStrategy[Any]] = {
    "type": st.sampled_from(TYPES) | st.lists(st.sampled_from(TYPES), min_size=1, max_size=3, unique=True),
    "enum": st.lists(values, min_size=1, max_size=3),
    "const": values,
    **{bound: bounds for bound in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")},
    **{size: sizes for size in ("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties")},
    "required": st.lists(st.sampled_from(NAMES), max_size=3, unique=True),
    "properties": st.dictionaries(st.sampled_from(NAMES), st.deferred(lambda: subschemas), max_size=3),
    "additionalProperties": st.deferred(lambda: subschemas),
    "items": st.deferred(lambda: subschemas),
    "title": st.just("annotation"),
    "x-unknown": values,
    "format": st.sampled_from(["email", "date"]),
}
"""Each compiled keyword (and an annotation, an unknown keyword, `format`) with its values."""
plain_schemas: st.SearchStrategy[dict[str, Any]] = st.lists(
    st.sampled_from(sorted(KEYWORDS)).flatmap(lambda keyword: st.tuples(st.just(keyword), KEYWORDS[keyword])),
    max_size=3,
    unique_by=lambda pair: pair[0],
).map(dict)
subschemas = st.booleans() | plain_schemas


def _check(dialect: str, schema: Any) -> SchemaCheck:
    uri, _ = DIALECTS[dialect]
    document = {"$schema": uri, "properties": {"a": schema}} if isinstance(schema, bool) else {"$schema": uri, **schema}
    return SchemaCheck.for_schema(document)


@pytest.mark.slow
@settings(max_examples=300, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(DIALECTS)), plain_schemas, st.lists(objects | values, min_size=1, max_size=8))
def test_a_plain_schema_gets_the_validators_verdict_and_errors_on_every_value(dialect: str, schema: Any, instances: list[Any]) -> None:
    check = _check(dialect, schema)
    assert check.plain is not None
    for instance in instances:
        assert check.plain.verdict(instance) is check.standard.is_valid(instance), (schema, instance)
        errors = {(error.validator, tuple(error.absolute_path)) for error in check.standard.iter_errors(instance)}
        assert set(check.failures(instance)) == errors, (schema, instance)
        if check.plain_strict is not None:
            assert check.plain_strict(instance) is check.strict.is_valid(instance), (schema, instance)
    if "format" not in repr(schema):
        assert check.plain_strict is not None


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}}, "$defs": {"a": {"type": "string"}}},
        {"type": "string", "pattern": "^a"},
        {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        {"type": "object", "patternProperties": {"^x": {}}, "additionalProperties": False},
        {"type": "array", "prefixItems": [{"type": "string"}], "items": False},
        {"type": "array", "uniqueItems": True},
        {"type": "number", "multipleOf": 0.1},
        {"type": "object", "properties": {"a": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "string"}}},
    ],
    ids=["ref", "pattern", "anyOf", "patternProperties", "prefixItems", "uniqueItems", "multipleOf", "inner $schema"],
)
def test_a_schema_with_a_keyword_that_is_not_compiled_gets_no_verdict(schema: dict[str, Any]) -> None:
    check = SchemaCheck.for_schema(schema)
    assert check.plain is None and check.plain_strict is None
    assert check.accepts({"a": "x"}) is check.standard.is_valid({"a": "x"})
    assert list(check.failures([1, 1])) == [(error.validator, tuple(error.absolute_path)) for error in check.standard.iter_errors([1, 1])]


def test_formats_are_annotations_in_the_standard_verdict_and_not_compiled_when_asserted() -> None:
    check = SchemaCheck.for_schema({"type": "string", "format": "email"})
    assert check.plain is not None and check.plain_strict is None
    assert check.accepts("not an email") and not check.accepts_strictly("not an email")


def test_dialects_before_draft_06_get_no_verdict() -> None:
    schema = {"type": "integer", "minimum": 0, "exclusiveMinimum": True}
    assert compile_plain(schema, jsonschema.Draft4Validator, formats_asserted=False) is None
    check = SchemaCheck.for_schema({"$schema": "http://json-schema.org/draft-04/schema#", **schema})
    assert check.plain is None
    assert not check.accepts(0) and check.accepts(1) and not check.accepts(1.0)


def test_integers_booleans_and_equality_as_json_schema_reads_them() -> None:
    check = SchemaCheck.for_schema({"type": "object", "properties": {"n": {"type": "integer"}, "k": {"enum": [1, "1", [True]]}}})
    assert check.plain is not None
    verdict = check.plain.verdict
    assert verdict({"n": 1.0}) and not verdict({"n": 1.5}) and not verdict({"n": True})
    assert verdict({"k": 1.0}) and verdict({"k": [True]}) and not verdict({"k": True}) and not verdict({"k": [1]})


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_every_bound_and_size_keyword_agrees_at_its_edges(dialect: str) -> None:
    edges = [-2, -1, -1.0, 0, 0.0, 0.5, 1, 1.0, 1.5, 2, 3, 3.0, 4, True, None, "", "ab", "abcd", [], [0, 0], {"a": 0, "b": 0, "c": 0}]
    for keyword in (
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "minProperties",
        "maxProperties",
    ):
        for bound in (0, 1, 2, 3) if keyword.endswith(("Length", "Items", "Properties")) else (-1, 0, 1, 1.5, 3):
            check = _check(dialect, {keyword: bound})
            assert check.plain is not None
            for instance in edges:
                assert check.plain.verdict(instance) is check.standard.is_valid(instance), (keyword, bound, instance)


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_every_applicator_agrees_on_what_fails_and_where(dialect: str) -> None:
    schemas = [
        {"items": False},
        {"items": {"type": "string"}},
        {"properties": {"a": {"items": {"type": "integer"}}, "b": False}},
        {"properties": {"a": {}}, "additionalProperties": False},
        {"properties": {"a": {}}, "additionalProperties": {"type": "string", "maxLength": 1}},
        {"additionalProperties": {"properties": {"c": {"type": "null"}}}},
    ]
    instances = [[], [1], ["x", 2, "y", 3], {"a": [1, "x", 2.5]}, {"a": 1, "b": 1}, {"b": "xy", "c": 1, "d": {"c": 0}}, "a"]
    for schema in schemas:
        check = _check(dialect, schema)
        assert check.plain is not None
        for instance in instances:
            errors = {(error.validator, tuple(error.absolute_path)) for error in check.standard.iter_errors(instance)}
            assert set(check.failures(instance)) == errors, (schema, instance)
            assert check.plain.verdict(instance) is (not errors), (schema, instance)
