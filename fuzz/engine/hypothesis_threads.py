"""Hypothesis shared by the explorations' worker threads: the parts of it that are not
thread-safe, used one thread at a time, so that what a run finds never depends on which thread
drew when.

`--workers` explorations run Hypothesis at once, each in a worker thread of its own. Hypothesis
keeps its engine per test, but three things it does are shared between threads unguarded:

- Describing a lambda (`hypothesis.internal.lambda_sources`): a strategy's repr names its
  lambdas from their source, through `ast.parse` (whose recursion-depth bookkeeping CPython 3.11
  keeps per interpreter, not per thread: "SystemError: AST constructor recursion depth
  mismatch"), module-wide caches, and a dict comprehension over `sys.modules` (which an import
  in another thread changes under it: "RuntimeError: dictionary changed size during
  iteration"). Building a strategy needs descriptions, and so does a *draw*: the first time a
  filter retries or a recursive strategy runs over its leaves, Hypothesis names the strategy in
  an event. Seen on the demo at `--workers 4 --processes 2` on a loaded machine, about one run
  in fifty: a draw raised one of those, the exploration took it for a generation error and
  skipped its case kind, and two runs of one seed gave different reports. Descriptions are made
  here one at a time, under the lock that building takes; one that still fails (an import in a
  thread that describes nothing) is tried again, then named `<lambda>`.
- Reading a filter on a number (`hypothesis.internal.filtering`): `.filter(lambda x: x > 5)`
  becomes bounds when its description parses, and stays a filter that rejects (other draws)
  when anything fails, silently. It is built (on a draw too, for a strategy built lazily), under
  the same lock.
- Its local constants (`hypothesis.internal.conjecture.providers`): values found in the source
  of the modules outside site-packages, drawn now and then. They are collected on the first
  draw of a process (about 0.2 s), and each thread caches the values it may draw for a
  constraint; a thread that draws while another is still collecting keeps a partial pool for
  the rest of the run, and draws other values from the same seed. They are collected here,
  before any exploration starts (a module of this package imported later, while explorations
  draw, would open that window again: none is). This package's own modules are left out
  (`_harness_modules_not_local`): installed, they are in site-packages and never read; checked
  out and run from the checkout (or installed editable), their strings and numbers were drawn
  as arguments, so that one seed drew other values there than where the harness is installed,
  and reading them cost about 0.15 s of every run's start.

All three reach into Hypothesis's internals: a version without them is left as it is. So does
`in_worker_thread`, which is no matter of safety but of cost (see there).
"""

from __future__ import annotations

import gc
import sys
import threading
import time
from collections.abc import Callable
from random import Random
from typing import Any, TypeVar

T = TypeVar("T")

BUILDING = threading.RLock()
"""Held while an exploration builds its strategies, while a lambda is described and while a
filter on a number is read: one thread at a time reads lambda sources. Re-entrant: building
does both."""

_TRIES = 10
"""Descriptions tried per lambda before it is named `<lambda>` (which reads as no bounds, for a
filter on a number): what fails one is an import in another thread, which does not last."""

_guarded = False


def guard() -> None:
    """Make Hypothesis's shared parts safe for the explorations' threads (see the module's
    docstring): call it before explorations start, once the target is open (opening an HTTP
    target imports a module of this package, whose constants count), and before worker
    processes are forked (they inherit what it collected, and do not collect it again). Cheap
    when called again: only modules imported since are read."""
    global _guarded
    with BUILDING:
        if not _guarded:
            _guarded = True
            _describe_one_at_a_time()
        _collect_local_constants()


def _describe_one_at_a_time() -> None:
    try:
        from hypothesis.internal import filtering, lambda_sources
    except ImportError:
        return
    original: Callable[..., str] | None = getattr(lambda_sources, "lambda_description", None)
    if original is not None:
        guarded = _guarded_description(original)
        lambda_sources.lambda_description = guarded
        if getattr(filtering, "lambda_description", None) is original:
            filtering.lambda_description = guarded  # type: ignore[attr-defined]
    bounds: Callable[..., Any] | None = getattr(filtering, "get_numeric_predicate_bounds", None)
    if bounds is not None:
        filtering.get_numeric_predicate_bounds = _one_at_a_time(bounds)


