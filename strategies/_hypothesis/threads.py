"""Hypothesis shared by the explorations' worker threads, one thread at a time.

The parts of Hypothesis that are not thread-safe are used here one thread at a time. So what a
run finds never depends on which thread drew when.

`--workers` explorations run Hypothesis at once, each in a worker thread of its own. Hypothesis
keeps its engine per test. But three things it does are shared between threads unguarded.

- Describing a lambda (`hypothesis.internal.lambda_sources`). A strategy's repr names its
  lambdas from their source. It uses `ast.parse`, module-wide caches, and a dict comprehension
  over `sys.modules`. CPython 3.11 keeps the recursion-depth bookkeeping of `ast.parse` per
  interpreter, not per thread: "SystemError: AST constructor recursion depth mismatch". An
  import in another thread changes `sys.modules` under the comprehension: "RuntimeError:
  dictionary changed size during iteration".

  Building a strategy needs descriptions, and so does a *draw*. The first time a filter retries,
  or a recursive strategy runs over its leaves, Hypothesis names the strategy in an event. This
  was seen on the demo with several workers and processes, on a loaded machine. A draw raised
  one of those errors. The exploration took it for a generation error and skipped its case
  kind. Two runs of one seed then gave different reports.

  Here descriptions are made one at a time, under the lock that building takes. One that still
  fails is tried again, then named `<lambda>`. What fails it is an import in a thread that
  describes nothing.
- Reading a filter on a number (`hypothesis.internal.filtering`). `.filter(lambda x: x > 5)`
  becomes bounds when its description parses. When anything fails, it silently stays a filter
  that rejects, and other values are drawn. It is built under the same lock. It may be built on
  a draw too, for a strategy built lazily.
- Its local constants (`hypothesis.internal.conjecture.providers`). These are values found in
  the source of the modules outside site-packages, drawn now and then. They are collected on
  the first draw of a process. Each thread caches the values it may draw for a constraint. A
  thread that draws while another is still collecting keeps a partial pool for the rest of the
  run. It then draws other values from the same seed.

  Here they are collected before any exploration starts. A module of this package imported
  later, while explorations draw, would open that window again; none is.

  This package's own modules are left out (`_harness_modules_not_local`). Installed, they are
  in site-packages and never read. Run from a checkout, or installed editable, their strings
  and numbers were drawn as arguments. So one seed drew other values there than where the
  harness is installed. Reading them also slowed every run's start.

`in_worker_thread` is no matter of safety but of cost (see there). Hypothesis's own policy is
that it is not thread-safe, but it takes patches that fix what people find. Its tracking issue
is https://github.com/HypothesisWorks/hypothesis/issues/4451.
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
"""Held while lambda sources are read, so one thread at a time reads them.

It is held while an exploration builds its strategies, while a lambda is described, and while
a filter on a number is read. It is re-entrant, because building does both.
"""

_TRIES = 10
"""Descriptions tried per lambda before it is named `<lambda>`.

For a filter on a number, `<lambda>` reads as no bounds. What fails a description is an import
in another thread, which does not last.
"""

_guarded = False


def guard() -> None:
    """Make Hypothesis's shared parts safe for the explorations' threads.

    See the module's docstring for what is shared. Call it before explorations start, once the
    target is open. Opening an HTTP target imports a module of this package, whose constants
    count. Call it before worker processes are forked, too. They inherit what it collected, and
    do not collect it again. It is cheap when called again: only modules imported since are
    read.
    """
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
    """Mark this package's imported modules as read for Hypothesis's local constants.

    Hypothesis then never reads them (see the module's docstring).
    """
    for name, module in list(sys.modules.items()):
        if name.partition(".")[0] in _HARNESS_PACKAGES:
            providers._seen_modules.add(id(module))


def in_worker_thread(function: Callable[..., T]) -> Callable[..., T]:
    """`function`, wrapped for a worker thread to call.

    The thread is first given a Random that Hypothesis does not register. It is the Random
    Hypothesis draws a test's seed from when the test is given none. Every worker thread the
    engine starts runs through `in_worker_thread`.

    Hypothesis makes that Random per thread, on the thread's first example. It registers it with
    the generators it seeds and restores around every example (`deterministic_PRNG`). Each
    thread's Random is registered in every thread. The engine always gives a test its seed
    (`derived_seed`), so it never draws from that Random. Registered, each worker thread's Random
    added a save and two restores of a Mersenne Twister state to every example of every thread.
    That is several generators where one is needed. The global `random` stays registered and
    seeded as Hypothesis means it.
    """

    def in_thread(*arguments: Any) -> T:
        _unregistered_seed_source()
        return function(*arguments)

    return in_thread


def _unregistered_seed_source() -> None:
    if getattr(threadlocal, "_hypothesis_global_random", None) is None:
        threadlocal._hypothesis_global_random = Random()
