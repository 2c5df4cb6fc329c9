"""The sequence phase: Hypothesis's stateful testing, driving the target with calls of its tools.

Later calls reuse what earlier answers gave. Every answer is judged by the same rules.

A sequence is a `RuleBasedStateMachine` run. It has one rule per tool that takes part: a call with
arguments drawn from its schema, as a valid-arguments case draws them. One more rule calls the tools
that appear during the sequence. Some arguments have a name of the id or name family
(`strategies.learning`). Such an argument takes a value of its family that an earlier answer gave,
unless the draw says otherwise (`fresh`, which shrinks to False). So `create_note`, then
`delete_note` with the id it returned, then `get_note` with the same id, is three rules. It is not a
one-in-a-million guess.

The target may say `notifications/tools/list_changed`. Then the sequence lists the tools again. A
tool that was listed and is gone is called once more, with the arguments it last had. It must be
answered as an unknown tool. A tool that appears joins the sequence.

The phase first asks whether the target keeps state at all (`fuzz.engine.phases._state_probe`). That
takes a few calls per tool. A target that shows a sign gets the phase's whole budget: --max-examples
sequences. Each sequence runs on a fresh target of its own. Over stdio, the target is restarted
before a sequence when the one before called a tool not annotated read-only. A target that shows no
sign gets `WITHOUT_STATE` of the budget, all on one target. There is no state to leak from one
sequence to the next. It gets the whole budget after all if a sequence sees its tools change. The
report says which, and why (`SequenceExploration.conclusion`).

The phase's targets are apart from the target the single cases use. So neither sees the other's
state. A target given by URL cannot be restarted. Its sequences share its state, and only reuse what
they created.

A violation fails the Hypothesis example with the rule's own exception, as in
`fuzz.engine.phases._random_search`. So each rule shrinks to its shortest sequence: steps are
removed, and values simplified. The finding carries the steps before the violating request
(`Finding.steps`). It also says where each reused value came from (`Use`). So a replay on a fresh
target learns the values again. Once Hypothesis is done, the steps the violation does not need are
taken out. Each removal is confirmed by such a replay (`fuzz.engine.phases._sequence_shrink`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import trio
from hypothesis import reject
from hypothesis.stateful import run_state_machine_as_test

from fuzz.corpus.sequence_replay import STEP_INPUTS
from fuzz.engine.context import RunContext
from fuzz.engine.dispatch import Sent
from fuzz.engine.jobs import Job
from fuzz.engine.options import RunOptions, RunPhase
from fuzz.engine.phases._hypothesis_runs import in_parts, run_settings, stop_of
from fuzz.engine.phases._phase import Phase
from fuzz.engine.phases._phase_targets import PhaseTargets
from fuzz.engine.phases._random_search import derived_seed, where_raised
from fuzz.engine.phases._sequence_blame import SingleRequestBugs
from fuzz.engine.phases._sequence_machine import machine_class
from fuzz.engine.phases._sequence_shrink import replayed, shortest, step_label
from fuzz.engine.phases._spare_targets import SPARES, SpareTargets
from fuzz.engine.phases._state_probe import StateProbe, StateSigns, simplest_arguments
from fuzz.engine.phases._state_recheck import checked_on_a_fresh_target
from fuzz.engine.phases._violations import leaves_of_type, violation_type
from fuzz.engine.phases.deterministic import NO_VERDICTS, CanonicalVerdicts
from fuzz.engine.plan import Unit, may_take_part, task_mode
from fuzz.engine.stops import OutOfTime, ShareSpent, TargetLost
from fuzz.judging.coverage import SUCCESS, answer_bucket
from fuzz.judging.findings import Finding, SequenceStep, Use
from fuzz.judging.oracle import Criteria, assess, finding_of
from fuzz.wire.replies import Answered
from strategies import Case, CaseKind, Tool
from strategies._hypothesis.marks import seeded
from strategies._hypothesis.threads import BUILDING, in_worker_thread
from strategies.arguments import valid_arguments
from strategies.cases import SEQUENCES, TaskMode
from strategies.envelopes import call_params
from strategies.learning import Learned, fits, fitting_fields, learned_from

EXAMPLES_PER_RUN = 100
"""Sequences in one Hypothesis run at most.

