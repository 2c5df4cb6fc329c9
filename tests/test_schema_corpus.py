"""The strategies against the corpus of real tool schemas in tests/schemas/ (see its README):
every value claimed valid validates, every value claimed invalid does not, with Hypothesis's
health checks on. Plus JSON's edges, and what shrinking reaches."""

from __future__ import annotations

import json
import math
import sys
import unicodedata
from pathlib import Path
from typing import Any

import hypothesis
import pytest
from hypothesis import HealthCheck, Phase, find, given, settings

from strategies import CaseKind, Tool, arguments
from strategies.generation import json_values
from strategies.schemas import SchemaCheck
from strategies.values import can_reject_an_object, mutated_objects, valid_values

CORPUS = Path(__file__).parent / "schemas"
FILES = sorted(path.name for path in CORPUS.glob("*.json"))

UNHANDLED: dict[str, str] = {
    # Nothing is left out today: every schema in the corpus draws valid and invalid values. A
    # schema added here must say why, and the list is kept short.
}

_EXAMPLES = settings(
    max_examples=4,
    database=None,
    deadline=None,
    phases=[Phase.generate],
    derandomize=True,
    # too_slow times the machine, which is shared and noisy; the health checks that judge the
    # strategies (filtering too much, examples too large) stay on.
    suppress_health_check=[HealthCheck.too_slow],
)


def _entries(file_name: str) -> list[dict[str, Any]]:
    return json.loads((CORPUS / file_name).read_text())["schemas"]


def test_the_corpus_is_large_and_varied() -> None:
    entries = [entry for name in FILES for entry in _entries(name)]
    assert len(entries) >= 150
    assert len({entry["id"] for entry in entries}) == len(entries)
    text = json.dumps([entry["schema"] for entry in entries])
    for keyword in (
        "$ref",
        "$defs",
        "definitions",
        "prefixItems",
        "unevaluatedProperties",
        "dependentRequired",
        "dependentSchemas",
        "anyOf",
        "oneOf",
        "allOf",
        "not",
        "if",
        "multipleOf",
        "pattern",
        "uniqueItems",
        "patternProperties",
        "propertyNames",
        "date-time",
        "uuid",
        "ipv6",
        "duration",
        "hostname",
    ):
        assert f'"{keyword}"' in text, keyword


@pytest.mark.slow
@pytest.mark.parametrize("file_name", FILES)
def test_every_schema_draws_values_that_are_valid_and_invalid_as_claimed(file_name: str) -> None:
    for entry in _entries(file_name):
        if entry["id"] in UNHANDLED:
            continue
        check = SchemaCheck.for_schema(entry["schema"], where=entry["id"])
        drawn_valid: list[Any] = []

        @_EXAMPLES
        @given(valid_values(check))
        def valid(value: Any) -> None:
            assert check.accepts_strictly(value), (entry["id"], value)
            json.dumps(value, allow_nan=False)
            drawn_valid.append(value)

        valid()
        assert drawn_valid, entry["id"]
        if not can_reject_an_object(check.schema):
            continue

        @_EXAMPLES
        @given(mutated_objects(check, label_prefix="arguments"))
        def invalid(drawn: Any) -> None:
            assert isinstance(drawn.value, dict)
            assert not check.accepts(drawn.value), (entry["id"], drawn)
            assert drawn.label.startswith("arguments")

        invalid()


def test_hypothesis_is_not_capped() -> None:
    """The project works with the newest Hypothesis: `pip install '.[test]'` installs it (no
    ceiling in pyproject.toml), so the suite runs on it. hypothesis-jsonschema's breakage began
    at 6.170.10; the strategies no longer depend on it."""
    major, minor, patch = (int(part) for part in hypothesis.__version__.split(".")[:3])
    assert (major, minor, patch) > (6, 170, 9)
    assert "hypothesis_jsonschema" not in sys.modules


# --------------------------------------------------------------------------------------------
# JSON's edges appear in valid values where the schema allows them
# --------------------------------------------------------------------------------------------

