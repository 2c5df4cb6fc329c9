"""The nights: one small record per run, so that a nightly job can tell what changed and the trend.

A reader of a nightly job has five minutes. The run's own report says what it found; the record of
each night says how that compares: which problems are new since the last night, which are gone,
which are flaky, how coverage and the number of cases moved, and the day each problem first
appeared. A record is small (counts and the problems' keys, never requests or answers), so a
history of a year stays a few hundred kilobytes.

A problem here is a finding's key (rule, tool, case kind), as baselines match on: the same key on
two nights is the same problem. A night's problems are its findings and the corpus's reproductions
that replayed STILL FAILING: with a corpus, a problem found once stays on every night it still
fails, and goes when it is stably gone.

Records of the shards of one run (`--shard N/COUNT` with one seed, each appending to one history)
are one night: `nights` merges them. This module is data and arithmetic; the file is
`fuzz.corpus.history`'s.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from fuzz.judging.coverage import exercise_of_run
from fuzz.judging.findings import Night, NightProblem, RunResult
from fuzz.judging.schema_coverage import reached_count


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def night_of(result: RunResult, date: str) -> Night:
    """The record of `result`, a run that ended at `date`."""
    problems: dict[tuple[str, str, str], NightProblem] = {}
    for finding in result.findings:
        problems[finding.key.rule, finding.key.tool, finding.key.case] = NightProblem(*_key(finding.key), finding.rule.level.label, finding.flaky)
    for replayed in result.replayed:
        if replayed.status == "STILL FAILING" and replayed.key is not None and replayed.level is not None:
            key = _key(replayed.key)
            if key not in problems:
                problems[key] = NightProblem(*key, replayed.level.label, replayed.flaky)
    exercised = exercise_of_run(result)
    reached, total = reached_count(entry for summary in result.tools for entry in summary.schema_coverage)
    return Night(
        date=date,
        server=str(result.server_info.get("name") or result.target_description),
        version=result.server_info.get("version") if isinstance(result.server_info.get("version"), str) else None,
        target=result.target_description,
        seed=result.seed,
        protocol_version=result.protocol_version,
        problems=tuple(sorted(problems.values())),
        cases=sum(sum(summary.cases_sent.values()) for summary in result.tools),
        seconds=result.seconds,
        keywords=(reached, total),
        rules_exercised=tuple(sorted(rule for rule, exercise in exercised.items() if exercise.exercised)),
        rules_judged=tuple(sorted(exercised)),
        tool_changes=len(result.tool_changes),
        breaking_changes=len(result.breaking_changes),
        shard=(result.shard.number, result.shard.count, result.shard.plan) if result.shard is not None else None,
    )


def _key(key: Any) -> tuple[str, str, str]:
    return (key.rule, key.tool, key.case)


def nights(records: Iterable[Night]) -> tuple[Night, ...]:
    """The nights the records make, oldest first: the records of one sharded run made one.

    Shards of one run share the seed and the plan (`ShardOfRun.plan`); each shard is counted once
    (a shard run again replaces its first record). The merged night has every shard's problems,
    cases and keywords, the rules any shard exercised, and the date its last shard ended.
    """
    whole: list[Night] = []
    runs: dict[tuple[int, int, str], dict[int, Night]] = {}
    order: list[tuple[int, int, str] | Night] = []
    for record in records:
        if record.shard is None:
            order.append(record)
            continue
        number, count, plan = record.shard
        run = (record.seed, count, plan)
        if run not in runs:
            runs[run] = {}
            order.append(run)
        runs[run][number] = record
    for entry in order:
        whole.append(entry if isinstance(entry, Night) else _joined(list(runs[entry].values())))
    return tuple(sorted(whole, key=lambda night: night.date))


def _joined(shards: Sequence[Night]) -> Night:
    if len(shards) == 1:
        return shards[0]
    problems: dict[tuple[str, str, str], NightProblem] = {}
    for shard in shards:
        for problem in shard.problems:
            problems[problem.key] = replace(problem, flaky=problem.flaky or (problem.key in problems and problems[problem.key].flaky))
    last = max(shards, key=lambda shard: shard.date)
    return replace(
        last,
        problems=tuple(sorted(problems.values())),
        cases=sum(shard.cases for shard in shards),
        seconds=max(shard.seconds for shard in shards),
        keywords=(sum(shard.keywords[0] for shard in shards), sum(shard.keywords[1] for shard in shards)),
        rules_exercised=tuple(sorted({rule for shard in shards for rule in shard.rules_exercised})),
        rules_judged=tuple(sorted({rule for shard in shards for rule in shard.rules_judged})),
        shard=None,
    )


def of_server(records: Iterable[Night], server: str) -> tuple[Night, ...]:
    """The nights of one server (`Night.server`), oldest first."""
    return tuple(night for night in nights(records) if night.server == server)


@dataclass(frozen=True, slots=True)
class Delta:
    """What changed since the night before, as the one line a reader reads first."""

    new: tuple[NightProblem, ...]
    fixed: tuple[NightProblem, ...]
    flaky: tuple[NightProblem, ...]
    tool_changes: int
    since: str | None
    """The night before's date; None on the first night recorded."""

    @property
    def line(self) -> str:
        """`2 new, 1 fixed, 1 flaky, 3 schema changes since 2026-12-06` (each count always said)."""
        changes = f"{self.tool_changes} schema {'change' if self.tool_changes == 1 else 'changes'}"
        counts = f"{len(self.new)} new, {len(self.fixed)} fixed, {len(self.flaky)} flaky, {changes}"
        return f"{counts} since {self.since}" if self.since else f"first night recorded: {counts}"


def delta(history: Sequence[Night]) -> Delta | None:
    """The last night against the one before it; None for an empty history."""
    if not history:
        return None
    tonight = history[-1]
    before = history[-2] if len(history) > 1 else None
    earlier = {problem.key for problem in before.problems} if before is not None else set()
    now_keys = {problem.key for problem in tonight.problems}
    return Delta(
        new=tuple(problem for problem in tonight.problems if problem.key not in earlier),
        fixed=tuple(problem for problem in (before.problems if before is not None else ()) if problem.key not in now_keys),
        flaky=tuple(problem for problem in tonight.problems if problem.flaky),
        tool_changes=tonight.tool_changes,
        since=before.date if before is not None else None,
    )


@dataclass(frozen=True, slots=True)
class ProblemStory:
    """One problem across the nights: when it first appeared, when it was last seen, how often."""

    problem: NightProblem
    first: str
    last: str
    nights: int
    present: bool
    """Whether the last night has it."""


def stories(history: Sequence[Night]) -> tuple[ProblemStory, ...]:
    """Every problem of the history, those of the last night first, each group newest first."""
    first: dict[tuple[str, str, str], str] = {}
    last: dict[tuple[str, str, str], tuple[str, NightProblem]] = {}
    seen: dict[tuple[str, str, str], int] = {}
    for night in history:
        for problem in night.problems:
            first.setdefault(problem.key, night.date)
            last[problem.key] = (night.date, problem)
            seen[problem.key] = seen.get(problem.key, 0) + 1
    present = {problem.key for problem in history[-1].problems} if history else set()
    told = sorted((ProblemStory(last[key][1], first[key], last[key][0], seen[key], key in present) for key in first), key=lambda story: story.problem.key)
    newest_first = sorted(told, key=lambda story: story.first, reverse=True)
    return tuple(sorted(newest_first, key=lambda story: not story.present))
