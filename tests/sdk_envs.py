"""Environments for the SDK task servers the test extra cannot install beside the rest.

`sdk1_python`: a Python for the official SDK 1.x fixture (tests/servers/python_sdk1_tasks.py).
`fastmcp_tasks_path`: a directory of packages for the FastMCP tasks fixture
(tests/servers/fastmcp_tasks_server.py), below.

Why a venv of its own: the 2025-11-25 experimental tasks (tasks/get, tasks/result,
tasks/list, tasks/cancel, execution.taskSupport) exist only in the official Python SDK
1.x; mcp 2.x removed them, and the dev/test environment pins ``mcp>=2.3`` (fastmcp 4 needs
it), so both cannot be installed side by side. ``sdk1_python`` builds, once per test
session (shared by all xdist workers through ``conftest.made_once``), a venv with
``mcp==1.30.0`` from PyPI and returns that venv's python.

Cost (measured on the 2-core dev machine; it needs PyPI): 14 s to make with pip's cache
warm, 21 s cold (``python -m venv`` plus ``pip install``), then 1.0-1.5 s per caller for
``made_once``'s copy (a 69 MB venv). The copied venv works: its ``bin/python`` is a real
copy of the base interpreter and finds the copy's ``pyvenv.cfg`` beside it (the console
scripts in ``bin/`` keep the old path in their shebangs: run modules, not scripts).
"""

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import made_once

MCP_SDK1 = "mcp==1.30.0"


def _make(directory: Path) -> None:
    venv = directory / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True, timeout=120)
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", MCP_SDK1],
        check=True,
        capture_output=True,
        timeout=600,
    )


def sdk1_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The python of a venv with ``mcp==1.30.0`` installed (made once per test session)."""
    return made_once(tmp_path_factory, "sdk1-venv", _make) / "venv" / "bin" / "python"


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


def _install_fastmcp_tasks(directory: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-deps",
            "--target",
            str(directory / "packages"),
            *FASTMCP_TASKS,
        ],
        check=True,
        capture_output=True,
        timeout=600,
    )


def fastmcp_tasks_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The directory to put on ``PYTHONPATH`` for the FastMCP tasks fixture (made once per test session)."""
    return made_once(tmp_path_factory, "fastmcp-tasks", _install_fastmcp_tasks) / "packages"
