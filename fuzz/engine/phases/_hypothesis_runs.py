"""How a phase runs Hypothesis: its settings, a long search in parts, and why a run stopped.

The random search and the sequence phase share these, so both behave the same under any loaded
Hypothesis profile (CI's included), and both stop the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import trio
from hypothesis import HealthCheck, Verbosity, settings
from hypothesis import Phase as HypothesisPhase
from hypothesis.database import ExampleDatabase

from fuzz.engine.finished_runs import collect_finished_runs
from fuzz.engine.phases._violations import RuleViolated, leaves_of_type, violations_in
from fuzz.engine.stops import NothingNew, OutOfTime, ShareSpent, TargetLost
from strategies._hypothesis.no_local_constants import without_local_constants

_PHASES = (HypothesisPhase.explicit, HypothesisPhase.reuse, HypothesisPhase.generate, HypothesisPhase.target, HypothesisPhase.shrink)
"""Every phase but `explain`, whose report nobody reads, at a cost per failure."""


def run_settings(examples: int, database: ExampleDatabase | None, **more: Any) -> settings:
    """The settings of one Hypothesis run of a phase: the harness's own, whatever profile is loaded.

    Hypothesis loads its `ci` profile when `CI` is set. Built on the default profile, a run in CI
    behaves like a local one. Health checks are off: the cases are sent to a server, which is slow
    by a test's measure. Failures are reported one per rule (`report_multiple_bugs`).
    """
    return settings(
        parent=settings.get_profile("default"),
        max_examples=examples,
        deadline=None,
        database=database,
        derandomize=False,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        phases=_PHASES,
        report_multiple_bugs=True,
        print_blob=False,
        **more,
    )


def in_parts(budget: Callable[[], int], per_part: int, run_part: Callable[[int, int], bool]) -> None:
    """Run `budget()` examples as Hypothesis runs of `per_part` at most.

    `run_part(examples, part)` makes one run, the `part`-th. It returns False when the run ran out of
    examples to try, which ends the search. Hypothesis keeps what it tried for the length of a run.
    So a long search in parts keeps its memory flat and its pace the same. The budget is read again
    before each part: a phase may earn more as it learns.

    Each run draws no local constant (`without_local_constants`): what a seed draws does not depend
    on the modules loaded in the process.
    """
    done = part = 0
    while done < budget():
        examples = min(budget() - done, per_part)
        try:
            with without_local_constants():
                more = run_part(examples, part)
        finally:
            collect_finished_runs()
        done += examples
        part += 1
        if not more:
            break


@dataclass(frozen=True)
class Stop:
    """Why a phase's Hypothesis run ended early, read from what it raised."""

    out_of_time: bool
    share_spent: bool
    exhausted: bool
    """Its recent examples brought nothing new (`NothingNew`)."""
    target_lost: bool
    violations: list[RuleViolated]

    @property
    def cut_short(self) -> bool:
        """A deadline or the target ended it, not Hypothesis."""
        return self.out_of_time or self.share_spent or self.target_lost


def stop_of(error: BaseException) -> Stop:
    """What stopped a run, from the error (or group) it raised.

    Ctrl-C, an exit or trio's cancellation are raised again: the run itself stops.
    """
    if leaves_of_type(error, (KeyboardInterrupt, SystemExit, trio.Cancelled)):
        raise error
    return Stop(
        out_of_time=leaves_of_type(error, (OutOfTime,)),
        share_spent=leaves_of_type(error, (ShareSpent,)),
        exhausted=leaves_of_type(error, (NothingNew,)),
        target_lost=leaves_of_type(error, (TargetLost,)),
        violations=violations_in(error),
    )
