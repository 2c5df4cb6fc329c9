"""The wire types the oracle checks answers against (`fuzz/wire/shapes.py`): the
specification's JSON Schema, read as the official `mcp-types` models read results, so that
leaving the models (20 MB a process) changed no verdict."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp_types.jsonrpc import ErrorData
from mcp_types.methods import SERVER_RESULTS
from pydantic import TypeAdapter, ValidationError

from fuzz.wire.shapes import (
    _VALIDATORS,
    _plainly_valid,
    call_tool_result_problem,
    error_object_problem,
)

REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
WORDS = (
    "text",
    "image",
    "audio",
    "resource",
    "resource_link",
    "complete",
    "input_required",
    "other",
    "user",
    "assistant",
    "aGk=",
    "not base64",
    "file:///a",
    "image/png",
    "",
    "2025-01-01T00:00:00Z",
    "elicitation/create",
    "sampling/createMessage",
    "roots/list",
    "form",
    "url",
    "light",
)
MEMBERS = (
    "type",
    "text",
    "data",
    "mimeType",
    "uri",
    "name",
    "title",
    "size",
    "resource",
    "blob",
    "annotations",
    "audience",
    "priority",
    "lastModified",
    "_meta",
    "content",
    "isError",
    "structuredContent",
    "resultType",
    "inputRequests",
    "requestState",
    "method",
    "params",
    "message",
    "requestedSchema",
    "properties",
    "messages",
    "role",
    "maxTokens",
    "icons",
    "src",
)
# Integral floats (1.0) are left out: JSON Schema calls them integers, pydantic's strict mode
# does not, and the harness follows JSON Schema there (see shapes' docstring).
LEAVES = st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from([0.5, -0.5, 1.5, 1e-9]) | st.sampled_from(WORDS)
VALUES = st.recursive(
    LEAVES,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(MEMBERS), inner, max_size=4),
    max_leaves=12,
)
BLOCKS = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "image", "audio", "resource", "resource_link"])},
    optional={name: LEAVES for name in ("text", "data", "mimeType", "uri", "name", "size", "title")}
    | {"resource": VALUES, "annotations": VALUES, "_meta": VALUES},
)
RESULTS = st.fixed_dictionaries(
    {},
    optional={
        "content": st.lists(BLOCKS | VALUES, max_size=2),
        "isError": LEAVES,
        "structuredContent": VALUES,
        "_meta": VALUES,
        "resultType": st.sampled_from(["complete", "input_required"]),
        "inputRequests": st.dictionaries(st.sampled_from(["a", "b"]), VALUES, max_size=2) | VALUES,
        "requestState": LEAVES,
    },
)


def _adapter(revision: str, result: Any) -> TypeAdapter[Any]:
    model = SERVER_RESULTS.get(("tools/call", revision)) or SERVER_RESULTS[("tools/call", "2025-11-25")]
    members = getattr(model, "__args__", None)
    if members:
        wanted = "InputRequiredResult" if result.get("resultType") == "input_required" else "CallToolResult"
        model = next(member for member in members if member.__name__ == wanted)
    return TypeAdapter(model)


def _models_accept(adapter: TypeAdapter[Any], value: Any) -> bool:
    try:
        adapter.validate_python(value, strict=True, by_name=False)
    except ValidationError:
        return False
    return True


@pytest.mark.slow
@settings(max_examples=500, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(RESULTS, st.sampled_from(REVISIONS))
def test_a_result_is_well_formed_exactly_when_the_official_models_accept_it(result: dict[str, Any], revision: str) -> None:
    if revision == "2026-07-28" and result.get("resultType") == "input_required":
        # the harness asks more than the schema here (one of the two), before the schema
        result.setdefault("requestState", "s")
    problem = call_tool_result_problem(result, revision)
    assert (problem is None) == _models_accept(_adapter(revision, result), result), problem


@settings(max_examples=500, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(st.fixed_dictionaries({}, optional={"code": LEAVES, "message": LEAVES, "data": VALUES}) | VALUES)
def test_an_error_object_is_well_formed_exactly_when_the_official_model_accepts_it(error: Any) -> None:
    assert (error_object_problem(error) is None) == _models_accept(TypeAdapter(ErrorData), error)


@pytest.mark.slow
@settings(max_examples=500, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(RESULTS, st.sampled_from(["2025-11-25", "2026-07-28"]))
def test_the_shortcut_only_passes_what_the_schema_accepts(result: dict[str, Any], era: str) -> None:
    if _plainly_valid(result, era):
        assert _VALIDATORS[(era, "CallToolResult")].is_valid(result)


def test_the_shortcut_takes_the_common_answers() -> None:
    text = [{"type": "text", "text": "Unknown tool: nope"}]
    assert _plainly_valid({"content": text, "isError": True}, "2025-11-25")
    assert _plainly_valid({"content": text, "structuredContent": {"sum": 3}}, "2025-11-25")
    assert _plainly_valid({"content": text, "resultType": "complete"}, "2026-07-28")
    assert not _plainly_valid({"content": text, "isError": 1}, "2025-11-25")


@pytest.mark.parametrize(
    ("result", "revision", "problem"),
    [
        ({"content": [{"type": "text"}]}, "2025-11-25", "result['content'][0] has no 'text', which is required"),
        ({"content": [{"type": "text", "text": 1}]}, "2025-06-18", "result['content'][0]['text'] is a number, expected a string"),
        ({"content": [], "isError": "yes"}, "2024-11-05", "result['isError'] is a string, expected a boolean"),
        ({"content": "x", "resultType": "complete"}, "2026-07-28", "result['content'] is a string, expected an array"),
        ({"isError": True}, "2025-11-25", "result has no 'content', which is required"),
        (
            {"content": [{"type": "text", "text": "t", "annotations": {"audience": ["bot"]}}]},
            "2025-11-25",
            "result['content'][0]['annotations']['audience'][0] is \"bot\", expected one of \"assistant\", \"user\"",
        ),
    ],
)
def test_a_malformed_result_is_reported_where_it_is_wrong(result: dict[str, Any], revision: str, problem: str) -> None:
    assert call_tool_result_problem(result, revision) == f"not a CallToolResult ({revision}): {problem}"


def test_null_optional_members_are_absent_and_integral_numbers_integers() -> None:
    assert call_tool_result_problem({"content": [], "isError": None, "structuredContent": None, "_meta": None}) is None
    assert call_tool_result_problem({"content": None}) is not None
    assert error_object_problem({"code": -32602.0, "message": "Invalid params"}) is None
    assert error_object_problem({"code": -32602.5, "message": "Invalid params"}) == (
        "not a JSON-RPC error object: error['code'] is a number, expected an integer"
    )
