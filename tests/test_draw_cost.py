"""What a case costs to draw: work Hypothesis or the strategies would repeat for nothing.

Each test fails on the code before issue 33's changes: a filtered strategy validated at every
draw, a batch of invalid arguments thrown away whenever one of its eight cases drew a base with
nothing to mutate, a tool's schema checked against its metaschema at every listing. The others
hold the hot path's own `mapped`, `deferred`, `tupled` and `QuickDraws` to what they stand for:
the same values from the same choices as `.map`, `st.deferred`, `st.tuples` and Hypothesis's own
draws, and the same shrinking.
"""

from __future__ import annotations

import contextlib
import json
import threading
from random import Random
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st
from hypothesis.control import current_build_context
from hypothesis.errors import StopTest, Unsatisfiable
from hypothesis.internal.conjecture.choice import ChoiceTemplate
from hypothesis.internal.conjecture.data import ConjectureData, Status
from hypothesis.strategies._internal.lazy import unwrap_strategies
from hypothesis.strategies._internal.strategies import FilteredStrategy

from fuzz.demo_server import TOOLS as DEMO_TOOLS
from strategies import CaseKind, InvalidSchema, SchemaCheck, Tool, cases, invalid_arguments
from strategies._hypothesis import install
from strategies._hypothesis.fresh_generation import FRESH, fresh_generation
from strategies._hypothesis.quick_draws import QuickDraws, quick
from strategies._mutators import _JSON_TYPES
from strategies._pools import draw_outside_a_test
from strategies.cases import envelope_cases
from strategies.drawing import deferred, drawn, mapped, tupled

ONE_OPTIONAL_INTEGER = {"type": "object", "properties": {"level": {"type": "integer"}}}


def test_a_filtered_strategy_stays_validated_after_its_draws() -> None:
    """Once the run has installed its patches (`strategies._hypothesis.filtered`)."""
    install()
    odd = st.integers(0, 100).map(int).filter(lambda k: k % 2 == 1)
    filtered = odd.wrapped_strategy if hasattr(odd, "wrapped_strategy") else odd
    drawn: list[int] = []

    @settings(max_examples=30, database=None)
    @given(odd)
    def draw(value: int) -> None:
        drawn.append(value)

    draw()
    assert drawn and all(value % 2 == 1 for value in drawn)
    assert isinstance(filtered, FilteredStrategy)
    assert filtered.validate_called.get(threading.get_ident()) is True, "validated again at the next draw"


def test_eight_invalid_arguments_of_a_schema_with_one_optional_property_pass_the_health_checks() -> None:
    """A base without the optional property offers no mutation; drawn again, not the batch
    discarded (before, 19 batches in 20 were: Hypothesis's health check failed). The health
    checks that judge the strategy (data too large, too much filtered) stay on, over random
    seeds; `too_slow` is off because it times the machine: in a whole-suite run, four workers
    and their servers on two cores, one batch took 0.65 s to draw where it takes 4 ms alone
    (2026-12-07), and that check failed one suite run in about six. What the draws cost is
    bounded in choices, not seconds, by the test over many seeds below."""
    tool = Tool.from_listing({"name": "maintenance", "inputSchema": ONE_OPTIONAL_INTEGER})
    batches: list[tuple[Any, ...]] = []

    @settings(max_examples=20, database=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.tuples(*[invalid_arguments(tool)] * 8))
    def draw(batch: tuple[Any, ...]) -> None:
        batches.append(batch)

    draw()
    assert len(batches) >= 20
    check = SchemaCheck.for_schema(ONE_OPTIONAL_INTEGER)
    assert all(not check.accepts(drawn.value) for batch in batches for drawn in batch)


def test_over_many_seeds_a_batch_of_invalid_arguments_is_never_thrown_away_and_rarely_over_hypothesiss_early_cap() -> None:
    """Hypothesis's health checks fail a test whose first examples are too often thrown away
    (INVALID: a filter that failed three times) or over its early size cap (OVERRUN: more
    choices than five times the simplest example's). Over 300 seeds, at that cap, a batch of
    eight invalid arguments of a schema with one optional integer property is never thrown away
    (before: one in seven, the wrong type `number` filtered out of floats that are integral two
    times in three) and over the cap one time in five at most (16% measured)."""
    tool = Tool.from_listing({"name": "maintenance", "inputSchema": ONE_OPTIONAL_INTEGER})
    batch = st.tuples(*[invalid_arguments(tool)] * 8)
    simplest = ConjectureData(prefix=[ChoiceTemplate("simplest", count=None)], max_choices=10_000, random=Random(0))
    draw_outside_a_test(batch, simplest)
    cap = 5 * len(simplest.choices)
    statuses: dict[Status, int] = {}
    for seed in range(300):
        data = ConjectureData(random=Random(seed), max_choices=cap)
        with contextlib.suppress(StopTest):
            draw_outside_a_test(batch, data)
            data.freeze()
        statuses[data.status] = statuses.get(data.status, 0) + 1
    assert statuses.get(Status.INVALID, 0) == 0, statuses
    assert statuses.get(Status.OVERRUN, 0) <= 60, statuses


