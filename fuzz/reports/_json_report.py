"""The whole result of a run as one JSON document (`--report json:PATH`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fuzz import __version__
from fuzz.files import write_json_atomically
from fuzz.judging.coverage import exercise_by_tool, exercise_of_run, tool_hint
from fuzz.judging.findings import RunResult
from fuzz.judging.nights import delta
from fuzz.judging.profiles import resolve
from fuzz.reports.problems import group

FORMAT_VERSION = 1


def as_json(result: RunResult) -> dict[str, Any]:
    by_tool = exercise_by_tool(result)
    return {
        "format": FORMAT_VERSION,
        "tool": {"name": "mcp-toolfuzz", "version": __version__},
        "seed": result.seed,
        "target": result.target,
        "targetDescription": result.target_description,
        "protocolVersion": result.protocol_version,
        "profile": result.profile,
        "failOn": result.fail_on.value,
        "excludedTools": list(result.excluded_tools),
        "serverInfo": result.server_info,
        "tasks": result.tasks,
        "options": result.options,
        "shard": result.shard.as_json() if result.shard is not None else None,
        "stoppedEarly": result.stopped_early,
        "warnings": list(result.warnings),
        "outOfTime": result.out_of_time,
        "targetRestarts": result.target_restarts,
        "seconds": result.seconds,
        "exitCode": result.exit_code,
        "rules": [rule.as_json() for rule in resolve(result.profile, result.protocol_version).rules.values()],
        "tools": [
            {
                "name": summary.tool or None,
                "casesSent": {kind.value: count for kind, count in summary.cases_sent.items()},
                "secondsSpent": {kind.value: seconds for kind, seconds in summary.seconds.items()},
                "skipped": [{"case": skip.case.value, "reason": skip.reason} for skip in summary.skips],
                "answers": {kind.value: dict(sorted(counts.items())) for kind, counts in summary.answers.items()},
                "rules": {rule: exercise.as_json() for rule, exercise in by_tool[summary.tool].items()},
                "hint": tool_hint(summary),
                "schemaCoverage": [entry.as_json() for entry in summary.schema_coverage],
                "boundaryCases": summary.boundary_cases,
                "boundaryLeftOut": summary.boundary_left_out,
                "conclusion": summary.conclusion,
                "findings": list(places),
                "refusedFields": dict(summary.refused_fields),
                "hasOutputSchema": summary.has_output_schema,
                "takesArguments": summary.takes_arguments,
            }
            for summary, places in zip(result.tools, _finding_places(result), strict=True)
        ],
        "coverage": {rule: exercise.as_json() for rule, exercise in exercise_of_run(result).items()},
        "findings": [finding.as_json() for finding in result.findings],
        "problems": [
            {
                "rule": problem.rule.id,
                "level": problem.rule.level.label,
                "case": problem.case.value,
                "answer": problem.answer,
                "tools": [tool or None for tool in problem.tools],
                "findings": [result.findings.index(finding) for finding in problem.findings],
                "fingerprint": problem.fingerprint,
            }
            for problem in group(result.findings)
        ],
        "replayed": [r.as_json() for r in result.replayed],
        "baseline": {
            "known": [key.as_json() for key in sorted(result.baseline)],
            "stale": [key.as_json() for key in result.stale_baseline],
        },
        "flaky": (result.flaky_fails and "fail") or "report",
        "delta": change.line if (change := delta(result.nights)) is not None else None,
        "nights": [night.as_json() for night in result.nights],
        "toolChanges": [change.as_json() for change in result.tool_changes],
        "toolListSince": result.tool_list_since,
        "toolListRecorded": result.tool_list_recorded,
        "failOnBreaking": result.fail_on_breaking,
    }


def _finding_places(result: RunResult) -> list[range]:
    """Each tool's findings as places in the report's `findings`.

    A sequence finding belongs to the sequences' summary, whatever tool its request named.
    """
    places, start = [], 0
    for summary in result.tools:
        places.append(range(start, start + len(summary.findings)))
        start += len(summary.findings)
    return places


def write(result: RunResult, path: Path) -> None:
    """Write atomically: a reader never sees a half-written report."""
    write_json_atomically(as_json(result), path)
