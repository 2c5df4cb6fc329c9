"""Valid and invalid `arguments` for a tool, from its `inputSchema`."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

from strategies.labelled import Labelled
from strategies.mutations import Mutation, format_path, mutate, sites
from strategies.schemas import SchemaCheck
from strategies.tools import Tool

VALID_LABEL = "valid arguments"


def arguments(tool: Tool, *, valid: bool = True) -> st.SearchStrategy[Labelled[dict[str, Any]]]:
    """Arguments for `tool`: valid ones (`valid=True`) or ones its `inputSchema` rejects.

    Both are checked with the standard validator of the schema's dialect before they are drawn:
    a valid value is accepted (formats asserted too), an invalid one is rejected at the place
    and for the keyword its label names. Valid arguments shrink towards the required properties
    at their simplest; invalid ones towards that plus one mutation, at the root first.
    """
    return valid_arguments(tool) if valid else invalid_arguments(tool)


def valid_arguments(tool: Tool) -> st.SearchStrategy[Labelled[dict[str, Any]]]:
    return _valid_objects(tool.input_check).map(lambda value: Labelled(value, VALID_LABEL))


def invalid_arguments(tool: Tool) -> st.SearchStrategy[Labelled[dict[str, Any]]]:
    check = tool.input_check
    valid_bases = _valid_objects(check)

    @st.composite
    def invalid(draw: st.DrawFn) -> Labelled[dict[str, Any]]:
        base = draw(valid_bases)
        candidates = [
            (site, mutation)
            for site in sites(check.schema, base)
            for mutation in site.mutations(is_root=site.path == ())
        ]
        if not candidates:
            # Nothing in this value can be broken while `arguments` stays an object.
            draw(st.nothing())
        site, mutation = draw(st.sampled_from(candidates))
        mutant = mutate(draw, mutation, site)
        value = _replace(base, site.path, mutant.value)
        if not isinstance(value, dict) or not _rejected_for(check, value, site.path, mutation):
            draw(st.nothing())
        return Labelled(value, f"{format_path(site.path, prefix='arguments')}: {mutant.description}")

    return invalid()


def _valid_objects(check: SchemaCheck) -> st.SearchStrategy[dict[str, Any]]:
    # Imported on first use: importing hypothesis_jsonschema loads Hypothesis's unicode tables,
    # which Hypothesis warns about when it happens while pytest collects a conftest.
    from hypothesis_jsonschema import from_schema

    return (
        from_schema(dict(check.schema))
        .filter(lambda value: isinstance(value, dict))
        .filter(check.accepts_strictly)
        .filter(_encodes_as_json)
    )


def _rejected_for(check: SchemaCheck, value: Any, path: tuple[str | int, ...], mutation: Mutation) -> bool:
    """True when the validator rejects `value` with an error for `mutation`'s keyword at `path`."""
    return any(
        error.validator == mutation.value and tuple(error.absolute_path) == path
        for error in check.errors(value)
    )


def _replace(value: Any, path: tuple[str | int, ...], replacement: Any) -> Any:
    if not path:
        return replacement
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _replace(value[head], rest, replacement)}
    copy = list(value)
    copy[head] = _replace(value[head], rest, replacement)  # type: ignore[index]
    return copy


def _encodes_as_json(value: Any) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except (ValueError, TypeError):
        return False
    return True
