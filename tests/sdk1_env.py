"""A Python for the official SDK 1.x fixture (tests/servers/python_sdk1_tasks.py).

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
