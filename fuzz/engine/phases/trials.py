"""Trying a batch: send an exploration's cases, judge each, make findings of violations.

An exploration (`fuzz.engine.phases._random_search`) owns a `Trials`, apart from the search itself.
A case whose fate may be another request's doing is sent again alone here. A hang is confirmed at
the whole --timeout before it is reported. And each answer teaches the exploration something: the
arguments the server accepts, and the fields its refusals name. A new phase judges its cases the
same way.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from typing import Any

from fuzz.engine.dispatch import Dispatcher, Sent
from fuzz.engine.schema_reach import SchemaReach
from fuzz.engine.stops import Deadlines, OutOfTime, ShareSpent
from fuzz.judging.answers import AnswerClass, Observation, observe
from fuzz.judging.coverage import SUCCESS, answer_bucket, named_fields
from fuzz.judging.findings import Finding
from fuzz.judging.oracle import Criteria, assess, finding_of
from fuzz.judging.rules import REQUEST_ANSWERED
from fuzz.wire.replies import Answered
from strategies import Case, CaseKind, Tool

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


class Trials:
    """Sending a search's cases and judging each answer, for one tool and case kind.

    An exploration owns one. It keeps what the answers taught: the counts by answer, the accepted
    arguments, the refused fields, and the slowest answer, which sets the waits while a hang is
    shrunk.
    """

    def __init__(
        self,
        dispatcher: Dispatcher,
        criteria: Criteria,
        tool: Tool | None,
        kind: CaseKind,
        *,
        timeout: float,
        deadline: float,
        share_deadline: float,
        reach: SchemaReach | None = None,
    ) -> None:
        self.dispatcher = dispatcher
        self.criteria = criteria
        self.tool = tool
        self.kind = kind
        self.timeout = timeout
        """--timeout: how long a request waits for its answer."""
        self.deadlines = Deadlines(deadline, share_deadline)
        """--max-time, and the exploration's share of it (shrinking included)."""
        self.reach = reach
        """The tool's schema-reach counter, which every case judged here adds to."""
        self.sent = 0
        self.answers: dict[str, int] = {}
        """How its cases were answered, by `fuzz.judging.coverage` bucket."""
        self.refused_fields: dict[str, int] = {}
        self.accepted: list[dict[str, Any]] = []
        """Valid arguments that got a success (at most ACCEPTED_KEPT)."""
        self._accepted_keys: set[str] = set()
        self._slowest_answer: float | None = None
        """Seconds: the slowest answer any request of these trials got."""
        self.confirmed_hang: Finding | None = None
        """The first `request-answered` finding.

        It was made at the full --timeout, with nothing else in flight. Set by the search.
        """

    @property
    def lost(self) -> str | None:
        return self.dispatcher.lost

    def judge_batch(
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
        sent = self.deadlines.call(partial(self.dispatcher.send, timeout=timeout), batch)
        return self.judge_sent(batch, sent, enough, unwanted)

    def judge_sent(
        self,
        batch: Sequence[Case],
        sent: Sequence[Sent],
        enough: Callable[[Finding | None], bool] = lambda _: False,
        unwanted: frozenset[str] = frozenset(),
    ) -> list[Finding | None]:
        recheck = not self.suspecting
        findings: list[Finding | None] = []
        for case, outcome in zip(batch, sent, strict=True):
            if any(enough(finding) for finding in findings) or (outcome.doubtful and self.lost is not None):
                self._observed(case, observe(outcome.exchange, self.criteria.protocol_version))
                findings.append(None)
                continue
            hang_found = any(finding is not None and finding.rule.id == HANG_RULE for finding in findings)
            if outcome.doubtful or (outcome.doubtful_silence and recheck and not hang_found and self.lost is None):
                outcome = self.alone(case)
            finding = self.judge(case, outcome, unwanted)
            if finding is not None and outcome.unverifiable:
                finding = replace(finding, message=finding.message + _UNVERIFIABLE.format(others=len(batch) - 1))
            findings.append(finding)
        return findings

    @property
    def suspecting(self) -> bool:
        """Whether tries wait less than --timeout.

        They do while a hang is being shrunk, and this exploration's answers tell how long an answer
        takes.
        """
        return self.confirmed_hang is not None and self._slowest_answer is not None

    def timeout_for_try(self) -> float:
        """The full --timeout, except while a hang is shrunk (see `confirmed`)."""
        if not self.suspecting:
            return self.timeout
        assert self._slowest_answer is not None
        return min(self.timeout, max(SUSPECT_FLOOR, SUSPECT_FACTOR * self._slowest_answer))

    def confirmed(self, shrunk: Finding | None, *, out_of_time: bool) -> Finding | None:
        """The hang to report: the shrunk one if it hangs again at the whole --timeout.

        Hangs cost little to shrink, and only confirmed ones are reported. The first unanswered
        request of an exploration waits the whole --timeout (`confirmed_hang`). It waits again
        alone, if it may only have waited behind the others in flight. From then on, while
        Hypothesis shrinks it, a try counts as still hanging once it has waited SUSPECT_FACTOR times
        the slowest answer so far. That wait is at least SUSPECT_FLOOR and at most --timeout.

        The minimal request `shrunk` is then sent once more with the whole --timeout. It is sent
        again alone if what came of it may be the other requests' doing (`Sent.doubtful_silence`).
        If it is answered, it is not reported: the first one, unanswered at the whole --timeout, is.
        So no request answered within --timeout is reported as unanswered. None when there is
        nothing to replace: no hang, or the shrunk one is the confirmed one.
        """
        if self.confirmed_hang is None or shrunk is None or shrunk is self.confirmed_hang:
            return None
        kept = self.confirmed_hang
        if self.lost is None and not out_of_time:
            case = Case.from_request(self.kind, shrunk.tool, shrunk.request, shrunk.label)
            try:
                (outcome,) = self.deadlines.call(partial(self.dispatcher.send, timeout=self.timeout), [case])
                if outcome.doubtful or outcome.doubtful_silence:
                    outcome = self.alone(case)
            except (OutOfTime, ShareSpent):
                outcome = None
            self.sent += outcome is not None
            again = self.judge(case, outcome) if outcome is not None else None
            if again is not None and again.rule.id == HANG_RULE:
                kept = again
        return kept

    def alone(self, case: Case) -> Sent:
        """`case` sent with nothing else in flight, at the whole --timeout.

        It is called from the worker thread.
        """
        return self.deadlines.call(partial(self.dispatcher.alone, timeout=self.timeout), case)

    def judge(self, case: Case, outcome: Sent, unwanted: frozenset[str] = frozenset()) -> Finding | None:
        exchange = outcome.exchange
        if isinstance(exchange.reply, Answered):
            self._slowest_answer = max(self._slowest_answer or 0.0, exchange.reply.seconds)
        observation, violation = assess(case, exchange, self.tool, self.criteria, answers_ping=outcome.answers_ping)
        self._observed(case, observation)
        if violation is None or violation.rule.id in unwanted:
            return None
        finding = finding_of(violation, case, exchange, self.kind)
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
