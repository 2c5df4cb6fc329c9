"""A 2025-11-25 server with tasks for `tools/call`, compliant but for the bug named with `--bug`.

Tools (each takes a required integer `n`): `plain` (no task support: forbidden), `maybe`
(optional), `slow` (required), `maybe_fails` and `slow_fails` (optional and required, and their
body fails: a tool execution error). A task of `maybe` or `maybe_fails` has ended by its first
`tasks/get`; one of `slow` or `slow_fails` works for `SLOW` seconds, and can be cancelled
meanwhile. Failing tools end `failed`, as the tasks page says they should.

Seeded bugs (`--bug NAME`), each the violation of one rule:

- required-runs: a call without a task to `slow` runs it (task-required).
- forbidden-runs: a call as a task to `plain` runs it, as if no task were asked (task-forbidden).
- result-without-meta: `tasks/result` carries no related-task `_meta` (task-related-meta).
- failed-result-meta-only: a failed task's `tasks/result` is `{_meta}` alone (response-well-formed).
- task-args-error: invalid arguments in a task get a JSON-RPC error -32602 (invalid-arguments).
- completed-on-error: a tool error ends its task `completed` (task-failed-on-tool-error).
- required-accepts-false: `slow` takes `false` for `n` (arguments-not-validated).
- poll-error: `tasks/get` answers -32602 for every task (task-lifecycle).
- unknown-id: `tasks/get` of a task id no task has answers -32603 (task-unknown-id).
- cancel-ended: `tasks/cancel` of an ended task cancels it (task-cancel-terminal).
- uncancel: a cancelled task shows `completed` once its work is done (task-terminal-kept).
- list-empty: `tasks/list` lists nothing (task-listed).
- dies-after-cancel: once a cancelled task's work is done, the next request ends the process
  (target-alive), as mcp 1.30.0 does.

With `--era 2026-07-28` it speaks the stateless revision with the tasks extension (SEP-2663)
instead: `server/discover` lists `io.modelcontextprotocol/tasks`; a call declaring the extension
to `maybe`, `slow`, `maybe_fails` or `slow_fails` is answered with a task (`resultType: "task"`)
whose `tasks/get` carries the result inline; a call to `slow` or `slow_fails` without it gets
-32021 naming the extension; `plain` never makes a task. Its bug:

- failed-on-error: a tool error ends its task `failed`, carrying the result (task-completed-on-tool-error).
"""

from __future__ import annotations

import argparse
import itertools
import os
import time
from typing import Any

from reference_stateless import CACHING, CLIENT_CAPABILITIES_KEY, SERVER_INFO_KEY, SUPPORTED, envelope_error
from stdio_loop import serve

VERSION = "2025-11-25"
RELATED = "io.modelcontextprotocol/related-task"
SUPPORT = {"plain": "forbidden", "maybe": "optional", "slow": "required", "maybe_fails": "optional", "slow_fails": "required"}
TIMESTAMP = "2026-12-07T00:00:00Z"
SLOW = 0.05
"""Seconds a task of `slow` or `slow_fails` works."""
TASKS_EXTENSION = "io.modelcontextprotocol/tasks"


def error(code: int, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}


def text(value: str, *, failed: bool = False) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": value}], "isError": failed}


