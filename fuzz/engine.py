"""The engine: Hypothesis over (tool x case kind), each case sent to the target and judged.

The target lives in trio's thread (its session reads stdout while requests are in flight);
Hypothesis runs in a worker thread and sends each case through `trio.from_thread.run`. A
violated rule raises an exception whose type is unique to the rule, so Hypothesis treats each
rule as a distinct bug and shrinks each to its own minimal request (`report_multiple_bugs`).
The engine emits events and knows no reporter.
"""

from __future__ import annotations

import hashlib
import signal
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

import trio
from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis.errors import Unsatisfiable

from fuzz.corpus import CorruptReproduction, Reproduction, discover
from fuzz.corpus import load as load_reproduction
from fuzz.corpus import write as write_reproduction
from fuzz.database import example_database, use_user_cache
from fuzz.errors import ConfigurationError, HarnessError, first_leaf
from fuzz.events import (
    CorpusReplayed,
    FindingMade,
    Listener,
    RunFinished,
    RunStarted,
    ToolFinished,
    ToolStarted,
)
from fuzz.findings import Finding, FindingKey, Replayed, RunResult, Skip, ToolSummary
from fuzz.oracle import Criteria, describe_violation, judge
from fuzz.plan import Selection, ToolPlan, excluded, plan
from fuzz.profiles import PROFILES, SEP_2145
from fuzz.replay import ReplayStatus, replay_on
from fuzz.rules import Level
from fuzz.session import Answered, Exchange, NoAnswer, NotDelivered, TargetExited
from fuzz.target import Target, TargetSpec, open_target
from strategies import Case, CaseKind, Tool, cases
from strategies.cases import (
    ABSENT,
    ENVELOPE,
    canonical_cases,
    canonical_envelope_cases,
    envelope_cases,
)


@dataclass(frozen=True, slots=True)
class RunOptions:
    target: TargetSpec
    seed: int
    max_examples: int = 100
    timeout: float = 5.0
    """Seconds to wait for the answer to one request."""
    startup_timeout: float = 20.0
    """Seconds to wait for the answers to `initialize` and `tools/list`."""
    selection: Selection = Selection()
    profile: str = SEP_2145.id
    rules: frozenset[str] | None = None
    """The rule ids to judge by (--rules minus --exclude-rules); None for all."""
    fail_on: Level = Level.SHOULD
    envelope: bool = True
    """Send the malformed requests that name no tool (once per run)."""
    corpus: Path | None = None
    """Where reproductions are replayed from and written to, and Hypothesis's database kept;
    None for neither."""
    baseline: frozenset[FindingKey] = frozenset()
    max_time: float | None = None
    """Seconds the whole run may take; the run stops within a few seconds of it, keeping what
    it found. None for no limit."""

    def as_json(self) -> dict[str, Any]:
        selection = self.selection
        return {
            "maxExamples": self.max_examples,
            "timeout": self.timeout,
            "profile": self.profile,
            "rules": sorted(self.rules) if self.rules is not None else None,
            "failOn": self.fail_on.value,
            "tools": sorted(selection.tools) if selection.tools is not None else None,
            "excludeTools": sorted(selection.exclude_tools),
            "unavailable": sorted(selection.unavailable),
            "mirrorTool": selection.mirror_tool,
            "destructive": selection.destructive.value,
            "corpus": str(self.corpus) if self.corpus is not None else None,
            "maxTime": self.max_time,
        }


class RuleViolated(Exception):
    """Raised inside a Hypothesis example to fail it; carries the finding."""

    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.message)
        self.finding = finding


_violation_types: dict[str, type[RuleViolated]] = {}


def _violation_type(rule_id: str) -> type[RuleViolated]:
    """One exception class per rule, so that Hypothesis tells the rules apart while shrinking."""
    if rule_id not in _violation_types:
        name = "RuleViolated_" + rule_id.replace("-", "_")
        _violation_types[rule_id] = type(name, (RuleViolated,), {})
    return _violation_types[rule_id]


class TargetLost(Exception):
    """The target died and could not be restarted."""


