"""One exploration: Hypothesis searching one case kind of one tool, in a worker thread.

Each Hypothesis example is a batch of cases (`fuzz.engine.phases._boundary.batch_size`). A batch is
sent with every request in flight at once. It goes through the run's `Dispatcher`, beside the
batches of the other explorations. Hypothesis's per-example bookkeeping is paid once per batch, and
so is one hand-off to trio's thread. A request the server drops costs one timeout for the batch, not
one each.

The batch is failed by the first of its cases, in order, that violates a rule this exploration has
not found yet. Failing that, it is failed by its first violation. Hypothesis then shrinks the whole
batch. The cases that do not matter become their simplest form. The one that does becomes its
minimal request, which is the one reported.

The batch size depends on --max-examples and the transport only. It does not depend on --workers or
the machine, so a run is repeatable from its seed.

A violated rule raises an exception whose type is unique to the rule. So Hypothesis treats each rule
as a distinct bug, and shrinks each to its own minimal request (`report_multiple_bugs`).
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import trio
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable

from fuzz.engine.context import RunContext
from fuzz.engine.examples import example_database
from fuzz.engine.jobs import Job
from fuzz.engine.novelty import Novelty
from fuzz.engine.options import RunPhase
from fuzz.engine.phases._batches import batch_size_for
from fuzz.engine.phases._hypothesis_runs import in_parts, run_settings, stop_of
from fuzz.engine.phases._phase import Phase
from fuzz.engine.phases._violations import violation_type
from fuzz.engine.phases.deterministic import CanonicalVerdicts
from fuzz.engine.phases.trials import HANG_RULE, Trials
from fuzz.engine.plan import Unit
from fuzz.engine.stops import NothingNew, OutOfTime, ShareSpent, TargetLost
from fuzz.judging.findings import Finding
from strategies import Case, CaseKind, cases
from strategies._hypothesis.fresh_generation import FRESH, SIMPLEST_FIRST
from strategies._hypothesis.marks import keyed, seeded
from strategies._hypothesis.threads import BUILDING, in_worker_thread
from strategies.cases import ENVELOPE, coercion_cases, envelope_cases
from strategies.drawing import tupled

CASES_PER_RUN = 1600
"""Cases in one Hypothesis run at most (100 batches of 16, 50 of 32).

