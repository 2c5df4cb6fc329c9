"""The task lifecycle's own rules: what a call sent as a task, and the task it made, must look like.

The call's final answer (`Exchange.final`) is judged by every other rule as a plain call's answer
would be. What is judged here is the way there: the `CreateTaskResult`, each `tasks/get` poll,
`tasks/result`'s related-task `_meta` (2025-11-25), and the status a tool error ends the task in.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fuzz.judging import rules
from fuzz.judging.answers import AnswerClass, Observation
from fuzz.judging.rules import Rule
from fuzz.text import show
from fuzz.wire.replies import Answered, Exchange, TaskLifecycle
from fuzz.wire.shapes import task_result_problem
from fuzz.wire.stateless import STATELESS_PROTOCOL_VERSIONS
from fuzz.wire.tasks import RELATED_TASK_KEY, STATUSES, member
from strategies import Case


def task_problems(case: Case, exchange: Exchange, protocol_version: str, final: Observation) -> Iterator[tuple[Rule, str]]:
    """Every task rule that `exchange`, a call sent as a task, violates, with why.

    `final` is the observation of the call's final answer.
    """
    stateless = protocol_version in STATELESS_PROTOCOL_VERSIONS
    lifecycle = exchange.task
    if lifecycle is None:
        yield from _not_created(exchange, stateless)
        return
    assert isinstance(exchange.reply, Answered)
    created = exchange.reply.message["result"]
    problem = _extension_task_problem(created, "the CreateTaskResult") if stateless else task_result_problem(created, "CreateTaskResult")
    if problem is not None:
        yield rules.TASK_LIFECYCLE, f"answered the call with {problem}"
    yield from _poll_problems(lifecycle, stateless)
    if stateless:
        yield from _extension_status_problems(lifecycle)
        return
    fetched = lifecycle.steps[-1] if lifecycle.steps and lifecycle.steps[-1].request.get("method") == "tasks/result" else None
    result = _result_of(fetched) if fetched is not None else None
    if result is not None:
        related = member(result, "_meta", RELATED_TASK_KEY, "taskId")
        if related != lifecycle.task_id:
            shown = "no such key" if related is None else f"taskId {show(related, 60)}"
            yield rules.TASK_RELATED_META, f"tasks/result's result has {shown} under _meta {RELATED_TASK_KEY!r}, not taskId {lifecycle.task_id!r}"
    if final.answer is AnswerClass.TOOL_EXECUTION_ERROR and lifecycle.statuses and lifecycle.statuses[-1] != "failed":
        yield rules.TASK_FAILED_ON_TOOL_ERROR, f"the task ended {lifecycle.statuses[-1]!r} with a tool execution error as its result, not 'failed'"


def _not_created(exchange: Exchange, stateless: bool) -> Iterator[tuple[Rule, str]]:
    """A call sent as a task whose answer tried to make one, but not in the revision's shape."""
    result = _result_of(exchange)
    if result is None:
        return
    if stateless and result.get("resultType") == "task":
        yield rules.TASK_LIFECYCLE, f"answered the call with {_extension_task_problem(result, 'a CreateTaskResult') or 'a task without a string taskId'}"
    elif not stateless and "task" in result:
        yield rules.TASK_LIFECYCLE, f"answered the call with {task_result_problem(result, 'CreateTaskResult') or 'a task without a string taskId'}"


def _poll_problems(lifecycle: TaskLifecycle, stateless: bool) -> Iterator[tuple[Rule, str]]:
    polls = [step for step in lifecycle.steps if step.request.get("method") == "tasks/get"]
    for number, poll in enumerate(polls, 1):
        reply = poll.reply
        if not isinstance(reply, Answered):
            return  # the final answer's rules judge a poll left unanswered, or a target gone
        if "error" in reply.message:
            error = reply.message["error"]
            code = error.get("code") if isinstance(error, dict) else None
            yield rules.TASK_LIFECYCLE, f"tasks/get {number} of the task the call created ({lifecycle.task_id!r}) answered JSON-RPC error {show(code, 20)}"
            return
        result = reply.message.get("result")
        problem = _extension_task_problem(result, "tasks/get's result") if stateless else task_result_problem(result, "GetTaskResult")
        if problem is not None:
            yield rules.TASK_LIFECYCLE, f"tasks/get {number} answered {problem}"
            return
        if isinstance(result, dict) and result.get("taskId") != lifecycle.task_id:
            yield rules.TASK_LIFECYCLE, f"tasks/get {number} for task {lifecycle.task_id!r} answered task {show(result.get('taskId'), 60)}"
            return


def _extension_status_problems(lifecycle: TaskLifecycle) -> Iterator[tuple[Rule, str]]:
    """2026-07-28: a terminal task carries what its status promises, and a tool error is `completed`."""
    last = _result_of(lifecycle.steps[-1]) if lifecycle.steps else None
    status = last.get("status") if last is not None else None
    if last is None or status not in ("completed", "failed"):
        return
    if status == "failed" and "result" in last and "error" not in last:
        yield rules.TASK_COMPLETED_ON_TOOL_ERROR, "the task ended 'failed' carrying a tool result, not 'completed'"
    elif status == "completed" and "result" not in last:
        yield rules.TASK_LIFECYCLE, "the task ended 'completed' without a result field"
    elif status == "failed" and "error" not in last:
        yield rules.TASK_LIFECYCLE, "the task ended 'failed' without an error field"


def _extension_task_problem(task: Any, what: str) -> str | None:
    """Why `task` is not a 2026-07-28 task (SEP-2663's `Task`), or None."""
    if not isinstance(task, dict):
        return f"{what} {show(task, 60)}, not an object"
    if not isinstance(task.get("taskId"), str):
        return f"{what} with taskId {show(task.get('taskId'), 60)}, not a string"
    if task.get("status") not in STATUSES:
        return f"{what} with status {show(task.get('status'), 60)}, not one of {', '.join(sorted(STATUSES))}"
    for name in ("createdAt", "lastUpdatedAt"):
        if not isinstance(task.get(name), str):
            return f"{what} with {name} {show(task.get(name), 60)}, not an ISO 8601 string"
    ttl = task.get("ttlMs", "absent")
    if ttl is not None and (not isinstance(ttl, (int, float)) or isinstance(ttl, bool)):
        return f"{what} with ttlMs {show(ttl, 60)}, not a number of milliseconds or null"
    return None


def _result_of(exchange: Exchange) -> dict[str, Any] | None:
    result = (exchange.answer or {}).get("result")
    return result if isinstance(result, dict) else None
