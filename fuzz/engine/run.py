"""Running the engine: a run from its options to its result.

`run` opens the target and replays the corpus's reproductions of this target. It plans the tools,
judges their names, and hands the explorations to the scheduler (`fuzz.engine._scheduler`). With
`--processes` above one, it forks worker processes instead, each running a shard
(`fuzz.engine._processes`). It stops on --max-time, Ctrl-C or SIGTERM, keeping what was found, and
returns the `RunResult`.

`run_on` does the same on a target the caller keeps open: the pytest plugin's case. The engine emits
events and knows no reporter.
"""

from __future__ import annotations

import contextlib
import gc
import signal
import time
from collections.abc import Callable, Iterator, Sequence

import trio

from fuzz.corpus.database import use_user_cache
from fuzz.engine._conclusion import concluded
from fuzz.engine._keeping import RunProgress, compare_tool_list, replay_corpus
from fuzz.engine._processes import assign, run_in_processes
from fuzz.engine._scheduler import Runner
from fuzz.engine.context import RunContext
from fuzz.engine.dispatch import Dispatcher
from fuzz.engine.events import (
    Listener,
    RunFinished,
    RunStarted,
)
from fuzz.engine.examples import announce_warnings, prepare_database
from fuzz.engine.known_arguments import resolve_known_arguments
from fuzz.engine.options import RunOptions, RunPhase
from fuzz.engine.plan import ToolPlan, excluded, plan, revision_kinds_for, with_envelope
from fuzz.engine.sharding import plan_fingerprint, shard_places
from fuzz.engine.stops import OutOfTime, TargetLost, on_trio_clock
from fuzz.errors import HarnessError, first_leaf
from fuzz.judging.findings import INTERRUPTED, TERMINATED, RunResult, ShardOfRun
from fuzz.judging.oracle import Criteria
from fuzz.judging.profiles import resolve
from fuzz.wire.target import Target, open_target
from fuzz.wire.tasks import TaskEra, task_era
from strategies import CaseKind
from strategies._hypothesis import install as install_hypothesis_patches
from strategies._hypothesis.threads import guard as guard_hypothesis
from strategies.ecma_patterns import problem, untranslatable

_GRACE = 3.0
"""Seconds past --max-time allowed for closing the target and writing what was found."""


def run(options: RunOptions, listener: Listener = lambda event: None) -> RunResult:
    """Fuzz the target and return the result.

    Raises HarnessError when the run could not be made. On Ctrl-C, returns what was found so far,
    with `stopped_early` set. With `options.processes` above one, the tools are split between worker
    processes (`fuzz.engine._processes`). Each of them runs this function with its `ProcessPart`.
    """
    use_user_cache()
    install_hypothesis_patches()
    guard_hypothesis()  # here too, before the worker processes are forked: they inherit what it collects
    if options.process_part is None:
        prepare_database(options)  # before the worker processes are forked and any target is started
    with _startup_frozen(options):
        if options.processes > 1 and options.process_part is None:
            return run_in_processes(options, listener, run)
        progress, started, deadline = RunProgress(), time.monotonic(), _deadline(options)
        stopped_early: str | None = None
        try:
            trio.run(_run, options, listener, progress, deadline)
        except BaseException as error:
            stopped_early = _stopped_by(error, options)
    return _finished(options, listener, progress, started, stopped_early, conclude=options.process_part is None)


@contextlib.contextmanager
def _startup_frozen(options: RunOptions) -> Iterator[None]:
    """Leave what exists before the run out of garbage collection until it ends.

    This means the modules and Hypothesis's constants, frozen with `gc.freeze`. With `--processes`,
    the worker processes are forked frozen. No collection, there or here, then writes to the pages
    the imports filled, so they stay shared (`fuzz.engine._processes`).

    Why: a full collection walks every object the collector tracks. The imports alone make tens of
    thousands of them, and they are never garbage, so walking them is wasted time. Hypothesis's runs
    leave cycles that only a full collection frees. One happens every `COLLECT_EVERY`
    (`fuzz.engine.finished_runs`), and whenever CPython's own thresholds call for one. Freezing
    cuts the time the collector takes by much. A worker process's shard (`process_part`) runs
    inside its parent's freeze.
    """
    if options.process_part is not None:
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