class OutOfTime(BaseException):
    """--max-time is reached. A BaseException, so that Hypothesis stops at once instead of
    treating it as a failure to shrink."""


class ShareSpent(BaseException):
    """This exploration's share of --max-time is spent: it stops (keeping what it found) and the
    run goes on with the next one."""


SUSPECT_FLOOR = 0.25
"""Seconds: the least a try waits while a `request-answered` finding is being shrunk."""

SUSPECT_FACTOR = 20
"""While a hang is being shrunk, a try counts as still hanging once it has waited this many
times the slowest answer this exploration has had (never longer than --timeout)."""


_GRACE = 3.0
"""Seconds past --max-time allowed for closing the target and writing what was found."""


@dataclass
class _Progress:
    """What the run has found so far; read back when it is interrupted."""

    summaries: list[ToolSummary] = field(default_factory=list)
    current: ToolSummary | None = None
    description: Any = None
    restarts: int = 0
    excluded: tuple[str, ...] = ()
    replayed: list[Replayed] = field(default_factory=list)


def run(options: RunOptions, listener: Listener = lambda event: None) -> RunResult:
    """Fuzz the target and return the result. Raises HarnessError when the run could not be
    made. On Ctrl-C, returns what was found so far with `stopped_early` set."""
    use_user_cache()
    progress = _Progress()
    started = time.monotonic()
    deadline = started + options.max_time if options.max_time is not None else float("inf")
    stopped_early: str | None = None
    out_of_time = False
    try:
        trio.run(_run, options, listener, progress, deadline)
    except BaseException as error:  # noqa: B036 - KeyboardInterrupt arrives wrapped in groups too
        leaf = first_leaf(error)
        if isinstance(leaf, HarnessError):
            raise leaf from None
        if isinstance(leaf, TargetLost):
            stopped_early = str(leaf)
        elif isinstance(leaf, OutOfTime):
            stopped_early = f"--max-time {options.max_time:g} s reached"
            out_of_time = True
        elif isinstance(leaf, KeyboardInterrupt):
            stopped_early = "interrupted (Ctrl-C)"
        elif isinstance(leaf, Terminated):
            stopped_early = "terminated (SIGTERM)"
        else:
            raise
    summaries = list(progress.summaries)
    if progress.current is not None:
        summaries.append(progress.current)
    description = progress.description
    result = RunResult(
        seed=options.seed,
        target=options.target.as_json(),
        target_description=options.target.describe(),
        protocol_version=description.protocol_version if description else None,
        server_info=description.server_info if description else {},
        options=options.as_json(),
        tools=tuple(summaries),
        seconds=time.monotonic() - started,
        target_restarts=progress.restarts,
        stopped_early=stopped_early,
        out_of_time=out_of_time,
        profile=options.profile,
        fail_on=options.fail_on,
        excluded_tools=progress.excluded,
        replayed=tuple(progress.replayed),
        baseline=options.baseline,
    )
    listener(RunFinished(result))
    return result


class Terminated(Exception):
    """SIGTERM arrived: the run stops as it does on Ctrl-C, keeping what it found."""


async def _run(options: RunOptions, listener: Listener, progress: _Progress, deadline: float) -> None:
    with trio.move_on_at(_on_trio_clock(deadline) + _GRACE) as scope:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_raise_on_sigterm)
            await _fuzz(options, listener, progress, deadline)
            nursery.cancel_scope.cancel()
    if scope.cancelled_caught:
        raise OutOfTime()


async def _raise_on_sigterm() -> None:
    with trio.open_signal_receiver(signal.SIGTERM) as signals:
        async for _ in signals:
            raise Terminated()


