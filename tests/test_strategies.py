"""Properties of the pure-Hypothesis layer in `strategies/`.

Every verdict here comes from `jsonschema` (or an exact comparison), never from what a strategy
believes it generated.
"""

from __future__ import annotations

import ast
import functools
import re
from random import Random
from typing import Any

import jsonschema
import jsonschema.validators
import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample, Unsatisfiable

from strategies import (
    ABSENT,
    Case,
    CaseKind,
    Labelled,
    Tool,
    cases,
    invalid_arguments,
    malformed_arguments,
    malformed_envelopes,
    unknown_tool_names,
    valid_arguments,
)
from strategies.cases import ENVELOPE, envelope_cases
from strategies.envelopes import (
    canonical_malformed_arguments,
    canonical_malformed_envelopes,
)

SLOW = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), database=None)
FIND = settings(max_examples=2000, deadline=None, suppress_health_check=list(HealthCheck), database=None)

# --------------------------------------------------------------------------------------------
# Schemas
# --------------------------------------------------------------------------------------------

SCHEMAS: dict[str, dict[str, Any]] = {
    "nested-required-closed": {
        "type": "object",
        "properties": {
            "address": {
                "type": "object",
                "properties": {
                    "street": {"type": "string"},
                    "zip": {"type": "string", "pattern": "^[0-9]{5}$"},
                },
                "required": ["street", "zip"],
                "additionalProperties": False,
            },
            "label": {"type": "string"},
        },
        "required": ["address"],
        "additionalProperties": False,
    },
    "enum": {
        "type": "object",
        "properties": {
            "unit": {"enum": ["celsius", "fahrenheit", 0]},
            "mode": {"type": "string", "enum": ["fast", "slow"]},
        },
        "required": ["unit", "mode"],
    },
    "const": {
        "type": "object",
        "properties": {
            "version": {"const": 2},
            "kind": {"type": "string", "const": "search"},
            "flag": {"const": True},
        },
        "required": ["version", "kind"],
    },
    "numeric-bounds": {
        "type": "object",
        "properties": {
            "count": {"type": "integer", "minimum": 0, "maximum": 100},
            "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
            "temperature": {"type": "number", "minimum": -273.15, "maximum": 1000.5},
            "level": {"type": "integer", "exclusiveMinimum": -3, "exclusiveMaximum": 3},
        },
        "required": ["count", "ratio", "level"],
    },
    "string-constraints": {
        "type": "object",
        "properties": {
            "code": {"type": "string", "minLength": 2, "maxLength": 4},
            "slug": {"type": "string", "pattern": "^[a-z]+(-[a-z]+)*$"},
            "email": {"type": "string", "format": "email"},
            "ip": {"type": "string", "format": "ipv4"},
            "day": {"type": "string", "format": "date"},
            "nickname": {"type": "string", "maxLength": 0},
        },
        "required": ["code", "slug", "ip", "day"],
    },
    "arrays": {
        "type": "object",
        "properties": {
            "tags": {"type": "array", "items": {"type": "string", "maxLength": 5}, "maxItems": 3},
            "matrix": {
                "type": "array",
                "items": {"type": "array", "items": {"type": "integer", "minimum": 0}, "maxItems": 3},
                "maxItems": 3,
            },
            "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer", "maximum": 9}]},
        },
        "required": ["tags", "matrix"],
    },
    "local-ref-defs": {
        "type": "object",
        "$defs": {
            "point": {
                "type": "object",
                "properties": {"x": {"type": "number"}, "y": {"type": "number", "minimum": 0}},
                "required": ["x", "y"],
                "additionalProperties": False,
            },
        },
        "properties": {"from": {"$ref": "#/$defs/point"}, "to": {"$ref": "#/$defs/point"}},
        "required": ["from", "to"],
        "additionalProperties": False,
    },
    "zod-to-json-schema-draft-07": {
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 1},
            "limit": {"type": "integer", "exclusiveMinimum": 0, "maximum": 50},
            "sort": {"type": "string", "enum": ["asc", "desc"]},
            "filters": {"$ref": "#/definitions/filters"},
        },
        "required": ["query"],
        "additionalProperties": False,
        "definitions": {
            "filters": {
                "type": "object",
                "properties": {"lang": {"type": "string", "maxLength": 2}},
                "additionalProperties": False,
            },
        },
        "$schema": "http://json-schema.org/draft-07/schema#",
    },
    "python-sdk-pydantic": {
        "properties": {"a": {"title": "A", "type": "integer"}},
        "required": ["a"],
        "title": "addArguments",
        "type": "object",
    },
    "python-sdk-pydantic-optional": {
        "properties": {
            "name": {"title": "Name", "type": "string"},
            "age": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None, "title": "Age"},
            "tags": {"items": {"type": "string"}, "title": "Tags", "type": "array"},
        },
        "required": ["name", "tags"],
        "title": "greetArguments",
        "type": "object",
    },
    "awkward-keys-and-map": {
        "type": "object",
        "properties": {
            "first name": {"type": "string", "maxLength": 3},
            "x-y": {"type": "integer", "maximum": 0},
            "0": {"type": ["string", "null"]},
            "it's": {"type": "boolean"},
        },
        "additionalProperties": {"type": "integer", "maximum": 9},
        "required": ["first name", "0"],
    },
    "bare-object": {"type": "object"},
}