def _one_at_a_time(original: Callable[..., Any]) -> Callable[..., Any]:
    def guarded(*arguments: Any, **options: Any) -> Any:
        with BUILDING:
            return original(*arguments, **options)

    return guarded


def _guarded_description(original: Callable[..., str]) -> Callable[..., str]:
    def lambda_description(f: Any, *arguments: Any, **options: Any) -> str:
        with BUILDING:
            for _ in range(_TRIES):
                try:
                    return original(f, *arguments, **options)
                except (RuntimeError, SystemError):
                    continue
        return "<lambda>"

    return lambda_description


def _collect_local_constants() -> None:
    try:
        from hypothesis.internal.conjecture.providers import _get_local_constants
    except ImportError:
        return
    _harness_modules_not_local()
    _get_local_constants()


_HARNESS_PACKAGES = ("fuzz", "strategies")


def _harness_modules_not_local() -> None:
    """Mark this package's imported modules as read for Hypothesis's local constants, so that
    it never reads them (see the module's docstring)."""
    try:
        from hypothesis.internal.conjecture.providers import _seen_modules
    except ImportError:
        return
    for name, module in list(sys.modules.items()):
        if name.partition(".")[0] in _HARNESS_PACKAGES:
            _seen_modules.add(id(module))


def in_worker_thread(function: Callable[..., T]) -> Callable[..., T]:
    """`function`, for a worker thread to call: the thread is first given the Random Hypothesis
    draws a test's seed from when it is given none, one that Hypothesis does not register. Every
    worker thread the engine starts runs through it.

    Hypothesis makes that Random per thread, on the thread's first example, and registers it
    with the generators it seeds and restores around every example: every thread's, in every
    thread (`deterministic_PRNG`). The engine always gives a test its seed (`derived_seed`), so
    it never draws from that Random; registered, each worker thread's added a save and two
    restores of a Mersenne Twister state to every example of every thread (on the demo at the
    defaults, four generators where one is needed: 3% of a run's time). The global `random`
    stays registered and seeded as Hypothesis means it."""

    def in_thread(*arguments: Any) -> T:
        _unregistered_seed_source()
        return function(*arguments)

    return in_thread


def _unregistered_seed_source() -> None:
    try:
        from hypothesis.core import threadlocal
    except ImportError:
        return
    if getattr(threadlocal, "_hypothesis_global_random", None) is None:
        threadlocal._hypothesis_global_random = Random()


COLLECT_EVERY = 0.3
"""Seconds between two collections by `collect_finished_runs`, at least."""
_last_collection = [0.0]
_collecting = [False]


def collect_runs_when_they_end() -> None:
    """Let `collect_finished_runs` collect in this process (and the processes forked from it).
    The command line does; the pytest plugin leaves the user's process to its own collector (a
    full collection of a test suite's heap can take a tenth of a second)."""
    _collecting[0] = True


def collect_finished_runs() -> None:
    """Free what the Hypothesis runs that ended hold, now (a full collection of the cyclic
    garbage), at most every `COLLECT_EVERY` seconds, where `collect_runs_when_they_end` was
    called; call it when a run ends.

    Why: a Hypothesis run's engine and its test state refer to each other
    (`StateForActualGivenExecution._runner`, `ConjectureRunner._test_function`), so when the run
    ends its engine, with the tree of every choice the run made (ten thousand nodes for a
    hundred batches of eight cases), is freed by a full collection only, never by its count of
    references; and CPython makes a full collection only once a quarter more objects have
    grown old than survived the last. On the demo at the defaults, the peak PSS summed over
    both processes went from 91.0-93.4 MB to 85.1-87.4 MB (three runs each), the calls per
    second unchanged (four interleaved pairs); a collection takes about 15 ms, most of it
    freeing what the runs left."""
    now = time.monotonic()
    if not _collecting[0] or now - _last_collection[0] < COLLECT_EVERY:
        return
    _last_collection[0] = now
    gc.collect()
