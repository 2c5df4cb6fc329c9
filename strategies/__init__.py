"""Hypothesis strategies for MCP `tools/call` requests. No I/O, no MCP session.

This module is the public face: it names what a user may import. Every value a strategy draws
carries a label that has been checked: what makes it valid or invalid, and where. The modules
behind the face, one family each:

- what is fuzzed: `names` (unknown tool names), `arguments` (valid and invalid arguments from
  `inputSchema`), `outputs` (valid and invalid structuredContent from `outputSchema`),
  `envelopes` (well-formed and malformed request bodies), `meta` (the stateless revision's
  `_meta` and headers, well-formed and broken), and `cases` (one request of one kind for one
  tool, built from all of them);
- the records they draw from and into: `tools` (the Tool made from a `tools/list` entry) and
  `labelled` (a value and its label);
- the value machinery behind arguments and outputs: `values` (valid values, kept only when the
  dialect's validator accepts them, and invalid ones, one checked mutation each), built on
  `generation` (a package: a JSON Schema generator on Hypothesis's public API, one module per
  family of values), `mutations` (the kinds of mutation and the sites of a value that offer
  them) and `mutators` (how each mutation is made);
- what all of them share: `schemas` (dialects, and the validators that judge every value),
  `characters` (the characters and free text every strategy draws) and `drawing` (helpers for
  composite strategies);
- `_hypothesis`, private: every use of Hypothesis's private API (names, patches, marks), fenced.
  The run installs its patches; your own tests run Hypothesis as it ships.

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
    "MIRROR_ARGUMENT",
    "Case",
    "CaseKind",
    "InvalidSchema",
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
