"""The scheduler: every tool and case kind explored by Hypothesis, several at once.

Each case is sent to the target and judged. The target lives in trio's thread, where its session
reads stdout while requests are in flight. Each exploration (`fuzz.engine.phases.random_search`)
runs Hypothesis in a worker thread. It sends its batches of cases through the run's one
`Dispatcher`.

`--workers` explorations run at once, taken in plan order. Some explorations are built on valid
values: invalid arguments and invalid output. Each starts after the exploration that draws those
values. So a schema no value satisfies is skipped once. And invalid arguments mutate the arguments
the server accepted (`Exploration.accepted`).

Each exploration is seeded on its own and judged by its own answers. So what a run finds does not
depend on which exploration ran beside which. Summaries are kept in plan order. The engine emits
events and knows no reporter.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import trio

from fuzz.engine.dispatch import Dispatcher, Sent
from fuzz.engine.events import (
    PROGRESS_EVERY,
    FindingMade,
    Listener,
    Progress,
    ToolFinished,
    ToolStarted,
)
from fuzz.engine.examples import announce_warnings
from fuzz.engine.phases.state_recheck import checked_on_a_fresh_target
from fuzz.engine.jobs import Job, built_on
from fuzz.engine.keeping import RunProgress, keep, merge
from fuzz.engine.options import RunOptions, RunPhase
from fuzz.engine.phases.boundary import BoundaryValues, batch_size_for, canonical_for, send_canonical
from fuzz.engine.phases.random_search import Exploration
from fuzz.engine.phases.sequences import SequenceExploration, explore_sequences
from fuzz.engine.phases.trials import ACCEPTED_KEPT
from fuzz.engine.plan import ToolPlan
from fuzz.engine.schema_reach import SCHEMA_KINDS, SchemaReach
from fuzz.engine.stops import OutOfTime, TargetLost, on_trio_clock
from fuzz.judging.findings import ToolSummary
from fuzz.judging.oracle import Criteria
from fuzz.judging.rules import TOOL_NAME
from fuzz.judging.tool_names import listing_findings
from fuzz.wire.target import Target
from strategies import Case, CaseKind, Tool
from strategies._hypothesis.threads import in_worker_thread
from strategies.meta import Stateless

EXTRA_WORKERS = 3
"""Workers that may start beyond --workers while explorations wait on the target.

One starts per exploration waiting for more than WAITING_LONG seconds. A slow tool, a dropped
request or a hang being confirmed make such waits. Threads that all compute take turns, at a cost.
But while some only wait, others can compute.
"""

WAITING_LONG = 1.0

WAITING_SHARE = 0.3
"""The share of time spent waiting that starts the first extra worker.

