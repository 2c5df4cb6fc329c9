"""`mcp-toolfuzz merge`: the JSON reports of one run's shards (`--shard`) joined into that run.

The shards of one run share some things, and the merge checks them. They share the shard count and
the fingerprint of the plan they split (`fuzz.engine.sharding`). They share the target, the seed,
the revision spoken and the profile. They share every option that changes what a run does. Any other
difference is one clear line and exit 2.

Some options may differ: those that change only how fast (`--processes`, `--workers`), or where
things are kept (`--corpus`, `--database`). The shard itself differs too.

The merged run is the unsharded run's. It has each unit's summary in plan order, and its findings.
It has the first shard's comparison of the tool list: only the first shard compares it and keeps
the new one (`fuzz.engine.run`), so that shards sharing a corpus do not race.
Its exit code comes with the shards' baseline, or the one `merge --baseline` gives. Each shard's
warnings appear once. Its time is the longest shard's, since the shards run side by side. Its
restarts are the sum.

A shard whose report is missing is named, with the units it would have fuzzed. It is the reason the
run stopped early. A merged run that misses a shard proves no more than an interrupted one. It exits
2 unless a finding fails it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace

from fuzz.errors import ConfigurationError
from fuzz.judging.findings import FindingKey, RunResult, ShardOfRun
from fuzz.reports.problems import ENVELOPE_DISPLAY

FREE_OPTIONS = frozenset({"shard", "processes", "workers", "corpus", "database", "databaseReadOnly"})
"""Options the shards of one run may differ in (see the module docstring)."""


def merge(reports: Sequence[tuple[str, RunResult]], baseline: frozenset[FindingKey] | None = None, *, fail_on_breaking: bool = False) -> RunResult:
    """One run from its shards' reports (see the module docstring).

    `fail_on_breaking` (`merge --fail-on-breaking`) fails it on a breaking change of the tool list,
    as the shards' own option does.

    Raises ConfigurationError when they are not the shards of one run.
    """
    shards = _checked(reports)
    first_source, first = reports[0]
    first_shard = shards[first_source]
    by_number = {shards[source].number: result for source, result in reports}
    results = [by_number[number] for number in sorted(by_number)]
    missing = [number for number in range(1, first_shard.count + 1) if number not in by_number]
    place = {unit: position for position, unit in enumerate(first_shard.units)}
    tools = sorted((summary for result in results for summary in result.tools), key=lambda summary: place.get(summary.tool, len(place)))
    reasons = [_missing(missing, reports, shards, first_shard)] if missing else []
    reasons += [result.stopped_early for result in results if result.stopped_early and not result.out_of_time]
    out_of_time = not reasons and any(result.out_of_time for result in results)
    compared = by_number.get(1)
    timed_out = next((result.stopped_early for result in results if result.out_of_time), None)
    return replace(
        first,
        options={**first.options, "shard": None},
        tools=tuple(tools),
        seconds=max(result.seconds for result in results),
        target_restarts=sum(result.target_restarts for result in results),
        stopped_early="; ".join(reason for reason in reasons if reason) or (timed_out if out_of_time else None),
        out_of_time=out_of_time,
        replayed=tuple(replayed for result in results for replayed in result.replayed),
        warnings=tuple(dict.fromkeys(warning for result in results for warning in result.warnings)),
        baseline=baseline if baseline is not None else first.baseline,
        shard=None,
        nights=(),
        tool_changes=compared.tool_changes if compared is not None else (),
        tool_list_since=compared.tool_list_since if compared is not None else None,
        tool_list_recorded=compared.tool_list_recorded if compared is not None else False,
        fail_on_breaking=fail_on_breaking or first.fail_on_breaking,
    )


def _checked(reports: Sequence[tuple[str, RunResult]]) -> dict[str, ShardOfRun]:
    """Each report's shard, once checked that the reports are distinct shards of one run."""
    if not reports:
        raise ConfigurationError("merge: no report given; give the JSON reports of a run's shards")
    shards: dict[str, ShardOfRun] = {}
    for source, result in reports:
        if result.shard is None:
            raise ConfigurationError(f"{source} is the report of a whole run, not of a shard: merge joins the reports of `run --shard NUMBER/COUNT`")
        shards[source] = result.shard
    first_source, first = reports[0]
    seen: dict[int, str] = {}
    for source, result in reports:
        shard = shards[source]
        if shard.number in seen:
            raise ConfigurationError(f"{seen[shard.number]} and {source} are both shard {shard.number} of {shard.count}: give each shard once")
        seen[shard.number] = source
        difference = _difference(first, shards[first_source], result, shard)
        if difference:
            raise ConfigurationError(f"{first_source} and {source} are not shards of one run: {difference}; merge the shards of one run at a time")
    return shards


def _difference(first: RunResult, first_shard: ShardOfRun, other: RunResult, shard: ShardOfRun) -> str | None:
    """What tells two shards' runs apart, in words; None when they are shards of one run."""
    if shard.count != first_shard.count:
        return f"split in {first_shard.count} and in {shard.count}"
    for what, mine, theirs in (
        ("target", first.target, other.target),
        ("seed", first.seed, other.seed),
        ("protocol revision", first.protocol_version, other.protocol_version),
        ("profile", first.profile, other.profile),
    ):
        if mine != theirs:
            return f"{what} {_short(mine)} and {_short(theirs)}"
    for key in sorted(first.options.keys() | other.options.keys()):
        if key not in FREE_OPTIONS and first.options.get(key) != other.options.get(key):
            return f"option {key} {_short(first.options.get(key))} and {_short(other.options.get(key))}"
    if shard.plan != first_shard.plan:
        return f"their plans differ (fingerprints {first_shard.plan} and {shard.plan}): the server listed other tools or other definitions to one of them"
    return None


def _missing(numbers: list[int], reports: Sequence[tuple[str, RunResult]], shards: dict[str, ShardOfRun], first: ShardOfRun) -> str:
    owned = {unit for source, _ in reports for unit in shards[source].owned}
    units = [unit or ENVELOPE_DISPLAY for unit in first.units if unit not in owned]  # escaped where shown
    which = f"shard {numbers[0]}" if len(numbers) == 1 else f"shards {', '.join(map(str, numbers))}"
    return f"{which} of {first.count} not merged: these tools were not fuzzed: {', '.join(units) or 'none'}"


def _short(value: object) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 80 else text[:77] + "..."
