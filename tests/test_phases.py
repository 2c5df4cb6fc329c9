"""Phases as data: one interface, one registry, and a scheduler that names none of them."""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import ClassVar

import pytest

from fuzz.engine import _scheduler
from fuzz.engine.jobs import Job
from fuzz.engine.options import ALL_PHASES, RunOptions, RunPhase
from fuzz.engine.phases._phase import Phase
from fuzz.engine.phases.registry import PHASES
from fuzz.engine.plan import Unit
from fuzz.engine.run import run
from fuzz.wire.target import StdioTarget
from strategies.cases import ENVELOPE

ENGINE = Path(_scheduler.__file__).parent


def test_every_phases_choice_names_one_phase_of_the_registry_in_order() -> None:
    assert [phase.chosen_by for phase in PHASES] == list(RunPhase)
    assert all(issubclass(phase, Phase) for phase in PHASES)


def test_the_scheduler_names_no_phase() -> None:
    """No import of a phase's module, no `RunPhase` member, no case kind: it runs what the
    registry lists, on jobs that say what they are."""
    tree = ast.parse((ENGINE / "_scheduler.py").read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    phase_modules = {f"fuzz.engine.phases.{path.stem}" for path in (ENGINE / "phases").glob("*.py")}
    assert imported & phase_modules <= {"fuzz.engine.phases.registry", "fuzz.engine.phases.trials"}, imported & phase_modules
    named = {node.value.id for node in ast.walk(tree) if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)}
    assert not named & {"RunPhase", "CaseKind", "Unit"}, named & {"RunPhase", "CaseKind", "Unit"}


class _Recorder(Phase):
    """A phase added to the registry: it sees each job after the others, and changes nothing."""

    chosen_by = RunPhase.RANDOM
    seen: ClassVar[list[tuple[Unit, str, str]]] = []

    def takes(self, job: Job) -> bool:
        return job.unit is not Unit.SEQUENCES

    async def run(self, job: Job, share_deadline: float) -> None:
        assert job.outcome is not None, "the phases before it made the job's outcome"
        self.seen.append((job.unit, job.tool.name if job.tool else "", job.kind.value))


def test_a_phase_added_to_the_registry_runs_on_every_job_it_takes(monkeypatch: pytest.MonkeyPatch) -> None:
    demo = StdioTarget((sys.executable, "-m", "fuzz.demo_server"))
    options = RunOptions(target=demo, seed=1, max_examples=10, phases=ALL_PHASES - {RunPhase.SEQUENCE})
    before = run(options)
    _Recorder.seen.clear()
    monkeypatch.setattr(_scheduler, "PHASES", (*PHASES, _Recorder))
    after = run(options)
    planned = {
        (Unit.ENVELOPE if summary.tool == ENVELOPE else Unit.TOOL, "" if summary.tool == ENVELOPE else summary.tool, kind.value)
        for summary in after.tools
        for kind in summary.cases_sent
    }
    assert set(_Recorder.seen) == planned and len(_Recorder.seen) == len(planned)
    assert [(finding.rule.id, finding.tool, finding.request.get("params")) for finding in after.findings] == [
        (finding.rule.id, finding.tool, finding.request.get("params")) for finding in before.findings
    ]