_ENCODED = settings(_EXAMPLES, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
"""For the check that every case encodes: in CI's full run (in one xdist worker, after its other
tests) Hypothesis has twice rejected 50 of 52 derandomized draws of this file's 2020-12 schemas
(once the envelopes', which have no filter), which no run of this file or of that test alone
repeats; what this test judges is what is drawn, and the harness's own runs suppress every health
check. The strategies' filtering is judged by the tests above."""

_FIND = settings(database=None, max_examples=2000, phases=[Phase.generate, Phase.shrink])


def _valid(schema: dict[str, Any]) -> Any:
    return valid_values(SchemaCheck.for_schema(schema))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("schema", "edge", "condition"),
    [
        ({"type": "integer"}, "an integral float", lambda v: isinstance(v, float) and v.is_integer()),
        ({"type": "integer"}, "an integer beyond 2^53", lambda v: isinstance(v, int) and abs(v) > 2**53),
        ({"type": "number"}, "-0.0", lambda v: isinstance(v, float) and v == 0 and math.copysign(1, v) < 0),
        ({"type": "string"}, "an astral character", lambda v: any(ord(c) > 0xFFFF for c in v)),
        ({"type": "string"}, "NUL", lambda v: "\0" in v),
        ({"type": "string"}, "a combining mark", lambda v: any(unicodedata.category(c).startswith("M") for c in v)),
        ({"type": "string"}, "a right-to-left character", lambda v: any(unicodedata.bidirectional(c) in ("R", "AL") for c in v)),
        ({"type": "array"}, "an empty array", lambda v: v == []),
        ({"type": "object"}, "an empty object", lambda v: v == {}),
        ({"type": "string", "maxLength": 40}, "a long string", lambda v: len(v) >= 30),
    ],
)
def test_json_edges_appear_in_valid_values(schema: dict[str, Any], edge: str, condition: Any) -> None:
    found = find(_valid(schema), condition, settings=_FIND)
    assert condition(found), edge


def test_any_json_value_nests() -> None:
    deep = find(json_values(), lambda v: isinstance(v, list) and any(isinstance(x, (list, dict)) and x for x in v), settings=_FIND)
    assert any(isinstance(x, (list, dict)) for x in deep)


def test_recursive_references_are_bounded_and_still_valid() -> None:
    node = {
        "type": "object",
        "properties": {"value": {"type": "integer"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
        "required": ["value"],
    }
    tree = {"$defs": {"node": node}, "$ref": "#/$defs/node"}
    check = SchemaCheck.for_schema(tree)
    nested = find(valid_values(check), lambda v: bool(v.get("children")) and bool(v["children"][0].get("children")), settings=_FIND)
    assert check.accepts(nested)


# --------------------------------------------------------------------------------------------
# Shrinking reaches the simplest value
# --------------------------------------------------------------------------------------------

BOOK = Tool.from_listing(
    {
        "name": "book",
        "inputSchema": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "nights": {"type": "integer", "minimum": 1, "maximum": 30},
                "note": {"type": "string", "maxLength": 50},
                "address": {
                    "type": "object",
                    "properties": {"zip": {"type": "string", "pattern": "^[0-9]{5}$"}, "street": {"type": "string"}},
                    "required": ["zip"],
                },
                "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True, "maxItems": 3},
            },
            "required": ["city", "nights"],
        },
    }
)

_SHRINK = settings(database=None, max_examples=500, derandomize=True, phases=[Phase.generate, Phase.shrink])
"""Derandomized: a random `find` missed the uniqueItems mutation in its 500 examples once, in a
loaded `-n 4` run; the same examples every run, so the test passes or fails for its code alone."""


@pytest.mark.slow
@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("arguments.nights: below minimum 1", {"city": "", "nights": 0}),
        ("arguments.note: 51 characters, above maxLength 50", {"city": "", "nights": 1, "note": "0" * 51}),
        ("arguments.address.zip: pattern '^[0-9]{5}$' violated by \"\"", {"city": "", "nights": 1, "address": {"zip": ""}}),
        ("arguments.tags: item 0 repeated (uniqueItems)", {"city": "", "nights": 1, "tags": ["", ""]}),
    ],
)
def test_invalid_arguments_shrink_to_the_required_properties_plus_the_one_mutation(label: str, expected: dict[str, Any]) -> None:
    """`find` asks Hypothesis for the simplest case of a kind: the required properties at their
    simplest, the mutated node, and nothing else, optional and nested properties dropped (a flat
    schema's cases are in test_strategies.py)."""
    kind = label.split(": ", 1)[1].split(" ")[0]
    where = label.split(":", 1)[0]
    shrunk = find(
        arguments(BOOK, valid=False),
        lambda drawn: drawn.label.split(":", 1)[0] == where and drawn.label.split(": ", 1)[1].startswith(kind),
        settings=_SHRINK,
    )
    assert (shrunk.label, shrunk.value) == (label, expected)


# --------------------------------------------------------------------------------------------
# Every value drawn can be sent: no lone surrogate anywhere, in any kind of case
# --------------------------------------------------------------------------------------------


_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