async def _fuzz(options: RunOptions, listener: Listener, progress: _Progress, deadline: float) -> None:
    async with open_target(options.target, startup_timeout=options.startup_timeout) as target:
        progress.description = target.description
        plans = plan(target.tools, options.selection)
        progress.excluded = excluded(target.tools, options.selection)
        listener(
            RunStarted(
                seed=options.seed,
                target=options.target.describe(),
                protocol_version=target.description.protocol_version,
                server_name=str(target.description.server_info.get("name", "?")),
                tool_names=tuple(p.tool.name for p in plans),
                profile=options.profile,
            )
        )
        if options.corpus is not None:
            await _replay_corpus(options, target, listener, progress)
        known = tuple(tool.name for tool in target.tools) + tuple(sorted(options.selection.unavailable))
        criteria = Criteria(
            profile=PROFILES[options.profile],
            enabled=options.rules,
            protocol_version=target.description.protocol_version,
            listed_names=tuple(tool.name for tool in target.tools),
        )
        envelope = ToolPlan(None, (CaseKind.MALFORMED_REQUEST,)) if options.envelope else None
        tool_plans = (envelope, *plans) if envelope else plans
        cut: list[tuple[int, Tool | None, CaseKind]] = []
        explorations_left = sum(len(tool_plan.kinds) for tool_plan in tool_plans)
        for tool_plan in tool_plans:
            name = tool_plan.tool.name if tool_plan.tool else ENVELOPE
            listener(ToolStarted(name))
            progress.current = ToolSummary(name, {}, (), tool_plan.skips)
            unsatisfiable: set[CaseKind] = set()
            for kind in tool_plan.kinds:
                now = time.monotonic()
                if now >= deadline:
                    raise OutOfTime()
                explorations_left -= 1
                if kind in unsatisfiable:
                    continue
                share = now + (deadline - now) / (explorations_left + 1)
                exploration = _Exploration(options, target, tool_plan.tool, kind, known, criteria, deadline, share)
                await _explore(exploration, progress.current, _store_current(progress), options, target, listener, progress)
                if exploration.unsatisfiable:
                    unsatisfiable |= _BUILT_ON_VALID_VALUES.get(kind, set())
                if exploration.share_spent:
                    cut.append((len(progress.summaries), tool_plan.tool, kind))
            progress.summaries.append(progress.current)
            progress.current = None
            listener(ToolFinished(progress.summaries[-1]))
        await _more_rounds(cut, options, target, known, criteria, deadline, listener, progress)


async def _more_rounds(
    cut: list[tuple[int, Tool | None, CaseKind]],
    options: RunOptions,
    target: Target,
    known: tuple[str, ...],
    criteria: Criteria,
    deadline: float,
    listener: Listener,
    progress: _Progress,
) -> None:
    """With --max-time, the budget is spread in rounds. The first round gives every exploration
    an even share of what is left when it starts (time an exploration does not use goes to the
    ones after it). While time remains, each further round gives the explorations that their
    share cut short an even share of what is left, each with a seed of its own round (so it
    tries new examples, not the same ones again). What every round sent, found and spent adds up
    in the tool's summary."""
    round_number = 0
    while cut and time.monotonic() < deadline - _LEAST_SHARE:
        round_number += 1
        still_cut: list[tuple[int, Tool | None, CaseKind]] = []
        for position, (index, tool, kind) in enumerate(cut):
            now = time.monotonic()
            if now >= deadline:
                raise OutOfTime()
            share = now + (deadline - now) / (len(cut) - position)
            exploration = _Exploration(options, target, tool, kind, known, criteria, deadline, share, round_number)
            await _explore(exploration, progress.summaries[index], _store_at(progress, index), options, target, listener, progress)
            if exploration.share_spent:
                still_cut.append((index, tool, kind))
        cut = still_cut


def _store_current(progress: _Progress) -> Callable[[ToolSummary], None]:
    def store(summary: ToolSummary) -> None:
        progress.current = summary

    return store


def _store_at(progress: _Progress, index: int) -> Callable[[ToolSummary], None]:
    def store(summary: ToolSummary) -> None:
        progress.summaries[index] = summary

    return store


_LEAST_SHARE = 0.5
"""Seconds: a round that would leave an exploration less than this is not started."""