async def run_on(target: Target, options: RunOptions, listener: Listener = lambda event: None) -> RunResult:
    """Run `run` in the caller's trio run, on a target the caller keeps open.

    The pytest plugin starts its target once and fuzzes one tool per call on it. No signal handling
    here: that is the caller's.
    """
    use_user_cache()
    prepare_database(options)
    progress, started, deadline = RunProgress(), time.monotonic(), _deadline(options)
    stopped_early: str | None = None
    try:
        with trio.move_on_at(on_trio_clock(deadline) + _GRACE) as scope:
            await _fuzz_on(target, options, listener, progress, deadline)
        if scope.cancelled_caught:
            raise OutOfTime()
    except BaseException as error:
        stopped_early = _stopped_by(error, options)
    return _finished(options, listener, progress, started, stopped_early)


def _deadline(options: RunOptions) -> float:
    """When --max-time ends, on time.monotonic's clock (infinity without it)."""
    return time.monotonic() + options.max_time if options.max_time is not None else float("inf")


def _stopped_by(error: BaseException, options: RunOptions) -> str:
    """Say why the run stopped early, from what stopped it.

    Re-raises a harness error, and anything that is not a reason to stop keeping what was found.
    """
    leaf = first_leaf(error)
    if isinstance(leaf, HarnessError):
        raise leaf from None
    if isinstance(leaf, TargetLost):
        return str(leaf)
    if isinstance(leaf, OutOfTime):
        return f"--max-time {options.max_time:g} s reached"
    if isinstance(leaf, KeyboardInterrupt):
        return INTERRUPTED
    if isinstance(leaf, Terminated):
        return TERMINATED
    raise error


def _finished(
    options: RunOptions, listener: Listener, progress: RunProgress, started: float, stopped_early: str | None, *, conclude: bool = False
) -> RunResult:
    """The run's result, announced. `conclude`: tried again and recorded first
    (`fuzz.engine._conclusion`), as a whole run is, outside trio; a worker process's part is not."""
    description = progress.description
    announce_warnings(options, progress.warnings, listener)
    result = RunResult(
        seed=options.seed,
        target=options.target.as_json(),
        target_description=options.target.describe(),
        protocol_version=description.protocol_version if description else None,
        server_info=description.server_info if description else {},
        tasks=task_era(description).value if description else TaskEra.NONE.value,
        options=options.as_json(),
        tools=tuple(progress.summaries[index] for index in sorted(progress.summaries)),
        seconds=time.monotonic() - started,
        target_restarts=progress.restarts,
        stopped_early=stopped_early,
        out_of_time=stopped_early is not None and stopped_early.startswith("--max-time"),
        profile=options.profile,
        fail_on=options.fail_on,
        excluded_tools=progress.excluded,
        replayed=tuple(progress.replayed),
        baseline=options.baseline,
        shard=progress.shard,
        warnings=(*progress.tool_list_warnings, *progress.warnings),
        tool_changes=progress.tool_changes,
        tool_list_since=progress.tool_list_since,
        tool_list_recorded=progress.tool_list_recorded,
        fail_on_breaking=options.fail_on_breaking,
    )
    if conclude:
        result = concluded(result, options)
    listener(RunFinished(result))
    return result


class Terminated(Exception):
    """SIGTERM arrived: the run stops as it does on Ctrl-C, keeping what it found."""


async def _run(options: RunOptions, listener: Listener, progress: RunProgress, deadline: float) -> None:
    with trio.move_on_at(on_trio_clock(deadline) + _GRACE) as scope:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_raise_on_sigterm)
            await _fuzz(options, listener, progress, deadline)
            nursery.cancel_scope.cancel()
    if scope.cancelled_caught:
        raise OutOfTime()


async def _raise_on_sigterm() -> None:
    with trio.open_signal_receiver(signal.SIGTERM) as signals:
        async for _ in signals:
            raise Terminated()


async def _fuzz(options: RunOptions, listener: Listener, progress: RunProgress, deadline: float) -> None:
    async with open_target(
        options.target, startup_timeout=options.startup_timeout, protocol_version=options.protocol_version, max_message_bytes=options.max_answer_size
    ) as target:
        await _fuzz_on(target, options, listener, progress, deadline)