# The standard validator has nothing to reject in a bare object that stays an object.
BREAKABLE = [name for name in SCHEMAS if name != "bare-object"]


@functools.cache
def tool_for(name: str) -> Tool:
    return Tool.from_listing({"name": name, "inputSchema": SCHEMAS[name]})


@functools.cache
def valid_for(name: str) -> st.SearchStrategy[Labelled[dict[str, Any]]]:
    """One strategy object per schema, so that `data.draw` does not rebuild it every example."""
    return valid_arguments(tool_for(name))


@functools.cache
def invalid_for(name: str) -> st.SearchStrategy[Labelled[dict[str, Any]]]:
    return invalid_arguments(tool_for(name))


def strict_validator(schema: dict[str, Any]) -> jsonschema.protocols.Validator:
    """jsonschema's own format checkers, with `duration` checked by the RFC 3339 grammar as
    below (jsonschema checks it only where `isoduration` is installed, which mcp-toolfuzz is not
    any more)."""
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    checker = jsonschema.FormatChecker(formats=())
    checker.checkers = {**cls.FORMAT_CHECKER.checkers, "duration": (_rfc3339_duration.fullmatch, ())}
    return cls(schema, format_checker=checker)


# RFC 3339 Appendix A, rule by rule (each optional part in brackets there is `?` here).
_DIGITS = "[0-9]+"
_SECOND = f"{_DIGITS}S"
_MINUTE = f"{_DIGITS}M(?:{_SECOND})?"
_HOUR = f"{_DIGITS}H(?:{_MINUTE})?"
_TIME = f"T(?:{_HOUR}|{_MINUTE}|{_SECOND})"
_DAY = f"{_DIGITS}D"
_WEEK = f"{_DIGITS}W"
_MONTH = f"{_DIGITS}M(?:{_DAY})?"
_YEAR = f"{_DIGITS}Y(?:{_MONTH})?"
_DATE = f"(?:{_DAY}|{_MONTH}|{_YEAR})(?:{_TIME})?"
_rfc3339_duration = re.compile(f"P(?:{_DATE}|{_TIME}|{_WEEK})")


