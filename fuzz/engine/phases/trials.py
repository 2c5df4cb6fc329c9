"""Trying a batch: send an exploration's cases, judge each, make findings of violations.

This is a mixin of `Exploration` (`fuzz.engine.phases.random_search`), apart from the search itself.
A case whose fate may be another request's doing is sent again alone here. A hang is confirmed at
the whole --timeout before it is reported. And each answer teaches the exploration something: the
arguments the server accepts, and the fields its refusals name. A new phase judges its cases the
same way.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import trio

from fuzz.engine.dispatch import Dispatcher, Sent
from fuzz.engine.options import RunOptions
from fuzz.engine.schema_reach import SchemaReach
from fuzz.engine.stops import OutOfTime, ShareSpent, on_trio_clock
from fuzz.judging.answers import AnswerClass, Observation, observe
from fuzz.judging.coverage import SUCCESS, answer_bucket, named_fields
from fuzz.judging.findings import Finding
from fuzz.judging.oracle import Criteria, assess, describe_violation
from fuzz.judging.rules import REQUEST_ANSWERED
from fuzz.wire.replies import Answered
from strategies import ABSENT, Case, CaseKind, Tool

SUSPECT_FLOOR = 0.25
"""Seconds: the least a try waits while a `request-answered` finding is being shrunk."""

SUSPECT_FACTOR = 20
"""How many times the slowest answer a try waits before it counts as still hanging.

This holds while a hang is being shrunk. The wait is never longer than --timeout.
"""

HANG_RULE = REQUEST_ANSWERED.id
"""The rule a hang violates: its findings are shrunk with shorter waits, and kept apart."""

ACCEPTED_KEPT = 32
"""Valid arguments kept per tool: the bases invalid arguments mutate.

