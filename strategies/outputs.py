"""Valid and invalid `structuredContent` for a tool, from its `outputSchema`.

For the output rules: a tool that declares an `outputSchema` must return conforming structured
content, and a server SHOULD turn non-conforming content into a tool execution error (SEP-2145).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from strategies.labelled import Labelled
from strategies.schemas import InvalidSchema
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
    """structuredContent values for `tool`: conforming ones (`valid=True`), or ones its
    `outputSchema` rejects: one mutation of a conforming object, or a non-object root (the root
    must be an object). Raises InvalidSchema when the tool declares no outputSchema."""
    check = tool.output_check
    if check is None:
        raise InvalidSchema(f"tool {tool.name!r} declares no outputSchema: there is no output to generate from")
    if valid:
        return valid_objects(check).map(lambda value: Labelled(value, VALID_LABEL))
    non_objects = [
        Labelled(value, f"structuredContent: not an object ({label})")
        for value, label in _NON_OBJECTS
        if not check.accepts(value)
    ]
    mutated = mutated_objects(check, label_prefix="structuredContent")
    return st.one_of(st.sampled_from(non_objects), mutated) if non_objects else mutated