def _duration_from_grammar() -> st.SearchStrategy[str]:
    digits = st.integers(0, 10**6).map(str)

    def chain(*designators: str) -> st.SearchStrategy[str]:
        """`1*DIGIT d1 [1*DIGIT d2 [...]]`: a run of the designators from the first."""
        return st.integers(1, len(designators)).flatmap(
            lambda count: st.tuples(*[digits] * count).map(lambda numbers: "".join(n + d for n, d in zip(numbers, designators[:count], strict=True)))
        )

    time = st.one_of(chain("H", "M", "S"), chain("M", "S"), chain("S")).map(lambda text: "T" + text)
    date = st.tuples(st.one_of(chain("D"), chain("M", "D"), chain("Y", "M", "D")), st.one_of(st.just(""), time)).map("".join)
    return st.one_of(date, time, chain("W")).map(lambda text: "P" + text)


@settings(max_examples=300, deadline=None, database=None)
@given(duration=_duration_from_grammar(), where=st.integers(0, 40), junk=st.sampled_from(["", "P", "T", "1", "D", ".5", " ", "\u0661"]))
def test_durations_are_checked_by_rfc_3339s_grammar(duration: str, where: int, junk: str) -> None:
    from strategies.schemas import is_duration

    assert is_duration(duration), duration
    changed = duration[:where] + junk + duration[where:]
    assert is_duration(changed) == bool(_rfc3339_duration.fullmatch(changed)), changed
    for wrong in ("P", "PT", "P1Y3D", "PT1H1S", "P1W2D", "P1.5D", "p1d", "P1DT"):
        assert not is_duration(wrong), wrong


def standard_validator(schema: dict[str, Any]) -> jsonschema.protocols.Validator:
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return cls(schema)


def test_draft_07_schema_is_judged_as_draft_07() -> None:
    """Guards the premise of the dialect cases: `exclusiveMinimum: 0` only parses as a number
    bound in draft-06+, and the validator chosen must be draft-07's."""
    assert jsonschema.validators.validator_for(SCHEMAS["zod-to-json-schema-draft-07"]) is jsonschema.Draft7Validator


# --------------------------------------------------------------------------------------------
# Labels
# --------------------------------------------------------------------------------------------

_SEGMENT = re.compile(
    r"""\.(?P<ident>[^.\[\]:\s]+)"""
    r"""|\[(?P<index>\d+)\]"""
    r"""|\[(?P<key>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")\]"""
)


def parse_label(label: str) -> tuple[tuple[str | int, ...], str]:
    """Split `arguments.a['b c'][0]: description` into its path and its description."""
    assert label.startswith("arguments"), label
    position, path = len("arguments"), []
    while not label.startswith(": ", position):
        match = _SEGMENT.match(label, position)
        assert match is not None, f"unparseable path in label {label!r} at {position}"
        if match["ident"] is not None:
            path.append(match["ident"])
        elif match["index"] is not None:
            path.append(int(match["index"]))
        else:
            path.append(ast.literal_eval(match["key"]))
        position = match.end()
    return tuple(path), label[position + 2 :]


def test_parse_label_reads_every_path_form() -> None:
    assert parse_label("arguments: required property 'a' missing") == ((), "required property 'a' missing")
    assert parse_label("arguments.a.x-y[3]['first name'][\"it's\"]['0']: above maximum 9") == (
        ("a", "x-y", 3, "first name", "it's", "0"),
        "above maximum 9",
    )