async def _explore(
    exploration: _Exploration,
    summary: ToolSummary,
    store: Callable[[ToolSummary], None],
    options: RunOptions,
    target: Target,
    listener: Listener,
    progress: _Progress,
) -> None:
    """Run one exploration in a worker thread; keep its findings, `store` the tool's summary
    with them (before anything is raised: no finding is lost), announce them; raise what ends
    the run (the target lost, --max-time reached)."""
    await trio.to_thread.run_sync(exploration.run, abandon_on_cancel=True)
    progress.restarts = target.restarts
    known_rules = {(finding.case, finding.rule.id) for finding in summary.findings}
    exploration.findings = [
        _keep(finding, options, target, exploration.tool)
        for finding in exploration.findings
        if (finding.case, finding.rule.id) not in known_rules
    ]
    merged = _merge(summary, exploration)
    store(merged)
    for finding in exploration.findings:
        listener(FindingMade(finding))
    if exploration.lost is not None:
        raise TargetLost(exploration.lost)
    if exploration.out_of_time:
        raise OutOfTime()


async def _replay_corpus(options: RunOptions, target: Target, listener: Listener, progress: _Progress) -> None:
    """Replay this target's reproductions before anything new is generated. A file that cannot
    be read is reported by name and skipped; files for other targets are left alone."""
    assert options.corpus is not None
    if not options.corpus.is_dir():
        return
    for path in discover([options.corpus]):
        try:
            reproduction = load_reproduction(path)
        except CorruptReproduction as error:
            replayed = Replayed(str(path), ReplayStatus.ERROR.value, f"skipped: {error}")
        else:
            if reproduction.target != options.target.as_json():
                continue
            outcome = await replay_on(target, reproduction)
            rule = PROFILES[options.profile].rules.get(reproduction.rule)
            replayed = Replayed(
                str(path),
                outcome.status.value,
                outcome.detail,
                FindingKey(reproduction.rule, reproduction.tool, reproduction.case.value),
                rule.level if rule else None,
            )
        progress.replayed.append(replayed)
        listener(CorpusReplayed(replayed))


def _keep(finding: Finding, options: RunOptions, target: Target, tool: Tool | None) -> Finding:
    """Write the finding's reproduction into the corpus (atomically, now: a run killed later
    keeps it) and note its file on the finding."""
    if options.corpus is None:
        return finding
    reproduction = Reproduction(
        rule=finding.rule.id,
        level=finding.rule.level.label,
        profile=options.profile,
        tool=finding.tool,
        case=finding.case,
        label=finding.label,
        target=options.target.as_json(),
        protocol_version=target.description.protocol_version,
        tool_listing=dict(tool.listing) if tool is not None and tool.listing else None,
        handshake=target.description.handshake,
        request=finding.request,
        response=finding.response,
        message=finding.message,
        seed=options.seed,
        timeout=options.timeout,
        stderr=finding.stderr,
    )
    path = options.corpus / reproduction.file_name
    existed = path.exists()
    try:
        write_reproduction(reproduction, options.corpus)
    except OSError as error:
        raise ConfigurationError(f"could not write a reproduction to {options.corpus}: {error.strerror or error} (use --corpus DIR or --no-corpus)") from None
    return replace(finding, reproduction=str(path), first_seen=not existed)


def _merge(summary: ToolSummary, exploration: _Exploration) -> ToolSummary:
    skips = summary.skips + ((Skip(summary.tool, exploration.kind, exploration.skip),) if exploration.skip else ())
    return ToolSummary(
        tool=summary.tool,
        cases_sent={**summary.cases_sent, exploration.kind: summary.cases_sent.get(exploration.kind, 0) + exploration.sent},
        findings=summary.findings + tuple(exploration.findings),
        skips=skips if exploration.round == 0 else summary.skips,
        seconds={**summary.seconds, exploration.kind: summary.seconds.get(exploration.kind, 0.0) + exploration.seconds},
    )


