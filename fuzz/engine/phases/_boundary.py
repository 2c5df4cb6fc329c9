"""The boundary phase: each exploration's deterministic cases, sent before its search.

The cases are canonical cases and boundary values (`fuzz.engine.phases.deterministic`). They are
sent in batches before the exploration takes a worker. So what the search leaves out, such as a
shape the server never answers, is known before it starts. It does not depend on timing. A value
among them that violates a rule is already minimal, so its finding stands unshrunk.
"""

from __future__ import annotations

from dataclasses import replace

import trio

from fuzz.engine.context import RunContext
from fuzz.engine.dispatch import Sent
from fuzz.engine.jobs import Job
from fuzz.engine.options import RunPhase
from fuzz.engine.phases._batches import batch_size_for
from fuzz.engine.phases._phase import Phase
from fuzz.engine.phases._random_search import exploration_of
from fuzz.engine.phases.deterministic import BoundaryValues, canonical_for, send_canonical
from fuzz.engine.plan import Unit
from fuzz.engine.stops import on_trio_clock
from fuzz.judging.findings import ToolSummary
from strategies import Case
from strategies._hypothesis.threads import in_worker_thread


class BoundaryPhase(Phase):
    """Deterministic cases for the first round of every tool's and the envelope's case kinds."""

    chosen_by = RunPhase.BOUNDARY
    runs_ahead = True

    def __init__(self, context: RunContext) -> None:
        super().__init__(context)
        self.values = BoundaryValues(context.known)
        self.counts: dict[int, tuple[int, int]] = {}
        """By tool place: boundary cases sent, and left out by the phase's bound."""

    def takes(self, job: Job) -> bool:
        return job.unit is not Unit.SEQUENCES and job.round == 0

    async def ahead(self, job: Job) -> None:
        """Send the job's deterministic cases, until --max-time; keep what came of them on the job."""
        context = self.context
        cases, boundary, left_out = await self._cases(job)
        sent: list[Sent] = []
        with trio.move_on_at(on_trio_clock(context.deadline)):
            await send_canonical(
                context.dispatcher,
                cases,
                sent,
                timeout=context.options.timeout,
                batch=batch_size_for(context.options, job.tool.name if job.tool else None),
            )
        job.sent_ahead = (cases[: len(sent)], sent)
        sent_before, left_before = self.counts.get(job.index, (0, 0))
        boundary_sent = max(0, len(sent) - (len(cases) - boundary))
        self.counts[job.index] = (sent_before + boundary_sent, left_before + left_out)

    async def run(self, job: Job, share_deadline: float) -> None:
        exploration = exploration_of(job, self.context, share_deadline)
        await trio.to_thread.run_sync(in_worker_thread(exploration.judge_deterministic), abandon_on_cancel=True)

    def summarized(self, summary: ToolSummary, index: int) -> ToolSummary:
        sent, left_out = self.counts.get(index, (0, 0))
        return replace(summary, boundary_cases=sent, boundary_left_out=left_out)

    async def _cases(self, job: Job) -> tuple[list[Case], int, int]:
        """The job's canonical cases, then its boundary cases.

        The boundary cases are found in a worker thread: finding a schema's simplest values takes
        Hypothesis a while. Also returns how many are boundary cases, and how many more the phase's
        bound left out.
        """
        cases = canonical_for(job.tool, job.kind, self.context.listed, self.context.stateless)
        if job.tool is None:
            return cases, 0, 0
        boundary, left_out = await trio.to_thread.run_sync(in_worker_thread(self.values.cases), job.tool, job.kind, abandon_on_cancel=True)
        return self.context.as_planned(job.tool, job.kind, cases + boundary), len(boundary), left_out
