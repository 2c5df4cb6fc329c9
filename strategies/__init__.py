"""Hypothesis strategies for MCP `tools/call` requests. No I/O, no MCP session.

Layout: `tools` (the Tool record made from a `tools/list` entry), `schemas` (dialects and the
validators that judge every value), `names` (unknown tool names), `arguments` with `mutations`
(valid and invalid arguments from `inputSchema`), `outputs` (valid and invalid
structuredContent from `outputSchema`), `values` (the machinery both share: valid values from
`generation`, a JSON Schema generator on Hypothesis's public API, each checked by the dialect's
validator), `envelopes` (well-formed and malformed request bodies), `cases` (one request of one
kind for one tool). Every drawn value carries a label that
has been checked: what makes it valid or invalid, and where.

Use them in your own Hypothesis tests::

    from hypothesis import given
    from strategies import Tool, arguments

    add = Tool.from_listing({"name": "add", "inputSchema": {
        "type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}})

    @given(arguments(add, valid=False))
    def test_add_rejects_bad_input(drawn):
        result = my_server.call("add", drawn.value)
        assert result["isError"], drawn.label
"""

from __future__ import annotations

from strategies.arguments import arguments, invalid_arguments, valid_arguments
from strategies.cases import MIRROR_ARGUMENT, Case, CaseKind, cases
from strategies.envelopes import ABSENT, malformed_arguments, malformed_envelopes
from strategies.labelled import Labelled
from strategies.names import unknown_tool_names
from strategies.outputs import outputs
from strategies.schemas import InvalidSchema, SchemaCheck
from strategies.tools import Tool

tool_names = unknown_tool_names
tool_calls = cases

__all__ = [
    "ABSENT",
    "Case",
    "CaseKind",
    "InvalidSchema",
    "MIRROR_ARGUMENT",
    "Labelled",
    "SchemaCheck",
    "Tool",
    "arguments",
    "cases",
    "invalid_arguments",
    "malformed_arguments",
    "malformed_envelopes",
    "outputs",
    "tool_calls",
    "tool_names",
    "unknown_tool_names",
    "valid_arguments",
]
