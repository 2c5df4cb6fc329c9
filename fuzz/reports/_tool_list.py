"""The words every report uses for what changed in the target's tool list (`fuzz.judging.tool_changes`).

The sentences here are the harness's; the changes' details quote the server, and each report
escapes them its own way.
"""

from __future__ import annotations

from fuzz.judging.findings import RunResult
from fuzz.judging.tool_changes import ToolChange


def headline(result: RunResult) -> str | None:
    """`tool list: 3 changes since 2026-12-06T02:00:00Z (2 breaking)`; None when the run kept no list."""
    if result.tool_list_since is None:
        if not result.tool_list_recorded:
            return None
        return "tool list: recorded, the first kept for this target; the next run reports what changes"
    count, breaking = len(result.tool_changes), len(result.breaking_changes)
    if not count:
        return f"tool list: unchanged since {result.tool_list_since}"
    fails = " (--fail-on-breaking: the run fails)" if breaking and result.fail_on_breaking else ""
    return f"tool list: {count} change{'' if count == 1 else 's'} since {result.tool_list_since} ({breaking} breaking){fails}"


def ordered(result: RunResult) -> list[ToolChange]:
    """The changes, the breaking ones first, each group in the order the comparison gave."""
    return sorted(result.tool_changes, key=lambda change: not change.breaking)


def mark(change: ToolChange) -> str:
    return "BREAKING" if change.breaking else "compatible"
