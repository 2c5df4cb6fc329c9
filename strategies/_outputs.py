"""Valid and invalid `structuredContent` for a tool, from its `outputSchema`.

These serve the output rules. A tool that declares an `outputSchema` must return conforming
structured content. A server SHOULD turn non-conforming content into a tool execution error
(SEP-2145).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from strategies.drawing import mapped
from strategies.labelled import Labelled
from strategies.schemas import InvalidSchema, SchemaCheck
from strategies.tools import Tool
from strategies.values import mutated_objects, valid_objects

VALID_LABEL = "valid structuredContent"

_NON_OBJECTS: tuple[tuple[Any, str], ...] = (
    ([], "an array"),
    ("", "a string"),
    (0, "a number"),
    (None, "null"),
    (False, "a boolean"),
)


def outputs(tool: Tool, *, valid: bool = True) -> st.SearchStrategy[Labelled[Any]]:
    """structuredContent values for `tool`: conforming ones, or ones its `outputSchema` rejects.

    With `valid=True` they conform. Otherwise each is one mutation of a conforming object, or a
    non-object root; the root must be an object. Raises InvalidSchema when the tool declares no
    outputSchema.
    """
    check = _output_check(tool)
    if valid:
        return mapped(valid_objects(check), lambda value: Labelled(value, VALID_LABEL))
    mutated = mutated_objects(check, label_prefix="structuredContent")
    roots = non_object_outputs(tool)
    return st.one_of(st.sampled_from(roots), mutated) if roots else mutated


def mutated_outputs(tool: Tool) -> st.SearchStrategy[Labelled[Any]]:
    """Conforming objects with one mutation each.

    This is what `outputs(valid=False)` draws besides the non-object roots.
    """
    return mutated_objects(_output_check(tool), label_prefix="structuredContent")


def non_object_outputs(tool: Tool) -> list[Labelled[Any]]:
    """The simplest value of every non-object JSON type that the outputSchema rejects."""
    check = _output_check(tool)
    return [Labelled(value, f"structuredContent: not an object ({label})") for value, label in _NON_OBJECTS if not check.accepts(value)]


def _output_check(tool: Tool) -> SchemaCheck:
    if tool.output_check is None:
        raise InvalidSchema(f"tool {tool.name!r} declares no outputSchema: there is no output to generate from")
    return tool.output_check