class _Exploration:
    """One Hypothesis run: `kind` cases for `tool` (None: malformed envelopes that name no tool),
    in a worker thread."""

    def __init__(
        self,
        options: RunOptions,
        target: Target,
        tool: Tool | None,
        kind: CaseKind,
        listed: tuple[str, ...],
        criteria: Criteria,
        deadline: float = float("inf"),
        share_deadline: float = float("inf"),
        round: int = 0,
    ) -> None:
        self.options = options
        self.criteria = criteria
        self.target = target
        self.tool = tool
        self.kind = kind
        self.listed = listed
        self.sent = 0
        self.findings: list[Finding] = []
        self.skip: str | None = None
        self.lost: str | None = None
        self.deadline = deadline
        self.share_deadline = min(share_deadline, deadline)
        """When this exploration's share of --max-time ends (shrinking included)."""
        self.seconds = 0.0
        self.round = round
        """0 for the first round of a --max-time run (and for every run without it)."""
        self.share_spent = False
        self.out_of_time = False
        self.unsatisfiable = False
        """No valid value could be drawn: the kinds built on valid values are not tried."""
        self._latest: dict[str, Finding] = {}
        self._canonical: dict[str, Finding] = {}
        self._silent_labels: set[str] = set()
        self._slowest_answer: float | None = None
        """Seconds: the slowest answer any request of this exploration got."""
        self._confirmed_hang: Finding | None = None
        """The first `request-answered` finding, made at the full --timeout."""

    def run(self) -> None:
        started = time.monotonic()
        try:
            self._run()
        finally:
            self.seconds = time.monotonic() - started

    def _run(self) -> None:
        """Send the canonical cases (each shape's simplest form), then let Hypothesis search.

        A rule a canonical case violated keeps that finding: it is already minimal. A shape whose
        simplest form got no answer is left out of the search: every further try would cost a
        whole timeout and could only find the same rule again.
        """
        if self.round > 0:
            canonical: list[Case] = []
        else:
            canonical = canonical_envelope_cases() if self.tool is None else canonical_cases(self.tool, self.kind, self.listed)
        try:
            concurrent = trio.from_thread.run(self._before_deadline, self._send_together, canonical) if canonical else None
            for index, case in enumerate(canonical):
                if self.lost is not None:
                    break
                finding = self._judge(case, *concurrent[index]) if concurrent else self._try(case, timeout=self.options.timeout)
                self._keep_canonical(case, finding)
        except OutOfTime:
            self.out_of_time = True
        except ShareSpent:
            self.share_spent = True
        else:
            if self.lost is None:
                self._search()
        self._confirm_hang()
        self.findings = list(self._canonical.values()) + [
            finding for finding in self.findings if finding.rule.id not in self._canonical
        ]

    def _keep_canonical(self, case: Case, finding: Finding | None) -> None:
        if finding is not None and finding.response is None:
            self._silent_labels.add(case.label)
        if finding is not None and finding.rule.id not in self._canonical:
            self._canonical[finding.rule.id] = finding

    def _search(self) -> None:
        try:
            strategy = envelope_cases() if self.tool is None else cases(self.tool, self.kind, self.listed)
            if self._silent_labels:
                strategy = strategy.filter(lambda case: case.label not in self._silent_labels)
            test = self._hypothesis_test(strategy)
            test()
        except Unsatisfiable:
            self.unsatisfiable = True
            schema = "outputSchema" if self.kind in (CaseKind.VALID_OUTPUT, CaseKind.INVALID_OUTPUT) else "inputSchema"
            self.skip = (
                f"its {schema} accepts no value mcp-toolfuzz could generate (is it satisfiable?): no "
                f"{self.kind.value} cases, and none of the kinds built on valid values"
            )
        except BaseException as error:  # noqa: B036 - Hypothesis raises groups of violations
            if _leaves_of_type(error, (KeyboardInterrupt, SystemExit, trio.Cancelled)):
                raise
            self.out_of_time = _leaves_of_type(error, (OutOfTime,))
            share_spent = self.share_spent = _leaves_of_type(error, (ShareSpent,))
            violations = _violations_in(error)
            if violations:
                self.findings = [violation.finding for violation in violations]
            elif self.lost is None and not self.out_of_time and not share_spent:
                self.skip = f"could not generate {self.kind.value} cases: {type(error).__name__}: {error}"
        if not self.findings and self._latest:
            self.findings = list(self._latest.values())

    def _hypothesis_test(self, strategy: Any) -> Callable[[], None]:
        config = settings(
            parent=settings.get_profile("default"),
            max_examples=self.options.max_examples,
            deadline=None,
            database=example_database(self.options.corpus),
            derandomize=False,
            suppress_health_check=list(HealthCheck),
            verbosity=Verbosity.quiet,
            phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink),
            report_multiple_bugs=True,
            print_blob=False,
        )

        def test(case: Case) -> None:
            self._check(case)

        # Hypothesis keys its database by the test's source, the same for every exploration:
        # the target, tool and case kind tell them apart.
        name = self.tool.name if self.tool else ENVELOPE
        test._hypothesis_internal_add_digest = "\0".join(  # type: ignore[attr-defined]
            (self.options.target.describe(), name, self.kind.value)
        ).encode()
        # What @seed does, minus the line that turns the database off: a run is repeatable from
        # its seed and still tries the examples that failed in earlier runs first.
        test._hypothesis_internal_use_seed = _derived_seed(self.options.seed, name, self.kind, self.round)  # type: ignore[attr-defined]
        return config(given(strategy)(test))

    def _check(self, case: Case) -> None:
        """The Hypothesis test body: fails the example when the case violates a rule."""
        if self.lost is not None:
            raise TargetLost(self.lost)
        now = time.monotonic()
        if now >= self.deadline:
            raise OutOfTime()
        if now >= self.share_deadline:
            raise ShareSpent()
        finding = self._try(case, timeout=self._timeout_for_try())
        if finding is not None:
            if finding.rule.id == _HANG_RULE and self._confirmed_hang is None and not self._suspecting:
                self._confirmed_hang = finding
            self._latest[finding.rule.id] = finding
            raise _violation_type(finding.rule.id)(finding)

    @property
    def _suspecting(self) -> bool:
        """Whether tries wait less than --timeout: a hang is being shrunk, and this exploration's
        answers tell how long an answer takes."""
        return self._confirmed_hang is not None and self._slowest_answer is not None

    def _timeout_for_try(self) -> float:
        """The full --timeout, except while a hang is shrunk (see `_confirm_hang`)."""
        if not self._suspecting:
            return self.options.timeout
        assert self._slowest_answer is not None
        return min(self.options.timeout, max(SUSPECT_FLOOR, SUSPECT_FACTOR * self._slowest_answer))

    def _confirm_hang(self) -> None:
        """Hangs cost little to shrink, and only confirmed ones are reported.

        The first unanswered request of an exploration waits the whole --timeout. From then on,
        while Hypothesis shrinks it, a try that has waited SUSPECT_FACTOR times the slowest answer
        of this exploration (at least SUSPECT_FLOOR, at most --timeout) counts as still hanging.
        The minimal request is then sent once more with the whole --timeout: if it is answered,
        the shrunk request is not reported and the first one (unanswered at the whole --timeout)
        is. So no request answered within --timeout is reported as unanswered.
        """
        shrunk = self._latest.get(_HANG_RULE)
        if self._confirmed_hang is None or shrunk is None or shrunk is self._confirmed_hang:
            return
        kept = self._confirmed_hang
        if self.lost is None and not self.out_of_time:
            case = Case(self.kind, shrunk.tool, shrunk.request.get("params", ABSENT), shrunk.label)
            try:
                confirmed = self._try(case, timeout=self.options.timeout)
            except (OutOfTime, ShareSpent):
                confirmed = None
            if confirmed is not None and confirmed.rule.id == _HANG_RULE:
                kept = confirmed
        self._latest[_HANG_RULE] = kept
        self.findings = [kept if finding.rule.id == _HANG_RULE else finding for finding in self.findings]

    def _try(self, case: Case, *, timeout: float) -> Finding | None:
        exchange, answers_ping = trio.from_thread.run(self._before_deadline, self._send, case, timeout)
        if isinstance(exchange.reply, Answered):
            self._slowest_answer = max(self._slowest_answer or 0.0, exchange.reply.seconds)
        return self._judge(case, exchange, answers_ping)

    async def _before_deadline(self, send: Callable[..., Any], *arguments: Any) -> Any:
        """Run `send(*arguments)` in trio, cut short by --max-time (or this exploration's share
        of it) even while the target hangs."""
        with trio.move_on_at(_on_trio_clock(self.share_deadline)) as scope:
            return await send(*arguments)
        assert scope.cancelled_caught
        raise OutOfTime() if time.monotonic() >= self.deadline else ShareSpent()

    def _judge(self, case: Case, exchange: Exchange, answers_ping: bool) -> Finding | None:
        self.sent += 1
        violation = judge(case, exchange, self.tool, self.criteria, answers_ping=answers_ping)
        if violation is None:
            return None
        return Finding(
            rule=violation.rule,
            tool=case.tool,
            case=self.kind,
            label=case.label,
            request=exchange.request,
            response=exchange.reply.message if isinstance(exchange.reply, Answered) else None,
            message=describe_violation(violation, case, exchange),
            why=violation.why,
            expected=violation.expected,
            stderr=exchange.stderr,
        )

    async def _send_together(self, batch: list[Case]) -> list[tuple[Exchange, bool]] | None:
        """Send `batch` with every request in flight at once, so that shapes a server drops cost
        one timeout between them, not one each. Returns None (send them one by one instead) when
        the target died or went silent meanwhile: then which case did it cannot be told."""
        exchanges: list[Exchange | None] = [None] * len(batch)
        ids = [self.target.session.next_id() for _ in batch]

        async def send(index: int, case: Case) -> None:
            exchanges[index] = await self.target.session.send_request(
                case.message, timeout=self.options.timeout, request_id=ids[index]
            )

        async with trio.open_nursery() as nursery:
            for index, case in enumerate(batch):
                nursery.start_soon(send, index, case)
        done = [exchange for exchange in exchanges if exchange is not None]
        unanswered = any(isinstance(exchange.reply, (NoAnswer, NotDelivered)) for exchange in done)
        if any(isinstance(exchange.reply, TargetExited) for exchange in done) or self.target.session.closed or (
            unanswered and not await self.target.ping(timeout=self.options.timeout)
        ):
            await self._restart_after(batch[0])
            return None
        return [(exchange, True) for exchange in done]

    async def _send(self, case: Case, timeout: float) -> tuple[Exchange, bool]:
        """Send one case. After no answer, ask for a ping; after death or silence, restart the
        target so that the next case meets a live one."""
        exchange = await self.target.session.send_request(case.message, timeout=timeout)
        answers_ping = True
        if isinstance(exchange.reply, (NoAnswer, NotDelivered)) and not self.target.session.closed:
            answers_ping = await self.target.ping(timeout=self.options.timeout)
        if isinstance(exchange.reply, TargetExited) or self.target.session.closed or not answers_ping:
            await self._restart_after(case)
        return exchange, answers_ping

    async def _restart_after(self, case: Case) -> None:
        try:
            await self.target.restart()
        except HarnessError as error:
            self.lost = f"the target could not be restarted after {case.label} to {case.tool!r}: {error}"


