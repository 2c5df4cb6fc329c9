"""The engine's scheduling of explorations: next rounds without a barrier, and the extra worker
that starts while explorations wait on the target. The explorations here are scripted (how long
each runs, whether its share cuts it short), so what is asserted is the order of events."""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass
from types import SimpleNamespace

import pytest
import trio
import trio.testing

from fuzz.demo_server import TOOLS as DEMO_TOOLS
from fuzz.engine._scheduler import WAITING_LONG, WAITING_SHARE, Runner
from fuzz.engine.dispatch import WAITING_WINDOW, Dispatcher
from fuzz.engine.events import ToolStarted
from fuzz.engine.jobs import Job
from fuzz.engine.options import RunOptions, RunPhase
from fuzz.engine.phases import _sequences
from fuzz.engine.phases._sequences import SequencePhase
from fuzz.engine.phases.deterministic import BoundaryValues
from fuzz.engine.plan import Unit
from fuzz.engine.run import run
from fuzz.judging.findings import Finding
from fuzz.wire.target import StdioTarget
from strategies import Case, CaseKind, Tool
from tests.conftest import fuzz


@dataclass(frozen=True)
class Script:
    seconds: float
    """How long each of its rounds runs."""
    cut_rounds: int = 0
    """Its first this many rounds are cut short by their share (and so have a next round)."""
    waits: bool = False
    """While it runs, it counts as waiting on the target for long."""
    kind: CaseKind = CaseKind.MALFORMED_REQUEST


class ScriptedRunner(Runner):
    """`Runner.run_rounds` over scripted explorations: `events` says when each round of each
    started and ended, in trio's time."""

    def __init__(self, scripts: dict[int, Script], *, workers: int, load: float = 0.0) -> None:
        self.scripts = scripts
        self.events: list[tuple[str, int, int, float]] = []
        self.waiting_since: dict[int, float] = {}
        self.context = SimpleNamespace(  # type: ignore[assignment]
            options=SimpleNamespace(workers=workers, timeout=5.0, phases=frozenset({RunPhase.SEQUENCE})),
            dispatcher=SimpleNamespace(waiting_long=self.waiting_long, waiting_load=lambda: load),
            deadline=time.monotonic() + 600,
            tool_plans=(),
        )
        self.phases = (SequencePhase(None),)  # type: ignore[arg-type]  # takes the sequence jobs, and counts them as waiting
        self._announced = 0

    def waiting_long(self, *, longer_than: float) -> int:
        return sum(1 for since in self.waiting_since.values() if trio.current_time() - since > longer_than)

    async def _report_progress(self, jobs: list[Job]) -> None:
        await trio.sleep_forever()

    async def _run_job(self, job: Job, left: int) -> bool:
        script = self.scripts[job.index]
        self.events.append(("start", job.index, job.round, trio.current_time()))
        if script.waits:
            self.waiting_since[job.index] = trio.current_time()
        try:
            await trio.sleep(script.seconds)
        finally:
            self.waiting_since.pop(job.index, None)
        self.events.append(("end", job.index, job.round, trio.current_time()))
        return job.round < script.cut_rounds

    def when(self, what: str, index: int, round_: int) -> float:
        return next(at for event, i, r, at in self.events if (event, i, r) == (what, index, round_))


