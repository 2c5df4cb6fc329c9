"""Tasks: which kind a server speaks, and following a task a call created to its end.

Two revisions define tasks, differently.

2025-11-25 (`TaskEra.AUGMENTED`): a server declares `capabilities.tasks.requests.tools.call`, and
each tool its `execution.taskSupport`. The client augments a call with `params.task`; the answer is
a `CreateTaskResult` (`{"task": {...}}`). The client polls `tasks/get` until a terminal status, then
fetches the call's own answer with `tasks/result`.

2026-07-28 (`TaskEra.EXTENSION`, SEP-2663): a server lists `io.modelcontextprotocol/tasks` in the
`extensions` of its `server/discover` capabilities. A client declares the extension in a request's
`_meta`, and the server decides whether to answer with a task (`resultType: "task"`). `tasks/get`
carries the call's answer when the task ends: `result` when `completed`, `error` when `failed`.

`follow` polls at the server's `pollInterval`, capped at `POLL_CEILING`: a fuzzer waits on
thousands of calls, and a server's suggestion of five seconds would stall the run. It gives the task
--timeout to end.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum
from typing import Any

import trio

from fuzz.wire._session import Session
from fuzz.wire.jsonrpc import JSONRPC_VERSION
from fuzz.wire.opening import ServerDescription
from fuzz.wire.replies import Answered, Exchange, TaskLifecycle
from fuzz.wire.shapes import TASKS_ERA
from strategies.meta import TASKS_EXTENSION, in_task, sent_as_task

TERMINAL = frozenset({"completed", "failed", "cancelled"})
STATUSES = TERMINAL | {"working", "input_required"}
RELATED_TASK_KEY = "io.modelcontextprotocol/related-task"
"""The `_meta` key that ties a message to its task (2025-11-25)."""

POLL_CEILING = 0.2
"""Seconds: the longest wait between two polls, whatever `pollInterval` the server suggests."""
POLL_FLOOR = 0.01
"""Seconds: the shortest wait between two polls, when the server suggests none or less."""


class TaskEra(Enum):
    """Which tasks a server speaks, if any."""

    NONE = "none"
    AUGMENTED = "2025-11-25"
    EXTENSION = "2026-07-28"


def task_era(description: ServerDescription) -> TaskEra:
    """The tasks `description`'s server declares for `tools/call`, by the revision it speaks."""
    capabilities = description.capabilities
    if description.stateless:
        extensions = capabilities.get("extensions")
        declared = isinstance(extensions, dict) and isinstance(extensions.get(TASKS_EXTENSION), dict)
        return TaskEra.EXTENSION if declared else TaskEra.NONE
    if description.protocol_version != TASKS_ERA:
        return TaskEra.NONE
    call = member(capabilities, "tasks", "requests", "tools", "call")
    return TaskEra.AUGMENTED if isinstance(call, dict) else TaskEra.NONE


@dataclass(frozen=True, slots=True)
class CreatedTask:
    task_id: str
    poll_interval: float
    """Seconds to wait before polling again, the server's suggestion within the bounds."""


def created_task(exchange: Exchange, era: TaskEra) -> CreatedTask | None:
    """The task a call's answer created, or None when it created none."""
    reply = exchange.reply
    result = reply.message.get("result") if isinstance(reply, Answered) else None
    if not isinstance(result, dict):
        return None
    if era is TaskEra.AUGMENTED:
        task = result.get("task")
    elif era is TaskEra.EXTENSION and result.get("resultType") == "task":
        task = result
    else:
        return None
    if not isinstance(task, dict) or not isinstance(task.get("taskId"), str):
        return None
    return CreatedTask(task["taskId"], _poll_interval(task, era))


async def follow(session: Session, call: Exchange, era: TaskEra, *, timeout: float, meta: dict[str, Any] | None) -> Exchange:
    """`call`, with the lifecycle of the task its answer created; `call` itself if it was not sent
    as a task (`strategies.meta.sent_as_task`) or created none.

    It polls `tasks/get` until the task reaches a terminal status, or --timeout passes. Under
    2025-11-25 it then sends `tasks/result`. A poll that goes unanswered, or a target that exits,
    ends it: that exchange is then the answer judged.
    """
    created = created_task(call, era) if sent_as_task(call.request) else None
    if created is None:
        return call
    params: dict[str, Any] = {"taskId": created.task_id} if meta is None else {"taskId": created.task_id, "_meta": task_meta(meta)}
    steps: list[Exchange] = []
    statuses: list[str] = []
    interval = created.poll_interval
    end = trio.current_time() + timeout
    terminal: dict[str, Any] | None = None
    answer: Exchange | None = None
    while answer is None and terminal is None:
        poll = await session.request("tasks/get", params, timeout=max(end - trio.current_time(), POLL_FLOOR))
        steps.append(poll)
        if not isinstance(poll.reply, Answered):
            answer = poll
            break
        task = poll.reply.message.get("result")
        status = task.get("status") if isinstance(task, dict) else None
        statuses.append(status if isinstance(status, str) else "")
        if not isinstance(task, dict) or status not in STATUSES or status == "input_required":
            break
        if status in TERMINAL:
            terminal = task
            break
        interval = _poll_interval(task, era, interval)
        if trio.current_time() + interval > end:
            break
        await trio.sleep(interval)
    if terminal is not None and era is TaskEra.AUGMENTED:
        answer = await session.request("tasks/result", params, timeout=timeout)
        steps.append(answer)
    elif terminal is not None:
        answer = _inline_answer(call, terminal, steps[-1])
    lifecycle = TaskLifecycle(created.task_id, tuple(steps), tuple(statuses), answer)
    return replace(call, task=lifecycle)


def task_meta(meta: dict[str, Any]) -> dict[str, Any]:
    """The 2026-07-28 envelope `meta`, declaring the tasks extension, as each task method must.

    SEP-2663: servers MUST answer -32021 to a client that does not declare it on `tasks/get`,
    `tasks/update` and `tasks/cancel`.
    """
    return dict(in_task({}, meta)[1] or meta)


def _inline_answer(call: Exchange, task: dict[str, Any], poll: Exchange) -> Exchange | None:
    """A terminal 2026-07-28 task's `result` or `error`, as the answer to `call`.

    None when it carries neither, or is `cancelled`: there is no answer then.
    """
    status = task.get("status")
    member = "result" if status == "completed" else "error" if status == "failed" else None
    if member is None or member not in task:
        return None
    assert isinstance(poll.reply, Answered)
    message = {"jsonrpc": JSONRPC_VERSION, "id": call.request.get("id"), member: task[member]}
    return replace(poll, request=call.request, reply=Answered(message, poll.reply.seconds, poll.reply.status), task=None)


def _poll_interval(task: dict[str, Any], era: TaskEra, otherwise: float = POLL_FLOOR) -> float:
    suggested = task.get("pollInterval" if era is TaskEra.AUGMENTED else "pollIntervalMs")
    if not isinstance(suggested, (int, float)) or isinstance(suggested, bool):
        return otherwise
    return min(POLL_CEILING, max(POLL_FLOOR, suggested / 1000))


def member(document: Any, *path: str) -> Any:
    """The value at `path` of nested objects in `document`; None where one is missing."""
    for key in path:
        if not isinstance(document, dict):
            return None
        document = document.get(key)
    return document