# What each label description claims, as the validator keyword that must report it. A
# description may match more than one (an enum replacement could be the text "... is not const 1"),
# so a label is accepted when one of the keywords it could mean is really reported at its path.
_DESCRIPTIONS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"wrong type: expected .+, got .+", re.S), "type"),
    (re.compile(r"required property .+ missing", re.S), "required"),
    (re.compile(r"property .* not allowed \(additionalProperties: false\)", re.S), "additionalProperties"),
    (re.compile(r"above maximum \S+"), "maximum"),
    (re.compile(r"below minimum \S+"), "minimum"),
    (re.compile(r"not below exclusiveMaximum \S+"), "exclusiveMaximum"),
    (re.compile(r"not above exclusiveMinimum \S+"), "exclusiveMinimum"),
    (re.compile(r".+ not in enum .+", re.S), "enum"),
    (re.compile(r".+ is not const .+", re.S), "const"),
    (re.compile(r"pattern .+ violated by .+", re.S), "pattern"),
    (re.compile(r"\d+ characters, above maxLength \d+"), "maxLength"),
    (re.compile(r"\d+ characters, below minLength \d+"), "minLength"),
    (re.compile(r".+ is not a multiple of \S+", re.S), "multipleOf"),
    (re.compile(r"\d+ items, above maxItems \d+"), "maxItems"),
    (re.compile(r"\d+ items, below minItems \d+"), "minItems"),
    (re.compile(r"item \d+ repeated \(uniqueItems\)"), "uniqueItems"),
    (re.compile(r"property .* not allowed \(unevaluatedProperties: false\)", re.S), "unevaluatedProperties"),
    (re.compile(r".+ missing, though .+ is present \(dependentRequired\)", re.S), "dependentRequired"),
    (re.compile(r".+ missing, though .+ is present \(dependencies\)", re.S), "dependencies"),
]


def _with_context(error: Any) -> list[Any]:
    return [error, *(inner for sub in error.context or () for inner in _with_context(sub))]


def claimed_keywords(description: str) -> set[str]:
    return {keyword for pattern, keyword in _DESCRIPTIONS if pattern.fullmatch(description)}


# --------------------------------------------------------------------------------------------
# 1. valid and invalid arguments against jsonschema
# --------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("schema_name", list(SCHEMAS))
@SLOW
@given(data=st.data())
def test_valid_arguments_are_accepted_with_formats_asserted(schema_name: str, data: st.DataObject) -> None:
    drawn = data.draw(valid_for(schema_name))
    assert isinstance(drawn, Labelled)
    assert drawn.label == "valid arguments"
    assert isinstance(drawn.value, dict)
    errors = [error.message for error in strict_validator(SCHEMAS[schema_name]).iter_errors(drawn.value)]
    assert errors == [], (drawn.value, errors)


@pytest.mark.slow
@pytest.mark.parametrize("schema_name", BREAKABLE)
@SLOW
@given(data=st.data())
def test_invalid_arguments_are_rejected_where_and_why_the_label_says(schema_name: str, data: st.DataObject) -> None:
    drawn = data.draw(invalid_for(schema_name))
    assert isinstance(drawn.value, dict), drawn
    errors = list(standard_validator(SCHEMAS[schema_name]).iter_errors(drawn.value))
    assert errors, f"accepted: {drawn}"
    path, description = parse_label(drawn.label)
    description, _, combinator = description.partition(" (so no branch of ")
    if combinator:
        # Rejected inside a combinator: the validator names the combinator at the top, and the
        # mutated keyword among its branches' errors.
        assert any(error.validator == combinator.split()[0] for error in errors), (drawn, errors)
        errors = [inner for error in errors for inner in _with_context(error)]
    at_path = [error for error in errors if tuple(error.absolute_path) == path]
    assert at_path, (drawn, [(tuple(e.absolute_path), e.validator, e.message) for e in errors])
    keywords = claimed_keywords(description)
    assert keywords, f"label describes no known mutation: {drawn.label!r}"
    assert any(error.validator in keywords for error in at_path), (
        drawn,
        keywords,
        [(e.validator, e.message) for e in at_path],
    )


@pytest.mark.parametrize("schema_name", ["nested-required-closed", "local-ref-defs", "arrays"])
def test_invalid_arguments_reach_below_the_root(schema_name: str) -> None:
    """Sites are found through nested objects, `$ref` and arrays, not only at the root."""
    found = find(
        invalid_for(schema_name),
        lambda drawn: len(parse_label(drawn.label)[0]) >= 2,
        settings=settings(FIND, phases=[Phase.generate]),
        random=Random(0),
    )
    assert len(parse_label(found.label)[0]) >= 2