def _run(runner: ScriptedRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run the scripts' explorations in plan order, with no work ahead of them."""

    async def main() -> None:
        jobs = [
            Job(index, Unit.SEQUENCES if script.kind is CaseKind.SEQUENCE else Unit.ENVELOPE, None, script.kind) for index, script in runner.scripts.items()
        ]
        await runner.run_rounds(jobs)

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


def test_an_exploration_waiting_on_the_target_holds_up_no_next_round(monkeypatch: pytest.MonkeyPatch) -> None:
    # Exploration 0 is cut short twice; exploration 1 waits out a dropped request for 30 s.
    runner = ScriptedRunner({0: Script(0.5, cut_rounds=2), 1: Script(30.0, waits=True)}, workers=1)
    _run(runner, monkeypatch)
    assert [(event, i, r) for event, i, r, _ in runner.events if i == 0] == [
        ("start", 0, 0),
        ("end", 0, 0),
        ("start", 0, 1),
        ("end", 0, 1),
        ("start", 0, 2),
        ("end", 0, 2),
    ]
    # Its next rounds ran on the extra worker while exploration 1 waited, not after it.
    assert runner.when("end", 0, 2) < runner.when("end", 1, 0)
    assert runner.when("start", 0, 1) >= runner.when("start", 1, 0) + WAITING_LONG


def test_without_waiting_explorations_run_one_at_a_time_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    runner = ScriptedRunner({0: Script(1.0, cut_rounds=1), 1: Script(1.0), 2: Script(1.0)}, workers=1)
    _run(runner, monkeypatch)
    assert [(event, i, r) for event, i, r, _ in runner.events] == [
        ("start", 0, 0),
        ("end", 0, 0),
        ("start", 1, 0),
        ("end", 1, 0),
        ("start", 2, 0),
        ("end", 2, 0),
        ("start", 0, 1),
        ("end", 0, 1),
    ]


def test_the_sequence_phase_counts_as_an_exploration_that_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    """It calls one at a time and restarts its own target, which the run's dispatcher does not
    watch: the next exploration runs beside it on the worker beyond --workers, and only one."""
    runner = ScriptedRunner({0: Script(5.0, kind=CaseKind.SEQUENCE), 1: Script(1.0), 2: Script(1.0)}, workers=1)
    _run(runner, monkeypatch)
    assert runner.when("start", 1, 0) < runner.when("end", 0, 0)
    assert runner.when("start", 2, 0) >= runner.when("end", 1, 0)


@pytest.mark.parametrize(("load", "overlap"), [(0.1, False), (WAITING_SHARE, True), (0.6, True)])
def test_a_second_worker_starts_while_explorations_wait_a_share_of_their_time(monkeypatch: pytest.MonkeyPatch, load: float, overlap: bool) -> None:
    runner = ScriptedRunner({0: Script(2.0), 1: Script(2.0), 2: Script(2.0)}, workers=1, load=load)
    _run(runner, monkeypatch)
    assert (runner.when("start", 1, 0) < runner.when("end", 0, 0)) is overlap
    # Never more than one beyond --workers for the share: the third waits for one of the two.
    assert runner.when("start", 2, 0) >= min(runner.when("end", 0, 0), runner.when("end", 1, 0))


def test_waiting_load_averages_the_explorations_waiting_over_the_last_second() -> None:
    dispatcher = Dispatcher(None, ping_timeout=1.0)  # type: ignore[arg-type]
    started = time.monotonic()
    with dispatcher._waited_on(), dispatcher._waited_on():
        time.sleep(0.3)
        waited = time.monotonic() - started
        during = dispatcher.waiting_load()
    assert during == pytest.approx(2 * (1 - math.exp(-waited / WAITING_WINDOW)), rel=0.2)
    with dispatcher._waited_on(watched=False):
        time.sleep(0.3)
        after = dispatcher.waiting_load()
    assert after < during * math.exp(-0.25 / WAITING_WINDOW)


@pytest.mark.slow
def test_what_other_explorations_of_a_tool_sent_survives_a_slow_check_of_a_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    """A finding is checked on a fresh copy of the target (`fuzz.engine.phases._state_recheck`) between its
    exploration's end and its merge into the tool's summary; the tool's other explorations,
    which end meanwhile, must not be overwritten by that merge."""
    checked = _sequences.checked_on_a_fresh_target

    async def slow_check(finding: Finding, *arguments: object) -> Finding:
        await trio.sleep(1.0)
        return await checked(finding, *arguments)  # type: ignore[arg-type]

    demo = StdioTarget((sys.executable, "-m", "fuzz.demo_server"))
    kinds = {summary.tool: set(summary.cases_sent) for summary in fuzz(demo, workers=2, max_examples=10).tools}
    monkeypatch.setattr(_sequences, "checked_on_a_fresh_target", slow_check)
    result = fuzz(demo, workers=2, max_examples=10)
    assert any(finding.rule.id == "tool-failure" for finding in result.findings)
    assert {summary.tool: set(summary.cases_sent) for summary in result.tools} == kinds
    assert any(len(sent) > 2 for sent in kinds.values())


def test_a_tool_whose_boundary_cases_are_late_is_not_overtaken_by_a_later_tool(monkeypatch: pytest.MonkeyPatch) -> None:
    """Explorations start in plan order. On a loaded machine, finding the first tool's boundary
    values took long, and a free worker took a later tool's exploration instead. The first tool
    then waited out that whole budget: a run interrupted on its first tool's line waited minutes."""
    boundary_cases = BoundaryValues.cases

    def late_for_add(self: BoundaryValues, tool: Tool, kind: CaseKind) -> tuple[list[Case], int]:
        if tool.name == "add":
            time.sleep(1.0)
        return boundary_cases(self, tool, kind)

    monkeypatch.setattr(BoundaryValues, "cases", late_for_add)
    started: list[str] = []
    options = RunOptions(
        target=StdioTarget((sys.executable, "-m", "fuzz.demo_server")),
        seed=1,
        max_examples=10,
        phases=frozenset({RunPhase.BOUNDARY, RunPhase.RANDOM}),
    )
    run(options, lambda event: started.append(event.tool) if isinstance(event, ToolStarted) else None)
    in_plan = [tool["name"] for tool in DEMO_TOOLS]
    tools = [tool for tool in started if tool in in_plan]
    assert tools[0] == "add" and tools == sorted(tools, key=in_plan.index), started
