"""Whether a target keeps state across calls: the sequence phase's first look.

The look is a few calls long. Sequences find what single cases cannot only on a server whose answers
depend on earlier calls. Many servers' answers do not: a search, a calculator, a lookup. And a
sequence costs as much as many single cases: one call at a time, and a restart before most.

So before it searches, the phase asks the target three questions. Each tool is called with its
simplest valid arguments (`strategies.boundaries.simplest`). That is three or four calls per tool in
all.

The first question: does a value from one answer change another call's answer? Each id or name an
answer gave (`strategies.learning`) is offered to each argument of its family that accepts it. One
value is offered per argument. A tool may answer it otherwise than its simplest value. It may
succeed where the simplest was refused, or crash where it succeeded. Then it knows the value: the
server remembered it.

The second question: does an answer change with what came before? Each tool is called once, in plan
order (pass A). After the values above, each is called once more (pass C). Pass A is made again on a
fresh target (pass B). So an answer that differs anyway, such as a timestamp or a random id, is not
taken for state. A tool whose A and B answers agree, and whose C answer differs, remembers.

The third question: does the target say its tools changed (`notifications/tools/list_changed`)?

Any yes is a sign of state. The answers are compared whole (`_answer_key`): the JSON-RPC message but
its id and `_meta`. Their kinds are those coverage counts (`answer_bucket`). A target given by URL
gets no pass B, since no fresh one can be had. So the second question is not asked of it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fuzz.engine.dispatch import Sent
from fuzz.judging.coverage import SUCCESS, answer_bucket
from fuzz.judging.oracle import Criteria, assess
from fuzz.wire.replies import Answered
from strategies import Case, CaseKind, Tool
from strategies.boundaries.simplest import NOTHING, Simplest
from strategies.envelopes import call_params
from strategies.learning import Learned, fits, fitting_fields, learned_from

SIGNS_SHOWN = 2
"""Signs of state a conclusion names (the rest are counted)."""

SLOW_PROBE = 1.0
"""Seconds: a tool whose probe call took longer is called no more in the probe.

Nor is it called in sequences (`fuzz.engine.phases._sequences.SLOW_CALL`).
"""


@dataclass(frozen=True, slots=True)
class StateSigns:
    """What the probe saw, and what it could not ask.

    It holds each sign of state in words, or none for no sign. It holds the calls it made, and the
    questions it could not ask.
    """

    signs: tuple[str, ...]
    calls: int
    not_asked: tuple[str, ...] = ()
    slow: tuple[str, ...] = ()
    """Tools that took longer than `SLOW_PROBE` or went unanswered."""

    @property
    def stateful(self) -> bool:
        return bool(self.signs)

    def with_state(self, budget: int, *, restarted: bool, seen_later: str | None = None) -> str:
        """The phase's conclusion on a target that keeps state.

        `seen_later` is a sign a sequence saw, when the probe saw none.
        """
        shown = "; ".join(self.signs[:SIGNS_SHOWN]) + (f"; and {len(self.signs) - SIGNS_SHOWN} more" if len(self.signs) > SIGNS_SHOWN else "")
        seen = f"no sign in the probe, but {seen_later} during a sequence" if seen_later else shown
        restarts = (
            "a fresh target after each that called a tool not annotated read-only" if restarted else ("sharing one target (it cannot be restarted cheaply)")
        )
        return f"keeps state ({seen}): {budget} sequences, {restarts}"

    def without_state(self, sequences: int, budget: int) -> str:
        """The phase's conclusion on a target that shows no sign of state."""
        unasked = f"; not asked: {'; '.join(self.not_asked)}" if self.not_asked else ""
        if self.slow:
            unasked += f"; not probed past their first call: {', '.join(self.slow)} (unanswered, unreadable or slower than {SLOW_PROBE:g} s)"
        return (
            f"no sign of state in {self.calls} probe calls (no value one answer gave changed another call's answer, no answer "
            f"changed with the calls before it, the tools did not change{unasked}): {sequences} of {budget} sequences, on one target"
        )


@dataclass(frozen=True, slots=True)
class _Answer:
    bucket: str
    key: str
    learned: tuple[Learned, ...]


