"""The task methods' own rules, judged on each request of the task phase and of its replay.

A task method's answer is judged with the requests before it and their answers: whether a task had
ended, what `tasks/get` found, what `tasks/list` listed so far. The task phase
(`fuzz.engine.phases._task_methods`) sends the requests; its findings replay from their files by
sending the same steps again and judging the last request here once more.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from fuzz.judging import rules
from fuzz.judging.findings import SequenceStep
from fuzz.judging.rules import Rule
from fuzz.text import show
from fuzz.wire.jsonrpc import INVALID_PARAMS
from fuzz.wire.tasks import TERMINAL, member

UNKNOWN_TASK = "mcp-toolfuzz-no-such-task"
"""The task id the task phase asks about: no server makes it."""
CANCEL_WATCH = 1.0
"""Seconds a task `tasks/cancel` answered cancelled is watched for another status (2025-11-25):
the task phase polls it that long, and so does the replay of a `task-terminal-kept` finding."""
ALIVE_METHODS = ("ping", "server/discover")
"""What the task phase asks last, to know the target outlived its cancels."""


def task_method_problem(
    request: dict[str, Any], response: dict[str, Any] | None, earlier: Sequence[SequenceStep], *, stateless: bool
) -> tuple[Rule, str] | None:
    """The task method rule `response` (None: no answer) violates, given the steps before it; or None.

    A task id no task has gets -32602 from `tasks/get` (both revisions), and from `tasks/result`
    and `tasks/cancel` under 2025-11-25. Under 2025-11-25 also: `tasks/cancel` of an ended task
    gets -32602; an ended task keeps its status; the last page of `tasks/list` completes a list
    that holds every task `tasks/get` found. A `ping` (`server/discover`) left unanswered is
    `target-alive`.
    """
    method = request.get("method")
    task_id = member(request, "params", "taskId")
    if method in ALIVE_METHODS:
        return None if response is not None else (rules.TARGET_ALIVE, f"after the task phase's requests, the target no longer answered {method}")
    if response is None:
        return None  # no answer to a task method: the task rules say nothing of it
    code = member(response, "error", "code")
    if task_id == UNKNOWN_TASK and (method == "tasks/get" or not stateless):
        if code == INVALID_PARAMS:
            return None
        return rules.TASK_UNKNOWN_ID, f"{method} of a task id no task has answered {_answer_text(response)}, not -32602"
    if stateless:
        return None
    ended = _ended_status(task_id, earlier)
    if method == "tasks/cancel" and ended is not None and code != INVALID_PARAMS:
        return rules.TASK_CANCEL_TERMINAL, f"tasks/cancel of a task that had ended {ended!r} answered {_answer_text(response)}, not -32602"
    status = member(response, "result", "status")
    if method == "tasks/get" and ended is not None and isinstance(status, str) and status != ended:
        return rules.TASK_TERMINAL_KEPT, f"a task that had ended {ended!r} is {status!r} now"
    if method == "tasks/list" and not isinstance(member(response, "result", "nextCursor"), str):
        listed = {task.get("taskId") for page in (*_pages(earlier), response) for task in _tasks_of(page)}
        missing = [found for found in _found(earlier) if found not in listed]
        if missing and isinstance(member(response, "result", "tasks"), list):
            return rules.TASK_LISTED, f"tasks/list does not hold task {missing[0]!r}, which tasks/get finds"
    return None


def _ended_status(task_id: Any, earlier: Sequence[SequenceStep]) -> str | None:
    """The terminal status an earlier `tasks/get` or `tasks/cancel` answer gave `task_id`, first seen."""
    for step in _about(task_id, earlier):
        status = member(step.response, "result", "status")
        if step.request.get("method") in ("tasks/get", "tasks/cancel") and status in TERMINAL:
            return str(status)
    return None


def _about(task_id: Any, earlier: Sequence[SequenceStep]) -> Iterator[SequenceStep]:
    return (step for step in earlier if task_id is not None and member(step.request, "params", "taskId") == task_id)


def _found(earlier: Sequence[SequenceStep]) -> list[str]:
    """The task ids a `tasks/get` answered with a task, in order."""
    found: list[str] = []
    for step in earlier:
        task_id = member(step.response, "result", "taskId")
        if step.request.get("method") == "tasks/get" and isinstance(task_id, str) and task_id not in found:
            found.append(task_id)
    return found


def _pages(earlier: Sequence[SequenceStep]) -> list[dict[str, Any]]:
    """The answers of the `tasks/list` pages before this one, since the first page was asked for."""
    pages: list[dict[str, Any]] = []
    for step in earlier:
        if step.request.get("method") != "tasks/list":
            continue
        if member(step.request, "params", "cursor") is None:
            pages = []
        if step.response is not None:
            pages.append(step.response)
    return pages


def _tasks_of(page: dict[str, Any]) -> list[dict[str, Any]]:
    tasks = member(page, "result", "tasks")
    return [task for task in tasks if isinstance(task, dict)] if isinstance(tasks, list) else []


def _answer_text(response: dict[str, Any]) -> str:
    if "error" in response:
        return f"JSON-RPC error {show(member(response, 'error', 'code'), 20)} {show(member(response, 'error', 'message'), 80)}"
    return f"a result {show(response.get('result'), 120)}"
