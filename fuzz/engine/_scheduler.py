"""The scheduler: the run's jobs, several at once, each run by the phases that take it.

A job is one plan entry's case kind in one round (`fuzz.engine.jobs`). The phases
(`fuzz.engine.phases.registry`) do their part of it in order, some ahead of the workers. The target
lives in trio's thread, where its session reads stdout while requests are in flight. A phase runs
Hypothesis in a worker thread, and sends its cases through the run's one `Dispatcher`.

`--workers` jobs run at once, taken in plan order. Some explorations are built on valid
values: invalid arguments and invalid output. Each starts after the exploration that draws those
values. So a schema no value satisfies is skipped once. And invalid arguments mutate the arguments
the server accepted (`RunContext.accepted`).

Each exploration is seeded on its own and judged by its own answers. So what a run finds does not
depend on which exploration ran beside which. Summaries are kept in plan order. The engine emits
events and knows no reporter.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence
from dataclasses import replace

import trio

from fuzz.engine._keeping import RunProgress, keep, merge
from fuzz.engine.context import RunContext
from fuzz.engine.events import (
    PROGRESS_EVERY,
    FindingMade,
    Listener,
    Progress,
    ToolFinished,
    ToolStarted,
)
from fuzz.engine.examples import announce_warnings
from fuzz.engine.jobs import Job, Outcome, Untried, built_on
from fuzz.engine.phases.registry import PHASES
from fuzz.engine.phases.trials import ACCEPTED_KEPT
from fuzz.engine.stops import OutOfTime, TargetLost
from fuzz.judging.findings import ToolSummary
from fuzz.judging.rules import TOOL_NAME
from fuzz.judging.tool_names import listing_findings
from strategies import Tool
from strategies._hypothesis.threads import in_worker_thread

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


_AHEAD_PER_WORKER = 2
"""Jobs per worker whose work ahead (`Phase.ahead`) may be in flight before a worker takes them."""

_LEAST_SHARE = 0.5
"""Seconds: a round that would leave an exploration less than this is not started."""


class Runner:
    """Runs jobs `--workers` at a time, and keeps and announces what each found.

    What a job found is merged into its tool's summary before anything is raised, so no finding is
    lost. The phases that take a job run it, in the registry's order
    (`fuzz.engine.phases.registry`); the runner names none of them.

    With --max-time, the budget is spread in rounds. Every exploration gets, when it starts, an even
    share of what is left among the explorations waiting to run. Time one does not use goes to those
    after it. One that its share cut short goes back in line for its next round, while time remains.
    That round has a seed of its own, so it tries new examples, not the same ones again.

    Rounds are not a barrier. A worker takes an exploration's next round while others of the round
    before still run. So an exploration waiting out --timeout on a dropped request holds up no
    other. The run's extra workers (see EXTRA_WORKERS) go on with the next rounds. What every round
    sent, found and spent adds up in the tool's summary.
    """

    def __init__(self, context: RunContext, listener: Listener, progress: RunProgress, owned: frozenset[int] | None = None) -> None:
        self.context = context
        self.owned = frozenset(range(len(context.tool_plans))) if owned is None else owned
        """The places in the plan of the tools this process fuzzes (`_owned`)."""
        self.phases = tuple(phase(context) for phase in PHASES if phase.chosen_by in context.options.phases)
        """The chosen phases, one each for this run, in the registry's order."""
        self.listener = listener
        self.progress = progress
        self.started = time.monotonic()
        self._unfinished_kinds = {index: len(context.kinds_of(tool_plan)) if index in self.owned else 0 for index, tool_plan in enumerate(context.tool_plans)}
        self._announced = 0
        """Tools announced finished: always a prefix of the plan, so they go in order."""

    def jobs(self) -> list[Job]:
        """The first round's jobs: one per owned plan entry and chosen case kind, in plan order."""
        return [
            Job(index, tool_plan.unit, tool_plan.tool, kind)
            for index, tool_plan in enumerate(self.context.tool_plans)
            if index in self.owned
            for kind in self.context.kinds_of(tool_plan)
        ]

    def _on_its_own_target(self, job: Job) -> bool:
        return any(phase.on_its_own_target and phase.takes(job) for phase in self.phases)

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
            if time.monotonic() >= self.context.deadline - _LEAST_SHARE:
                return
            following = job.next_round()
            latest[(job.index, job.kind)] = following
            following.built_on = built_on(following, latest)
            pending.append(following)

        def take(worker_number: int) -> Job | None:
            """The next job worker `worker_number` may run, if any.

            A worker beyond --workers takes one only while as many explorations have been waiting on
            the target for over WAITING_LONG seconds. The first one beyond also takes one while
            explorations wait WAITING_SHARE of their time. A job of a phase on a target of its own
            (`Phase.on_its_own_target`) counts as one that waits. It calls one tool at a time, and
            the run's dispatcher does not watch its target. So it makes far fewer calls a second
            than the random search.
            """
            beyond = worker_number - self.context.options.workers + 1
            on_their_own = sum(1 for job in running if self._on_its_own_target(job))
            if (
                beyond > 0
                and self.context.dispatcher.waiting_long(longer_than=WAITING_LONG) + on_their_own < beyond
                and not (beyond == 1 and self.context.dispatcher.waiting_load() >= WAITING_SHARE * max(1, self.context.options.workers))
            ):
                return None
            for job in pending:
                if job.built_on is None or job.built_on.done.is_set():
                    # The first job free to run goes next, in plan order, once the work ahead of it
                    # is done: a later job that overtook it could hold the worker for its whole
                    # budget while the earlier tool waits.
                    if not job.ready.is_set():
                        return None
                    pending.remove(job)
                    return job
            return None

        ahead_slots = trio.CapacityLimiter(_AHEAD_PER_WORKER * max(1, self.context.options.workers))

        async def prepare(job: Job) -> None:
            try:
                for phase in self.phases:
                    if phase.runs_ahead and phase.takes(job):
                        async with ahead_slots:
                            await phase.ahead(job)
            finally:
                job.ready.set()
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
                nursery.start_soon(prepare, job)
            nursery.start_soon(_tick, changed)
            nursery.start_soon(self._report_progress, running)
            async with trio.open_nursery() as workers:
                for worker_number in range(max(1, self.context.options.workers) + EXTRA_WORKERS):
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
        request may be one of the cases a job sent ahead, while it waited for a worker. Then the job
        never ran, and nothing judged it, so it is judged now. With the target lost, its phases
        judge nothing else and search nothing.
        """
        for job in jobs:
            if job.outcome is None and job.sent_ahead is not None and any(sent.unverifiable for sent in job.sent_ahead[1]):
                with contextlib.suppress(TargetLost, OutOfTime):
                    await self._run_job(job, 1)

    async def _report_progress(self, jobs: list[Job]) -> None:
        """Send a `Progress` event every PROGRESS_EVERY seconds.

        It says what runs, the cases sent and the findings. Only the running ones of `jobs` count,
        and `jobs` is updated as they change. The example database's warnings go out here too.
        """
        while True:
            await trio.sleep(PROGRESS_EVERY)
            announce_warnings(self.context.options, self.progress.warnings, self.listener)
            running = [job for job in jobs if job.outcome is not None and not job.done.is_set()]
            summaries = self.progress.summaries.values()
            now = time.monotonic()
            self.listener(
                Progress(
                    running=tuple((job.outcome.name, job.kind.value) for job in running if job.outcome),
                    cases=sum(summary.total_sent for summary in summaries) + sum(job.outcome.sent for job in running if job.outcome),
                    findings=sum(len(summary.findings) for summary in summaries),
                    seconds=now - self.started,
                    left=max(0.0, self.context.deadline - now) if self.context.options.max_time is not None else None,
                )
            )

    async def _run_job(self, job: Job, left: int) -> bool:
        """Run one job's phases with its share of --max-time.

        Returns True when the share cut it short.
        """
        now = time.monotonic()
        if now >= self.context.deadline:
            raise OutOfTime()
        self._summary_for(job.index)
        if job.built_on is not None and job.built_on.outcome is not None and job.built_on.outcome.unsatisfiable:
            self._finished(job)
            return False
        share = now + (self.context.deadline - now) * min(self.context.options.workers, left) / left
        for phase in self.phases:
            if phase.takes(job):
                await phase.run(job, share)
        if job.outcome is None:
            job.outcome = Untried(job.tool, job.kind, self.context.tool_plans[job.index].name, job.round, job.earlier)
        await trio.to_thread.run_sync(in_worker_thread(job.outcome.conclude), abandon_on_cancel=True)
        return await self._finish_job(job, job.outcome)

    async def _finish_job(self, job: Job, outcome: Outcome) -> bool:
        """Keep what a job found and sent in its tool's summary.

        It announces the findings. Returns True when its share of --max-time cut it short.
        """
        kept = self.context.accepted.setdefault(job.index, [])
        kept.extend(outcome.accepted[: ACCEPTED_KEPT - len(kept)])
        self.progress.restarts = self.context.target.restarts
        known_rules = {(finding.case, finding.rule.id) for finding in self.progress.summaries[job.index].findings}
        findings = []
        for finding in outcome.findings:
            if (finding.case, finding.rule.id) in known_rules:
                continue
            for phase in self.phases:
                finding = await phase.checked(finding, outcome.tool)
            findings.append(keep(finding, self.context.options, self.context.target, outcome.tool))
        outcome.findings = findings
        # read again after the awaits: the tool's other jobs may have merged theirs meanwhile
        summary = merge(self.progress.summaries[job.index], outcome, self.context.tool_plans[job.index].kinds)
        reach = self.context.reach.get(job.index)
        summary = replace(summary, schema_coverage=reach.entries() if reach is not None else ())
        for phase in self.phases:
            summary = phase.summarized(summary, job.index)
        self.progress.summaries[job.index] = summary
        for finding in outcome.findings:
            self.listener(FindingMade(finding))
        if job.round == 0:
            self._finished(job)
        if outcome.lost is not None:
            raise TargetLost(outcome.lost)
        if outcome.out_of_time:
            raise OutOfTime()
        return outcome.share_spent

    def judge_names(self, listing: list[Tool]) -> None:
        """Make the tool-name findings of the tools this process fuzzes.

        They come from `fuzz.judging.tool_names`, before any case is sent, into the tools'
        summaries. Each tool has one owner among the processes, so they are made once per run. They
        are kept whenever the run stops.
        """
        if TOOL_NAME.id not in self.context.criteria.profile.rules or not self.context.criteria.is_enabled(TOOL_NAME.id):
            return  # the published profile under a revision before 2025-11-25 has no such rule
        places = {tool_plan.tool.name: index for index, tool_plan in enumerate(self.context.tool_plans) if index in self.owned and tool_plan.tool is not None}
        for name, finding in listing_findings(listing, places, self.context.criteria.profile.rule(TOOL_NAME.id)).items():
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
        while self._announced < len(self.context.tool_plans) and self._unfinished_kinds[self._announced] == 0:
            if self._announced in self.owned:
                self.listener(ToolFinished(self._summary_for(self._announced)))
            self._announced += 1

    def _summary_for(self, index: int) -> ToolSummary:
        """The tool's summary; made on first use, when the tool is announced started."""
        if index not in self.progress.summaries:
            tool_plan = self.context.tool_plans[index]
            name = tool_plan.name
            self.progress.summaries[index] = ToolSummary(name, {}, (), tool_plan.skips)
            self.listener(ToolStarted(name))
        return self.progress.summaries[index]
