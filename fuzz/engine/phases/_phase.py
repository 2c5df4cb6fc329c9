"""What a phase is to the scheduler: one interface, so the scheduler names no phase.

A run's plan makes jobs: one per plan entry and case kind (`fuzz.engine.jobs`). Each phase says
which jobs it takes part in, and does its part of each: some of it ahead, before a worker takes the
job, the rest in a worker. What the job's phases sent, found and spent is its `Outcome`. The
scheduler merges it into the tool's summary, the same for every phase.

The phases run in the registry's order (`fuzz.engine.phases.registry`). Adding one is a module with a
class of this shape, and one line there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from fuzz.engine.options import RunPhase
from fuzz.judging.findings import Finding, ToolSummary
from strategies import Tool

if TYPE_CHECKING:
    from fuzz.engine.context import RunContext
    from fuzz.engine.jobs import Job


class Phase:
    """One part of a run, chosen by its `--phases` name.

    A phase is made once per run, with the run's context. The defaults do nothing, so a phase
    overrides only the steps it has.
    """

    chosen_by: ClassVar[RunPhase]
    """Its name in `--phases`."""
    on_its_own_target: ClassVar[bool] = False
    """It calls a target of its own, one call at a time.

    The scheduler counts its jobs as waiting, so another exploration may run beside it.
    """
    runs_ahead: ClassVar[bool] = False
    """It has work to do on a job before a worker takes it (`ahead`)."""

    def __init__(self, context: RunContext) -> None:
        self.context = context

    def takes(self, job: Job) -> bool:
        """Whether this phase has a part in `job`."""
        raise NotImplementedError

    async def ahead(self, job: Job) -> None:
        """Its work on `job` before a worker takes it, beside the workers; in trio."""

    async def run(self, job: Job, share_deadline: float) -> None:
        """Its work on `job` in a worker, until `share_deadline` at most; sets or adds to `job.outcome`."""

    async def checked(self, finding: Finding, tool: Tool | None) -> Finding:
        """A finding of any job, as this phase would have it reported; as it is by default."""
        return finding

    def summarized(self, summary: ToolSummary, index: int) -> ToolSummary:
        """The summary of the tool at `index`, with what this phase counts of its own."""
        return summary