OPTIONAL_ONLY = {"type": "object", "properties": {"level": {"type": "integer"}, "mode": {"enum": ["a", "b"]}}}
"""Every property optional, any other allowed: a valid base without them offers no node to break."""


def test_an_absent_optional_property_is_added_with_a_refused_value() -> None:
    """The base `{}` (the simplest) has nothing to break; the invalid value adds an absent
    property with a value the schema refuses there, so the case is drawn rather than retried."""
    found = find(
        invariant_arguments(OPTIONAL_ONLY),
        lambda drawn: parse_label(drawn.label)[0] == ("mode",),
        settings=settings(FIND, phases=[Phase.generate]),
        random=Random(0),
    )
    assert set(found.value) == {"mode"}, found
    assert "not in enum" in found.label or "wrong type" in found.label, found
    errors = list(jsonschema.Draft202012Validator(OPTIONAL_ONLY).iter_errors(found.value))
    assert [tuple(error.absolute_path) for error in errors] == [("mode",)], found


@SLOW
@given(data=st.data())
def test_an_added_property_breaks_nothing_but_itself(data: st.DataObject) -> None:
    """Adding an absent property can break the object's own keywords: `maxProperties: 1` when
    the base holds another property, `propertyNames` for `level` (five characters) always.
    Such a value is never drawn: every error is at the place the label names."""
    schema = {**OPTIONAL_ONLY, "maxProperties": 1, "propertyNames": {"maxLength": 4}}
    drawn = data.draw(invariant_arguments(schema))
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(drawn.value))
    path = parse_label(drawn.label)[0]
    assert errors and all(tuple(error.absolute_path) == path for error in errors), (drawn, [e.message for e in errors])
    assert "level" not in drawn.value, drawn


def invariant_arguments(schema: dict[str, Any]) -> st.SearchStrategy[Labelled[dict[str, Any]]]:
    return invalid_arguments(Tool.from_listing({"name": "t", "inputSchema": schema}))


# --------------------------------------------------------------------------------------------
# 2. nothing to break
# --------------------------------------------------------------------------------------------


def test_bare_object_has_no_invalid_arguments() -> None:
    drawn: list[Labelled[dict[str, Any]]] = []

    @settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(invalid_for("bare-object"))
    def draw_some(value: Labelled[dict[str, Any]]) -> None:
        drawn.append(value)

    with pytest.raises(Unsatisfiable):
        draw_some()
    assert drawn == []


# --------------------------------------------------------------------------------------------
# 3. unknown tool names
# --------------------------------------------------------------------------------------------

TRICKY_NAMES = ["a", "A", "add", "add ", "", "ütf", "n" * 150 + "é" + "x" * 149]
assert len(TRICKY_NAMES[-1]) == 300


@settings(max_examples=200, deadline=None, database=None)
@given(unknown_tool_names(TRICKY_NAMES))
def test_unknown_tool_names_are_never_listed(drawn: Labelled[str]) -> None:
    assert isinstance(drawn.value, str)
    assert all(drawn.value != listed for listed in TRICKY_NAMES), drawn


@pytest.mark.parametrize("listed_name", TRICKY_NAMES, ids=lambda name: repr(name[:12]) + f"/{len(name)}")
def test_unknown_tool_names_cover_near_misses_of_each_listed_name(listed_name: str) -> None:
    marker = f"near-miss of {listed_name!r}"
    found = find(unknown_tool_names(TRICKY_NAMES), lambda drawn: marker in drawn.label, settings=FIND, random=Random(0))
    assert found.label.startswith(marker + ":"), found
    assert found.value not in TRICKY_NAMES


def test_unknown_tool_names_shrink_to_the_empty_name_when_it_is_not_listed() -> None:
    found = find(unknown_tool_names(["add", "a"]), lambda drawn: True, settings=FIND, random=Random(0))
    assert found == Labelled("", "empty name")


