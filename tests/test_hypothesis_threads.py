"""Hypothesis in the explorations' worker threads (`strategies._hypothesis.threads`, `fuzz.engine.finished_runs`): a lambda's
description that another thread's import breaks is made again, not raised into a draw (where it
skipped a case kind, and two runs of one seed differed); the local constants are collected
before any draw; a worker thread adds no Random for Hypothesis to save and restore around
every example; and a finished run's engine is freed when the run ends."""

from __future__ import annotations

import gc
import sys
import threading
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.internal import entropy, filtering, lambda_sources
from hypothesis.internal.conjecture import providers
from hypothesis.internal.reflection import get_pretty_function_description

from fuzz.engine import finished_runs
from strategies._hypothesis.marks import seeded
from strategies._hypothesis.threads import BUILDING, _guarded_description, guard, in_worker_thread


def _broken_once(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Make the next reading of a lambda's source fail as it does when another thread imports a
    module meanwhile; returns the count of readings."""
    readings = [0]
    original = lambda_sources._mimic_lambda_from_node

    def mimic(f: Any, node: Any) -> Any:
        readings[0] += 1
        if readings[0] == 1:
            raise RuntimeError("dictionary changed size during iteration")
        return original(f, node)

    monkeypatch.setattr(lambda_sources, "_mimic_lambda_from_node", mimic)
    return readings


def test_a_description_an_import_elsewhere_broke_is_made_again(monkeypatch: pytest.MonkeyPatch) -> None:
    guard()
    readings = _broken_once(monkeypatch)
    assert get_pretty_function_description(lambda value: value + 41) == "lambda value: value + 41"
    assert readings[0] == 2


def test_without_the_guard_the_same_failure_reaches_the_draw(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the guard is for: Hypothesis's own description raises it (into a draw, when a filter
    retries or a recursive strategy runs over)."""
    _broken_once(monkeypatch)
    with pytest.raises(RuntimeError, match="changed size"):
        lambda_sources._lambda_description(lambda value: value + 42)


def test_a_description_that_keeps_failing_is_a_name_not_an_error() -> None:
    def failing(f: Any) -> str:
        raise SystemError("AST constructor recursion depth mismatch (before=78, after=86)")

    assert _guarded_description(failing)(lambda: 0) == "<lambda>"


@pytest.mark.parametrize(
    "read",
    [
        lambda: get_pretty_function_description(lambda value: value - 43),
        lambda: filtering.get_integer_predicate_bounds(lambda value: value > 43).constraints,
    ],
    ids=["description", "filter on a number"],
)
def test_lambda_sources_are_read_one_thread_at_a_time(read: Any) -> None:
    guard()
    done: list[Any] = []
    thread = threading.Thread(target=lambda: done.append(read()))
    with BUILDING:  # an exploration building its strategies
        thread.start()
        thread.join(timeout=0.2)
        assert thread.is_alive() and not done
    thread.join(timeout=10)
    assert done in (["lambda value: value - 43"], [{"min_value": 44}]), "and read as before"


def test_the_local_constants_are_collected_before_any_draw() -> None:
    guard()
    assert providers._sys_modules_len == len(sys.modules)


def _run_a_seeded_test() -> list[int]:
    drawn: list[int] = []

    @settings(max_examples=5, database=None)
    @given(st.integers())
    def test(value: int) -> None:
        drawn.append(value)

    seeded(test, 7)
    test()
    return drawn


def test_a_worker_thread_adds_no_generator_for_hypothesis_to_save_and_restore_at_each_example() -> None:
    """Every registered Random is saved, seeded and restored around every example of every
    thread; a worker thread's own (for tests given no seed) was one more per thread. Kept alive
    (the thread's locals hold it) while the thread runs: counted before it ends."""
    held = threading.Event()
    release = threading.Event()

    def hold(target: Any) -> Any:
        def held_run() -> Any:
            value = target()
            held.set()
            release.wait(5)
            return value

        return held_run

    counts = []
    for target in (hold(_run_a_seeded_test), hold(in_worker_thread(_run_a_seeded_test))):
        held.clear()
        release.clear()
        before = len(entropy.RANDOMS_TO_MANAGE)
        thread = threading.Thread(target=target)
        thread.start()
        assert held.wait(30)
        counts.append(len(entropy.RANDOMS_TO_MANAGE) - before)
        release.set()
        thread.join()
    assert counts == [1, 0], "a plain thread registers one; a worker thread none"
    in_thread: list[list[int]] = []
    thread = threading.Thread(target=lambda: in_thread.append(in_worker_thread(_run_a_seeded_test)()))
    thread.start()
    thread.join()
    assert in_thread == [_run_a_seeded_test()], "the same draws from the same seed"


def _runners_alive() -> int:
    from hypothesis.internal.conjecture.engine import ConjectureRunner

    return sum(isinstance(thing, ConjectureRunner) for thing in gc.get_objects())


def _finished_run_left() -> int:
    """Run a small Hypothesis test, call `collect_finished_runs`, and count the engines left
    (with the collector off, so that only that call could free one)."""
    gc.disable()
    try:
        before = _runners_alive()

        @settings(max_examples=5, database=None)
        @given(st.integers())
        def run(value: int) -> None:
            pass

        run()
        finished_runs.collect_finished_runs()
        return _runners_alive() - before
    finally:
        gc.enable()
        gc.collect()


def test_a_finished_runs_engine_is_freed_by_collect_finished_runs_and_not_before(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(finished_runs, "_last_collection", [0.0])
    monkeypatch.setattr(finished_runs, "_collecting", [False])
    gc.collect()
    run_and_count = _finished_run_left
    assert run_and_count() == 1  # not enabled (a pytest session's process): no collection
    finished_runs.collect_runs_when_they_end()
    gc.collect()
    gc.disable()  # the collection is the one under test's, not the allocator's whim
    try:
        before = _runners_alive()

        @settings(max_examples=20, database=None)
        @given(st.lists(st.integers()))
        def run(values: list[int]) -> None:
            pass

        run()
        assert _runners_alive() == before + 1  # its engine and state hold each other: a count of references never frees them
        finished_runs.collect_finished_runs()
        assert _runners_alive() == before
        monkeypatch.setattr(finished_runs, "COLLECT_EVERY", 3600.0)
        run()
        finished_runs.collect_finished_runs()  # within COLLECT_EVERY of the last: no collection
        assert _runners_alive() == before + 1
    finally:
        gc.enable()


_CONSTANTS_AFTER_GUARD = """
import os, sys
os.environ["HYPOTHESIS_NO_PLUGINS"] = "1"
import fuzz.faces._cli, fuzz.engine.run, fuzz.engine._scheduler, strategies
from strategies._hypothesis.threads import guard
from hypothesis.internal.conjecture import providers
guard()
strings = providers._local_constants.set_for_type("string")
print(len(providers._local_constants), "%SRCROOT%" in strings)
"""


def test_the_harness_own_source_is_no_source_of_local_constants() -> None:
    """Run from the checkout (as here), the harness's modules are outside site-packages: the
    strings and numbers of its source (991 of them, `%SRCROOT%` among them) were Hypothesis's local constants, drawn
    now and then, so that one seed drew other values than from an installed harness. Checked
    in a fresh interpreter: this one may have read them before the guard."""
    import subprocess
    from pathlib import Path

    answer = subprocess.run(
        [sys.executable, "-c", _CONSTANTS_AFTER_GUARD],
        cwd=Path(__file__).resolve().parent.parent,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert answer.stdout.split() == ["0", "False"], answer