They come from the successes of the tool's valid-arguments cases. The first ones are kept, in the
order they were judged.
"""


_UNVERIFIABLE = (
    " The target stopped while other requests were in flight ({others} of this batch, maybe more of other"
    " explorations) and could not be restarted to re-check each alone: this request may not be the cause;"
    " replay its reproduction to know."
)


class BatchTrials:
    """What `Exploration` does with a batch.

    The state it reads and keeps is the exploration's.
    """

    options: RunOptions
    dispatcher: Dispatcher
    criteria: Criteria
    tool: Tool | None
    kind: CaseKind
    sent: int
    findings: list[Finding]
    deadline: float
    share_deadline: float
    out_of_time: bool
    accepted: list[dict[str, Any]]
    answers: dict[str, int]
    refused_fields: dict[str, int]
    _accepted_keys: set[str]
    _latest: dict[str, Finding]
    _slowest_answer: float | None
    _confirmed_hang: Finding | None
    reach: SchemaReach | None

    @property
    def lost(self) -> str | None:
        return self.dispatcher.lost

    def _judge_batch(
        self, batch: Sequence[Case], *, timeout: float, enough: Callable[[Finding | None], bool], unwanted: frozenset[str] = frozenset()
    ) -> list[Finding | None]:
        """Send `batch` and judge each case, in order, until one whose finding is `enough`.

        The batch fails by a rule this exploration has not found yet, when one of its cases violates
        one. Otherwise it fails by its first violation. So a frequent violation does not hide a
        rarer one in the same batch.

        A case whose silence may be the other requests' doing (`Sent.doubtful_silence`) is sent
        again alone before it is judged. It waits the full --timeout then, except while a hang is
        shrunk. So is a case whose fate may be another's doing in any other way (`Sent.doubtful`). A
        violation of an `unwanted` rule is counted for coverage, but makes no finding (None). Its
        request is not described.
        """
        self.sent += len(batch)
        sent = trio.from_thread.run(self._before_deadline, self.dispatcher.send, batch, timeout)
        return self._judge_sent(batch, sent, enough, unwanted)

    def _judge_sent(
        self,
        batch: Sequence[Case],
        sent: Sequence[Sent],
        enough: Callable[[Finding | None], bool] = lambda _: False,
        unwanted: frozenset[str] = frozenset(),
    ) -> list[Finding | None]:
        recheck = not self._suspecting
        findings: list[Finding | None] = []
        for case, outcome in zip(batch, sent, strict=True):
            if any(enough(finding) for finding in findings) or (outcome.doubtful and self.lost is not None):
                self._observed(case, observe(outcome.exchange, self.criteria.protocol_version))
                findings.append(None)
                continue
            hang_found = any(finding is not None and finding.rule.id == HANG_RULE for finding in findings)
            if outcome.doubtful or (outcome.doubtful_silence and recheck and not hang_found and self.lost is None):
                outcome = self._alone(case)
            finding = self._judge(case, outcome, unwanted)
            if finding is not None and outcome.unverifiable:
                finding = replace(finding, message=finding.message + _UNVERIFIABLE.format(others=len(batch) - 1))
            findings.append(finding)
        return findings

    @property
    def _suspecting(self) -> bool:
        """Whether tries wait less than --timeout.

        They do while a hang is being shrunk, and this exploration's answers tell how long an answer
        takes.
        """
        return self._confirmed_hang is not None and self._slowest_answer is not None

    def _timeout_for_try(self) -> float:
        """The full --timeout, except while a hang is shrunk (see `_confirm_hang`)."""
        if not self._suspecting:
            return self.options.timeout
        assert self._slowest_answer is not None
        return min(self.options.timeout, max(SUSPECT_FLOOR, SUSPECT_FACTOR * self._slowest_answer))

    def _confirm_hang(self) -> None:
        """Hangs cost little to shrink, and only confirmed ones are reported.

        The first unanswered request of an exploration waits the whole --timeout. It waits again
        alone, if it may only have waited behind the others in flight. From then on, while
        Hypothesis shrinks it, a try counts as still hanging once it has waited SUSPECT_FACTOR times
        the slowest answer of this exploration. That wait is at least SUSPECT_FLOOR and at most
        --timeout.

        The minimal request is then sent once more with the whole --timeout. It is sent again alone
        if what came of it may be the other requests' doing (`Sent.doubtful_silence`). If it is
        answered, the shrunk request is not reported. The first one, unanswered at the whole
        --timeout, is. So no request answered within --timeout is reported as unanswered.
        """
        shrunk = self._latest.get(HANG_RULE)
        if self._confirmed_hang is None or shrunk is None or shrunk is self._confirmed_hang:
            return
        kept = self._confirmed_hang
        if self.lost is None and not self.out_of_time:
            case = Case(self.kind, shrunk.tool, shrunk.request.get("params", ABSENT), shrunk.label)
            try:
                (outcome,) = trio.from_thread.run(self._before_deadline, self.dispatcher.send, [case], self.options.timeout)
                if outcome.doubtful or outcome.doubtful_silence:
                    outcome = self._alone(case)
            except (OutOfTime, ShareSpent):
                outcome = None
            self.sent += outcome is not None
            confirmed = self._judge(case, outcome) if outcome is not None else None
            if confirmed is not None and confirmed.rule.id == HANG_RULE:
                kept = confirmed
        self._latest[HANG_RULE] = kept
        self.findings = [kept if finding.rule.id == HANG_RULE else finding for finding in self.findings]

    def _alone(self, case: Case) -> Sent:
        """`case` sent with nothing else in flight, at the whole --timeout.

        It is called from the worker thread.
        """
        sent: Sent = trio.from_thread.run(self._before_deadline, self.dispatcher.alone, case, self.options.timeout)
        return sent

    async def _before_deadline(self, send: Callable[..., Any], *arguments: Any) -> Any:
        """Run `send(*arguments, timeout=...)` in trio, cut short at the deadline.

        The deadline is --max-time, or this exploration's share of it. It cuts the send short even
        while the target hangs.
        """
        *cases, timeout = arguments
        with trio.move_on_at(on_trio_clock(self.share_deadline)) as scope:
            return await send(*cases, timeout=timeout)
        assert scope.cancelled_caught
        raise OutOfTime() if time.monotonic() >= self.deadline else ShareSpent()

    def _judge(self, case: Case, outcome: Sent, unwanted: frozenset[str] = frozenset()) -> Finding | None:
        exchange = outcome.exchange
        if isinstance(exchange.reply, Answered):
            self._slowest_answer = max(self._slowest_answer or 0.0, exchange.reply.seconds)
        observation, violation = assess(case, exchange, self.tool, self.criteria, answers_ping=outcome.answers_ping)
        self._observed(case, observation)
        if violation is None or violation.rule.id in unwanted:
            return None
        finding = Finding(
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
            headers=exchange.headers,
        )
        return finding

    def _observed(self, case: Case, observation: Observation) -> None:
        """Count how `case` was answered, and learn from it.

        It keeps valid arguments the server accepted. It notes which fields the refusals of valid
        ones named.
        """
        arguments = case.params.get("arguments") if isinstance(case.params, dict) else None
        name = answer_bucket(observation, arguments)
        self.answers[name] = self.answers.get(name, 0) + 1
        if self.reach is not None:
            self.reach.count(case, name)
        if case.kind is not CaseKind.VALID_ARGUMENTS or self.tool is None:
            return
        if name == SUCCESS and isinstance(arguments, dict) and len(self.accepted) < ACCEPTED_KEPT:
            key = json.dumps(arguments, sort_keys=True)
            if key not in self._accepted_keys:
                self._accepted_keys.add(key)
                self.accepted.append(arguments)
        elif observation.answer in (AnswerClass.TOOL_EXECUTION_ERROR, AnswerClass.PROTOCOL_ERROR):
            texts = observation.error_texts or ((observation.error_message,) if observation.error_message else ())
            fields = self.tool.input_schema.get("properties")
            for field, count in named_fields(texts, fields if isinstance(fields, dict) else ()).items():
                self.refused_fields[field] = self.refused_fields.get(field, 0) + count