`fuzz.engine.phases._random_search.CASES_PER_RUN` says why a long search is many runs.
"""

SEQUENCE_STEPS = 10
"""Calls in one sequence at most (Hypothesis's `stateful_step_count`)."""

WITHOUT_STATE = 0.1
"""The share of the phase's budget a target gets that shows no sign of state.

The budget is --max-examples sequences. The sign comes from `fuzz.engine.phases._state_probe`. This
share is enough for what the probe cannot see, at a tenth of the cost. On a target without state,
the whole budget took most of a run's time and found nothing.
"""

SLOW_CALL = 1.0
"""Seconds: a tool whose call took longer is not called again in sequences.

Their calls go one at a time, so a tool that takes 2 s a call would make the phase take minutes. The
single cases, sent in batches, still test it.
"""


class _NothingToCall(BaseException):
    """Every tool that takes part went unanswered or slow (`SLOW_CALL`).

    A sequence would call none.
    """


@dataclass
class _Sequence:
    """One sequence's state: its steps so far and what their answers taught."""

    steps: list[SequenceStep] = field(default_factory=list)
    learned: list[tuple[int, Learned]] = field(default_factory=list)
    listed: dict[str, Tool] = field(default_factory=dict)
    appeared: list[str] = field(default_factory=list)
    last_arguments: dict[str, dict[str, Any]] = field(default_factory=dict)
    changes_seen: int = 0
    changed_state: bool = False
    """A tool not annotated read-only was called: what follows may depend on it."""


class SequencePhase(Phase):
    """Sequences of calls over the tools, on targets of the phase's own (see the module docstring)."""

    chosen_by = RunPhase.SEQUENCE
    on_its_own_target = True

    def takes(self, job: Job) -> bool:
        return job.unit is Unit.SEQUENCES

    async def run(self, job: Job, share_deadline: float) -> None:
        job.outcome = await explore_sequences(self.context, self.context.callable_tools, share_deadline)

    async def checked(self, finding: Finding, tool: Tool | None) -> Finding:
        """A single case's finding, rechecked alone on a new copy of the target (`_state_recheck`)."""
        context = self.context
        return await checked_on_a_fresh_target(finding, tool, context.options, context.criteria, context.protocol_version)


async def explore_sequences(context: RunContext, tools: Sequence[Tool], share_deadline: float) -> SequenceExploration:
    """The sequence phase, in a worker thread, on a target of its own.

    The target is opened here, under the revision the run speaks.
    """
    options = context.options
    async with trio.open_nursery() as nursery:
        targets = SpareTargets(
            options.target,
            nursery,
            startup_timeout=options.startup_timeout,
            protocol_version=context.protocol_version,
            max_message_bytes=options.max_answer_size,
        )
        try:
            await targets.start()
            exploration = SequenceExploration(
                options,
                targets,
                tools,
                context.criteria,
                lambda tool: may_take_part(tool, options.selection),
                context.deadline,
                share_deadline,
            )
            await trio.to_thread.run_sync(in_worker_thread(exploration.run), abandon_on_cancel=True)
        finally:
            with trio.CancelScope(shield=True):
                await targets.aclose()
    return exploration


class SequenceExploration:
    """The sequence phase of a run, in a worker thread.

    It runs on `targets`, connections of its own.
    """

    kind = CaseKind.SEQUENCE
    tool: Tool | None = None
    round = 0
    name = SEQUENCES

    def __init__(
        self,
        options: RunOptions,
        targets: SpareTargets,
        tools: Sequence[Tool],
        criteria: Criteria,
        is_safe: Callable[[Tool], bool],
        deadline: float = float("inf"),
        share_deadline: float = float("inf"),
    ) -> None:
        self.options = options
        self.targets = targets
        self.link = PhaseTargets(targets, timeout=options.timeout, deadline=deadline, share_deadline=share_deadline)
        """The target in use, fresh ones, and the phase's deadlines."""
        self.tools = list(tools)
        self.criteria = criteria
        self.is_safe = is_safe
        """Whether a tool may take part.

        It may when a single case's plan would let it get valid arguments.
        """
        self.sent = 0
        self.findings: list[Finding] = []
        self.skip: str | None = None
        self.seconds = 0.0
        self.answers: dict[str, int] = {}
        self.refused_fields: dict[str, int] = {}
        self.accepted: list[dict[str, Any]] = []
        self.out_of_time = False
        self.share_spent = False
        self.unsatisfiable = False
        self.restarts = 0
        self.conclusion: str | None = None
        """What the phase concluded about the target's state, and what that earned.

        Reports show it.
        """
        self.signs: StateSigns | None = None
        self._budget = 0
        """Sequences the phase runs (`_probe`)."""
        self._restart_between = True
        """Whether a fresh target follows a sequence that may have changed the target's state."""
        self._dirty = False
        self._strategies = {tool.name: valid_arguments(tool) for tool in self.tools}
        self._sequence = _Sequence()
        self._single = SingleRequestBugs(criteria, self._sent_on_a_fresh_target)
        self._latest: dict[str, Finding] = {}
        """By rule and tool: the violation with the fewest steps so far.

        It is kept if the phase stops mid-shrink.
        """
        self._silent: set[str] = set()
        """Tools no longer called: left unanswered, killed the target, or answered slowly.

        Slow means slower than `SLOW_CALL`. The single cases confirm and report a hang. A sequence
        would wait it out again at every try.
        """
        self._known_tools: dict[str, Tool] = {tool.name: tool for tool in self.tools}
        """Every tool a sequence called, by name, including those that appeared.

        A shortened sequence's last request is judged against these.
        """

    @property
    def lost(self) -> str | None:
        return self.link.lost

    @property
    def verdicts(self) -> CanonicalVerdicts:
        """None: a sequence has no deterministic case for a next round to keep."""
        return NO_VERDICTS

    def conclude(self) -> None:
        """Nothing left to settle: each finding was shrunk and replayed as the phase ran."""

    def run(self) -> None:
        started = time.monotonic()
        try:
            self._run()
        finally:
            self.seconds = time.monotonic() - started
            self.out_of_time = self.out_of_time or self.link.out_of_time
            self.share_spent = self.share_spent or self.link.share_spent

    def _run(self) -> None:
        if not self.tools:
            self.skip = "no tool may take part: every listed tool may be destructive (see --allow-destructive)"
            return
        machine = machine_class(self)
        budget = self.options.max_examples_for(SEQUENCES)

        def run_part(examples: int, part: int) -> bool:
            sent = self.sent
            self._run_part(machine, examples, part)
            return self.sent != sent  # else Hypothesis ran out of sequences to try

        try:
            self._budget = self._probe(budget)
            in_parts(lambda: self._budget, EXAMPLES_PER_RUN, run_part)
        except BaseException as error:
            stop = stop_of(error)
            self.out_of_time = self.link.out_of_time or stop.out_of_time
            self.share_spent = self.link.share_spent or stop.share_spent
            stopped = self.out_of_time or self.share_spent or self.lost is not None or stop.target_lost
            nothing_to_call = leaves_of_type(error, (_NothingToCall,))
            if nothing_to_call:
                self.conclusion = f"{self.conclusion}; ended early: every tool that takes part went unanswered or answered slowly"
            if not stop.violations and not stopped and not nothing_to_call:
                # Hypothesis gave up on the sequences (a server whose answers vary so that a replayed
                # sequence ends otherwise: a flaky test to it). What was found is kept, and said.
                self.skip = f"the sequence phase stopped: {where_raised(error)}"
            # Stopped mid-shrink (--max-time, a lost target: Hypothesis may then report the run as
            # flaky rather than the violations): the shortest sequence each violation had so far.
            found = [violation.finding for violation in stop.violations] or list(self._latest.values())
            if not stopped:
                found = [self._shortest(finding) for finding in found]
            stopped = stopped or self.link.out_of_time or self.link.share_spent
            self.findings = [finding for finding in found if self._single.needs_its_steps(finding, self._known_tools.get(finding.tool), stopped=stopped)]

    def _probe(self, budget: int) -> int:
        """Ask whether the target keeps state (`StateProbe`), and conclude.

        Returns how many sequences that earns.
        """
        with BUILDING:  # Hypothesis finds the simplest values: one thread at a time
            simplest = simplest_arguments(self.tools)
        probe = StateProbe(
            self.tools,
            simplest,
            self.criteria,
            send=self.link.send,
            on_a_fresh_target=self._sent_on_a_fresh_target,
            changes=lambda: self.link.target.session.tools_changed,
        )
        signs = self.signs = probe.run()
        self.sent += signs.calls
        self._silent.update(signs.slow)
        self._dirty = True
        if signs.stateful:
            self._keeps_state(budget)
            return budget
        few = max(1, math.ceil(budget * WITHOUT_STATE))
        self._restart_between = False
        self.conclusion = signs.without_state(few, budget)
        return few

    def _keeps_state(self, budget: int, sign: str | None = None) -> None:
        """Note that the target keeps state, and give it the whole budget.

        `sign` is a sign seen during a sequence, not by the probe. A sequence that may have changed
        the target gets a fresh one after it. Spares are started ahead.
        """
        self._budget = budget
        self._restart_between = True
        self.targets.ahead = SPARES
        if self.signs is not None:
            self.conclusion = self.signs.with_state(budget, restarted=self.targets.restartable, seen_later=sign)

    def _run_part(self, machine: Any, examples: int, part: int) -> None:
        """One Hypothesis run of `examples` sequences, the `part`-th of the phase.

        A run's engine keeps every sequence it ran, in its tree of choices. So a long phase is many
        runs, as the random search's explorations are (`CASES_PER_RUN`). The first part's seed is
        the phase's own.
        """
        seeded(machine, derived_seed(self.options.seed, SEQUENCES, CaseKind.SEQUENCE, part=part))
        run_state_machine_as_test(machine, settings=run_settings(examples, None, stateful_step_count=SEQUENCE_STEPS))

    def _sent_on_a_fresh_target(self, cases: Sequence[Case]) -> list[Sent] | None:
        self._dirty = True
        return self.link.sent_on_a_fresh_target(cases)

    def _shortest(self, finding: Finding) -> Finding:
        """`finding` without the steps its violation does not need (`_sequence_shrink`).

        Each removal is confirmed by a replay on a fresh target. Where none can be had, the finding
        is kept as it is.
        """
        if not finding.steps or not self.targets.can_start_copies or finding.tool not in self._known_tools:
            return finding
        try:
            return shortest(finding, self._still_fails)
        except (OutOfTime, ShareSpent, TargetLost):
            return finding

    def _still_fails(self, candidate: Finding) -> Finding | None:
        """`candidate` as a replay on a fresh target made it, if it still fails.

        See `replayed`.
        """
        tool, timeout, criteria = self._known_tools[candidate.tool], self.options.timeout, self.criteria
        self._dirty = True
        return self.link.on_a_fresh_target(lambda target: replayed(target, candidate, tool, criteria, timeout))

    def begin(self) -> _Sequence:
        """A new sequence, on a fresh target if the one before may have changed its state.

        That happens only on a target that keeps state (`_restart_between`).
        """
        if all(tool.name in self._silent for tool in self.tools):
            raise _NothingToCall()
        if self._dirty and self.targets.restartable and self._restart_between:
            self.link.restart()
            self.restarts += 1
        self._dirty = False
        self._sequence = _Sequence(listed={tool.name: tool for tool in self.tools}, changes_seen=self.link.target.session.tools_changed)
        return self._sequence

    def _as_task(self, tool: Tool) -> bool:
        """Whether a step calls `tool` as a task: when a plain call to it must be refused."""
        return task_mode(self.link.target.task_era, tool, CaseKind.VALID_ARGUMENTS) is TaskMode.ALWAYS

    def call(self, tool: Tool, arguments: dict[str, Any], uses: tuple[Use, ...] = (), *, kind: CaseKind | None = None) -> None:
        """One step: send, judge, learn, and follow a change of the tool list."""
        sequence = self._sequence
        if tool.name in self._silent:
            return
        self.link.check()
        if kind is None:
            kind = CaseKind.VALID_ARGUMENTS if tool.input_check.accepts(arguments) else CaseKind.INVALID_ARGUMENTS
        label = step_label(len(sequence.steps) + 1, tool.name, uses)
        inputs = STEP_INPUTS if self.link.target.stateless is not None else None
        case = Case(kind, tool.name, call_params(tool.name, arguments), label, as_task=self._as_task(tool), inputs=inputs)
        sent = self.link.send(case)
        self.sent += 1
        self._dirty = self._dirty or not _read_only(tool)
        exchange = sent.exchange
        criteria = replace(self.criteria, listed_names=tuple(sequence.listed))
        observation, violation = assess(case, exchange, tool, criteria, answers_ping=sent.answers_ping)
        if violation is not None and violation.rule.about_the_request:
            self._silent.add(tool.name)
            reject()
        if violation is not None and not uses and not sequence.changed_state:
            violation = None  # the target is as fresh as a single case's: a single case's bug, not the sequence's
        # On a target without a sign of state, a request that reuses nothing fails alone too: no fresh target to ask.
        if violation is not None and not uses and (not self._restart_between or self._single.intrinsic(case, tool, violation.rule.id)):
            reject()
        answer = answer_bucket(observation, arguments)
        self.answers[answer] = self.answers.get(answer, 0) + 1
        response = exchange.final.answer
        if violation is not None:
            finding = finding_of(
                violation,
                case,
                exchange,
                CaseKind.SEQUENCE,
                tool=tool.name,
                label=f"sequence {label}",
                headers=(),
                steps=tuple(sequence.steps),
                uses=uses,
                judged_as=kind,
            )
            key = f"{violation.rule.id} {tool.name}"
            if key not in self._latest or len(finding.steps) < len(self._latest[key].steps):
                self._latest[key] = finding
            raise violation_type(key)(finding)
        if isinstance(exchange.reply, Answered) and exchange.reply.seconds > SLOW_CALL:
            self._silent.add(tool.name)
        sequence.steps.append(SequenceStep(exchange.request, response, uses))
        sequence.changed_state = sequence.changed_state or not _read_only(tool)
        sequence.last_arguments[tool.name] = arguments
        if answer == SUCCESS and observation.result is not None:
            sequence.learned += [(len(sequence.steps) - 1, learned) for learned in learned_from(observation.result)]
        if self.link.target.session.tools_changed != sequence.changes_seen:
            if self.signs is not None and not self.signs.stateful and not self._restart_between:
                self._keeps_state(self.options.max_examples_for(SEQUENCES), "the target said its tools changed")
            self._relist(sequence)

    def _relist(self, sequence: _Sequence) -> None:
        """The target said its tools changed: list them again.

        Each tool that is gone is called once more: it must be answered as an unknown tool. Each
        tool that appeared takes part.
        """
        sequence.changes_seen = self.link.target.session.tools_changed
        tools = self.link.listing()
        now = {tool.name: tool for tool in tools}
        gone = [sequence.listed[name] for name in sequence.listed if name not in now]
        for tool in tools:
            self._known_tools.setdefault(tool.name, tool)
            if tool.name not in sequence.listed and self.is_safe(tool):
                sequence.appeared.append(tool.name)
                if tool.name not in self._strategies:
                    self._strategies[tool.name] = valid_arguments(tool)
        sequence.listed = {name: tool for name, tool in now.items() if self.is_safe(tool) or name in sequence.listed}
        for tool in gone:
            self.call(tool, sequence.last_arguments.get(tool.name, {}), kind=CaseKind.UNKNOWN_TOOL)

    def reuse(self, tool: Tool, arguments: dict[str, Any], fresh: bool, pick: int) -> tuple[dict[str, Any], tuple[Use, ...]]:
        """Give id- and name-family arguments values that earlier answers gave.

        Each such argument in `arguments` gets a value an earlier answer gave, unless `fresh`. It
        takes the `pick`-th value that fits, counting round. Counted back from the latest, a pick
        would survive the shrinker taking out steps before it. But then Hypothesis ended a run of
        failing sequences reporting none, on the notes test server.
        """
        if fresh:
            return arguments, ()
        uses: list[Use] = []
        arguments = dict(arguments)
        for family in ("id", "name"):
            for name in fitting_fields(tool.input_check, family):
                offered = [(step, item) for step, item in self._sequence.learned if item.family == family and fits(tool.input_check, name, item.value)]
                if offered:
                    step, item = offered[pick % len(offered)]
                    arguments[name] = item.value
                    uses.append(Use(name, step, item.path))
        return arguments, tuple(uses)


def _read_only(tool: Tool) -> bool:
    return tool.annotations.get("readOnlyHint") is True