def test_a_wrong_type_number_is_never_an_integer_and_shrinks_to_one_half() -> None:
    """The wrong type `number` of an integer property is made, not filtered: every draw counts."""
    number = _JSON_TYPES["number"]
    assert find(number, lambda value: True, settings=settings(database=None)) == 0.5
    drawn = [draw_outside_a_test(number, ConjectureData(random=Random(seed))) for seed in range(500)]
    assert all(isinstance(value, float) and not value.is_integer() for value in drawn)
    assert len(set(drawn)) > 100


def test_a_schema_is_checked_against_its_metaschema_once_however_often_a_tool_is_made(monkeypatch: pytest.MonkeyPatch) -> None:
    checked: list[Any] = []
    original = jsonschema.Draft202012Validator.check_schema

    def counting(schema: Any, *arguments: Any, **keywords: Any) -> None:
        checked.append(schema)
        original(schema, *arguments, **keywords)

    monkeypatch.setattr(jsonschema.Draft202012Validator, "check_schema", counting)
    schema = {"type": "object", "properties": {"a-never-seen-name": {"type": "integer", "minimum": 3}}}
    for _ in range(3):
        Tool.from_listing({"name": "add", "inputSchema": dict(schema)})
    assert len(checked) == 1

    broken = {"type": "object", "properties": {"a": {"type": "integer", "minimum": "three"}}}
    for _ in range(2):
        with pytest.raises(InvalidSchema, match="minimum"):
            Tool.from_listing({"name": "broken", "inputSchema": broken})
    assert len(checked) == 3, "a schema that failed its check is checked again, never taken for checked"


_RECURSIVE = st.recursive(st.integers(-50, 50) | st.text(max_size=3), lambda inner: st.lists(inner, max_size=3), max_leaves=8)


def _draws(strategy: st.SearchStrategy[Any], seed: int, count: int = 40) -> list[Any]:
    """What `strategy` draws in one seeded Hypothesis run (the same seed, the same choices)."""
    drawn: list[Any] = []

    @settings(max_examples=count, database=None, derandomize=True, phases=[Phase.generate])
    @given(st.tuples(strategy, st.integers(0, seed)))
    def draw(value: tuple[Any, int]) -> None:
        drawn.append(value[0])

    draw()
    return drawn


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def test_mapped_draws_and_shrinks_as_map_does() -> None:
    """Fewer spans, the same choices: the same values from one seed, and the same minimal
    example (a map records no choice of its own)."""
    for seed in (1, 7):
        assert _draws(mapped(_RECURSIVE, _key), seed) == _draws(_RECURSIVE.map(_key), seed)
    big = lambda text: len(text) > 20  # noqa: E731
    assert find(mapped(_RECURSIVE, _key), big) == find(_RECURSIVE.map(_key), big)
    with pytest.raises(Unsatisfiable):
        find(mapped(st.nothing(), _key), lambda _: True, settings=settings(database=None))


def test_deferred_draws_as_st_deferred_does_and_is_unwrapped_once() -> None:
    built: list[int] = []

    def definition() -> st.SearchStrategy[Any]:
        built.append(1)
        return _RECURSIVE

    ours, theirs = deferred(definition), st.deferred(lambda: _RECURSIVE)
    assert _draws(ours, 3) == _draws(theirs, 3)
    assert built == [1]
    assert unwrap_strategies(ours) is unwrap_strategies(_RECURSIVE), "remembered: no thread-local cycle search per draw"
    assert deferred(st.nothing).is_empty


def test_drawn_is_the_composite_it_stands_for_without_reading_source_at_each_build(monkeypatch: pytest.MonkeyPatch) -> None:
    def pair(draw: st.DrawFn) -> tuple[Any, Any]:
        first = draw(_RECURSIVE)
        return first, draw(st.sampled_from([first, "other"]))

    theirs = st.composite(pair)()
    assert _draws(drawn(pair), 5) == _draws(theirs, 5)
    assert drawn(pair).label == unwrap_strategies(theirs).label, "the spans the mutator groups are the composite's"

    import inspect

    read: list[Any] = []
    getsource = inspect.getsource
    monkeypatch.setattr(inspect, "getsource", lambda thing: read.append(thing) or getsource(thing))
    built = drawn(pair)
    built.validate()
    assert built.label == drawn(pair).label
    assert read == [], "no source read to build one"
    st.composite(pair)
    assert read == [pair], "as @st.composite reads it"


