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

`in_worker_thread` is no matter of safety but of cost (see there). Hypothesis's own policy is
that it is not thread-safe but takes patches that fix what people find; its tracking issue is
https://github.com/HypothesisWorks/hypothesis/issues/4451.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from random import Random
from typing import Any, TypeVar

from strategies._hypothesis.private import filtering, lambda_sources, providers, threadlocal

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
    describe_one_at_a_time()
    with BUILDING:
        _collect_local_constants()


def describe_one_at_a_time() -> None:
    """Describe lambdas and read filters on numbers one thread at a time (idempotent)."""
    global _guarded
    with BUILDING:
        if _guarded:
            return
        _guarded = True
        original: Callable[..., str] = lambda_sources.lambda_description
        guarded = _guarded_description(original)
        lambda_sources.lambda_description = guarded
        if getattr(filtering, "lambda_description", None) is original:
            filtering.lambda_description = guarded  # type: ignore[attr-defined]
        filtering.get_numeric_predicate_bounds = _one_at_a_time(filtering.get_numeric_predicate_bounds)


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
    _harness_modules_not_local()
    providers._get_local_constants()


_HARNESS_PACKAGES = ("fuzz", "strategies")


def _harness_modules_not_local() -> None:
    """Mark this package's imported modules as read for Hypothesis's local constants, so that
    it never reads them (see the module's docstring)."""
    for name, module in list(sys.modules.items()):
        if name.partition(".")[0] in _HARNESS_PACKAGES:
            providers._seen_modules.add(id(module))


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
    if getattr(threadlocal, "_hypothesis_global_random", None) is None:
        threadlocal._hypothesis_global_random = Random()