The first worker beyond --workers also starts while the running explorations spend this share of
their time waiting for answers. The share is averaged over the last second. An SDK server over stdio
keeps one worker waiting much of the time; the demo, little. At this share, the waits of one
exploration are long enough for another to compute in.
"""


async def _tick(changed: trio.lowlevel.ParkingLot) -> None:
    """Wake the idle workers now and then, to look again at who is waiting on the target."""
    while True:
        await trio.sleep(WAITING_LONG / 4)
        changed.unpark_all()


_CANONICAL_AHEAD = 2
"""Explorations per worker whose canonical cases may be in flight before a worker takes them."""

_LEAST_SHARE = 0.5
"""Seconds: a round that would leave an exploration less than this is not started."""


class Runner:
    """Runs jobs `--workers` at a time, and keeps and announces what each found.

    What a job found is merged into its tool's summary before anything is raised, so no finding is
    lost.

    With --max-time, the budget is spread in rounds. Every exploration gets, when it starts, an even
    share of what is left among the explorations waiting to run. Time one does not use goes to those
    after it. One that its share cut short goes back in line for its next round, while time remains.
    That round has a seed of its own, so it tries new examples, not the same ones again.

    Rounds are not a barrier. A worker takes an exploration's next round while others of the round
    before still run. So an exploration waiting out --timeout on a dropped request holds up no
    other. The run's extra workers (see EXTRA_WORKERS) go on with the next rounds. What every round
    sent, found and spent adds up in the tool's summary.
    """

    def __init__(
        self,
        options: RunOptions,
        target: Target,
        criteria: Criteria,
        tool_plans: tuple[ToolPlan, ...],
        listener: Listener,
        progress: RunProgress,
        deadline: float,
        known: dict[str, dict[str, tuple[Any, ...]]] | None = None,
        owned: frozenset[int] | None = None,
        stateless: Stateless | None = None,
    ) -> None:
        self.options = options
        self.stateless = stateless
        self.owned = frozenset(range(len(tool_plans))) if owned is None else owned
        """The places in the plan of the tools this process fuzzes (`_owned`)."""
        self.known = known or {}
        """Known-good values by tool and field (`--argument`)."""
        self.accepted: dict[int, list[dict[str, Any]]] = {}
        """By tool: the arguments its valid-arguments explorations got a success for.

        They are kept in plan and round order, at most ACCEPTED_KEPT.
        """
        self.target = target
        self.dispatcher = Dispatcher(target, ping_timeout=options.timeout)
        self.criteria = criteria
        self.tool_plans = tool_plans
        self.listener = listener
        self.progress = progress
        self.deadline = deadline
        self.started = time.monotonic()
        self.listed = tuple(tool.name for tool in target.tools) + tuple(sorted(options.selection.unavailable))
        self._unfinished_kinds = {index: len(self.kinds_of(tool_plan)) if index in self.owned else 0 for index, tool_plan in enumerate(tool_plans)}
        self._announced = 0
        """Tools announced finished: always a prefix of the plan, so they go in order."""
        self.boundaries = BoundaryValues(self.known)
        self.reach: dict[int, SchemaReach] = {}
        """By tool place: the schema keywords its cases reached (`fuzz.engine.schema_reach`)."""
        self.boundary_counts: dict[int, tuple[int, int]] = {}
        """By tool place: boundary cases sent, and left out by the phase's bound."""

    def kinds_of(self, tool_plan: ToolPlan) -> tuple[CaseKind, ...]:
        """The planned case kinds of a tool this run sends (`options.kinds`)."""
        chosen = self.options.kinds
        return tuple(kind for kind in tool_plan.kinds if chosen is None or kind in chosen)

    async def run_rounds(self, jobs: list[Job]) -> None:
        """Run `jobs` of the first round, and the next rounds their --max-time share cut short.

        Each job is built on the job of its tool that draws its valid values.
        """
        pending = list(jobs)
        running: list[Job] = []
        latest = {(job.index, job.kind): job for job in jobs}
        """The newest round of each exploration: what a job is built on."""
        for job in jobs:
            job.built_on = built_on(job, latest)
        stop: list[BaseException] = []
        changed = trio.lowlevel.ParkingLot()

        def next_round_of(job: Job) -> None:
            if time.monotonic() >= self.deadline - _LEAST_SHARE:
                return
            verdicts = job.exploration.verdicts if isinstance(job.exploration, Exploration) else job.earlier
            following = Job(job.index, job.tool, job.kind, job.round + 1, earlier=verdicts)
            following.canonical_sent.set()
            latest[(job.index, job.kind)] = following
            following.built_on = built_on(following, latest)
            pending.append(following)

        def take(worker_number: int) -> Job | None:
            """The next job worker `worker_number` may run, if any.

            A worker beyond --workers takes one only while as many explorations have been waiting on
            the target for over WAITING_LONG seconds. The first one beyond also takes one while
            explorations wait WAITING_SHARE of their time. The sequence phase counts as one that
            waits. It calls one tool at a time, and restarts its own target before most sequences.
            The run's dispatcher does not watch that target. So the sequence phase makes far fewer
            calls a second than the random search.
            """
            beyond = worker_number - self.options.workers + 1
            sequences = sum(1 for job in running if job.kind is CaseKind.SEQUENCE)
            if (
                beyond > 0
                and self.dispatcher.waiting_long(longer_than=WAITING_LONG) + sequences < beyond
                and not (beyond == 1 and self.dispatcher.waiting_load() >= WAITING_SHARE * max(1, self.options.workers))
            ):
                return None
            for job in pending:
                if job.built_on is None or job.built_on.done.is_set():
                    # The first job free to run goes next, in plan order, once its canonical
                    # cases are sent: a later job that overtook it could hold the worker for
                    # its whole budget while the earlier tool waits.
                    if not job.canonical_sent.is_set():
                        return None
                    pending.remove(job)
                    return job
            return None

        canonical_slots = trio.CapacityLimiter(_CANONICAL_AHEAD * max(1, self.options.workers))

        async def send_canonical_of(job: Job) -> None:
            try:
                if job.round == 0 and RunPhase.BOUNDARY in self.options.phases:
                    async with canonical_slots:
                        cases, boundary, left_out = await self._deterministic_cases(job)
                        sent: list[Sent] = []
                        with trio.move_on_at(on_trio_clock(self.deadline)):
                            await send_canonical(
                                self.dispatcher,
                                cases,
                                sent,
                                timeout=self.options.timeout,
                                batch=batch_size_for(self.options, job.tool.name if job.tool else None),
                            )
                        job.canonical = (cases[: len(sent)], sent)
                        sent_before, left_before = self.boundary_counts.get(job.index, (0, 0))
                        boundary_sent = max(0, len(sent) - (len(cases) - boundary))
                        self.boundary_counts[job.index] = (sent_before + boundary_sent, left_before + left_out)
            finally:
                job.canonical_sent.set()
                changed.unpark_all()

        async def worker(worker_number: int) -> None:
            while True:
                job = None
                while not stop and (pending or running) and (job := take(worker_number)) is None:
                    await changed.park()
                if stop or job is None:
                    return
                running.append(job)
                try:
                    if await self._run_job(job, len(pending) + 1):
                        next_round_of(job)
                except (TargetLost, OutOfTime) as error:
                    stop.append(error)
                finally:
                    running.remove(job)
                    job.done.set()
                    changed.unpark_all()

        self._announce()
        async with trio.open_nursery() as nursery:
            for job in jobs:
                nursery.start_soon(send_canonical_of, job)
            nursery.start_soon(_tick, changed)
            nursery.start_soon(self._report_progress, running)
            async with trio.open_nursery() as workers:
                for worker_number in range(max(1, self.options.workers) + EXTRA_WORKERS):
                    workers.start_soon(worker, worker_number)
            if stop and isinstance(stop[0], TargetLost):
                await self._judge_what_blames_the_loss(jobs)
            nursery.cancel_scope.cancel()
        if stop:
            raise stop[0]

    async def _judge_what_blames_the_loss(self, jobs: Sequence[Job]) -> None:
        """Judge the case that blames a lost target, if no exploration judged it.

        The target died with several requests in flight and could not be restarted. The one finding
        that says so is the request whose sender tried the restart (`Sent.unverifiable`). That
        request may be one of a job's deterministic cases, sent ahead while the job waited for a
        worker. Then the job never ran, and nothing judged it, so it is judged now. With the target
        lost, its exploration judges nothing else and searches nothing.
        """
        for job in jobs:
            if job.exploration is None and job.canonical is not None and any(sent.unverifiable for sent in job.canonical[1]):
                with contextlib.suppress(TargetLost, OutOfTime):
                    await self._run_job(job, 1)

    async def _deterministic_cases(self, job: Job) -> tuple[list[Case], int, int]:
        """The job's canonical cases, then its boundary cases.

        The boundary cases are found in a worker thread: finding a schema's simplest values takes
        Hypothesis a while. Also returns how many are boundary cases, and how many more the phase's
        bound left out.
        """
        cases = canonical_for(job.tool, job.kind, self.listed, self.stateless)
        if job.tool is None:
            return cases, 0, 0
        boundary, left_out = await trio.to_thread.run_sync(in_worker_thread(self.boundaries.cases), job.tool, job.kind, abandon_on_cancel=True)
        return cases + boundary, len(boundary), left_out

    async def _report_progress(self, jobs: list[Job]) -> None:
        """Send a `Progress` event every PROGRESS_EVERY seconds.

        It says what runs, the cases sent and the findings. Only the running ones of `jobs` count,
        and `jobs` is updated as they change. The example database's warnings go out here too.
        """
        while True:
            await trio.sleep(PROGRESS_EVERY)
            announce_warnings(self.options, self.progress.warnings, self.listener)
            running = [job for job in jobs if job.exploration is not None and not job.done.is_set()]
            summaries = self.progress.summaries.values()
            now = time.monotonic()
            self.listener(
                Progress(
                    running=tuple((job.exploration.name, job.kind.value) for job in running if job.exploration),
                    cases=sum(summary.total_sent for summary in summaries) + sum(job.exploration.sent for job in running if job.exploration),
                    findings=sum(len(summary.findings) for summary in summaries),
                    seconds=now - self.started,
                    left=max(0.0, self.deadline - now) if self.options.max_time is not None else None,
                )
            )

    async def _run_job(self, job: Job, left: int) -> bool:
        """Run one exploration with its share of --max-time.

        Returns True when the share cut it short.
        """
        now = time.monotonic()
        if now >= self.deadline:
            raise OutOfTime()
        self._summary_for(job.index)
        if job.built_on is not None and job.built_on.exploration is not None and job.built_on.exploration.unsatisfiable:
            self._finished(job)
            return False
        share = now + (self.deadline - now) * min(self.options.workers, left) / left
        if job.kind is CaseKind.SEQUENCE:
            tools = [tool_plan.tool for tool_plan in self.tool_plans if tool_plan.tool is not None and CaseKind.VALID_ARGUMENTS in tool_plan.kinds]
            return await self._finish_job(job, await explore_sequences(self.options, tools, self.criteria, self.deadline, share, self.target.protocol_version))
        exploration = job.exploration = Exploration(
            self.options,
            self.dispatcher,
            job.tool,
            job.kind,
            self.listed,
            self.criteria,
            self.deadline,
            share,
            job.round,
            job.canonical,
            accepted=self.accepted.get(job.index, ()) if job.kind is CaseKind.INVALID_ARGUMENTS else (),
            known=self.known.get(job.tool.name) if job.tool is not None else None,
            stateless=self.stateless,
            reach=self._reach_of(job),
            earlier=job.earlier,
        )
        await trio.to_thread.run_sync(in_worker_thread(exploration.run), abandon_on_cancel=True)
        return await self._finish_job(job, exploration)

    async def _finish_job(self, job: Job, exploration: Exploration | SequenceExploration) -> bool:
        """Keep what an exploration found and sent in its tool's summary.

        It announces the findings. Returns True when its share of --max-time cut it short.
        """
        job.exploration = exploration
        kept = self.accepted.setdefault(job.index, [])
        kept.extend(exploration.accepted[: ACCEPTED_KEPT - len(kept)])
        self.progress.restarts = self.target.restarts
        known_rules = {(finding.case, finding.rule.id) for finding in self.progress.summaries[job.index].findings}
        exploration.findings = [
            keep(
                await checked_on_a_fresh_target(finding, exploration.tool, self.options, self.criteria, self.target.protocol_version),
                self.options,
                self.target,
                exploration.tool,
            )
            for finding in exploration.findings
            if (finding.case, finding.rule.id) not in known_rules
        ]
        # read again after the awaits: the tool's other explorations may have merged theirs meanwhile
        merged = merge(self.progress.summaries[job.index], exploration, self.tool_plans[job.index].kinds)
        boundary_sent, boundary_left_out = self.boundary_counts.get(job.index, (0, 0))
        self.progress.summaries[job.index] = replace(
            merged,
            schema_coverage=self.reach[job.index].entries() if job.index in self.reach else (),
            boundary_cases=boundary_sent,
            boundary_left_out=boundary_left_out,
        )
        for finding in exploration.findings:
            self.listener(FindingMade(finding))
        if job.round == 0:
            self._finished(job)
        if exploration.lost is not None:
            raise TargetLost(exploration.lost)
        if exploration.out_of_time:
            raise OutOfTime()
        return exploration.share_spent

    def _reach_of(self, job: Job) -> SchemaReach | None:
        """The tool's schema-reach counter, made on first use.

        None for the envelope. None also for a tool that gets no case drawn from its schemas, such
        as an unavailable or a destructive one.
        """
        kinds = self.kinds_of(self.tool_plans[job.index])
        if job.tool is None or not any(kind in SCHEMA_KINDS for kind in kinds):
            return None
        if job.index not in self.reach:
            with_input = any(kind in (CaseKind.VALID_ARGUMENTS, CaseKind.INVALID_ARGUMENTS) for kind in kinds)
            with_output = any(kind in (CaseKind.VALID_OUTPUT, CaseKind.INVALID_OUTPUT) for kind in kinds)
            self.reach[job.index] = SchemaReach(job.tool, with_input=with_input, with_output=with_output)
        return self.reach[job.index]

    def judge_names(self, listing: list[Tool]) -> None:
        """Make the tool-name findings of the tools this process fuzzes.

        They come from `fuzz.judging.tool_names`, before any case is sent, into the tools'
        summaries. Each tool has one owner among the processes, so they are made once per run. They
        are kept whenever the run stops.
        """
        if TOOL_NAME.id not in self.criteria.profile.rules or not self.criteria.is_enabled(TOOL_NAME.id):
            return  # the published profile under a revision before 2025-11-25 has no such rule
        places = {tool_plan.tool.name: index for index, tool_plan in enumerate(self.tool_plans) if index in self.owned and tool_plan.tool is not None}
        for name, finding in listing_findings(listing, places, self.criteria.profile.rule(TOOL_NAME.id)).items():
            summary = self._summary_for(places[name])
            self.progress.summaries[places[name]] = replace(summary, findings=(*summary.findings, finding))
            self.listener(FindingMade(finding))

    def _finished(self, job: Job) -> None:
        self._unfinished_kinds[job.index] -= 1
        self._announce()

    def _announce(self) -> None:
        """Announce, in plan order, the tools whose first-round explorations are all done.

        A tool with none to run, say a destructive one, is announced as soon as those before it are.
        """
        while self._announced < len(self.tool_plans) and self._unfinished_kinds[self._announced] == 0:
            if self._announced in self.owned:
                self.listener(ToolFinished(self._summary_for(self._announced)))
            self._announced += 1

    def _summary_for(self, index: int) -> ToolSummary:
        """The tool's summary; made on first use, when the tool is announced started."""
        if index not in self.progress.summaries:
            tool_plan = self.tool_plans[index]
            name = tool_plan.name
            self.progress.summaries[index] = ToolSummary(name, {}, (), tool_plan.skips)
            self.listener(ToolStarted(name))
        return self.progress.summaries[index]