def test_unknown_tool_names_without_listed_tools() -> None:
    found = find(unknown_tool_names([]), lambda drawn: drawn.label == "arbitrary unicode", settings=FIND, random=Random(0))
    assert found.value != ""
    with pytest.raises(NoSuchExample):
        find(unknown_tool_names([]), lambda drawn: "near-miss" in drawn.label, settings=SLOW, random=Random(0))


# --------------------------------------------------------------------------------------------
# 4. envelopes
# --------------------------------------------------------------------------------------------

# CallToolRequest from the MCP 2025-11-25 schema, reduced to what decides well-formedness.
CALL_TOOL_PARAMS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "arguments": {"type": "object"}},
    "required": ["name"],
}
CALL_TOOL_REQUEST_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "jsonrpc": {"const": "2.0"},
        "id": {"type": ["string", "integer"]},
        "method": {"const": "tools/call"},
        "params": CALL_TOOL_PARAMS_SCHEMA,
    },
    "required": ["jsonrpc", "id", "method", "params"],
}
REQUEST_VALIDATOR = jsonschema.Draft202012Validator(CALL_TOOL_REQUEST_SCHEMA)
ADD = Tool.from_listing({"name": "add", "inputSchema": SCHEMAS["python-sdk-pydantic"]})
LISTED = ["add", "subtract"]


@settings(max_examples=200, deadline=None, database=None)
@given(st.one_of(malformed_envelopes(), malformed_arguments("add")))
def test_malformed_params_fail_the_call_tool_request_schema(drawn: Labelled[Any]) -> None:
    message = Case(CaseKind.MALFORMED_REQUEST, "add", drawn.value, drawn.label).message(7)
    assert not REQUEST_VALIDATOR.is_valid(message), drawn
    if drawn.value is ABSENT:
        assert "params" not in message
    else:
        assert not jsonschema.Draft202012Validator(CALL_TOOL_PARAMS_SCHEMA).is_valid(drawn.value), drawn


@pytest.mark.parametrize("canonical", [*canonical_malformed_envelopes(), *canonical_malformed_arguments("add")], ids=lambda c: c.label)
def test_canonical_malformed_params_fail_the_call_tool_request_schema(canonical: Labelled[Any]) -> None:
    message = Case(CaseKind.MALFORMED_REQUEST, "add", canonical.value, canonical.label).message(7)
    assert not REQUEST_VALIDATOR.is_valid(message), canonical


def test_malformed_arguments_name_the_tool_and_malformed_envelopes_name_none() -> None:
    arguments = find(malformed_arguments("add"), lambda drawn: True, settings=FIND, random=Random(0))
    assert arguments.value["name"] == "add" and not isinstance(arguments.value["arguments"], dict)
    envelope = find(malformed_envelopes(), lambda drawn: isinstance(drawn.value, dict) and "name" in drawn.value, settings=FIND, random=Random(0))
    assert not isinstance(envelope.value["name"], str)


