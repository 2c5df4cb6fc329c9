"""Counting which sides of which schema keywords a tool's cases reached.

It also counts how each was answered (`fuzz.judging.schema_coverage`), whatever phase sent them.

There is one counter per tool, shared by its explorations. They may run in different worker threads
at once, so a lock keeps the counts whole. The keyword sites are found once per tool.
"""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

from fuzz.judging.schema_coverage import KeywordCoverage, SchemaRole, SideReach
from strategies import Case, CaseKind, Tool
from strategies.boundaries import KeywordSite, Side, keyword_sites, reached
from strategies.envelopes import ABSENT
from strategies.schemas import SchemaCheck

_ROLE_OF: dict[CaseKind, tuple[SchemaRole, bool]] = {
    CaseKind.VALID_ARGUMENTS: (SchemaRole.INPUT, True),
    CaseKind.INVALID_ARGUMENTS: (SchemaRole.INPUT, False),
    CaseKind.VALID_OUTPUT: (SchemaRole.OUTPUT, True),
    CaseKind.INVALID_OUTPUT: (SchemaRole.OUTPUT, False),
}
SCHEMA_KINDS = frozenset(_ROLE_OF)
"""The case kinds drawn from a tool's schemas.

A tool that gets none has no schema coverage.
"""
_PREFIX = {SchemaRole.INPUT: "arguments", SchemaRole.OUTPUT: "structuredContent"}


class SchemaReach:
    """The keyword sites of a tool's schemas and the cases that reached each side."""

    def __init__(self, tool: Tool, *, with_input: bool = True, with_output: bool = False) -> None:
        self._checks: dict[SchemaRole, SchemaCheck] = {SchemaRole.INPUT: tool.input_check} if with_input else {}
        if with_output and tool.output_check is not None:
            self._checks[SchemaRole.OUTPUT] = tool.output_check
        self._sites: dict[SchemaRole, tuple[KeywordSite, ...]] = {role: keyword_sites(check.schema) for role, check in self._checks.items()}
        self._counts: dict[tuple[SchemaRole, int, Side], Counter[str]] = {}
        self._lock = threading.Lock()

    def count(self, case: Case, bucket: str) -> None:
        """Count `case` (answered as `bucket`) on every side it reached."""
        role_and_validity = _ROLE_OF.get(case.kind)
        if role_and_validity is None:
            return
        role, valid = role_and_validity
        check = self._checks.get(role)
        value = _value_sent(case, role)
        if check is None or value is ABSENT:
            return
        found = reached(self._sites[role], check, value, valid=valid)
        with self._lock:
            for index, side in found:
                self._counts.setdefault((role, index, side), Counter())[bucket] += 1

    def entries(self) -> tuple[KeywordCoverage, ...]:
        with self._lock:
            counts = {key: dict(counter) for key, counter in self._counts.items()}
        return tuple(
            KeywordCoverage(
                schema=role,
                path=site.path(_PREFIX[role]),
                schema_path=site.pointer or "/",
                keyword=site.keyword,
                valid=_side(counts, role, index, Side.VALID) if Side.VALID in site.sides else None,
                invalid=_side(counts, role, index, Side.INVALID) if Side.INVALID in site.sides else None,
            )
            for role, sites in self._sites.items()
            for index, site in enumerate(sites)
        )


def _side(counts: dict[tuple[SchemaRole, int, Side], dict[str, int]], role: SchemaRole, index: int, side: Side) -> SideReach:
    answers = counts.get((role, index, side), {})
    return SideReach(sum(answers.values()), answers)


def _value_sent(case: Case, role: SchemaRole) -> Any:
    if role is SchemaRole.OUTPUT:
        return case.mirrored_output
    arguments = case.params.get("arguments", ABSENT) if isinstance(case.params, dict) else ABSENT
    return arguments if isinstance(arguments, dict) else ABSENT