A longer exploration is several runs, each with a seed of its own part, until one finds something.
Hypothesis keeps what it tried for the length of a run: a cache of 10,000 examples, and the tree of
choices made. That grows with the batches. In parts, memory stays flat over a night, and the cases
per second stay the same.
"""


class Exploration:
    """`kind` cases for `tool`, searched by Hypothesis.

    A `tool` of None means the malformed envelopes that name no tool. `run` it in a worker thread of
    a trio run that serves `dispatcher`.
    """

    def __init__(self, context: RunContext, job: Job, share_deadline: float = float("inf")) -> None:
        options = context.options
        self.options = options
        self.trials = Trials(
            context.dispatcher,
            context.criteria,
            job.tool,
            job.kind,
            timeout=options.timeout,
            deadline=context.deadline,
            share_deadline=share_deadline,
            reach=context.reach_of(job),
        )
        """Sends this exploration's cases and judges them, and keeps what the answers taught."""
        self.earlier = job.earlier
        """For a later round: what the first round's deterministic cases came to."""
        self.stateless = context.stateless
        """The stateless revision's envelope, when the run speaks it; its kinds need it."""
        self.context = context
        self.tool = job.tool
        self.kind = job.kind
        self.listed = context.listed
        self.findings: list[Finding] = []
        self.skip: str | None = None
        self.seconds = 0.0
        self.round = job.round
        """0 for the first round of a --max-time run (and for every run without it)."""
        self.sent_ahead = job.sent_ahead
        """The deterministic cases, already sent (`send_canonical`), with what came of them."""
        self.accepted_bases = tuple(context.accepted.get(job.index, ())) if job.kind is CaseKind.INVALID_ARGUMENTS else ()
        """Arguments the server accepted, from the tool's valid-arguments explorations so far."""
        self.known = context.known.get(job.tool.name) if job.tool is not None else None
        self.share_spent = False
        self.out_of_time = False
        self.exhausted = False
        """Its batches stopped bringing cases it had not sent (`Novelty`): no next round."""
        self._novelty = Novelty()
        self.unsatisfiable = False
        """No valid value could be drawn: the kinds built on valid values are not tried."""
        self._latest: dict[str, Finding] = {}
        self._canonical: dict[str, Finding] = {}
        self._silent_labels: set[str] = set(job.earlier.silent_labels)
        self._batches_checked = 0
        self._case_of: dict[int, tuple[Finding, Case]] = {}
        """Each finding this exploration kept, with its case, by the finding's id().

        A kept finding is a canonical one, or one that failed an example. The entry holds the
        finding, so that no id is reused while the exploration runs. Not every finding judged is
        kept. A search that goes on past a rule the canonical cases found judges one in each of its
        cases.
        """

    @property
    def sent(self) -> int:
        return self.trials.sent

    @property
    def answers(self) -> dict[str, int]:
        return self.trials.answers

    @property
    def refused_fields(self) -> dict[str, int]:
        return self.trials.refused_fields

    @property
    def accepted(self) -> list[dict[str, Any]]:
        """Valid arguments this exploration got a success for (at most ACCEPTED_KEPT)."""
        return self.trials.accepted

    @property
    def lost(self) -> str | None:
        return self.trials.lost

    conclusion: str | None = None
    """Always None here: a search of single cases draws no conclusion on state."""

    @property
    def name(self) -> str:
        return self.tool.name if self.tool else ENVELOPE

    def judge_deterministic(self) -> None:
        """Judge the deterministic cases sent ahead, then probe the coercions of accepted arguments.

        The canonical cases are each shape's simplest form (`send_canonical`). A rule one violated
        keeps that finding: it is already minimal. A shape whose simplest form got no answer is left
        out of the search. Every further try would cost a whole timeout, and could only find the
        same rule again.
        """
        with self._timed():
            try:
                if self.sent_ahead is not None:
                    cases, sent = self.sent_ahead
                    if self.lost is not None:  # only the one finding the loss makes, if it is here
                        kept = [index for index, outcome in enumerate(sent) if outcome.unverifiable]
                        cases, sent = [cases[index] for index in kept], [sent[index] for index in kept]
                    self.trials.sent += len(cases)
                    for case, finding in zip(cases, self.trials.judge_sent(cases, sent), strict=True):
                        self._keep_canonical(case, finding)
                probes = (
                    self.context.as_planned(self.tool, self.kind, coercion_cases(self.tool, self.accepted_bases[0]))
                    if self.tool and self.accepted_bases and self.kind is CaseKind.INVALID_ARGUMENTS and self.round == 0
                    else []
                )
                if probes and self.lost is None:
                    for case, finding in zip(probes, self.trials.judge_batch(probes, timeout=self.options.timeout, enough=lambda _: False), strict=True):
                        self._keep_canonical(case, finding)
            except OutOfTime:
                self.out_of_time = True
            except ShareSpent:
                self.share_spent = True

    def search(self) -> None:
        """Let Hypothesis search, unless the target is lost or the time ran out."""
        if self.lost is None and not self.out_of_time and not self.share_spent:
            with self._timed():
                self._search()

    def conclude(self) -> None:
        """Confirm a hang, and send each finding's request once more alone (`_alone_again`)."""
        with self._timed():
            self._keep_confirmed_hang()
            self.findings = [
                self._alone_again(finding)
                for finding in list(self._canonical.values()) + [finding for finding in self.findings if finding.rule.id not in self._canonical]
            ]
            self._case_of.clear()

    @contextlib.contextmanager
    def _timed(self) -> Iterator[None]:
        started = time.monotonic()
        try:
            yield
        finally:
            self.seconds += time.monotonic() - started

    def _keep_confirmed_hang(self) -> None:
        """Keep the hang `Trials.confirmed` reports, in place of the one the search shrank."""
        kept = self.trials.confirmed(self._latest.get(HANG_RULE), out_of_time=self.out_of_time)
        if kept is None:
            return
        self._latest[HANG_RULE] = kept
        self.findings = [kept if finding.rule.id == HANG_RULE else finding for finding in self.findings]

    def _alone_again(self, finding: Finding) -> Finding:
        """The finding, as its request makes it when sent once more alone.

        Sent with nothing else in flight, the stderr lines the finding carries are its own. They are
        not those of requests beside it. The finding is kept as it was if the request alone does not
        make it, as with a target whose answers vary. A hang is kept too: `Trials.confirmed` already
        sent it alone.
        """
        finding_and_case = self._case_of.get(id(finding))
        if finding_and_case is None or finding.rule.id == HANG_RULE or self.lost is not None or self.out_of_time:
            return finding
        case = finding_and_case[1]
        try:
            outcome = self.trials.alone(case)
        except (OutOfTime, ShareSpent):
            return finding
        self.trials.sent += 1
        again = self.trials.judge(case, outcome)
        return again if again is not None and again.rule.id == finding.rule.id else finding

    @property
    def verdicts(self) -> CanonicalVerdicts:
        """What this exploration's next round keeps of its deterministic cases."""
        return CanonicalVerdicts(self.earlier.rules | frozenset(self._canonical), frozenset(self._silent_labels))

    def _keep_canonical(self, case: Case, finding: Finding | None) -> None:
        if finding is not None and finding.response is None:
            self._silent_labels.add(case.label)
        if finding is not None and finding.rule.id not in self._canonical:
            self._canonical[finding.rule.id] = finding
            self._case_of[id(finding)] = (finding, case)

    def _search(self) -> None:
        try:
            with BUILDING:  # one thread at a time reads lambda sources (`strategies._hypothesis.threads`)
                strategy = (
                    envelope_cases()
                    if self.tool is None
                    else cases(
                        self.tool,
                        self.kind,
                        self.listed,
                        accepted=self.accepted_bases,
                        known=self.known,
                        stateless=self.stateless,
                        tasks=self.context.task_mode(self.tool, self.kind),
                    )
                )
                if self._silent_labels:
                    strategy = strategy.filter(lambda case: case.label not in self._silent_labels)
                # A tuple, not a list of fixed size: the same cases, without a (forced) "one more?"
                # choice and its span per case for Hypothesis to record, mutate and shrink.
                batches = tupled(*[strategy] * self.batch_size)
                batches.validate()

            def run_part(examples: int, part: int) -> bool:
                checked = self._batches_checked
                self._hypothesis_test(batches, examples, part)()
                return self._batches_checked - checked >= examples

            total = -(-self.max_examples // self.batch_size)
            in_parts(lambda: total, max(1, CASES_PER_RUN // self.batch_size), run_part)
        except Unsatisfiable:
            self.unsatisfiable = True
            schema = "outputSchema" if self.kind in (CaseKind.VALID_OUTPUT, CaseKind.INVALID_OUTPUT) else "inputSchema"
            self.skip = (
                f"its {schema} accepts no value mcp-toolfuzz could generate (is it satisfiable?): no "
                f"{self.kind.value} cases, and none of the kinds built on valid values"
            )
        except BaseException as error:
            stop = stop_of(error)
            self.out_of_time, self.share_spent, self.exhausted = stop.out_of_time, stop.share_spent, stop.exhausted
            if stop.violations:
                self.findings = [violation.finding for violation in stop.violations]
            elif self.lost is None and not stop.out_of_time and not stop.share_spent and not stop.exhausted:
                self.skip = f"could not generate {self.kind.value} cases: {where_raised(error)}"
        if not self.findings and self._latest:
            self.findings = list(self._latest.values())

    @property
    def batch_size(self) -> int:
        return batch_size_for(self.options, self.tool.name if self.tool else None)

    @property
    def max_examples(self) -> int:
        """--max-examples, or the tool's own (`--tool-max-examples`)."""
        return self.options.max_examples_for(self.tool.name if self.tool else None)

    def _hypothesis_test(self, batches: st.SearchStrategy[tuple[Case, ...]], examples: int, part: int) -> Callable[[], None]:
        """One Hypothesis run of `examples` batches, the `part`-th of this exploration.

        See `CASES_PER_RUN`.
        """
        size = self.batch_size
        config = run_settings(examples, example_database(self.options))

        def test(batch: tuple[Case, ...]) -> None:
            self._check(batch)

        setattr(test, FRESH, True)
        setattr(test, SIMPLEST_FIRST, self.round == 0 and part == 0)

        # Hypothesis keys its database by the test's source, the same for every exploration:
        # the target, tool, case kind and batch size tell them apart. Never the seed, the round,
        # the part, --processes, --shard or the corpus directory: a failure one run shrank is what a
        # later run (another seed, another layout, a shared Redis) tries first (tests/test_database.py).
        keyed(test, "\0".join((self.options.target.describe(), self.name, self.kind.value, f"batch of {size}")).encode())
        # What @seed does, minus the line that turns the database off: a run is repeatable from
        # its seed and still tries the examples that failed in earlier runs first.
        seed = derived_seed(self.options.seed, self.name, self.kind, self.round, part)
        seeded(test, seed)
        return config(given(batches)(test))

    def _check(self, batch: Sequence[Case]) -> None:
        """The Hypothesis test body: fail the example when a case violates a new rule.

        A rule a canonical case already violated, in this round or the first, does not fail it.

        A canonical case is its shape's simplest form. The finding it made is already minimal, and
        the search's own finding of that rule would be dropped for it. Failing on such a rule anyway
        made Hypothesis stop searching. It then shrank findings nobody reads: most of the failures
        the searches raised, at a large share of the CPU. It also ended the search before it could
        meet another rule of the same cases. A hang still fails the example: each time the search
        meets one costs a whole --timeout.
        """
        self._batches_checked += 1
        if self.lost is not None:
            raise TargetLost(self.lost)
        self.trials.deadlines.check()
        if self._novelty.exhausted_after(batch) and not self._latest:
            raise NothingNew()
        suspecting = self.trials.suspecting
        minimal = self._canonical.keys() | self.earlier.rules
        known = self._latest.keys() | minimal

        def is_new(finding: Finding | None) -> bool:
            return finding is not None and finding.rule.id not in known

        # A rule a canonical case found makes no finding here (nor the description of one):
        # on the demo, most of the search's cases violate one.
        judged = self.trials.judge_batch(batch, timeout=self.trials.timeout_for_try(), enough=is_new, unwanted=frozenset(minimal - {HANG_RULE}))
        failing = [(found, case) for found, case in zip(judged, batch, strict=True) if found]
        chosen = next((pair for pair in failing if is_new(pair[0])), failing[0] if failing else None)
        if chosen is not None:
            finding, case = chosen
            if finding.rule.id == HANG_RULE and self.trials.confirmed_hang is None and not suspecting:
                self.trials.confirmed_hang = finding
            self._latest[finding.rule.id] = finding
            self._case_of[id(finding)] = (finding, case)
            raise violation_type(finding.rule.id)(finding)


def exploration_of(job: Job, context: RunContext, share_deadline: float) -> Exploration:
    """The job's exploration, made by the first of its phases to run.

    The boundary phase judges its deterministic cases, and the random search goes on from there.
    """
    if job.outcome is None:
        job.outcome = Exploration(context, job, share_deadline)
    assert isinstance(job.outcome, Exploration)
    return job.outcome


class RandomPhase(Phase):
    """Hypothesis's search of each tool's case kinds, in batches (see the module docstring)."""

    chosen_by = RunPhase.RANDOM

    def takes(self, job: Job) -> bool:
        return job.unit is not Unit.SEQUENCES

    async def run(self, job: Job, share_deadline: float) -> None:
        exploration = exploration_of(job, self.context, share_deadline)
        await trio.to_thread.run_sync(in_worker_thread(exploration.search), abandon_on_cancel=True)


def derived_seed(run_seed: int, tool: str, kind: CaseKind, round: int = 0, part: int = 0) -> int:
    suffix = (f"\0{round}" if round else "") + (f"\0part {part}" if part else "")
    digest = hashlib.sha256(f"{run_seed}\0{tool}\0{kind.value}{suffix}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def where_raised(error: BaseException) -> str:
    """The error with the place it was raised: its innermost frame.

    A generation error is a harness bug, and its report should say where to look.
    """
    import traceback

    leaf = error
    while isinstance(leaf, BaseExceptionGroup) and leaf.exceptions:
        leaf = leaf.exceptions[0]
    frames = traceback.extract_tb(leaf.__traceback__)
    where = f" (raised at {frames[-1].filename}:{frames[-1].lineno} in {frames[-1].name})" if frames else ""
    return f"{type(leaf).__name__}: {leaf}{where}"