class TasksServer:
    def __init__(self, bug: str | None) -> None:
        self.bug = bug
        self.tasks: dict[str, dict[str, Any]] = {}
        self.ids = itertools.count(1)

    def answer(self, request: dict[str, Any]) -> dict[str, Any] | None:
        method, params = request.get("method"), request.get("params")
        if self.bug == "dies-after-cancel" and any(task["cancelled"] and time.monotonic() >= task["ends_at"] for task in self.tasks.values()):
            os._exit(1)
        if method == "initialize":
            capabilities = {"tools": {}, "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}}
            return {"result": {"protocolVersion": VERSION, "capabilities": capabilities, "serverInfo": {"name": "tasks-server", "version": "1"}}}
        if method == "ping":
            return {"result": {}}
        if method == "tools/list":
            tools = [
                {
                    "name": name,
                    "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
                    "execution": {"taskSupport": support},
                }
                for name, support in SUPPORT.items()
            ]
            return {"result": {"tools": tools}}
        if method == "tools/call":
            return self.call(params)
        if method in ("tasks/get", "tasks/result", "tasks/cancel"):
            task = self.tasks.get(params.get("taskId")) if isinstance(params, dict) else None
            if task is None:
                return (
                    error(-32603, "Internal error")
                    if self.bug == "unknown-id" and method == "tasks/get"
                    else error(-32602, "Failed to retrieve task: Task not found")
                )
            if method == "tasks/get":
                return error(-32602, "Task not found") if self.bug == "poll-error" else {"result": self.seen(task)}
            if method == "tasks/cancel":
                return self.cancelled(task)
            return self.fetched(task)
        if method == "tasks/list":
            return {"result": {"tasks": [] if self.bug == "list-empty" else [self.seen(task) for task in self.tasks.values()]}}
        return None if "id" not in request else error(-32601, f"Method not found: {method}")

    def call(self, params: Any) -> dict[str, Any]:
        if not isinstance(params, dict) or not isinstance(params.get("name"), str) or not isinstance(params.get("arguments", {}), dict):
            return error(-32602, "Invalid params")
        name, arguments, task = params["name"], params.get("arguments", {}), params.get("task")
        support = SUPPORT.get(name)
        as_task = isinstance(task, dict)
        if support is None:
            outcome = text(f"Unknown tool: {name}", failed=True)
            return self.created(outcome) if as_task else {"result": outcome}
        if as_task and support == "forbidden" and self.bug != "forbidden-runs":
            return error(-32601, f"Tool {name} does not support tasks")
        if not as_task and support == "required" and not (self.bug == "required-runs" and name == "slow"):
            return error(-32601, f"Tool {name} requires a task")
        outcome = self.run(name, arguments)
        if as_task and support != "forbidden":
            if outcome.get("isError") and self.bug == "task-args-error" and not _valid(name, arguments, self.bug):
                return error(-32602, "Invalid arguments")
            return self.created(outcome, SLOW if name.startswith("slow") else 0.0)
        return {"result": outcome}

    def seen(self, task: dict[str, Any]) -> dict[str, Any]:
        """The task as `tasks/get` shows it now."""
        working = time.monotonic() < task["ends_at"]
        if task["cancelled"] and not (self.bug == "uncancel" and not working):
            return {**task["task"], "status": "cancelled"}
        return {**task["task"], "status": "working"} if working else task["task"]

    def cancelled(self, task: dict[str, Any]) -> dict[str, Any]:
        if self.seen(task)["status"] != "working" and self.bug != "cancel-ended":
            return error(-32602, f"Cannot cancel task: already in terminal status {self.seen(task)['status']!r}")
        task["cancelled"] = True
        return {"result": {**task["task"], "status": "cancelled"}}

    def run(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        if not _valid(name, arguments, self.bug):
            return text(f"invalid arguments: n must be an integer, got {arguments.get('n')!r}", failed=True)
        if name.endswith("_fails"):
            return text(f"{name} failed", failed=True)
        return text(f"{name} {arguments['n']}")

    def created(self, outcome: dict[str, Any], works: float = 0.0) -> dict[str, Any]:
        task_id = f"task-{next(self.ids)}"
        failed = bool(outcome.get("isError")) and self.bug != "completed-on-error"
        status = "failed" if failed else "completed"
        ended = {"taskId": task_id, "status": status, "createdAt": TIMESTAMP, "lastUpdatedAt": TIMESTAMP, "ttl": 60000, "pollInterval": 20 if works else 10}
        self.tasks[task_id] = {"task": ended, "outcome": outcome, "ends_at": time.monotonic() + works, "cancelled": False}
        return {"result": {"task": {**ended, "status": "working"}}}

    def fetched(self, task: dict[str, Any]) -> dict[str, Any]:
        meta = {RELATED: {"taskId": task["task"]["taskId"]}}
        if self.bug == "failed-result-meta-only" and task["outcome"].get("isError"):
            return {"result": {"_meta": meta}}
        if self.bug == "result-without-meta":
            return {"result": task["outcome"]}
        return {"result": {**task["outcome"], "_meta": meta}}


def _valid(name: str, arguments: dict[str, Any], bug: str | None) -> bool:
    n = arguments.get("n", "absent")
    if isinstance(n, bool):
        return bug == "required-accepts-false" and name == "slow" and n is False
    return isinstance(n, int)


class ExtensionServer(TasksServer):
    """The same tools under 2026-07-28, with the tasks extension (SEP-2663)."""

    def answer(self, request: dict[str, Any]) -> dict[str, Any] | None:
        method, params = request.get("method"), request.get("params")
        if method not in ("server/discover", "tools/list", "tools/call", "tasks/get", "tasks/cancel"):
            return error(-32601, f"Method not found: {method}")
        refusal = envelope_error(params, None)
        if refusal is not None:
            return refusal
        declared = TASKS_EXTENSION in ((params["_meta"][CLIENT_CAPABILITIES_KEY]).get("extensions") or {})
        if method == "server/discover":
            capabilities = {"tools": {}, "extensions": {TASKS_EXTENSION: {}}}
            result = {
                "supportedVersions": SUPPORTED,
                "capabilities": capabilities,
                **CACHING,
                "_meta": {SERVER_INFO_KEY: {"name": "tasks-server", "version": "1"}},
            }
        elif method == "tools/list":
            tools = [{"name": name, "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}} for name in SUPPORT]
            result = {"tools": tools, **CACHING}
        elif method in ("tasks/get", "tasks/cancel"):
            if not declared:
                return _missing_extension()
            task = self.tasks.get(params.get("taskId"))
            if task is None:
                return error(-32602, "Failed to retrieve task: Task not found")
            result = task["task"] if method == "tasks/get" else {}
        else:
            return self.extension_call(params, declared)
        return {"result": {**result, "resultType": "complete"}}

    def extension_call(self, params: Any, declared: bool) -> dict[str, Any]:
        if not isinstance(params.get("name"), str) or not isinstance(params.get("arguments", {}), dict):
            return error(-32602, "Invalid params")
        name, arguments = params["name"], params.get("arguments", {})
        support = SUPPORT.get(name)
        if support == "required" and not declared:
            return _missing_extension()
        outcome = self.run(name, arguments) if support is not None else text(f"Unknown tool: {name}", failed=True)
        outcome = {**outcome, "resultType": "complete"}
        if not declared or support in (None, "forbidden"):
            return {"result": outcome}
        task_id = f"task-{next(self.ids)}"
        failed = bool(outcome.get("isError")) and self.bug == "failed-on-error"
        ended = {
            "taskId": task_id,
            "status": "failed" if failed else "completed",
            "createdAt": TIMESTAMP,
            "lastUpdatedAt": TIMESTAMP,
            "ttlMs": 60000,
            "pollIntervalMs": 10,
        }
        self.tasks[task_id] = {"task": {**ended, "result": outcome}, "outcome": outcome, "ends_at": 0.0, "cancelled": False}
        return {"result": {**ended, "status": "working", "resultType": "task"}}


def _missing_extension() -> dict[str, Any]:
    data = {"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}}
    return {"error": {"code": -32021, "message": "Missing required client capability", "data": data}}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bug")
    parser.add_argument("--era", default="2025-11-25", choices=["2025-11-25", "2026-07-28"])
    arguments = parser.parse_args()
    server = ExtensionServer(arguments.bug) if arguments.era == "2026-07-28" else TasksServer(arguments.bug)
    serve(server.answer)


if __name__ == "__main__":
    main()