def _replayed(data: ConjectureData, strategy: st.SearchStrategy[Any]) -> tuple[str, Status, list[tuple[Any, ...]]]:
    """What `data` draws from `strategy`: the value (its repr), the status and every span."""
    try:
        value = repr(draw_outside_a_test(strategy, data))
    except StopTest:
        value = "(stopped)"
    data.freeze()
    return value, data.status, [(span.label, span.start, span.end, span.depth, span.discarded) for span in data.spans]


def _demo_case_strategies() -> list[st.SearchStrategy[Any]]:
    tools = [Tool.from_listing(listing) for listing in DEMO_TOOLS]
    names = [tool.name for tool in tools]
    made = [envelope_cases(), _RECURSIVE, st.lists(st.integers(0, 3), unique=True, max_size=4).filter(lambda items: len(items) != 2)]
    for tool in tools:
        for kind in (CaseKind.VALID_ARGUMENTS, CaseKind.INVALID_ARGUMENTS, CaseKind.UNKNOWN_TOOL, CaseKind.MALFORMED_REQUEST):
            strategy = cases(tool, kind, names)
            if not strategy.is_empty:
                made.append(st.tuples(strategy, strategy))
    return made


def test_quick_draws_make_the_values_and_spans_hypothesis_makes_from_the_same_choices() -> None:
    """`strategies._hypothesis.quick_draws`: what the shrinker sees of an example is its choices, status and
    spans, so a draw that makes all three the same from the same choices shrinks the same. Each
    of the demo's case strategies (and Hypothesis's combinators) drawn from random choices, then
    replayed through Hypothesis's `ConjectureData` and through `QuickDraws`."""
    compared = 0
    for strategy in _demo_case_strategies():
        for seed in range(6):
            generated = ConjectureData(random=Random(seed))
            _replayed(generated, strategy)
            theirs = ConjectureData.for_choices(generated.choices)
            ours = quick(ConjectureData.for_choices(generated.choices))
            assert type(ours) is QuickDraws, "this Hypothesis has what QuickDraws uses"
            expected = _replayed(theirs, strategy)
            assert _replayed(ours, strategy) == expected, strategy
            compared += len(expected[2])
    assert compared > 5000, "spans compared"


def test_an_explorations_examples_draw_quickly_shrinking_included_and_anyone_elses_as_hypothesis_draws() -> None:
    fresh_generation()
    classes: dict[str, set[type]] = {"fresh": set(), "other": set()}
    shrunk: dict[str, list[int]] = {}

    def test_of(name: str) -> Any:
        @settings(max_examples=50, database=None, derandomize=True)
        @given(st.lists(st.integers(0, 1000)))
        def test(items: list[int]) -> None:
            classes[name].add(type(current_build_context().data))
            if sum(items) > 1500:
                shrunk[name] = items
                raise AssertionError

        return test

    fresh = test_of("fresh")
    setattr(fresh.hypothesis.inner_test, FRESH, True)
    for test in (fresh, test_of("other")):
        with pytest.raises(AssertionError):
            test()
    assert classes == {"fresh": {QuickDraws}, "other": {ConjectureData}}, "shrinking and the final replay included"
    assert shrunk["fresh"] == shrunk["other"] == [501, 1000], shrunk


def test_tupled_draws_the_values_and_spans_st_tuples_draws_from_the_same_choices() -> None:
    """`tupled` leaves out only what the explain phase and the printout read (arg spans, a
    printer): the same label, values, status and spans, so the same shrinking."""
    compared = 0
    for strategy in _demo_case_strategies():
        ours, theirs = tupled(strategy, strategy, strategy), st.tuples(strategy, strategy, strategy)
        assert ours.label == theirs.label
        for seed in range(4):
            generated = ConjectureData(random=Random(seed))
            _replayed(generated, theirs)
            expected = _replayed(ConjectureData.for_choices(generated.choices), theirs)
            assert _replayed(ConjectureData.for_choices(generated.choices), ours) == expected, strategy
            compared += len(expected[2])
    assert compared > 5000, "spans compared"
    big = lambda pair: len(pair[0]) + len(pair[1]) > 20  # noqa: E731
    assert find(tupled(st.text(), st.text()), big) == find(st.tuples(st.text(), st.text()), big)
