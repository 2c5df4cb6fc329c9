"""The task phase: the task methods' own rules, on a copy of the target of its own.

Where the server declares tasks, the phase sends, in order:

1. `tasks/get` of a task id no task has (and under 2025-11-25 `tasks/result` and `tasks/cancel`).
2. A call as a task to a tool that takes tasks, with the plainest arguments its schema accepts
   (under 2026-07-28, where no tool declares it, each tool in turn until a call makes a task),
   polled to its end. Under 2025-11-25, where the server declares `tasks.list`, the pages of
   `tasks/list`; then `tasks/cancel` of the ended task, and `tasks/get` of it again.
3. Another such call, cancelled at once, then watched with `tasks/get` for `CANCEL_WATCH` seconds
   (under 2025-11-25 a task `tasks/cancel` answered cancelled stays cancelled).
4. `ping` (`server/discover` under 2026-07-28): a server must outlive the cancel of a task whose
   work goes on.

Each answer is judged by `fuzz.judging.task_methods` with the steps before it. A finding's steps are
those requests and answers; where a request names the task a call made, its `uses` say which
step's answer the id came from, so its replay sends the id its own call gets.

It runs on a copy of the target of its own: a cancel that breaks a server must not cost the other
phases their target. A target given by URL is the one server: the phase then shares it. The phase
calls only tools whose plan gives them valid arguments (`RunContext.callable_tools`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import trio

from fuzz.engine.jobs import Job, Untried
from fuzz.engine.options import RunPhase
from fuzz.engine.phases._probe_phase import ProbePhase
from fuzz.engine.phases.deterministic import NO_VERDICTS, CanonicalVerdicts
from fuzz.engine.plan import Unit
from fuzz.judging.answers import observe
from fuzz.judging.coverage import exchange_bucket
from fuzz.judging.findings import Finding, SequenceStep, Use
from fuzz.judging.task_methods import CANCEL_WATCH, UNKNOWN_TASK, task_method_problem
from fuzz.text import show
from fuzz.wire.replies import Answered, Exchange
from fuzz.wire.stateless import STATELESS_PROTOCOL_VERSIONS, discover_params
from fuzz.wire.target import Target
from fuzz.wire.tasks import TERMINAL, TaskEra, created_task, follow, member, task_meta
from strategies import Case, CaseKind, TaskSupport, Tool
from strategies.cases import TASK_METHODS, plain_arguments
from strategies.envelopes import call_params

LIST_PAGES = 20
"""The most `tasks/list` pages read."""
TRIED_TOOLS = 8
"""The most tools called as tasks while looking for one whose call makes a task."""


class TaskMethodsPhase(ProbePhase):
    """The task methods' own rules, on a target of the phase's own (see the module docstring)."""

    chosen_by = RunPhase.TASKS
    named = "the task phase"

    def takes(self, job: Job) -> bool:
        return job.unit is Unit.TASKS

    def probe(self) -> TaskProbe:
        return TaskProbe(None, CaseKind.TASK_METHOD, TASK_METHODS, tools=self.context.callable_tools)


@dataclass
class TaskProbe(Untried):
    """The task phase's outcome: what it sent and found, and the steps so far."""

    tools: tuple[Tool, ...] = ()
    """The tools it may call."""
    verdicts: CanonicalVerdicts = NO_VERDICTS
    steps: list[SequenceStep] = field(default_factory=list)
    """Every request sent so far, with its answer and where its task id came from."""
    stateless: bool = False
    era: TaskEra = TaskEra.NONE

    async def run(self, target: Target, *, timeout: float) -> None:
        self.era = target.task_era
        self.stateless = target.description.protocol_version in STATELESS_PROTOCOL_VERSIONS
        if self.era is TaskEra.NONE:
            self.skip = "the server declares no tasks for tools/call"
            return
        methods = ("tasks/get",) if self.stateless else ("tasks/get", "tasks/result", "tasks/cancel")
        for method in methods:
            await self._send(target, method, {"taskId": UNKNOWN_TASK}, timeout)
        candidates = _tools_for_tasks(self.tools, self.era)
        if not candidates:
            self.conclusion = "no tool the phase may call takes tasks with arguments plain enough to need no search"
        for tool, arguments in candidates[:TRIED_TOOLS]:
            made = await self._call(target, tool, arguments, timeout)
            if made is not None:
                self.conclusion = None
                await self._ended_then_cancelled(target, *made, timeout)
                await self._cancelled_at_once(target, tool, arguments, timeout)
                break
        version = target.description.protocol_version
        alive = await target.session.request(*(("server/discover", discover_params(version)) if self.stateless else ("ping",)), timeout=timeout)
        self._judged(alive, ())

    async def _ended_then_cancelled(self, target: Target, call: Exchange, uses: tuple[Use, ...], timeout: float) -> None:
        followed = await follow(target.session, call, self.era, timeout=timeout, meta=target.request_meta)
        lifecycle = followed.task
        if lifecycle is None:
            return
        for step in lifecycle.steps:
            self._judged(step, uses)
        if not lifecycle.statuses or lifecycle.statuses[-1] not in TERMINAL:
            return
        if not self.stateless and isinstance(member(target.description.capabilities, "tasks", "list"), dict):
            cursor: Any = None
            for _ in range(LIST_PAGES):
                page = await self._send(target, "tasks/list", {} if cursor is None else {"cursor": cursor}, timeout)
                cursor = member(page.answer, "result", "nextCursor")
                if not isinstance(cursor, str):
                    break
        await self._send(target, "tasks/cancel", {"taskId": lifecycle.task_id}, timeout, uses)
        await self._send(target, "tasks/get", {"taskId": lifecycle.task_id}, timeout, uses)

    async def _cancelled_at_once(self, target: Target, tool: Tool, arguments: dict[str, Any], timeout: float) -> None:
        made = await self._call(target, tool, arguments, timeout)
        if made is None:
            return
        call, uses = made
        task = created_task(call, self.era)
        assert task is not None
        cancel = await self._send(target, "tasks/cancel", {"taskId": task.task_id}, timeout, uses)
        if self.stateless or member(cancel.answer, "result", "status") != "cancelled":
            return
        watched_until = trio.current_time() + CANCEL_WATCH
        while trio.current_time() < watched_until:
            await trio.sleep(CANCEL_WATCH / 5)
            poll = await self._send(target, "tasks/get", {"taskId": task.task_id}, timeout, uses)
            if not isinstance(poll.reply, Answered):
                return

    async def _call(self, target: Target, tool: Tool, arguments: dict[str, Any], timeout: float) -> tuple[Exchange, tuple[Use, ...]] | None:
        """Call `tool` as a task: the call, and the `uses` of a request about the task it made; None if it made none."""
        case = Case(CaseKind.VALID_ARGUMENTS, tool.name, call_params(tool.name, arguments), "call as a task", as_task=True)
        call = await target.session.send_request(lambda request_id: case.message(request_id, target.request_meta), timeout=timeout)
        self._record(call, ())
        if created_task(call, self.era) is None:
            self.conclusion = self.conclusion or f"a call as a task to {tool.name!r} made no task: {observe(call).detail}"
            return None
        path = ("task", "taskId") if self.era is TaskEra.AUGMENTED else ("taskId",)
        return call, (Use("taskId", len(self.steps) - 1, path),)

    async def _send(self, target: Target, method: str, params: dict[str, Any], timeout: float, uses: tuple[Use, ...] = ()) -> Exchange:
        meta = target.request_meta
        exchange = await target.session.request(method, params if meta is None else {**params, "_meta": task_meta(meta)}, timeout=timeout)
        self._judged(exchange, uses)
        return exchange

    def _judged(self, exchange: Exchange, uses: tuple[Use, ...]) -> None:
        """Judge `exchange` with the steps before it; a finding of the first violation of each rule."""
        earlier = tuple(self.steps)
        self._record(exchange, uses)
        problem = task_method_problem(exchange.request, exchange.answer, earlier, stateless=self.stateless)
        if problem is None or any(finding.rule.id == problem[0].id for finding in self.findings):
            return
        rule, why = problem
        response = exchange.answer
        method = str(exchange.request.get("method"))
        message = (
            f"{rule.id} ({rule.level.label}): {why}. Sent {method} after {len(earlier)} step(s) of the task phase: "
            f"{show(exchange.request, 400)}. Answer: {show(response, 400) if response is not None else 'none'}. "
            f"Expected: {rule.title}. {rule.source}"
        )
        label = f"task phase: {method}"
        self.findings.append(
            Finding(
                rule, TASK_METHODS, CaseKind.TASK_METHOD, label, exchange.request, response, message, why, rule.title, exchange.stderr, steps=earlier, uses=uses
            )
        )

    def _record(self, exchange: Exchange, uses: tuple[Use, ...]) -> None:
        self.sent += 1
        bucket = exchange_bucket(exchange)
        self.answers[bucket] = self.answers.get(bucket, 0) + 1
        self.steps.append(SequenceStep(exchange.request, exchange.answer, uses))


def _tools_for_tasks(tools: tuple[Tool, ...], era: TaskEra) -> list[tuple[Tool, dict[str, Any]]]:
    """The tools to try making tasks with, each with its plainest arguments: those requiring tasks first.

    Under 2026-07-28 no tool declares task support: the server decides, so every tool is a
    candidate, in the listing's order, and the first whose call makes a task is used.
    """
    supports = (TaskSupport.REQUIRED, TaskSupport.OPTIONAL) if era is TaskEra.AUGMENTED else tuple(TaskSupport)
    chosen = [(tool, plain_arguments(tool)) for support in supports for tool in tools if tool.task_support is support]
    return [(tool, arguments) for tool, arguments in chosen if arguments is not None]
