"""Hypothesis strategies for MCP `tools/call` requests. No I/O, no MCP session.

This module is the public face: it names what a user may import. Every value a strategy draws
carries a label. The label has been checked: it says what makes the value valid or invalid, and
where. The modules behind the face each hold one family:

- What is fuzzed. `_names` draws unknown tool names. `arguments` draws valid and invalid
  arguments from `inputSchema`. `_outputs` draws valid and invalid structuredContent from
  `outputSchema`. `envelopes` draws well-formed and malformed request bodies. `meta` draws the
  stateless revision's `_meta` and headers, well-formed and broken. `cases` builds one request
  of one kind for one tool, from all of them.
- The records they draw from and into. `tools` holds the Tool made from a `tools/list` entry.
  `labelled` holds a value and its label.
- The value machinery behind arguments and outputs. `values` draws valid values, kept only when
  the dialect's validator accepts them. It also draws invalid ones, one checked mutation each.
  It is built on three parts. `generation` is a package: a JSON Schema generator on
  Hypothesis's public API, one module per family of values. `mutations` names the kinds of
  mutation and the sites of a value that offer them. `_mutators` says how each mutation is made.
- What all of them share. `schemas` holds the dialects, and the validators that judge every
  value. `characters` holds the characters and free text every strategy draws. `drawing` holds
  helpers for composite strategies.
- `_hypothesis` is private. It fences every use of Hypothesis's private API: names, patches and
  marks. The run installs its patches; your own tests run Hypothesis as it ships.

`__all__` names what a user may import, and no module. The modules without a leading `_` are
those imported from outside this package: by the harness, or by `generation` and `boundaries`.
The others are private.

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

from strategies._names import unknown_tool_names
from strategies._outputs import outputs
from strategies.arguments import arguments, invalid_arguments, valid_arguments
from strategies.cases import MIRROR_ARGUMENT, Case, CaseKind, TaskMode, cases
from strategies.envelopes import ABSENT, malformed_arguments, malformed_envelopes
from strategies.labelled import Labelled
from strategies.schemas import InvalidSchema, SchemaCheck
from strategies.tools import TaskSupport, Tool

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
    "TaskMode",
    "TaskSupport",
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
