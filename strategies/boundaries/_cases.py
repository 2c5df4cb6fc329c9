"""The boundary phase's cases: each boundary value of a tool's schema as a `tools/call`."""

from __future__ import annotations

from strategies.boundaries._sites import Side
from strategies.boundaries._values import Boundaries
from strategies.cases import MIRROR_ARGUMENT, Case, CaseKind
from strategies.envelopes import call_params
from strategies.tools import Tool

BOUNDARY_KINDS: dict[CaseKind, tuple[bool, Side]] = {
    CaseKind.VALID_ARGUMENTS: (False, Side.VALID),
    CaseKind.INVALID_ARGUMENTS: (False, Side.INVALID),
    CaseKind.VALID_OUTPUT: (True, Side.VALID),
    CaseKind.INVALID_OUTPUT: (True, Side.INVALID),
}
"""The kinds that have boundary cases.

Each maps to a pair: whether it draws from the output schema, and which side.
"""


def boundary_cases(tool: Tool, kind: CaseKind, boundaries: Boundaries) -> list[Case]:
    """`kind`'s boundary cases for `tool`, one for each boundary value.

    The values come from the boundaries of the schema the kind draws from. Arguments draw from
    `inputSchema`. Outputs draw from the mirror tool's `outputSchema`, asked for with the
    mirror convention.
    """
    if kind not in BOUNDARY_KINDS:
        return []
    mirrored, side = BOUNDARY_KINDS[kind]
    if mirrored:
        return [
            Case(kind, tool.name, call_params(tool.name, {MIRROR_ARGUMENT: value.value}), f"mirror asked for {value.label}") for value in boundaries.of(side)
        ]
    return [Case(kind, tool.name, call_params(tool.name, value.value), value.label) for value in boundaries.of(side)]