def _on_trio_clock(deadline: float) -> float:
    """A deadline on time.monotonic's clock (which the worker thread reads) on trio's clock."""
    return trio.current_time() + (deadline - time.monotonic())


_HANG_RULE = "request-answered"

_BUILT_ON_VALID_VALUES: dict[CaseKind, set[CaseKind]] = {
    CaseKind.VALID_ARGUMENTS: {CaseKind.INVALID_ARGUMENTS},
    CaseKind.VALID_OUTPUT: {CaseKind.INVALID_OUTPUT},
}
"""An invalid value is a valid one with one mutation: when no valid value exists, neither does
it, and the search for it would only repeat the same skip."""


def _derived_seed(run_seed: int, tool: str, kind: CaseKind, round: int = 0) -> int:
    suffix = f"\0{round}" if round else ""
    digest = hashlib.sha256(f"{run_seed}\0{tool}\0{kind.value}{suffix}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def _violations_in(error: BaseException) -> list[RuleViolated]:
    if isinstance(error, RuleViolated):
        return [error]
    if isinstance(error, BaseExceptionGroup):
        return [found for inner in error.exceptions for found in _violations_in(inner)]
    return []


def _leaves_of_type(error: BaseException, types: tuple[type[BaseException], ...]) -> bool:
    if isinstance(error, BaseExceptionGroup):
        return any(_leaves_of_type(inner, types) for inner in error.exceptions)
    return isinstance(error, types)


