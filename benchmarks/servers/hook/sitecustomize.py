"""Count the bundled demo's tools/call requests when `mcp-toolfuzz run` starts it itself.

With no target, the harness runs `sys.executable -m fuzz.demo_server`; the benchmark measures
that very path (no target arguments) by putting this directory on PYTHONPATH. Python imports
`sitecustomize` at startup, before it runs the `-m` module through `runpy._run_module_as_main`,
which it looks up when it calls it: the replacement runs the demo through
`benchmarks/servers/counting.py` instead. Every other module (and the harness itself, started
as a console script) runs untouched.
"""

from __future__ import annotations

import os
import runpy
import sys
from pathlib import Path

_run_module_as_main = runpy._run_module_as_main  # type: ignore[attr-defined]


def _counting_run_module_as_main(mod_name: str, alter_argv: bool = True) -> object:
    if mod_name != "fuzz.demo_server" or not os.environ.get("TOOLFUZZ_BENCH_COUNT_DIR"):
        return _run_module_as_main(mod_name, alter_argv)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    import counting

    counting.run_demo(counting.start_counter())
    return None


runpy._run_module_as_main = _counting_run_module_as_main  # type: ignore[attr-defined]
