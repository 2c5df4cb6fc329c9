"""Packages for the SDK task servers that the test extra cannot install beside the rest.

Each is a directory of packages installed without their dependencies (`pip install --target
--no-deps`), made once per test session (shared by the xdist workers through
`conftest.made_once`), and put before the dev venv's packages on the server's `PYTHONPATH`: what
they need besides is in the dev venv already, at the versions pip would choose. It needs PyPI.

`sdk1_path`: the official Python SDK 1.30.0, for tests/servers/python_sdk1_tasks.py. The
2025-11-25 experimental tasks (`execution.taskSupport`, `tasks/get`, `tasks/result`,
`tasks/list`, `tasks/cancel`) exist only in the SDK's 1.x; mcp 2.x removed them, and the extra
needs mcp 2.3 (for fastmcp 4). 1.3 s to make (a venv of its own took 14-21 s).

`fastmcp_tasks_path`: fastmcp-tasks, for tests/servers/fastmcp_tasks_server.py (see below).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import made_once

MCP_SDK1 = ("mcp==1.30.0", "httpx-sse==0.4.3")
"""The SDK 1.30.0, and the one package it needs that mcp 2.3 does not (the rest it shares)."""


def _install(packages: tuple[str, ...]) -> Callable[[Path], None]:
    def install(directory: Path) -> None:
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps", "--target", str(directory / "packages"), *packages],
            check=True,
            capture_output=True,
            timeout=600,
        )

    return install


def sdk1_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The directory to put on ``PYTHONPATH`` for the Python SDK 1.x fixture (made once per test session)."""
    return made_once(tmp_path_factory, "mcp-sdk1", _install(MCP_SDK1)) / "packages"


FASTMCP_TASKS = (
    "fastmcp-tasks==4.1.4",
    "pydocket==0.27.2",
    "burner-redis==0.1.7",
    "cloudpickle==3.1.3",
    "cronsim==2.9",
    "prometheus-client==0.26.0",
    "python-json-logger==4.2.0",
    "shellingham==1.5.4",
    "typer==0.29.3",
    "annotated-doc==0.0.7",
)
"""fastmcp-tasks (the 2026-07-28 tasks extension for FastMCP) and what it adds to the test extra.

fastmcp-tasks 4.1.4 pins fastmcp-slim 4.1.4, and ``fastmcp[tasks]`` 4.2.3 wants a fastmcp-tasks
4.2.3 that PyPI does not have: pip cannot resolve it beside the extra's fastmcp 4.2.3, though it runs
on it. So these are installed without their dependencies into a directory of their own (the rest of
what they need, opentelemetry-api, py-key-value-aio, uncalled-for, redis, rich, comes with fastmcp),
put before the dev venv's packages on ``PYTHONPATH``.
"""


def fastmcp_tasks_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The directory to put on ``PYTHONPATH`` for the FastMCP tasks fixture (made once per test session)."""
    return made_once(tmp_path_factory, "fastmcp-tasks", _install(FASTMCP_TASKS)) / "packages"
