"""Pooled junk (`strategies._pools`): the same values in every process, the simplest first, a
fraction of the choices a fresh draw makes, and never changed by the cases that carry them."""

from __future__ import annotations

import subprocess
import sys
import threading
from random import Random
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st
from hypothesis.internal.conjecture.data import ConjectureData

from strategies import CaseKind, Tool, cases, malformed_envelopes
from strategies._pools import FROM_POOL, POOL_SIZE, draw_outside_a_test, draw_pool, pooled
from strategies.cases import _any_arguments, envelope_cases
from strategies.envelopes import _small_json

JUNK = st.dictionaries(st.text(max_size=8), st.none() | st.booleans() | st.integers(), max_size=3)


@pytest.mark.slow
def test_a_pool_is_the_same_in_another_process() -> None:
    here = repr(draw_pool(JUNK, "test junk", POOL_SIZE))
    script = (
        "from hypothesis import strategies as st\n"
        "from strategies._pools import POOL_SIZE, draw_pool\n"
        "JUNK = st.dictionaries(st.text(max_size=8), st.none() | st.booleans() | st.integers(), max_size=3)\n"
        "print(repr(draw_pool(JUNK, 'test junk', POOL_SIZE)))\n"
    )
    there = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout.strip()
    assert there == here
    assert repr(draw_pool(JUNK, "other junk", POOL_SIZE)) != here, "the name seeds the pool"


def test_a_pool_holds_distinct_values_the_simplest_first() -> None:
    pool = draw_pool(JUNK, "test junk", POOL_SIZE)
    assert len(pool) == POOL_SIZE
    assert len({repr(value) for value in pool}) == POOL_SIZE
    assert pool[0] == {} == find(JUNK, lambda _: True)
    assert len(pool[1]) <= 1 and max(len(value) for value in pool) == 3


def test_a_pooled_value_costs_a_fraction_of_the_choices_of_a_fresh_one() -> None:
    fresh, from_pool = _choices_per_draw(_small_json._strategy), _choices_per_draw(_small_json)  # type: ignore[attr-defined]
    assert from_pool < fresh / 2, (from_pool, fresh)


def _choices_per_draw(strategy: st.SearchStrategy[Any], draws: int = 400) -> float:
    random = Random(0)
    total = 0
    for _ in range(draws):
        data = ConjectureData(random=random)
        draw_outside_a_test(strategy, data)
        total += len(data.choices)
    return total / draws


def test_most_draws_come_from_the_pool_and_the_rest_are_fresh() -> None:
    """In batches of eight, as the random search draws them. (One value an example, Hypothesis
    soon finds every index tried, and draws afresh: it never repeats an example.)"""
    strategy = pooled(JUNK, "test junk")
    pool = {repr(value) for value in strategy.pool}  # type: ignore[attr-defined]
    seen: list[Any] = []

    @settings(max_examples=100, database=None, phases=(Phase.generate,), suppress_health_check=list(HealthCheck))
    @given(st.tuples(*[strategy] * 8))
    def draw(batch: tuple[Any, ...]) -> None:
        seen.extend(batch)

    draw()
    share = sum(repr(value) in pool for value in seen) / len(seen)
    assert FROM_POOL - 0.15 < share < 1.0, share


def test_a_failure_in_pooled_junk_shrinks_to_the_simplest_pool_value_that_fails() -> None:
    strategy = pooled(JUNK, "test junk")
    pool = strategy.pool  # type: ignore[attr-defined]
    quick = settings(database=None, max_examples=500)
    failing = find(strategy, lambda value: len(value) >= 2, settings=quick)
    first_in_pool = next(value for value in pool if len(value) >= 2)
    simplest = find(JUNK, lambda value: len(value) >= 2, settings=quick)
    assert failing in (first_in_pool, simplest)


def test_the_pools_are_the_same_after_a_run_of_the_cases_that_carry_them() -> None:
    """Pooled values are shared between cases: nothing that builds a case may change one."""
    tool = Tool.from_listing({"name": "add", "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}}}})
    pools = (_small_json, _any_arguments)
    before = [repr(pool.pool) for pool in pools]  # type: ignore[attr-defined]
    strategies = [envelope_cases(), malformed_envelopes(), *(cases(tool, kind, ["add"]) for kind in (CaseKind.UNKNOWN_TOOL, CaseKind.MALFORMED_REQUEST))]

    @settings(max_examples=200, database=None, phases=(Phase.generate,), suppress_health_check=list(HealthCheck))
    @given(st.one_of(strategies))
    def draw(case: Any) -> None:
        repr(case)

    draw()
    assert [repr(pool.pool) for pool in pools] == before  # type: ignore[attr-defined]
    assert before[0] == repr(draw_pool(_small_json._strategy, "small JSON", POOL_SIZE))  # type: ignore[attr-defined]


def test_a_pool_of_values_that_hold_pooled_values_fills_both() -> None:
    inner = pooled(JUNK, "test inner junk")
    outer = pooled(st.lists(inner, min_size=1, max_size=2), "test outer junk")
    filled: list[int] = []
    filling = threading.Thread(target=lambda: filled.append(len(outer.pool)), daemon=True)  # type: ignore[attr-defined]
    filling.start()
    filling.join(timeout=60)
    assert filled == [POOL_SIZE], "the outer pool's lock must let the inner pool fill"
    inner_values = {repr(value) for value in inner.pool}  # type: ignore[attr-defined]
    items = [repr(item) for value in outer.pool for item in value]  # type: ignore[attr-defined]
    assert sum(item in inner_values for item in items) > len(items) / 2, "the outer pool's items come from the inner pool"
