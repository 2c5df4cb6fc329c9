"""Fixture MCP server with TASKS (the experimental tasks of protocol 2025-11-25), built
with the official Python SDK **1.x** (PyPI ``mcp==1.30.0``) low-level ``Server``.

mcp 2.x dropped the experimental tasks, so this file does not import under the dev
venv's mcp 2.3 alone: ``tests/sdk_envs.py`` installs mcp 1.30.0 into a directory of its own
(``sdk1_path(tmp_path_factory)``), put first on ``PYTHONPATH``.
Run: ``PYTHONPATH=DIR python python_sdk1_tasks.py [--survive-cancel]`` (stdio only).

Task support is the SDK's own: ``server.experimental.enable_tasks()`` (in-memory task
store and message queue; the SDK registers tasks/get, tasks/result, tasks/list and
tasks/cancel and declares capability tasks {list, cancel, requests.tools.call}), with the
SDK's documented pattern in the ``call_tool`` handler: ``ctx.experimental.validate_for_tool``
for the tool's ``execution.taskSupport``, then ``ctx.experimental.run_task(work)`` for a
task-augmented call, or the work inline for a plain call. ``call_tool()`` keeps its default
``validate_input=True`` (jsonschema against inputSchema before the handler runs).

Tools (each takes one required integer ``n``):
  plain        no ``execution`` (forbidden by default); returns "plain n"
  maybe        taskSupport "optional";  returns "maybe n"
  slow         taskSupport "required";  sleeps 0.2 s, returns "slow n"
  maybe_fails  taskSupport "optional";  raises RuntimeError
  slow_fails   taskSupport "required";  sleeps 0.2 s, raises RuntimeError

mcp 1.30 marks ``Server.experimental`` deprecated; the DeprecationWarning it would print
on stderr at startup is silenced here, around that one access.

SDK bug kept by default: tasks/cancel of a *working* task (``slow``) answers "cancelled",
but when the work then ends, ``run_task`` (which checks its own stale copy of the task)
calls ``complete()``, the store refuses to leave "cancelled" with ValueError, ``fail()``
raises the same, and that unhandled error in the SDK's task group takes the server down:
from then on it answers nothing, and it exits (code 1, traceback on stderr) only when the
next line arrives on stdin, leaving that request unanswered.
``--survive-cancel`` works around it: before the work returns or raises, it re-reads the
task from the store and, if it is already terminal, refreshes the task context's copy (a
private attribute, ``_ctx._task``), so ``run_task`` leaves the task alone.
"""

import sys
import warnings
from typing import Any

import anyio
import mcp.types as types
from mcp.server.experimental.task_context import ServerTaskContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.experimental.tasks.helpers import is_terminal

server = Server("toolfuzz-fixture-python-sdk1-tasks")
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    task_support = server.experimental.enable_tasks()
SURVIVE_CANCEL = "--survive-cancel" in sys.argv[1:]

N_SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


def tool(name: str, description: str, task_support: str | None) -> types.Tool:
    execution = types.ToolExecution(taskSupport=task_support) if task_support else None
    return types.Tool(name=name, description=description, inputSchema=N_SCHEMA, execution=execution)


TOOLS = {
    t.name: t
    for t in [
        tool("plain", 'Returns "plain n"; no task support.', None),
        tool("maybe", 'Returns "maybe n"; task optional.', "optional"),
        tool("slow", 'Sleeps 0.2 s, returns "slow n"; task required.', "required"),
        tool("maybe_fails", "Always raises; task optional.", "optional"),
        tool("slow_fails", "Sleeps 0.2 s, then raises; task required.", "required"),
    ]
}


async def work(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
    n = arguments["n"]
    if name.startswith("slow"):
        await anyio.sleep(0.2)
    if name.endswith("_fails"):
        raise RuntimeError(f"{name} failed for n={n}")
    return types.CallToolResult(content=[types.TextContent(type="text", text=f"{name} {n}")])


@server.list_tools()
async def list_tools() -> list[types.Tool]:
    return list(TOOLS.values())


@server.call_tool()
async def call_tool(name: str, arguments: dict[str, Any]) -> types.CallToolResult | types.CreateTaskResult:
    if name not in TOOLS:
        raise ValueError(f"Unknown tool: {name}")
    experimental = server.request_context.experimental
    experimental.validate_for_tool(TOOLS[name])
    if experimental.is_task:

        async def run(task: ServerTaskContext) -> types.CallToolResult:
            if not SURVIVE_CANCEL:
                return await work(name, arguments)
            try:
                return await work(name, arguments)
            finally:
                current = await task_support.store.get_task(task.task_id)
                if current is not None and is_terminal(current.status):
                    task._ctx._task = current  # see --survive-cancel in the module docstring

        return await experimental.run_task(run)
    return await work(name, arguments)


async def main() -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
