"""The comparison of two tool lists (`fuzz.judging.tool_changes`): each kind of change, breaking
or not; the kept list (`fuzz.corpus.tool_lists`); replay's TOOL GONE; the report read back and
merged."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from fuzz.corpus import tool_lists
from fuzz.corpus.replay import gone
from fuzz.corpus.reproductions import Reproduction
from fuzz.judging.findings import RunResult, ShardOfRun
from fuzz.judging.tool_changes import ChangeKind, ToolChange, diff
from fuzz.reports.json_read import result_from_json
from fuzz.reports.shard_reports import merge
from strategies import CaseKind, Tool
from strategies.cases import ENVELOPE, ROUNDS, SEQUENCES, TASK_METHODS


def tool(name: str = "t", schema: dict[str, Any] | None = None, **fields: Any) -> dict[str, Any]:
    return {"name": name, "inputSchema": schema if schema is not None else {"type": "object"}, **fields}


def one_param(schema: dict[str, Any], *, required: bool = False) -> dict[str, Any]:
    return {"type": "object", "properties": {"p": schema}, **({"required": ["p"]} if required else {})}


def changes_of(before: dict[str, Any], after: dict[str, Any]) -> list[tuple[ChangeKind, bool]]:
    """The (kind, breaking) of each change from the tool `before` to the tool `after`."""
    return [(change.kind, change.breaking) for change in diff([before], [after])]


SCHEMA_CASES = [
    # (the parameter before, after, the one change expected, breaking)
    ({"type": ["string", "null"]}, {"type": "string"}, ChangeKind.TYPE_NARROWED, True),
    ({"type": "number"}, {"type": "integer"}, ChangeKind.TYPE_NARROWED, True),
    ({"type": "integer"}, {"type": "number"}, ChangeKind.TYPE_WIDENED, False),
    ({"type": "string"}, {"type": ["string", "null"]}, ChangeKind.TYPE_WIDENED, False),
    ({"type": "string"}, {"type": "boolean"}, ChangeKind.TYPE_CHANGED, True),
    ({}, {"type": "string"}, ChangeKind.TYPE_NARROWED, True),
    ({"type": "number", "minimum": 0}, {"type": "number", "minimum": 1}, ChangeKind.RANGE_NARROWED, True),
    ({"type": "number", "minimum": 1}, {"type": "number", "minimum": 0}, ChangeKind.RANGE_WIDENED, False),
    ({"type": "number", "exclusiveMinimum": 0}, {"type": "number", "exclusiveMinimum": 5}, ChangeKind.RANGE_NARROWED, True),
    ({"type": "number", "maximum": 100}, {"type": "number", "maximum": 50}, ChangeKind.RANGE_NARROWED, True),
    ({"type": "number", "maximum": 50}, {"type": "number", "maximum": 100}, ChangeKind.RANGE_WIDENED, False),
    ({"type": "number"}, {"type": "number", "exclusiveMaximum": 9}, ChangeKind.RANGE_NARROWED, True),
    ({"type": "number", "maximum": 9}, {"type": "number"}, ChangeKind.RANGE_WIDENED, False),
    ({"type": "string", "minLength": 1}, {"type": "string", "minLength": 3}, ChangeKind.RANGE_NARROWED, True),
    ({"type": "string", "maxLength": 10}, {"type": "string", "maxLength": 5}, ChangeKind.RANGE_NARROWED, True),
    ({"type": "string", "maxLength": 5}, {"type": "string", "maxLength": 10}, ChangeKind.RANGE_WIDENED, False),
    ({"type": "array", "minItems": 0}, {"type": "array", "minItems": 2}, ChangeKind.RANGE_NARROWED, True),
    ({"type": "array", "maxItems": 9}, {"type": "array", "maxItems": 3}, ChangeKind.RANGE_NARROWED, True),
    ({"type": "array"}, {"type": "array", "uniqueItems": True}, ChangeKind.RANGE_NARROWED, True),
    ({"type": "integer", "multipleOf": 2}, {"type": "integer", "multipleOf": 4}, ChangeKind.RANGE_NARROWED, True),
    ({"type": "integer", "multipleOf": 4}, {"type": "integer", "multipleOf": 2}, ChangeKind.RANGE_WIDENED, False),
    ({"type": "integer", "multipleOf": 2}, {"type": "integer", "multipleOf": 3}, ChangeKind.RANGE_NARROWED, True),
    ({"type": "string"}, {"type": "string", "pattern": "^a"}, ChangeKind.PATTERN_ADDED, True),
    ({"type": "string", "pattern": "^a"}, {"type": "string", "pattern": "^b"}, ChangeKind.PATTERN_CHANGED, True),
    ({"type": "string", "pattern": "^a"}, {"type": "string"}, ChangeKind.PATTERN_REMOVED, False),
    ({"type": "string"}, {"type": "string", "format": "email"}, ChangeKind.FORMAT_ADDED, True),
    ({"type": "string", "format": "email"}, {"type": "string", "format": "uri"}, ChangeKind.FORMAT_CHANGED, True),
    ({"type": "string", "format": "email"}, {"type": "string"}, ChangeKind.FORMAT_REMOVED, False),
    ({"enum": ["a", "b"]}, {"enum": ["a"]}, ChangeKind.ENUM_VALUE_REMOVED, True),
    ({"enum": ["a"]}, {"enum": ["a", "b"]}, ChangeKind.ENUM_VALUE_ADDED, False),
    ({"type": "string"}, {"type": "string", "enum": ["a"]}, ChangeKind.ENUM_ADDED, True),
    ({"type": "string", "enum": ["a"]}, {"type": "string"}, ChangeKind.ENUM_REMOVED, False),
    ({"const": 1}, {"const": 2}, ChangeKind.CONST_CHANGED, True),
    ({}, {"const": 2}, ChangeKind.CONST_ADDED, True),
    ({"const": 2}, {}, ChangeKind.CONST_REMOVED, False),
    ({"type": "object"}, {"type": "object", "additionalProperties": False}, ChangeKind.ADDITIONAL_PROPERTIES_CLOSED, True),
    ({"type": "object", "additionalProperties": True}, {"type": "object", "additionalProperties": False}, ChangeKind.ADDITIONAL_PROPERTIES_CLOSED, True),
    ({"type": "object", "additionalProperties": False}, {"type": "object"}, ChangeKind.ADDITIONAL_PROPERTIES_OPENED, False),
    ({"anyOf": [{"type": "string"}, {"type": "integer"}]}, {"anyOf": [{"type": "string"}]}, ChangeKind.CHOICE_REMOVED, True),
    ({"anyOf": [{"type": "string"}]}, {"anyOf": [{"type": "string"}, {"type": "integer"}]}, ChangeKind.CHOICE_ADDED, False),
    ({"oneOf": [{"type": "string"}]}, {"oneOf": [{"type": "integer"}]}, ChangeKind.SCHEMA_CHANGED, True),
    ({"$ref": "https://example.com/a.json"}, {"$ref": "https://example.com/b.json"}, ChangeKind.SCHEMA_CHANGED, True),
    ({"type": "string"}, False, ChangeKind.TYPE_NARROWED, True),
    ({"type": "string", "description": "old"}, {"type": "string", "description": "new"}, ChangeKind.DESCRIPTION_CHANGED, False),
    ({"type": "string", "default": "a"}, {"type": "string", "default": "b"}, ChangeKind.METADATA_CHANGED, False),
]


@pytest.mark.parametrize(("before", "after", "kind", "breaking"), SCHEMA_CASES, ids=[case[2].value + f"-{n}" for n, case in enumerate(SCHEMA_CASES)])
def test_each_change_of_a_parameter_is_reported_and_judged(before: Any, after: Any, kind: ChangeKind, breaking: bool) -> None:
    assert changes_of(tool(schema=one_param(before)), tool(schema=one_param(after))) == [(kind, breaking)]


def test_the_same_change_in_an_items_schema_and_a_nested_object_is_found_there() -> None:
    before = one_param({"type": "array", "items": {"type": "object", "properties": {"n": {"type": "integer", "maximum": 9}}}})
    after = one_param({"type": "array", "items": {"type": "object", "properties": {"n": {"type": "integer", "maximum": 5}}}})
    [change] = diff([tool(schema=before)], [tool(schema=after)])
    assert (change.kind, change.breaking, change.path) == (ChangeKind.RANGE_NARROWED, True, "/inputSchema/properties/p/items/properties/n/maximum")
    assert change.detail == "parameter 'p[].n': maximum 9 -> 5"


def test_required_parameters() -> None:
    base = {"type": "object", "properties": {"a": {"type": "string"}}}
    assert changes_of(tool(schema=base), tool(schema={**base, "required": ["a"]})) == [(ChangeKind.BECAME_REQUIRED, True)]
    assert changes_of(tool(schema={**base, "required": ["a"]}), tool(schema=base)) == [(ChangeKind.BECAME_OPTIONAL, False)]
    added = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}
    assert changes_of(tool(schema=base), tool(schema={**added, "required": ["b"]})) == [(ChangeKind.REQUIRED_PARAMETER_ADDED, True)]
    assert changes_of(tool(schema=base), tool(schema=added)) == [(ChangeKind.PARAMETER_ADDED, False)]
    assert changes_of(tool(schema=added), tool(schema=base)) == [(ChangeKind.PARAMETER_REMOVED, True)]


def test_local_references_are_followed_on_each_side_in_its_own_schema() -> None:
    def with_definition(maximum: int, name: str = "N") -> dict[str, Any]:
        return {"type": "object", "properties": {"n": {"$ref": f"#/$defs/{name}"}}, "$defs": {name: {"type": "integer", "maximum": maximum}}}

    [change] = diff([tool(schema=with_definition(9))], [tool(schema=with_definition(5))])
    assert (change.kind, change.breaking, change.path) == (ChangeKind.RANGE_NARROWED, True, "/inputSchema/properties/n/maximum")
    assert diff([tool(schema=with_definition(9, "A"))], [tool(schema=with_definition(9, "B"))]) == ()  # renamed, the same schema


def test_a_recursive_schema_is_compared_once_through() -> None:
    def tree(leaf: str) -> dict[str, Any]:
        node = {"type": "object", "properties": {"value": {"type": leaf}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}
        return {"$ref": "#/$defs/node", "$defs": {"node": node}}

    assert diff([tool(schema=tree("string"))], [tool(schema=tree("string"))]) == ()
    kinds = [change.kind for change in diff([tool(schema=tree("integer"))], [tool(schema=tree("number"))])]
    assert kinds == [ChangeKind.TYPE_WIDENED]


def test_tools_added_removed_and_renamed() -> None:
    kept, gone_one, came = tool("kept"), tool("old", {"type": "object", "properties": {"x": {"type": "string"}}}), tool("brand_new")
    found = {(change.tool, change.kind, change.breaking) for change in diff([kept, gone_one], [kept, came])}
    assert found == {("old", ChangeKind.TOOL_REMOVED, True), ("brand_new", ChangeKind.TOOL_ADDED, False)}
    renamed = tool("new", gone_one["inputSchema"])
    [change] = diff([kept, gone_one], [kept, renamed])
    assert (change.tool, change.kind, change.breaking, change.detail) == ("old", ChangeKind.TOOL_RENAMED, True, "renamed to 'new' (the same inputSchema)")


def test_a_rename_needs_a_schema_only_the_two_tools_have() -> None:
    # Two tools without arguments gone, one come: which was renamed cannot be told.
    found = {(change.tool, change.kind) for change in diff([tool("a"), tool("b")], [tool("c")])}
    assert found == {("a", ChangeKind.TOOL_REMOVED), ("b", ChangeKind.TOOL_REMOVED), ("c", ChangeKind.TOOL_ADDED)}


def test_every_change_of_an_output_schema_is_breaking() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer", "maximum": 5}}}
    wider = {"type": "object", "properties": {"n": {"type": "integer", "maximum": 50}}}
    assert changes_of(tool(), tool(outputSchema=schema)) == [(ChangeKind.OUTPUT_SCHEMA_ADDED, True)]
    assert changes_of(tool(outputSchema=schema), tool()) == [(ChangeKind.OUTPUT_SCHEMA_REMOVED, True)]
    [change] = diff([tool(outputSchema=schema)], [tool(outputSchema=wider)])
    assert (change.kind, change.breaking, change.path) == (ChangeKind.OUTPUT_SCHEMA_CHANGED, True, "/outputSchema/properties/n/maximum")
    assert change.detail == "outputSchema: property 'n': maximum 5 -> 50"


def test_annotations_descriptions_and_other_fields_are_reported_not_breaking() -> None:
    before = tool(annotations={"readOnlyHint": True}, description="old", title="T", icons=[])
    after = tool(annotations={"readOnlyHint": False, "idempotentHint": True}, description="new", title="U", icons=[{"src": "x"}])
    found = [(change.kind, change.breaking, change.path) for change in diff([before], [after])]
    assert found == [
        (ChangeKind.ANNOTATION_CHANGED, False, "/annotations/idempotentHint"),
        (ChangeKind.ANNOTATION_CHANGED, False, "/annotations/readOnlyHint"),
        (ChangeKind.DESCRIPTION_CHANGED, False, "/description"),
        (ChangeKind.METADATA_CHANGED, False, "/icons"),
        (ChangeKind.DESCRIPTION_CHANGED, False, "/title"),
    ]


@pytest.mark.parametrize(
    ("before", "after", "breaking"),
    [
        ("optional", "forbidden", True),
        ("optional", "required", True),
        (None, "required", True),
        ("required", None, True),
        (None, "optional", False),
        ("required", "optional", False),
    ],
)
def test_task_support_breaks_when_a_way_of_calling_the_tool_is_gone(before: str | None, after: str | None, breaking: bool) -> None:
    def declaring(support: str | None) -> dict[str, Any]:
        return tool(**({"execution": {"taskSupport": support}} if support else {}))

    assert changes_of(declaring(before), declaring(after)) == [(ChangeKind.TASK_SUPPORT_CHANGED, breaking)]


def test_the_same_list_has_no_change_and_the_order_is_deterministic() -> None:
    listing = [tool("b", one_param({"type": "string"})), tool("a")]
    assert diff(listing, list(reversed(listing))) == ()
    before = [tool("z"), tool("a", one_param({"type": "string", "maxLength": 5}))]
    after = [tool("a", one_param({"type": "integer"})), tool("m", one_param({"type": "boolean"}))]
    assert diff(before, after) == diff(list(reversed(before)), list(reversed(after)))
    assert [change.tool for change in diff(before, after)] == ["a", "a", "m", "z"]


def test_a_change_reads_back_from_json() -> None:
    change = ToolChange("t", ChangeKind.ENUM_VALUE_REMOVED, "parameter 'p': enum value \"a\" removed", True, "/inputSchema/properties/p/enum")
    assert ToolChange.from_json(json.loads(json.dumps(change.as_json()))) == change
    with pytest.raises(ValueError):
        ToolChange.from_json({**change.as_json(), "kind": "nonsense"})


def test_the_kept_list_is_written_and_read_and_a_corrupt_one_is_said_so(tmp_path: Path) -> None:
    path = tmp_path / "key" / tool_lists.FILE_NAME
    assert tool_lists.load(path) is None
    recorded = tool_lists.record(path, [tool("a")], {"name": "s", "version": "1"})
    stored = tool_lists.load(path)
    assert stored is not None and stored.tools == (tool("a"),) and stored.recorded == recorded and stored.server_info["version"] == "1"
    later = '{"format": "mcp-toolfuzz tool list", "version": 9}'
    for text, why in (("{not json", "is not JSON"), ('{"format": "other"}', "is not a tool list"), (later, "of version 9")):
        path.write_text(text)
        with pytest.raises(tool_lists.CorruptToolList, match=why):
            tool_lists.load(path)


def reproduction(tool_name: str, case: CaseKind, judged_as: CaseKind | None = None) -> Reproduction:
    """What `gone` reads of a reproduction."""
    return cast(Reproduction, SimpleNamespace(tool=tool_name, judged_kind=judged_as or case))


def test_a_reproduction_of_a_tool_no_longer_listed_is_gone_but_not_those_of_unlisted_tools_by_design() -> None:
    listed = [Tool.from_listing(tool("here"))]
    assert gone(reproduction("here", CaseKind.INVALID_ARGUMENTS), listed) is None
    assert "no longer listed" in (gone(reproduction("there", CaseKind.INVALID_ARGUMENTS), listed) or "")
    assert gone(reproduction("there", CaseKind.SEQUENCE, CaseKind.VALID_ARGUMENTS), listed) is not None
    for name in (ENVELOPE, SEQUENCES, TASK_METHODS, ROUNDS):
        assert gone(reproduction(name, CaseKind.MALFORMED_REQUEST), listed) is None
    assert gone(reproduction("never_listed", CaseKind.UNKNOWN_TOOL), listed) is None
    assert gone(reproduction("never_listed", CaseKind.SEQUENCE, CaseKind.UNKNOWN_TOOL), listed) is None
    assert gone(reproduction("disabled", CaseKind.UNAVAILABLE_TOOL), listed) is None


CHANGES = (
    ToolChange("a", ChangeKind.TOOL_REMOVED, "tool removed", True),
    ToolChange("b", ChangeKind.TOOL_ADDED, "tool added", False),
)


def shard_result(number: int, changes: tuple[ToolChange, ...], *, fail_on_breaking: bool = False) -> RunResult:
    return RunResult(
        seed=1,
        target={"transport": "stdio", "command": ["server"]},
        target_description="server",
        protocol_version="2025-11-25",
        server_info={"name": "s"},
        options={"failOnBreaking": fail_on_breaking},
        tools=(),
        seconds=1.0,
        shard=ShardOfRun(number, 2, "plan", units=("b",), owned=("b",) if number == 1 else ()),
        tool_changes=changes,
        tool_list_since="2026-12-01T00:00:00Z" if changes else None,
        tool_list_recorded=number == 1,
        fail_on_breaking=fail_on_breaking,
    )


def test_a_breaking_change_fails_the_run_only_with_the_option() -> None:
    result = shard_result(1, CHANGES)
    assert not result.failed and result.exit_code == 0
    assert replace(result, fail_on_breaking=True).exit_code == 1
    assert replace(result, fail_on_breaking=True, tool_changes=CHANGES[1:]).exit_code == 0


def test_the_changes_read_back_from_the_json_report_and_merge_from_the_first_shard() -> None:
    from fuzz.reports._json_report import as_json

    first = shard_result(1, CHANGES)
    read = result_from_json(json.loads(json.dumps(as_json(first))), "r.json")
    assert (read.tool_changes, read.tool_list_since, read.tool_list_recorded, read.fail_on_breaking) == (CHANGES, first.tool_list_since, True, False)
    merged = merge([("2.json", shard_result(2, ())), ("1.json", first)])
    assert merged.tool_changes == CHANGES and merged.tool_list_since == first.tool_list_since and merged.exit_code == 0
    assert merge([("1.json", first), ("2.json", shard_result(2, ()))], fail_on_breaking=True).exit_code == 1
    both = [(f"{n}.json", shard_result(n, CHANGES if n == 1 else (), fail_on_breaking=True)) for n in (1, 2)]
    assert merge(both).exit_code == 1


def test_what_the_server_named_is_shown_as_text_in_every_report() -> None:
    import io

    from markdown_it import MarkdownIt

    from fuzz.engine.events import RunFinished
    from fuzz.reports import _html, _markdown
    from fuzz.reports.terminal import TerminalReporter
    from tests.test_escaping import assert_inert
    from tests.test_html_report import by_id, parsed, rows

    hostile = "x\x1b[2J\n::error title=x::boom <script>alert(1)</script> [a](https://evil.example)"
    change = ToolChange(hostile, ChangeKind.PARAMETER_REMOVED, f"parameter {hostile!r} removed", True, "/inputSchema/properties/x")
    result = replace(shard_result(1, (change,)), shard=None)
    stream = io.StringIO()
    TerminalReporter(stream, progress=False)(RunFinished(result))
    assert_inert(stream.getvalue(), "terminal")
    assert "BREAKING   x\\x1b[2J\\n::error" in stream.getvalue()
    markdown = _markdown.render(result)
    assert_inert(markdown, "markdown")
    rendered = MarkdownIt("commonmark").enable(["table"]).render(markdown)
    assert "<a " not in rendered and "<script>" not in rendered
    page = _html.render(result)
    assert_inert(page, "html")
    [[mark, tool_cell, detail, kind]] = rows(by_id(parsed(page), "tool-list").find(".//table"))  # type: ignore[arg-type]
    assert (mark, kind) == ("BREAKING", "parameter-removed") and "<script>alert(1)</script>" in tool_cell and "\\x1b" in detail
