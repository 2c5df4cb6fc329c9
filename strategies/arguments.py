"""Valid and invalid `arguments` for a tool, from its `inputSchema`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from strategies.labelled import Labelled
from strategies.tools import Tool
from strategies.values import Known, mutated_objects, valid_objects

VALID_LABEL = "valid arguments"


def arguments(tool: Tool, *, valid: bool = True) -> st.SearchStrategy[Labelled[dict[str, Any]]]:
    """Arguments for `tool`: valid ones (`valid=True`) or ones its `inputSchema` rejects.

    Both are checked with the standard validator of the schema's dialect before they are drawn.
    A valid value is accepted, formats asserted too. An invalid one is rejected at the place and
    for the keyword its label names.

    Valid arguments shrink towards the required properties at their simplest. Invalid ones
    shrink towards that plus one mutation, at the root first. `arguments` always stays an
    object: a non-object is a malformed request, not invalid input.
    """
    return valid_arguments(tool) if valid else invalid_arguments(tool)


def valid_arguments(tool: Tool, *, known: Known | None = None) -> st.SearchStrategy[Labelled[dict[str, Any]]]:
    """Arguments `tool`'s `inputSchema` accepts, labelled as valid.

    `known` holds known-good values by field; every value drawn holds them (see
    `valid_objects`).

    This uses Hypothesis's own `.map`, not the hot path's `mapped`. The sequence phase's rules
    draw these. With `mapped`, the stateful shrinker stopped a step short on the notes server,
    where the harness is installed in site-packages. A second delete kept a create it did not
    need. The random search's valid cases map `valid_objects` themselves (`strategies.cases`).
    """
    return valid_objects(tool.input_check, known=known).map(lambda value: Labelled(value, VALID_LABEL))


def invalid_arguments(tool: Tool, *, accepted: Sequence[dict[str, Any]] = (), known: Known | None = None) -> st.SearchStrategy[Labelled[dict[str, Any]]]:
    """Arguments `tool`'s `inputSchema` rejects, each labelled with why.

    `accepted` holds arguments the server took. They are mutated three times in four (see
    `mutated_objects`).
    """
    return mutated_objects(tool.input_check, label_prefix="arguments", accepted=accepted, known=known)
