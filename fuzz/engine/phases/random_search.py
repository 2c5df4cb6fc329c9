"""One exploration: Hypothesis searching one case kind of one tool, in a worker thread.

Each Hypothesis example is a batch of cases (`fuzz.engine.phases.boundary.batch_size`). A batch is
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

import hashlib
import time
from collections.abc import Callable, Sequence
from typing import Any

import trio
from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable

from fuzz.engine.dispatch import Dispatcher
from fuzz.engine.examples import example_database
from fuzz.engine.finished_runs import collect_finished_runs
from fuzz.engine.novelty import Novelty
from fuzz.engine.options import RunOptions, RunPhase
from fuzz.engine.phases.boundary import NO_VERDICTS, Canonical, CanonicalVerdicts, batch_size_for
from fuzz.engine.phases.trials import HANG_RULE, BatchTrials
from fuzz.engine.phases.violations import leaves_of_type, violation_type, violations_in
from fuzz.engine.schema_reach import SchemaReach
from fuzz.engine.stops import NothingNew, OutOfTime, ShareSpent, TargetLost
from fuzz.judging.findings import Finding
from fuzz.judging.oracle import Criteria
from strategies import Case, CaseKind, Tool, cases
from strategies._hypothesis.fresh_generation import FRESH, SIMPLEST_FIRST
from strategies._hypothesis.marks import keyed, seeded
from strategies._hypothesis.threads import BUILDING
from strategies.cases import ENVELOPE, coercion_cases, envelope_cases
from strategies.drawing import tupled
from strategies.meta import Stateless
from strategies.values import Known

CASES_PER_RUN = 1600
"""Cases in one Hypothesis run at most (100 batches of 16, 50 of 32).

