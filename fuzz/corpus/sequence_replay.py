"""Sending a sequence's steps again, each reused value taken from this replay.

Each step's request is sent in order, with fresh ids. Each value it reused is taken from the answers
of *this* replay's earlier steps, since a server gives new ids at every run. Then comes the request
that was judged, its reused values resolved the same way.

A value is looked for where the sequence found it (`Use.path`). The path starts at the result's
root, and a text block is read as JSON (`strategies.learning.found_at`). An answer may no longer
hold a value there: an earlier step now fails, or answers another shape. Then the value the file
recorded is sent, and the replay says so. The outcome is judged all the same. It is FIXED only if
the answer complies.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from fuzz.corpus.reproductions import Reproduction
from fuzz.errors import HarnessError
from fuzz.judging.findings import SequenceStep, Use, reused_in
from fuzz.wire.lifecycle import list_tools
from fuzz.wire.replies import Answered
from fuzz.wire.rounds import follow_rounds
from fuzz.wire.target import Target
from fuzz.wire.tasks import follow
from strategies import Tool
from strategies.inputs import Inputs
from strategies.learning import found_at


@dataclass(frozen=True, slots=True)
class Played:
    """What sending a sequence's steps gave: the request to judge, its reused values resolved."""

    request: dict[str, Any]
    notes: tuple[str, ...] = ()
    """What did not go as recorded: a value not found again, a step left unanswered."""
    lost: str | None = None
    """Why the sequence could not go on (the target exited at a step); None when it went through."""
    tools: tuple[Tool, ...] | None = None
    """The tools listed again when the target said its tools changed during the steps.

    None when it did not.
    """
    steps: tuple[SequenceStep, ...] = ()
    """The steps as this replay sent them (with its ids and resolved values) and their answers."""


class Steps(Protocol):
    """What a sequence is to be played from: a reproduction, or a sequence finding."""

    @property
    def steps(self) -> tuple[SequenceStep, ...]: ...

    @property
    def request(self) -> dict[str, Any]: ...

    @property
    def uses(self) -> tuple[Use, ...]: ...


def steps_in(reproduction: Reproduction) -> int:
    """How many requests the sequence sends, the one judged included."""
    return len(reproduction.steps) + 1


STEP_INPUTS = Inputs()
"""How a sequence's steps answer input requests (2026-07-28): every capability, the plainest accept."""


async def play_steps(target: Target, reproduction: Steps, timeout: float, *, follow_tasks: bool = True) -> Played:
    """Send the steps of `reproduction` to `target`, in order.

    `reproduction` is a reproduction or a sequence finding. Each reused value is resolved from the
    answers the steps get. The request to judge is returned, not sent. A call that makes a task is
    followed to its end and its final answer kept, unless `follow_tasks` is False: the task phase's
    steps poll and fetch themselves. Under 2026-07-28 a step that asks for input is answered as the
    sequence phase answers it (`STEP_INPUTS`).
    """
    answers: list[dict[str, Any] | None] = []
    played: list[SequenceStep] = []
    notes: list[str] = []
    changes = target.session.tools_changed
    count = len(reproduction.steps) + 1
    for index, step in enumerate(reproduction.steps):
        request = resolved(step.request, step.uses, answers, notes, f"step {index + 1}")
        exchange = await target.session.send_request(with_id(request), timeout=timeout)
        if follow_tasks:
            exchange = await follow(target.session, exchange, target.task_era, timeout=timeout, meta=target.request_meta)
            exchange = await follow_rounds(target.session, exchange, STEP_INPUTS if target.stateless is not None else None, timeout=timeout)
        reply = exchange.final.reply
        if target.session.closed:
            return Played(reproduction.request, tuple(notes), f"the target exited at step {index + 1} of {count}")
        answers.append(exchange.final.answer)
        played.append(SequenceStep(exchange.request, answers[-1], step.uses))
        if not isinstance(reply, Answered):
            notes.append(f"step {index + 1} was not answered")
    request = resolved(reproduction.request, reproduction.uses, answers, notes, f"step {count}")
    tools: tuple[Tool, ...] | None = None
    if target.session.tools_changed != changes:
        try:
            tools = tuple(await list_tools(target.session, timeout=timeout, meta=target.request_meta))
        except HarnessError:
            notes.append("the tools could not be listed again after the target said they changed")
    return Played(request, tuple(notes), None, tools, tuple(played))


def with_id(request: dict[str, Any]) -> Callable[[int], dict[str, Any]]:
    """How a session sends `request`: with a fresh id of its own."""

    def build(request_id: int) -> dict[str, Any]:
        return {**copy.deepcopy(request), "id": request_id}

    return build


def resolved(request: dict[str, Any], uses: Sequence[Use], answers: Sequence[dict[str, Any] | None], notes: list[str], where: str) -> dict[str, Any]:
    """`request` with each value of `uses` given the value found in its step's answer (`reused_in`).

    The answers are `answers`; the value is looked for at the use's path. When that answer holds
    none there, the recorded value is sent, with a note.
    """
    request = copy.deepcopy(request)
    holder = reused_in(request)
    for use in uses:
        answer = answers[use.step] if 0 <= use.step < len(answers) else None
        result = answer.get("result") if isinstance(answer, dict) else None
        value = found_at(result, use.path)
        if holder is not None and isinstance(value, (str, int)) and not isinstance(value, bool):
            holder[use.argument] = value
        else:
            notes.append(f"{where}'s {use.argument}: the answer to step {use.step + 1} holds no value at {shown(use.path)}; sent the recorded value")
    return request


def shown(path: Sequence[str | int]) -> str:
    """A path as one reads it: `structuredContent.id`, `content[0].text.id`."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else f"{'.' if text else ''}{part}"
    return text or "the result's root"
