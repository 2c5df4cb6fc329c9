"""Hypothesis in the explorations' worker threads (`fuzz.engine.hypothesis_threads`): a lambda's
description that another thread's import breaks is made again, not raised into a draw (where it
skipped a case kind, and two runs of one seed differed); the local constants are collected
before any draw."""

from __future__ import annotations

import sys
import threading
from typing import Any

import pytest
from hypothesis.internal import filtering, lambda_sources
from hypothesis.internal.conjecture import providers
from hypothesis.internal.reflection import get_pretty_function_description

from fuzz.engine.hypothesis_threads import BUILDING, _guarded_description, guard


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


@pytest.mark.parametrize("read", [
    lambda: get_pretty_function_description(lambda value: value - 43),
    lambda: filtering.get_integer_predicate_bounds(lambda value: value > 43).constraints,
], ids=["description", "filter on a number"])
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