def test_malformed_params_shrink_to_a_request_without_params() -> None:
    found = find(malformed_envelopes(), lambda drawn: True, settings=FIND, random=Random(0))
    assert found.value is ABSENT
    assert found.label == "params missing"


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(data=st.data(), kind=st.sampled_from([CaseKind.VALID_ARGUMENTS, CaseKind.UNKNOWN_TOOL]))
def test_well_formed_cases_pass_the_call_tool_request_schema(data: st.DataObject, kind: CaseKind) -> None:
    case = data.draw(cases(ADD, kind, LISTED))
    assert case.kind is kind and case.tool == "add"
    message = case.message(7)
    errors = [error.message for error in REQUEST_VALIDATOR.iter_errors(message)]
    assert errors == [], (case, errors)
    assert message == {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": case.params}
    if kind is CaseKind.VALID_ARGUMENTS:
        assert case.params["name"] == "add"
        assert standard_validator(SCHEMAS["python-sdk-pydantic"]).is_valid(case.params["arguments"])
    else:
        assert case.params["name"] not in LISTED


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(data=st.data())
def test_invalid_argument_cases_are_well_formed_envelopes_with_rejected_arguments(data: st.DataObject) -> None:
    case = data.draw(cases(ADD, CaseKind.INVALID_ARGUMENTS, LISTED))
    assert REQUEST_VALIDATOR.is_valid(case.message("x")), case
    assert not standard_validator(SCHEMAS["python-sdk-pydantic"]).is_valid(case.params["arguments"])


def test_case_message_shape() -> None:
    with_params = Case(CaseKind.VALID_ARGUMENTS, "add", {"name": "add", "arguments": {"a": 1}}, "valid arguments")
    assert with_params.message(7) == {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 1}},
    }
    assert with_params.has_params
    without = Case(CaseKind.MALFORMED_REQUEST, "add", ABSENT, "malformed: params missing")
    assert without.message(7) == {"jsonrpc": "2.0", "id": 7, "method": "tools/call"}
    assert not without.has_params
    null_params = Case(CaseKind.MALFORMED_REQUEST, "add", None, "malformed: params is None")
    assert null_params.message("r1") == {"jsonrpc": "2.0", "id": "r1", "method": "tools/call", "params": None}


def test_malformed_cases_keep_their_absent_params() -> None:
    found = find(envelope_cases(), lambda case: not case.has_params, settings=FIND, random=Random(0))
    assert found.message(7) == {"jsonrpc": "2.0", "id": 7, "method": "tools/call"}
    assert found.label == "malformed: params missing"
    assert found.tool == ENVELOPE


def test_per_tool_malformed_cases_name_their_tool() -> None:
    found = find(cases(ADD, CaseKind.MALFORMED_REQUEST, LISTED), lambda case: True, settings=FIND, random=Random(0))
    assert found.params["name"] == "add" and found.label.startswith("malformed: arguments is")


# --------------------------------------------------------------------------------------------
# 5. shrinking
# --------------------------------------------------------------------------------------------

BOOKING = Tool.from_listing(
    {
        "name": "book",
        "inputSchema": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "nights": {"type": "integer", "minimum": 1, "maximum": 30},
                "guests": {"type": "integer", "minimum": 1},
                "note": {"type": "string"},
            },
            "required": ["city", "nights", "guests"],
            "additionalProperties": False,
        },
    }
)
SIMPLEST_BOOKING = {"city": "", "nights": 1, "guests": 1}


def test_valid_arguments_shrink_to_required_properties_at_their_simplest() -> None:
    found = find(valid_arguments(BOOKING), lambda drawn: True, settings=FIND, random=Random(0))
    assert found.value == SIMPLEST_BOOKING


def test_above_maximum_shrinks_to_one_past_the_bound() -> None:
    found = find(invalid_arguments(BOOKING), lambda drawn: "maximum" in drawn.label, settings=FIND, random=Random(0))
    assert found.value == {"city": "", "nights": 31, "guests": 1}, found
    assert found.label == "arguments.nights: above maximum 30"


def test_missing_shrinks_to_the_other_required_properties() -> None:
    found = find(invalid_arguments(BOOKING), lambda drawn: "missing" in drawn.label, settings=FIND, random=Random(0))
    match = re.fullmatch(r"arguments: required property '(\w+)' missing", found.label)
    assert match is not None, found
    assert found.value == {key: value for key, value in SIMPLEST_BOOKING.items() if key != match[1]}, found


@pytest.mark.parametrize("missing", ["city", "nights", "guests"])
def test_each_missing_property_shrinks_to_the_other_two(missing: str) -> None:
    found = find(
        invalid_arguments(BOOKING),
        lambda drawn: drawn.label == f"arguments: required property {missing!r} missing",
        settings=FIND,
        random=Random(0),
    )
    assert found.value == {key: value for key, value in SIMPLEST_BOOKING.items() if key != missing}, found
