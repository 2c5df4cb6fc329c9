"""One run's context: what every phase reads, built once per run.

A phase gets the context, not a dozen parameters, and reads the options from it. The stores a
tool's jobs share across phases (the arguments the server accepted, the schema keywords reached)
live here too, so no phase reaches into another.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from fuzz.engine.dispatch import Dispatcher
from fuzz.engine.options import RunOptions
from fuzz.engine.plan import ToolPlan, Unit, task_mode
from fuzz.engine.schema_reach import SCHEMA_KINDS, SchemaReach
from fuzz.judging.oracle import Criteria
from fuzz.wire.target import Target
from strategies import Case, CaseKind, Tool
from strategies.cases import TaskMode, as_task
from strategies.meta import Stateless

if TYPE_CHECKING:
    from fuzz.engine.jobs import Job


@dataclass(frozen=True, eq=False)
class RunContext:
    """The run's target, options, plan and judging criteria, and the stores its phases share."""

    options: RunOptions
    target: Target
    dispatcher: Dispatcher
    criteria: Criteria
    tool_plans: tuple[ToolPlan, ...]
    deadline: float
    """When the run's --max-time ends (monotonic)."""
    known: dict[str, dict[str, tuple[Any, ...]]] = field(default_factory=dict)
    """Known-good values by tool and field (`--argument`)."""
    stateless: Stateless | None = None
    """The stateless revision's envelope, when the run speaks it."""
    accepted: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    """By tool place: the arguments its valid-arguments jobs got a success for.

    They are kept in plan and round order (`fuzz.engine.phases.trials.ACCEPTED_KEPT` at most).
    Invalid arguments mutate them.
    """
    reach: dict[int, SchemaReach] = field(default_factory=dict)
    """By tool place: the schema keywords its cases reached (`fuzz.engine.schema_reach`)."""

    @cached_property
    def listed(self) -> tuple[str, ...]:
        """The names the server listed, then the --unavailable ones it did not."""
        return tuple(tool.name for tool in self.target.tools) + tuple(sorted(self.options.selection.unavailable))

    @cached_property
    def callable_tools(self) -> tuple[Tool, ...]:
        """The tools a phase of its own may call: those whose plan gives them valid arguments."""
        return tuple(plan.tool for plan in self.tool_plans if plan.tool is not None and CaseKind.VALID_ARGUMENTS in plan.kinds)

    @property
    def protocol_version(self) -> str | None:
        return self.target.protocol_version

    def task_mode(self, tool: Tool | None, kind: CaseKind) -> TaskMode:
        """Whether `kind`'s cases for `tool` go as tasks on this run's target (`plan.task_mode`)."""
        return task_mode(self.target.task_era, tool, kind)

    def as_planned(self, tool: Tool | None, kind: CaseKind, cases: list[Case]) -> list[Case]:
        """Deterministic `cases` sent as tasks where every case of theirs must be.

        Where tasks are only sometimes sent, the plain call is the simpler one.
        """
        if self.task_mode(tool, kind) is not TaskMode.ALWAYS:
            return cases
        return [as_task(case) for case in cases]

    def kinds_of(self, tool_plan: ToolPlan) -> tuple[CaseKind, ...]:
        """The planned case kinds of a plan entry this run sends (`options.sends`)."""
        return tuple(kind for kind in tool_plan.kinds if self.options.sends(kind))

    def reach_of(self, job: Job) -> SchemaReach | None:
        """The job's tool's schema-reach counter, made on first use.

        None for a job of no tool, and for a tool no case is drawn for from its schemas, such as an
        unavailable or a destructive one.
        """
        kinds = self.kinds_of(self.tool_plans[job.index])
        if job.unit is not Unit.TOOL or job.tool is None or not any(kind in SCHEMA_KINDS for kind in kinds):
            return None
        if job.index not in self.reach:
            with_input = any(kind in (CaseKind.VALID_ARGUMENTS, CaseKind.INVALID_ARGUMENTS) for kind in kinds)
            with_output = any(kind in (CaseKind.VALID_OUTPUT, CaseKind.INVALID_OUTPUT) for kind in kinds)
            self.reach[job.index] = SchemaReach(job.tool, with_input=with_input, with_output=with_output)
        return self.reach[job.index]
