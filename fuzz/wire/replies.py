"""What came of a request: the records the session hands up to the oracle.

A reply is one of five things:

`Answered`: an answer.
`UnreadableAnswer`: an answer that cannot be read.
`NoAnswer`: no answer within the timeout.
`NotDelivered`: an HTTP exchange that ended without an answer.
`TargetExited`: the target is gone.

Anything odd seen meanwhile is an `Anomaly` of the `Exchange`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from strategies.meta import HeaderOverrides


@dataclass(frozen=True, slots=True)
class Answered:
    message: dict[str, Any]
    seconds: float
    status: int | None = None
    """The HTTP status of the response that carried the answer; None over stdio."""


@dataclass(frozen=True, slots=True)
class NoAnswer:
    timeout: float
    overtaken: bool = False
    """A request written after this one was answered before this one's timeout.

    So the target did not leave it unanswered merely by answering in order.
    It was not just waiting behind the others in flight."""
    held_up: bool = False
    """The shared stream was held all along by an unended message past the size limit.

    That is an earlier answer's doing, not this request's."""


@dataclass(frozen=True, slots=True)
class TargetExited:
    returncode: int | None
    closed_by_harness: bool = False
    """The harness closed the target while this request was in flight.

    It did so to restart it, for another request's sake.
    The exit is nothing of this request's doing."""


@dataclass(frozen=True, slots=True)
class NotDelivered:
    """The transport's exchange for this request ended without an answer.

    Over HTTP, that is a status with no JSON-RPC body, a body that is not JSON,
    or a dropped connection."""

    detail: str
    seconds: float


@dataclass(frozen=True, slots=True)
class UnreadableAnswer:
    """An answer to this request came, but it cannot be taken as JSON.

    `reason` says why: not UTF-8, nested past the depth limit, or past the size limit."""

    reason: str
    text: str
    """Its beginning and end, as far as they could be decoded, to quote."""
    seconds: float


Reply = Answered | NoAnswer | TargetExited | NotDelivered | UnreadableAnswer


class AnomalyKind(Enum):
    STRAY_ANSWER = "an answer carrying an id that no request in flight has"
    DUPLICATE_ANSWER = "a second answer to a request already answered"
    LATE_ANSWER = "an answer to a request whose timeout had passed"
    GARBAGE = "a message that is not JSON-RPC (a stdout line, an HTTP body, an SSE event)"
    UNREADABLE = "an answer that cannot be read (its id could not be told)"


@dataclass(frozen=True, slots=True)
class Anomaly:
    kind: AnomalyKind
    text: str
    own: bool = False
    """Carried by this request's own HTTP response.

    If False, it was seen on the shared stream while the request was in flight."""

    def describe(self) -> str:
        where = "on this request's own HTTP response" if self.own else "while this request was in flight"
        return f"{self.kind.value} came {where}: {self.text}"


@dataclass(frozen=True, slots=True)
class Exchange:
    """One request and what came of it."""

    request: dict[str, Any]
    reply: Reply
    anomalies: tuple[Anomaly, ...] = ()
    stderr: tuple[str, ...] = ()
    headers: HeaderOverrides = ()
    """The HTTP header values sent instead of those the request implies."""
    task: TaskLifecycle | None = None
    """What followed, when this request was a call sent as a task and its answer made one."""
    rounds: tuple[Exchange, ...] = ()
    """The retries of a call answered `input_required` (2026-07-28), in order
    (`fuzz.wire.rounds.follow_rounds`); the last one's answer is the call's."""

    @property
    def answer(self) -> dict[str, Any] | None:
        """The answer's message; None when no readable answer came."""
        return self.reply.message if isinstance(self.reply, Answered) else None

    @property
    def final(self) -> Exchange:
        """The exchange that answers the call: its last round's, when it was retried with input;
        its task's answer, when it made a task that ended."""
        last = self.last
        return last.task.answer if last.task is not None and last.task.answer is not None else last

    @property
    def last(self) -> Exchange:
        """The call's last request: its last round, when it was retried with input; itself else."""
        return self.rounds[-1] if self.rounds else self


@dataclass(frozen=True, slots=True)
class TaskLifecycle:
    """What followed a call whose answer created a task (`fuzz.wire.tasks.follow`).

    Its `answer` is judged as the call's own answer would be. The steps are kept to show.
    """

    task_id: str
    steps: tuple[Exchange, ...]
    """The task requests sent after the call, in order: `tasks/get` polls, then `tasks/result`
    under 2025-11-25."""
    statuses: tuple[str, ...]
    """Each poll's `status`, as answered; "" for a poll that got no task."""
    answer: Exchange | None
    """The call's final answer: `tasks/result`'s exchange (2025-11-25), or the terminal
    `tasks/get`'s `result` or `error` as an answer (2026-07-28). None when the task did not end
    within --timeout, or the polls got no task: then there is no answer to judge."""
