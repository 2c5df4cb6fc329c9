"""The server's SEP-2145 invariants, one test per (tool, rule): `pytest` runs them."""

import sys
from pathlib import Path

from fuzz.pytest_plugin import invariants

SERVER = Path(__file__).parent.parent / "server.py"

test_server = invariants(sys.executable, str(SERVER), max_examples=50)
