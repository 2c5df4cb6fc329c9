"""A FastMCP 4.2.3 server with the 2026-07-28 tasks extension (fastmcp-tasks 4.1.4, SEP-2663).

fastmcp-tasks 4.1.4 pins fastmcp-slim 4.1.4 while the test extra has fastmcp 4.2.3, so pip cannot
install both as one environment: `tests/sdk_envs.py` installs fastmcp-tasks and the packages it
adds, without their pins, into a directory put before the dev venv's on `PYTHONPATH`.

Tools (each takes a required integer `n`): `plain` (no tasks), `maybe` (`optional`), `slow`
(`required`, works 0.2 s), `maybe_fails` and `slow_fails` (the same, and raise). Under 2026-07-28 a
call that declares the extension to a task tool gets a task (`resultType: "task"`); a call that
does not, to a `required` tool, gets -32021. Its tasks live in memory (`memory://`), in this
process. Hand probes found no deviation from SEP-2663.
"""

from __future__ import annotations

import asyncio
import logging

from fastmcp import FastMCP
from fastmcp.utilities.tasks import TaskConfig
from fastmcp_tasks import TasksExtension

logging.disable(logging.CRITICAL)

mcp = FastMCP("toolfuzz-fixture-fastmcp-tasks")
mcp.add_extension(TasksExtension())
READ_ONLY = {"readOnlyHint": True}


@mcp.tool(annotations=READ_ONLY)
def plain(n: int) -> str:
    """Returns "plain n"; no task support."""
    return f"plain {n}"


@mcp.tool(annotations=READ_ONLY, task=TaskConfig(mode="optional"))
async def maybe(n: int) -> str:
    """Returns "maybe n"; task optional."""
    return f"maybe {n}"


@mcp.tool(annotations=READ_ONLY, task=TaskConfig(mode="required"))
async def slow(n: int) -> str:
    """Works 0.2 s, returns "slow n"; task required."""
    await asyncio.sleep(0.2)
    return f"slow {n}"


@mcp.tool(annotations=READ_ONLY, task=TaskConfig(mode="optional"))
async def maybe_fails(n: int) -> str:
    """Always raises; task optional."""
    raise RuntimeError(f"maybe_fails {n} failed")


@mcp.tool(annotations=READ_ONLY, task=TaskConfig(mode="required"))
async def slow_fails(n: int) -> str:
    """Works 0.2 s, then raises; task required."""
    await asyncio.sleep(0.2)
    raise RuntimeError(f"slow_fails {n} failed")


if __name__ == "__main__":
    mcp.run(show_banner=False)
