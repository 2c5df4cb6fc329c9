"""The command line's entry point (`mcp-toolfuzz`, `python -m fuzz`).

It imports Hypothesis without its plugins, then the CLI. The plugins are the `hypothesis` entry
points of the installed packages. The harness draws from its own strategies only. It never uses
`st.from_type` on a plugin's types, so a plugin can change nothing it generates. And what plugins
import is paid in every worker process. The plugin that comes with trio imports `trio.testing`. With
it comes pytest, where pytest is installed. That costs memory and start-up time in every process.
The pytest plugin (`fuzz.faces.pytest_hooks`) runs in the user's pytest and leaves Hypothesis's
plugins alone.

Hypothesis's warnings are silenced for the run (`library_warnings_silenced`). They speak to the
author of a Hypothesis test, and mcp-toolfuzz's user wrote none. A long server schema once made one
("Generating overly large repr ...") reach stderr as if the harness had failed. The filter is the
process's. So it holds in the engine's worker threads, and in the worker processes forked from it.
The harness's own errors are exceptions and exit codes, never warnings.

On glibc, the allocator is told to keep one arena and give freed memory back at once
(`compact_allocator`). This happens before any thread starts. Otherwise each engine thread gets an
arena of its own, and freed pages stay with the process. The change lowers peak memory a little, at
no cost in speed.

A finished Hypothesis run is collected when it ends (`collect_runs_when_they_end`).

A Ctrl-C may land where Python cannot raise. It is then delivered again, rather than printed and
lost (`interrupts_kept`). The trio handler raises KeyboardInterrupt wherever the main thread is.
Once, that was inside Hypothesis's garbage-collector callback. CPython reports such an exception as
"Exception ignored in", with a traceback on stderr.

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

import trio

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
    from fuzz.faces._cli import entry_point as run_cli

    with library_warnings_silenced():
        run_cli()


def compact_allocator() -> None:
    """One malloc arena for every thread, and free memory returned at once, under glibc.

    It calls `mallopt` where the C library is glibc, and does nothing elsewhere. Call it before any
    thread starts: an arena made is kept.
    """
    try:
        mallopt = ctypes.CDLL(None).mallopt  # the symbols the interpreter was linked with: libc's
    except (OSError, AttributeError):
        return
    for parameter, value in ((_M_ARENA_MAX, 1), (_M_TRIM_THRESHOLD, 0), (_M_TOP_PAD, 0)):
        mallopt(parameter, value)


def interrupts_kept() -> None:
    """Make a KeyboardInterrupt that Python can only report trip SIGINT again.

    Such places are a garbage-collector callback, a `__del__` or a weakref callback
    (`sys.unraisablehook`). Any other such exception is reported as before.

    SIGINT's handler runs at once, inside the hook. So the hook is protected from
    KeyboardInterrupt: trio's handler then hands the interrupt to the run, at its next checkpoint.
    Unprotected, the handler raised it inside the hook, and Python dropped it: Ctrl-C was lost.
    """
    reported = sys.unraisablehook

    @trio.lowlevel.enable_ki_protection
    def hook(unraisable: sys.UnraisableHookArgs) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            _thread.interrupt_main(signal.SIGINT)
            return
        reported(unraisable)

    sys.unraisablehook = hook


@contextlib.contextmanager
def library_warnings_silenced() -> Iterator[None]:
    """Hypothesis's warnings, ignored while the block runs.

    That covers `HypothesisWarning` and its kinds: deprecations, non-interactive examples, large
    reprs. Every other warning stays as it was.
    """
    from hypothesis.errors import HypothesisWarning

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=HypothesisWarning)
        yield
