"""The phases of a run, in the order each job runs them.

A new phase is a class of `fuzz.engine.phases._phase.Phase`'s shape in a module of its own, and a
line here. `--phases` chooses among them by name.
"""

from __future__ import annotations

from fuzz.engine.phases._boundary import BoundaryPhase
from fuzz.engine.phases._phase import Phase
from fuzz.engine.phases._random_search import RandomPhase
from fuzz.engine.phases._rounds import RoundsPhase
from fuzz.engine.phases._sequences import SequencePhase
from fuzz.engine.phases._task_methods import TaskMethodsPhase

PHASES: tuple[type[Phase], ...] = (
    BoundaryPhase,
    RandomPhase,
    SequencePhase,
    TaskMethodsPhase,
    RoundsPhase,
)

__all__ = ["PHASES"]