A longer exploration is several runs, each with a seed of its own part, until one finds something.
Hypothesis keeps what it tried for the length of a run: a cache of 10,000 examples, and the tree of
choices made. That grows with the batches. In parts, memory stays flat over a night, and the cases
per second stay the same.
"""


class Exploration(BatchTrials):
    """`kind` cases for `tool`, searched by Hypothesis.

    A `tool` of None means the malformed envelopes that name no tool. `run` it in a worker thread of
    a trio run that serves `dispatcher`.
    """

    conclusion: str | None = None
    """Always None here: a search of single cases draws no conclusion on state.

    The sequence phase's exploration keeps its conclusion on state in a field of this name.
    """

    def __init__(
        self,
        options: RunOptions,
        dispatcher: Dispatcher,
        tool: Tool | None,
        kind: CaseKind,
        listed: tuple[str, ...],
        criteria: Criteria,
        deadline: float = float("inf"),
        share_deadline: float = float("inf"),
        round: int = 0,
        canonical: Canonical | None = None,
        accepted: Sequence[dict[str, Any]] = (),
        known: Known | None = None,
        stateless: Stateless | None = None,
        reach: SchemaReach | None = None,
        earlier: CanonicalVerdicts = NO_VERDICTS,
    ) -> None:
        self.options = options
        self.earlier = earlier
        """For a later round: what the first round's deterministic cases came to."""
        self.reach = reach
        """The tool's schema-reach counter, which every case judged here adds to."""
        self.stateless = stateless
        """The stateless revision's envelope, when the run speaks it; its kinds need it."""
        self.criteria = criteria
        self.dispatcher = dispatcher
        self.tool = tool
        self.kind = kind
        self.listed = listed
        self.sent = 0
        self.findings: list[Finding] = []
        self.skip: str | None = None
        self.deadline = deadline
        self.share_deadline = min(share_deadline, deadline)
        """When this exploration's share of --max-time ends (shrinking included)."""
        self.seconds = 0.0
        self.round = round
        """0 for the first round of a --max-time run (and for every run without it)."""
        self.canonical = canonical
        """The canonical cases, already sent (`send_canonical`), with what came of them."""
        self.accepted_bases = tuple(accepted)
        """Arguments the server accepted, from the tool's valid-arguments explorations so far."""
        self.known = known
        self.accepted: list[dict[str, Any]] = []
        """Valid arguments this exploration got a success for (at most ACCEPTED_KEPT)."""
        self._accepted_keys: set[str] = set()
        self.answers: dict[str, int] = {}
        """How its cases were answered, by `fuzz.judging.coverage` bucket."""
        self.refused_fields: dict[str, int] = {}
        self.share_spent = False
        self.out_of_time = False
        self.exhausted = False
        """Its batches stopped bringing cases it had not sent (`Novelty`): no next round."""
        self._novelty = Novelty()
        self.unsatisfiable = False
        """No valid value could be drawn: the kinds built on valid values are not tried."""
        self._latest: dict[str, Finding] = {}
        self._canonical: dict[str, Finding] = {}
        self._silent_labels: set[str] = set(earlier.silent_labels)
        self._slowest_answer: float | None = None
        """Seconds: the slowest answer any request of this exploration got."""
        self._batches_checked = 0
        self._case_of: dict[int, tuple[Finding, Case]] = {}
        """Each finding this exploration kept, with its case, by the finding's id().

        A kept finding is a canonical one, or one that failed an example. The entry holds the
        finding, so that no id is reused while the exploration runs. Not every finding judged is
        kept. A search that goes on past a rule the canonical cases found judges one in each of its
        cases.
        """
        self._confirmed_hang: Finding | None = None
        """The first `request-answered` finding.

        It was made at the full --timeout, with nothing else in flight.
        """

    @property
    def name(self) -> str:
        return self.tool.name if self.tool else ENVELOPE

    def run(self) -> None:
        started = time.monotonic()
        try:
            self._run()
        finally:
            self.seconds = time.monotonic() - started

    def _run(self) -> None:
        """Judge the canonical cases, then let Hypothesis search.

        The canonical cases are each shape's simplest form. They were sent before this exploration
        took a worker (see `send_canonical`).

        A rule a canonical case violated keeps that finding: it is already minimal. A shape whose
        simplest form got no answer is left out of the search. Every further try would cost a whole
        timeout, and could only find the same rule again.
        """
        try:
            if self.canonical is not None:
                cases, sent = self.canonical
                if self.lost is not None:  # only the one finding the loss makes, if it is here
                    kept = [index for index, outcome in enumerate(sent) if outcome.unverifiable]
                    cases, sent = [cases[index] for index in kept], [sent[index] for index in kept]
                self.sent += len(cases)
                for case, finding in zip(cases, self._judge_sent(cases, sent), strict=True):
                    self._keep_canonical(case, finding)
            probes = (
                coercion_cases(self.tool, self.accepted_bases[0])
                if self.tool
                and self.accepted_bases
                and (self.kind is CaseKind.INVALID_ARGUMENTS and self.round == 0 and RunPhase.BOUNDARY in self.options.phases)
                else []
            )
            if probes and self.lost is None:
                for case, finding in zip(probes, self._judge_batch(probes, timeout=self.options.timeout, enough=lambda _: False), strict=True):
                    self._keep_canonical(case, finding)
        except OutOfTime:
            self.out_of_time = True
        except ShareSpent:
            self.share_spent = True
        else:
            if self.lost is None and RunPhase.RANDOM in self.options.phases:
                self._search()
        self._confirm_hang()
        self.findings = [
            self._alone_again(finding)
            for finding in list(self._canonical.values()) + [finding for finding in self.findings if finding.rule.id not in self._canonical]
        ]
        self._case_of.clear()

    def _alone_again(self, finding: Finding) -> Finding:
        """The finding, as its request makes it when sent once more alone.

        Sent with nothing else in flight, the stderr lines the finding carries are its own. They are
        not those of requests beside it. The finding is kept as it was if the request alone does not
        make it, as with a target whose answers vary. A hang is kept too: `_confirm_hang` already
        sent it alone.
        """
        finding_and_case = self._case_of.get(id(finding))
        if finding_and_case is None or finding.rule.id == HANG_RULE or self.lost is not None or self.out_of_time:
            return finding
        case = finding_and_case[1]
        try:
            outcome = self._alone(case)
        except (OutOfTime, ShareSpent):
            return finding
        self.sent += 1
        again = self._judge(case, outcome)
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
                    else cases(self.tool, self.kind, self.listed, accepted=self.accepted_bases, known=self.known, stateless=self.stateless)
                )
                if self._silent_labels:
                    strategy = strategy.filter(lambda case: case.label not in self._silent_labels)
                # A tuple, not a list of fixed size: the same cases, without a (forced) "one more?"
                # choice and its span per case for Hypothesis to record, mutate and shrink.
                batches = tupled(*[strategy] * self.batch_size)
                batches.validate()
            left = -(-self.max_examples // self.batch_size)
            part = 0
            while left > 0:
                examples = min(left, max(1, CASES_PER_RUN // self.batch_size))
                checked = self._batches_checked
                try:
                    self._hypothesis_test(batches, examples, part)()
                finally:
                    collect_finished_runs()
                left -= examples
                part += 1
                if self._batches_checked - checked < examples:
                    break
        except Unsatisfiable:
            self.unsatisfiable = True
            schema = "outputSchema" if self.kind in (CaseKind.VALID_OUTPUT, CaseKind.INVALID_OUTPUT) else "inputSchema"
            self.skip = (
                f"its {schema} accepts no value mcp-toolfuzz could generate (is it satisfiable?): no "
                f"{self.kind.value} cases, and none of the kinds built on valid values"
            )
        except BaseException as error:
            if leaves_of_type(error, (KeyboardInterrupt, SystemExit, trio.Cancelled)):
                raise
            self.out_of_time = leaves_of_type(error, (OutOfTime,))
            share_spent = self.share_spent = leaves_of_type(error, (ShareSpent,))
            self.exhausted = leaves_of_type(error, (NothingNew,))
            violations = violations_in(error)
            if violations:
                self.findings = [violation.finding for violation in violations]
            elif self.lost is None and not self.out_of_time and not share_spent and not self.exhausted:
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
        config = settings(
            parent=settings.get_profile("default"),
            max_examples=examples,
            deadline=None,
            database=example_database(self.options),
            derandomize=False,
            suppress_health_check=list(HealthCheck),
            verbosity=Verbosity.quiet,
            phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink),
            report_multiple_bugs=True,
            print_blob=False,
        )

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
        now = time.monotonic()
        if now >= self.deadline:
            raise OutOfTime()
        if now >= self.share_deadline:
            raise ShareSpent()
        if self._novelty.exhausted_after(batch) and not self._latest:
            raise NothingNew()
        suspecting = self._suspecting
        minimal = self._canonical.keys() | self.earlier.rules
        known = self._latest.keys() | minimal

        def is_new(finding: Finding | None) -> bool:
            return finding is not None and finding.rule.id not in known

        # A rule a canonical case found makes no finding here (nor the description of one):
        # on the demo, most of the search's cases violate one.
        judged = self._judge_batch(batch, timeout=self._timeout_for_try(), enough=is_new, unwanted=frozenset(minimal - {HANG_RULE}))
        failing = [(found, case) for found, case in zip(judged, batch, strict=True) if found]
        chosen = next((pair for pair in failing if is_new(pair[0])), failing[0] if failing else None)
        if chosen is not None:
            finding, case = chosen
            if finding.rule.id == HANG_RULE and self._confirmed_hang is None and not suspecting:
                self._confirmed_hang = finding
            self._latest[finding.rule.id] = finding
            self._case_of[id(finding)] = (finding, case)
            raise violation_type(finding.rule.id)(finding)


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
