"""The command line's entry point (`mcp-toolfuzz`, `python -m fuzz`): Hypothesis is imported
without its plugins (the `hypothesis` entry points of the installed packages), then the CLI.

Why: mcp-toolfuzz draws from its own strategies only, never `st.from_type` on a plugin's
types, so a plugin can change nothing it generates; and what plugins import is paid in every
worker process. trio's, installed with trio, imports `trio.testing` and with it pytest where
pytest is installed: about 6 MB per process and 40 ms of start-up. The pytest plugin
(`fuzz.faces.pytest_plugin`) runs in the user's pytest and leaves Hypothesis's plugins alone.

Hypothesis's warnings are silenced for the run (`library_warnings_silenced`): they speak to the
author of a Hypothesis test, and mcp-toolfuzz's user wrote none. A long server schema made one
("Generating overly large repr ... 61 kB") reach stderr as if the harness had failed. The
filter is the process's, so it holds in the engine's worker threads and in the worker
processes forked from it; the harness's own errors are exceptions and exit codes, never warnings.

glibc's allocator is told, before any thread starts, to keep one arena and give freed memory
back at once (`compact_allocator`): each engine thread got an arena of its own, and freed pages
stayed with the process. On the demo at the defaults, the peak PSS summed over both processes
went from 95.2 to 90.2 MB (medians of four interleaved runs each), the cases per second within
noise.
A finished Hypothesis run is collected when it ends (`collect_runs_when_they_end`).

A Ctrl-C that lands where Python cannot raise is delivered again rather than printed and lost
(`interrupts_kept`): trio's handler raises KeyboardInterrupt wherever the main thread is, and
there was once inside Hypothesis's garbage-collector callback, which CPython reports as
"Exception ignored in" with a traceback on stderr.

The pytest plugin leaves the user's process as it is.
"""

from __future__ import annotations

import _thread
import contextlib
import ctypes
import os
import signal
import sys
import warnings
from collections.abc import Iterator

from fuzz.engine.finished_runs import collect_runs_when_they_end

_NO_PLUGINS = "HYPOTHESIS_NO_PLUGINS"

_M_TRIM_THRESHOLD = -1
_M_TOP_PAD = -2
_M_ARENA_MAX = -8
"""`mallopt` parameters, from glibc's malloc.h."""


def entry_point() -> None:
    compact_allocator()
    interrupts_kept()
    collect_runs_when_they_end()
    chosen = os.environ.get(_NO_PLUGINS)
    os.environ[_NO_PLUGINS] = "1"
    try:
        import hypothesis  # noqa: F401 - imported once, here, without its plugins
    finally:
        if chosen is None:
            del os.environ[_NO_PLUGINS]  # the target's environment stays the user's
        else:
            os.environ[_NO_PLUGINS] = chosen
    from fuzz.faces.cli import entry_point as run_cli

    with library_warnings_silenced():
        run_cli()


def compact_allocator() -> None:
    """One malloc arena for every thread, and free memory returned to the system as soon as it
    is free, where the C library is glibc (`mallopt`); elsewhere nothing. Call it before any
    thread starts: an arena made is kept."""
    try:
        mallopt = ctypes.CDLL(None).mallopt  # the symbols the interpreter was linked with: libc's
    except (OSError, AttributeError):
        return
    for parameter, value in ((_M_ARENA_MAX, 1), (_M_TRIM_THRESHOLD, 0), (_M_TOP_PAD, 0)):
        mallopt(parameter, value)


def interrupts_kept() -> None:
    """Make a KeyboardInterrupt raised where Python can only report it (a garbage-collector
    callback, a `__del__`, a weakref callback: `sys.unraisablehook`) trip SIGINT again, so that
    its handler runs once that code has returned; any other such exception is reported as
    before."""
    reported = sys.unraisablehook

    def hook(unraisable: sys.UnraisableHookArgs) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            _thread.interrupt_main(signal.SIGINT)
            return
        reported(unraisable)

    sys.unraisablehook = hook


@contextlib.contextmanager
def library_warnings_silenced() -> Iterator[None]:
    """Hypothesis's warnings (`HypothesisWarning` and its kinds: deprecations, non-interactive
    examples, large reprs) ignored while the block runs, every other warning as it was."""
    from hypothesis.errors import HypothesisWarning

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=HypothesisWarning)
        yield