class StateProbe:
    """The three questions, asked through the phase's own sending.

    `send` sends one case, alone, on the phase's target. `on_a_fresh_target` sends cases one by one
    to a target no call has touched; it gives None when none can be had. `changes` says how many
    times the phase's target said its tools changed.
    """

    def __init__(
        self,
        tools: Sequence[Tool],
        simplest: Mapping[str, dict[str, Any]],
        criteria: Criteria,
        *,
        send: Callable[[Case], Sent],
        on_a_fresh_target: Callable[[Sequence[Case]], Sequence[Sent] | None],
        changes: Callable[[], int],
    ) -> None:
        self._tools = [tool for tool in tools if tool.name in simplest]
        self._simplest = simplest
        self._criteria = criteria
        self._send = send
        self._on_a_fresh_target = on_a_fresh_target
        self._changes = changes
        self._calls = 0
        self._slow: list[str] = []
        self._signs: list[str] = []

    def run(self) -> StateSigns:
        changes = self._changes()
        first = self._pass("A")
        self._flow(first)
        if self._changes() != changes:
            self._signs.append("the target said its tools changed (notifications/tools/list_changed)")
        again = self._pass("C")
        asked = [tool for tool in self._tools if tool.name in first and tool.name in again]
        cases = [self._case(tool, self._simplest[tool.name], "pass B") for tool in asked]
        sent = self._on_a_fresh_target(cases) if cases else ()
        if sent is None:
            not_asked: tuple[str, ...] = ("whether an answer changes with the calls before it (no fresh target to tell state from chance)",)
            return StateSigns(tuple(self._signs), self._calls, not_asked, tuple(self._slow))
        self._calls += len(sent)
        for tool, case, baseline in zip(asked, cases, sent, strict=False):
            answer, later = first[tool.name], again[tool.name]
            fresh = self._answer(tool, case, baseline)
            if fresh is not None and fresh.key == answer.key and later.key != answer.key:
                self._signs.append(f"{tool.name} answered otherwise after other calls ({answer.bucket} first, {later.bucket} later)")
        return StateSigns(tuple(self._signs), self._calls, (), tuple(self._slow))

    def _pass(self, name: str) -> dict[str, _Answer]:
        """Each tool once, with its simplest arguments, in plan order."""
        return {tool.name: answer for tool in self._tools if (answer := self._ask(tool, self._simplest[tool.name], f"pass {name}")) is not None}

    def _flow(self, first: Mapping[str, _Answer]) -> None:
        """Offer each learned value to each argument of its family that accepts it.

        Each argument gets one value. A tool that answers it otherwise than its simplest value
        remembered it.
        """
        offered = [(source, learned) for source, answer in first.items() for learned in answer.learned]
        for tool in self._tools:
            if tool.name not in first:
                continue
            for kind in ("id", "name"):
                for field in fitting_fields(tool.input_check, kind):
                    value = next(
                        ((source, learned) for source, learned in offered if learned.family == kind and fits(tool.input_check, field, learned.value)), None
                    )
                    if value is None:
                        continue
                    source, learned = value
                    answer = self._ask(tool, {**self._simplest[tool.name], field: learned.value}, f"{field} from {source}")
                    if answer is not None and answer.bucket != first[tool.name].bucket:
                        self._signs.append(
                            f"{tool.name} answered {answer.bucket} with the {field} {source} gave, {first[tool.name].bucket} with its simplest value"
                        )

    def _ask(self, tool: Tool, arguments: dict[str, Any], why: str) -> _Answer | None:
        """One call, sent and read.

        None when it went unanswered or slow; the tool is then called no more.
        """
        if tool.name in self._slow:
            return None
        case = self._case(tool, arguments, why)
        self._calls += 1
        answer = self._answer(tool, case, self._send(case))
        if answer is None:
            self._slow.append(tool.name)
        return answer

    @staticmethod
    def _case(tool: Tool, arguments: dict[str, Any], why: str) -> Case:
        return Case(CaseKind.VALID_ARGUMENTS, tool.name, call_params(tool.name, arguments), f"state probe ({why}): {tool.name}")

    def _answer(self, tool: Tool, case: Case, sent: Sent) -> _Answer | None:
        reply = sent.exchange.reply
        if not isinstance(reply, Answered) or reply.seconds > SLOW_PROBE:
            return None
        observation, _ = assess(case, sent.exchange, tool, self._criteria, answers_ping=sent.answers_ping)
        arguments = case.params.get("arguments") if isinstance(case.params, dict) else None
        bucket = answer_bucket(observation, arguments)
        learned = tuple(learned_from(observation.result)) if bucket == SUCCESS and observation.result is not None else ()
        return _Answer(bucket, _answer_key(reply.message), learned)


def simplest_arguments(tools: Sequence[Tool]) -> dict[str, dict[str, Any]]:
    """Each tool's simplest valid arguments, by name.

    A tool whose schema the generator cannot satisfy has none. Hypothesis finds them, so call this
    one thread at a time.
    """
    found = {tool.name: Simplest(tool.input_check).value(tool.input_check.schema) for tool in tools}
    return {name: value for name, value in found.items() if value is not NOTHING and isinstance(value, dict)}


def _answer_key(message: Mapping[str, Any]) -> str:
    """An answer as the probe compares it.

    That is the JSON-RPC message, without its id and its result's `_meta`.
    """
    kept = {key: value for key, value in message.items() if key != "id"}
    result = kept.get("result")
    if isinstance(result, dict):
        kept["result"] = {key: value for key, value in result.items() if key != "_meta"}
    return json.dumps(kept, sort_keys=True, default=str)
