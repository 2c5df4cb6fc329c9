"""Trying findings again on fresh targets, so that each is labelled stable or flaky (`--tries`).

A finding made once is not yet a finding that happens every time. A bug that shows one call in three
fails one night, "is fixed" the next, and comes back; a reader cannot tell it from a regression. So
after the run, each new finding is replayed on N fresh targets (the same target started again), twice
on each, and labelled with how many of those 2N attempts brought it back: `stable (10 of 10)`, or
`flaky (3 of 10)`. A finding no attempt brings back is flaky too: the run saw it, and it does not
come back alone.

Why twice: a fresh target's first call is always its first. A bug that a counter decides (each third
call, the count starting at the bug) comes back on every fresh target's first call and would pass as
stable; the second call on the same target shows it is not.

A request the run saw go unanswered (`request-answered`) is first sent again on a fresh target with
`LATE_FACTOR` times `--timeout` to answer, all such requests at once: a tool that answers, only late
(a tool that takes 10 s by design, against the default 5 s), is slow, not silent. Its finding is
dropped, and a warning names the tool, how long it took and the `--timeout` that would judge its
answers. The field run met such a tool (docs/field.md).

The other way round: a reproduction of the corpus that replayed FIXED before the run may only have
been lucky. It is tried the same way; one that comes back on any attempt is flaky and STILL FAILING,
and one that comes back on none is stably gone. A baseline entry is stale only then.

A try is one fresh target that replays every finding tried, in report order, each twice in a row as
`mcp-toolfuzz replay` would (a sequence's steps on a target restarted for them). The tries run as
many at a time as the run ran copies of its target (`--processes`, two by default): a server that
allows one copy at a time, run with `--processes 1`, is tried one copy at a time. Findings already in
the corpus (or the baseline) are not tried: their files keep the label they were given when they were
new. Findings on the tool list's names are not tried either: the listing is judged whole on every run.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import trio

from fuzz.corpus.replay import ReplayStatus, replay_on
from fuzz.corpus.reproductions import CorruptReproduction, Reproduction, relabel
from fuzz.corpus.reproductions import load as load_reproduction
from fuzz.corpus.sequence_replay import with_id
from fuzz.engine._keeping import reproduction_of
from fuzz.engine.options import RunOptions
from fuzz.engine.stops import TargetLost
from fuzz.errors import HarnessError, first_leaf
from fuzz.judging.findings import Finding, Replayed, RunResult, Stability
from fuzz.judging.rules import REQUEST_ANSWERED
from fuzz.wire.replies import Answered
from fuzz.wire.target import open_target
from strategies import CaseKind
from strategies.cases import ROUNDS

ATTEMPTS = 2
"""Replays of a finding on each fresh target (see the module docstring: why twice)."""
LATE_FACTOR = 3
"""How many times `--timeout` an unanswered request gets to be answered late on a fresh target."""


@dataclass(frozen=True, slots=True)
class _Tried:
    """One finding or replay to try: the finding (made into a reproduction on each try's target),
    or the reproduction file a replay read."""

    finding: Finding | None
    reproduction: Reproduction | None


def tried(result: RunResult, options: RunOptions) -> RunResult:
    """`result` with its new findings and its FIXED replays labelled by `options.tries` tries.

    Call it outside a trio run. A run the user stopped is not tried: they asked it to end.
    """
    if options.tries <= 0 or result.stopped_by_user:
        return result
    new = [finding for finding in result.findings if _is_new(finding, result)]
    slow, warnings_of_slow = trio.run(_answered_late, [finding for finding in new if finding.rule.id == REQUEST_ANSWERED.id], options, result.protocol_version)
    if slow:
        result = _without(result, slow)
        new = [finding for finding in new if id(finding) not in slow]
    files = [(index, _file(replayed)) for index, replayed in enumerate(result.replayed) if replayed.status == ReplayStatus.FIXED.value]
    gone = [(index, reproduction) for index, reproduction in files if reproduction is not None]
    items = [*(_Tried(finding, None) for finding in new), *(_Tried(None, reproduction) for _, reproduction in gone)]
    if not items:
        return replace(result, warnings=(*result.warnings, *warnings_of_slow))
    marks, warnings = trio.run(_try_all, items, options, result.protocol_version)  # a row per attempt
    labels = [_label(column) for column in zip(*marks, strict=True)] if marks else [None] * len(items)
    findings = dict(zip((id(finding) for finding in new), labels[: len(new)], strict=True))
    replayed = list(result.replayed)
    for (index, reproduction), label in zip(gone, labels[len(new) :], strict=True):
        replayed[index] = _after_fixed(replayed[index], reproduction, label)
    tools = tuple(replace(summary, findings=tuple(_labelled(finding, findings.get(id(finding))) for finding in summary.findings)) for summary in result.tools)
    unlabelled = sum(label is None for label in labels)
    if unlabelled and not warnings:
        warnings.append(f"{unlabelled} of {len(items)} findings could not be tried again (their replay is not possible here)")
    return replace(result, tools=tools, replayed=tuple(replayed), warnings=(*result.warnings, *warnings_of_slow, *warnings))


async def _answered_late(unanswered: Sequence[Finding], options: RunOptions, protocol_version: str | None) -> tuple[set[int], list[str]]:
    """The findings (by `id`) whose request a fresh target answers within `LATE_FACTOR` times
    `--timeout`, all sent at once; and a warning for each tool that answered late."""
    plain = [finding for finding in unanswered if not finding.steps and finding.inputs is None]
    if not plain:
        return set(), []
    wait = LATE_FACTOR * options.timeout
    try:
        async with open_target(
            options.target, startup_timeout=options.startup_timeout, protocol_version=protocol_version, max_message_bytes=options.max_answer_size
        ) as target:
            exchanges = await target.session.send_requests([with_id(finding.request) for finding in plain], timeout=wait)
    except (HarnessError, TargetLost, BaseExceptionGroup) as error:
        if not isinstance(first_leaf(error), (HarnessError, TargetLost)):
            raise
        return set(), []
    slow: set[int] = set()
    late: dict[str, tuple[list[str], float]] = {}
    for finding, exchange in zip(plain, exchanges, strict=True):
        reply = exchange.reply
        if isinstance(reply, Answered) and reply.seconds > options.timeout:
            slow.add(id(finding))
            kinds, longest = late.setdefault(finding.tool, ([], 0.0))
            late[finding.tool] = ([*kinds, finding.case.value], max(longest, reply.seconds))
    warnings = [
        f"{tool or '(envelope)'} answered its {' and '.join(kinds)} {'request' if len(kinds) == 1 else 'requests'} after {seconds:.1f} s on a "
        f"fresh target, past --timeout {options.timeout:g}: slow, not unanswered, so no request-answered finding; give --timeout "
        f"{max(options.timeout * 2, seconds * 1.5):.0f} to judge what it answers"
        for tool, (kinds, seconds) in late.items()
    ]
    return slow, warnings


def _without(result: RunResult, dropped: set[int]) -> RunResult:
    """`result` without the findings `dropped` names (by `id`); their files, written this run, removed."""
    for finding in result.findings:
        if id(finding) in dropped and finding.reproduction is not None and finding.first_seen:
            with contextlib.suppress(OSError):
                Path(finding.reproduction).unlink()
    tools = tuple(replace(summary, findings=tuple(f for f in summary.findings if id(f) not in dropped)) for summary in result.tools)
    return replace(result, tools=tools)


def _is_new(finding: Finding, result: RunResult) -> bool:
    on_the_names = finding.case is CaseKind.TOOL_LISTING and finding.tool != ROUNDS
    return finding.first_seen and finding.key not in result.baseline and not on_the_names


def _file(replayed: Replayed) -> Reproduction | None:
    try:
        return load_reproduction(Path(replayed.path))
    except CorruptReproduction:
        return None


async def _try_all(items: Sequence[_Tried], options: RunOptions, protocol_version: str | None) -> tuple[list[list[bool | None]], list[str]]:
    """Each attempt's marks (True: it came back; None: it could not be replayed), two rows a try, and
    what went wrong."""
    marks: list[list[bool | None]] = [[None] * len(items) for _ in range(ATTEMPTS * options.tries)]
    warnings: list[str] = []

    async def one(number: int) -> None:
        try:
            rows = await _one_try(items, options, protocol_version)
            for attempt, row in enumerate(rows):
                marks[ATTEMPTS * number + attempt] = row
        except (HarnessError, TargetLost, BaseExceptionGroup) as error:
            leaf = first_leaf(error)
            if not isinstance(leaf, (HarnessError, TargetLost)):
                raise
            warnings.append(f"a try on a fresh target failed ({leaf}); the labels count the tries that were made")

    copies = trio.CapacityLimiter(max(1, options.processes))

    async def limited(number: int) -> None:
        async with copies:
            await one(number)

    async with trio.open_nursery() as nursery:
        for number in range(options.tries):
            nursery.start_soon(limited, number)
    return marks, sorted(set(warnings))


async def _one_try(items: Sequence[_Tried], options: RunOptions, protocol_version: str | None) -> list[list[bool | None]]:
    """One fresh target: each item replayed `ATTEMPTS` times in a row. A row of marks per attempt."""
    async with open_target(
        options.target, startup_timeout=options.startup_timeout, protocol_version=protocol_version, max_message_bytes=options.max_answer_size
    ) as target:
        rows: list[list[bool | None]] = [[] for _ in range(ATTEMPTS)]
        fresh = True
        for item in items:
            reproduction = item.reproduction
            if reproduction is None:
                assert item.finding is not None
                tool = next((listed for listed in target.tools if listed.name == item.finding.tool), None)
                reproduction = reproduction_of(item.finding, options, target, tool)
            for row in rows:
                outcome = await replay_on(target, reproduction, timeout=options.timeout, fresh=fresh)
                fresh = False
                row.append(None if outcome.status is ReplayStatus.ERROR else outcome.status is ReplayStatus.STILL_FAILING)
        return rows


def _label(column: Sequence[bool | None]) -> Stability | None:
    made = [mark for mark in column if mark is not None]
    return Stability(sum(made), len(made)) if made else None


def _labelled(finding: Finding, label: Stability | None) -> Finding:
    if label is None:
        return finding
    if finding.reproduction is not None:
        with contextlib.suppress(CorruptReproduction, OSError):  # the report carries the label all the same
            relabel(Path(finding.reproduction), label)
    return replace(finding, stability=label)


def _after_fixed(replayed: Replayed, reproduction: Reproduction, label: Stability | None) -> Replayed:
    """A FIXED replay after its tries: flaky and STILL FAILING when any brought it back.

    Its label counts the replay before the run as one try that did not reproduce it."""
    if label is None:
        return replace(replayed, detail=f"{replayed.detail}; it could not be tried again")
    if label.reproduced == 0:
        return replace(replayed, detail=f"{replayed.detail}; none of {label.attempts} attempts on fresh targets brought it back")
    label = Stability(label.reproduced, label.attempts + 1)
    if reproduction.source is not None:
        with contextlib.suppress(CorruptReproduction, OSError):
            relabel(reproduction.source, label)
    return replace(
        replayed,
        status=ReplayStatus.STILL_FAILING.value,
        detail=f"flaky: FIXED at the first replay, then violated again on {label.reproduced} of {label.attempts - 1} attempts on fresh targets",
        stability=label,
    )