def _sendable(case: Any) -> None:
    """Both transports send `fuzz.wire.jsonrpc.encode(message)` (a stdio line; an HTTP body): it must
    not raise, and the bytes must be UTF-8 JSON text that reads back as the same message."""
    from fuzz.wire.jsonrpc import encode

    message = case.message(1, _META)
    data = encode(message)
    assert json.loads(data.decode("utf-8", errors="strict")) == message, case


def _stateless() -> Any:
    from strategies.meta import Stateless

    return Stateless("2026-07-28", _META, ("2026-07-28",), over_http=True)


@pytest.mark.slow
@pytest.mark.parametrize("file_name", FILES)
def test_every_case_of_every_kind_encodes_as_the_transports_send_it(file_name: str) -> None:
    """Every case of the kinds whose draws depend on the schema is sendable (`_sendable`). A value
    that cannot be encoded is a bug in `strategies/`, so this fails loudly instead of skipping."""
    from strategies import CaseKind, cases

    stateless = _stateless()
    for entry in _entries(file_name):
        if entry["id"] in UNHANDLED:
            continue
        listing = {"name": "t", "inputSchema": entry["schema"]}
        if entry["schema"].get("type") == "object":
            listing["outputSchema"] = entry["schema"]
        tool = Tool.from_listing(listing)
        kinds = [kind for kind in SCHEMA_KINDS if tool.output_check is not None or kind not in (CaseKind.VALID_OUTPUT, CaseKind.INVALID_OUTPUT)]
        for kind in kinds:
            if kind in (CaseKind.INVALID_ARGUMENTS, CaseKind.INVALID_OUTPUT) and not can_reject_an_object(entry["schema"]):
                continue
            drawn = cases(tool, kind, ["t"], stateless=stateless)
            # The simplest case and one drawn at random, of each kind of each of some 1,200 schemas.
            settings(_ENCODED, max_examples=2)(given(drawn)(_sendable))()


@pytest.mark.slow
def test_every_case_whose_draws_ignore_the_schema_encodes_as_the_transports_send_it() -> None:
    """The envelope's cases, an unknown tool's and a malformed request's are sendable too. Their
    draws ignore the schema and are derandomized: drawn once here, not the same 150 again for each
    file of the corpus above."""
    from strategies import CaseKind, cases
    from strategies.cases import envelope_cases

    settings(_ENCODED, max_examples=50)(given(envelope_cases())(_sendable))()
    anything = Tool.from_listing({"name": "t", "inputSchema": {"type": "object"}})
    for kind in (CaseKind.UNKNOWN_TOOL, CaseKind.MALFORMED_REQUEST):
        settings(_ENCODED, max_examples=50)(given(cases(anything, kind, ["t"], stateless=_stateless()))(_sendable))()


SCHEMA_KINDS = (
    CaseKind.VALID_ARGUMENTS,
    CaseKind.INVALID_ARGUMENTS,
    CaseKind.VALID_OUTPUT,
    CaseKind.INVALID_OUTPUT,
    CaseKind.MALFORMED_META,
    CaseKind.UNSUPPORTED_VERSION,
    CaseKind.HEADER_MISMATCH,
)
"""The kinds whose draws depend on the schema. The others are drawn once: an unknown tool's and a
malformed request's ignore it; an unavailable tool's, a call without a task's and one as a task to
a tool that forbids them draw the valid and invalid arguments above; a sequence's and the task
phase's requests are no strategy's."""


@pytest.mark.slow
@pytest.mark.parametrize(
    "schema",
    [
        {"type": "string"},
        {"type": "string", "pattern": "^.{1,4}$"},
        {"type": "string", "pattern": "^[^a]+$"},
        {"type": "object", "patternProperties": {"^.+$": {"type": "integer"}}, "minProperties": 1},
        {"type": "string", "maxLength": 2},
        {},
    ],
)
def test_no_lone_surrogate_is_ever_drawn(schema: dict[str, Any]) -> None:
    """Where `st.characters()` or a regex's `.` would reach U+D800..U+DFFF, the strategies draw
    from JSON_CHARACTERS instead; a search for a surrogate, valid or mutated, finds none."""

    def has_surrogate(value: Any) -> bool:
        return any(0xD800 <= ord(c) <= 0xDFFF for c in json.dumps(value, ensure_ascii=False) if len(c) == 1)

    check = SchemaCheck.for_schema(schema)
    search = settings(_FIND, max_examples=600, phases=[Phase.generate])
    with pytest.raises(hypothesis.errors.NoSuchExample):
        find(valid_values(check), has_surrogate, settings=search)
    if schema.get("type") == "object":
        with pytest.raises(hypothesis.errors.NoSuchExample):
            find(mutated_objects(check, label_prefix="arguments"), lambda drawn: has_surrogate(drawn.value), settings=search)