async def _fuzz_on(target: Target, options: RunOptions, listener: Listener, progress: RunProgress, deadline: float) -> None:
    progress.description = target.description
    stateless = target.stateless
    plans = plan(target.tools, options.selection, revision_kinds_for(stateless), target.task_era)
    progress.excluded = excluded(target.tools, options.selection)
    known = resolve_known_arguments(options.known_arguments, target.tools)
    tasks = RunPhase.TASKS in options.phases and target.task_era is not TaskEra.NONE and options.sends(CaseKind.TASK_METHOD)
    rounds = RunPhase.ROUNDS in options.phases and stateless is not None and options.sends(CaseKind.REQUEST_STATE)
    envelope = options.envelope and options.sends(CaseKind.MALFORMED_REQUEST)
    tool_plans = with_envelope(plans, envelope, sequences=RunPhase.SEQUENCE in options.phases, tasks=tasks, rounds=rounds)
    shard_owned = shard_places(tool_plans, options)
    units = tuple(tool_plan.name for tool_plan in tool_plans)
    if options.shard is not None:
        progress.shard = ShardOfRun(
            options.shard.number,
            options.shard.count,
            plan_fingerprint(tool_plans, options),
            units=units,
            owned=tuple(units[place] for place in sorted(shard_owned)),
        )
    fuzzed = [tool_plans[place] for place in sorted(shard_owned)]
    listener(
        RunStarted(
            seed=options.seed,
            target=options.target.describe(),
            protocol_version=target.description.protocol_version,
            server_name=str(target.description.server_info.get("name", "?")),
            tool_names=tuple(p.tool.name for p in fuzzed if p.tool is not None),
            profile=options.profile,
            warnings=pattern_warnings(fuzzed),
            units=tuple(p.name for p in fuzzed),
            shard=f"{options.shard}: {len(fuzzed)} of the plan's {len(tool_plans)} units" if options.shard is not None else None,
        )
    )
    keeps = options.corpus is not None and options.replay_corpus and (options.process_part is None or options.process_part.index == 0)
    if keeps and (options.shard is None or options.shard.number == 1):
        compare_tool_list(options, target, listener, progress)  # one runner of a run compares, and writes the list
    if keeps:
        await replay_corpus(options, target, listener, progress, replays=_replayed_here(tool_plans, shard_owned, options))
    criteria = Criteria(
        profile=resolve(options.profile, target.description.protocol_version),
        enabled=options.rules,
        protocol_version=target.description.protocol_version,
        listed_names=tuple(tool.name for tool in target.tools),
    )
    owned = _owned(tool_plans, shard_owned, options)
    install_hypothesis_patches()
    guard_hypothesis()
    context = RunContext(
        options=options,
        target=target,
        dispatcher=Dispatcher(target, ping_timeout=options.timeout),
        criteria=criteria,
        tool_plans=tool_plans,
        deadline=deadline,
        known=known,
        stateless=stateless,
    )
    runner = Runner(context, listener, progress, owned)
    runner.judge_names(target.tools)
    await runner.run_rounds(runner.jobs())


def pattern_warnings(plans: Sequence[ToolPlan]) -> tuple[str, ...]:
    """One line for each schema pattern the harness cannot fully use.

    Only the fuzzed tools' schemas count (`strategies.ecma_patterns`). Each pattern is said once,
    and its field is left out of the claims.
    """
    lines: list[str] = []
    for tool_plan in plans:
        tool = tool_plan.tool
        if tool is None:
            continue
        for schema in (tool.input_schema, tool.output_schema):
            for pattern in untranslatable(schema) if schema is not None else ():
                lines.append(f"tool {tool.name!r}: pattern {pattern!r} {problem(pattern)}")
    return tuple(lines)


def _owned(tool_plans: tuple[ToolPlan, ...], shard_owned: frozenset[int], options: RunOptions) -> frozenset[int]:
    """The places in the plan of the units this process fuzzes.

    These are its shard's units (`--shard`): all of them, or its worker process's part of them
    (`--processes`). When `options.only` is set, only those it names.
    """
    shard_units = sorted(shard_owned)
    places: Sequence[int] = shard_units
    if options.only is not None:
        places = [index for index in places if tool_plans[index].name in options.only]
    part = options.process_part
    if part is None:
        return frozenset(places)
    owners = dict(zip(shard_units, assign([len(tool_plans[place].kinds) for place in shard_units], part.count), strict=True))
    return frozenset(index for index in places if owners[index] == part.index)


def _replayed_here(tool_plans: tuple[ToolPlan, ...], shard_owned: frozenset[int], options: RunOptions) -> Callable[[str], bool]:
    """Whether this runner replays the reproductions of a unit (`sharding.unit_of`).

    A shard replays its own units' reproductions. The first shard also replays those of a unit the
    plan no longer has, such as a tool the server stopped listing.
    """
    names = [tool_plan.name for tool_plan in tool_plans]
    owned = {names[place] for place in shard_owned}
    first = options.shard is None or options.shard.number == 1
    return lambda unit: unit in owned or (first and unit not in names)
