"""Which tools get which cases: destructive-tool safety, unavailable and mirror tools."""

from __future__ import annotations

import pytest

from fuzz.engine.plan import ARGUMENT_KINDS, DestructiveMode, Selection, plan
from fuzz.errors import ConfigurationError
from strategies import CaseKind, Tool

OBJECT = {"type": "object", "properties": {"n": {"type": "integer"}}}


def _tool(name: str, annotations: dict[str, object] | None = None, output: bool = False, schema: dict[str, object] = OBJECT) -> Tool:
    listing: dict[str, object] = {"name": name, "inputSchema": schema}
    if annotations is not None:
        listing["annotations"] = annotations
    if output:
        listing["outputSchema"] = {"type": "object", "properties": {"x": {"type": "integer"}}}
    return Tool.from_listing(listing)


TOOLS = [
    _tool("plain"),
    _tool("reader", {"readOnlyHint": True}),
    _tool("careful", {"destructiveHint": False}),
    _tool("wiper", {"destructiveHint": True}),
    _tool("mirror", output=True),
    _tool("admin", {"destructiveHint": True}),
]


def _argument_tools(selection: Selection) -> set[str]:
    return {p.tool.name for p in plan(TOOLS, selection) if p.tool and set(ARGUMENT_KINDS) <= set(p.kinds)}


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        (DestructiveMode.SAFE, {"reader", "careful"}),
        (DestructiveMode.ALLOW, {"plain", "reader", "careful", "wiper", "mirror", "admin"}),
        (DestructiveMode.READ_ONLY, {"reader"}),
    ],
)
def test_argument_cases_go_only_where_the_mode_allows(mode: DestructiveMode, expected: set[str]) -> None:
    assert _argument_tools(Selection(destructive=mode)) == expected


def test_every_tool_gets_the_cases_that_cannot_reach_its_body_and_skips_say_why() -> None:
    plans = {p.tool.name: p for p in plan(TOOLS, Selection())}
    for tool_plan in plans.values():
        assert {CaseKind.UNKNOWN_TOOL, CaseKind.MALFORMED_REQUEST} <= set(tool_plan.kinds)
    assert next(s.reason for s in plans["plain"].skips).startswith("the tool may be destructive (not annotated, and MCP's default is destructiveHint: true)")
    assert "annotated destructiveHint: true" in plans["wiper"].skips[0].reason
    assert plans["reader"].skips == ()


def test_unavailable_and_mirror_tools_get_their_own_kinds_whatever_their_annotations() -> None:
    selection = Selection(unavailable=frozenset({"admin", "hidden"}), mirror_tool="mirror")
    plans = {p.tool.name: p for p in plan(TOOLS, selection)}
    assert plans["admin"].kinds[0] is CaseKind.UNAVAILABLE_TOOL
    assert plans["mirror"].kinds[:2] == (CaseKind.VALID_OUTPUT, CaseKind.INVALID_OUTPUT)
    assert plans["hidden"].kinds == (CaseKind.UNAVAILABLE_TOOL,), "an unavailable tool the server does not list is still called"


def test_tools_and_exclude_tools_select_by_name() -> None:
    names = [p.tool.name for p in plan(TOOLS, Selection(tools=frozenset({"plain", "wiper"}), exclude_tools=frozenset({"wiper"})))]
    assert names == ["plain"]


def test_a_mirror_without_output_schema_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="declares no outputSchema"):
        plan(TOOLS, Selection(mirror_tool="plain"))


def test_a_tool_whose_schema_accepts_every_object_gets_no_invalid_arguments_and_says_why() -> None:
    (tool_plan,) = plan([_tool("anything", {"readOnlyHint": True}, schema={"type": "object"})], Selection())
    assert CaseKind.INVALID_ARGUMENTS not in tool_plan.kinds and CaseKind.VALID_ARGUMENTS in tool_plan.kinds
    assert tool_plan.skips[0].reason == "the inputSchema accepts every object: no arguments are invalid"


@pytest.mark.parametrize(
    ("schema", "rejects"),
    [
        ({"type": "object"}, False),
        ({"type": "object", "properties": {"a": {}, "b": {"description": "free"}}}, False),
        ({"type": "object", "properties": {"a": {"type": "string"}}}, True),
        ({"type": "object", "properties": {"a": {"properties": {"b": {"enum": [1]}}}}}, True),
        ({"type": "object", "required": ["a"]}, True),
        ({"type": "object", "additionalProperties": False}, True),
        ({"type": "object", "additionalProperties": {"type": "integer"}}, True),
    ],
)
def test_which_schemas_can_reject_an_object(schema: dict[str, object], rejects: bool) -> None:
    from strategies.values import can_reject_an_object

    assert can_reject_an_object(schema) is rejects
