"""Helpers for drawing, shared by the families of strategies.

`pick` draws one item inside a composite strategy. `mapped`, `deferred`, `drawn` and `tupled`
are the hot path's `.map`, `st.deferred`, `@st.composite` and `st.tuples`.

The last four reach into Hypothesis's internals, through `strategies._hypothesis`. Every case
goes through them, and each saves bookkeeping the harness never uses. tests/test_draw_cost.py
holds their values and shrinking to the public forms'. It fails first if a Hypothesis release
moves what they use.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from strategies._hypothesis.private import (
    CompositeStrategy,
    DeferredStrategy,
    LazyStrategy,
    TupleStrategy,
    calc_label_from_callable,
    calc_label_from_cls,
    combine_labels,
    unwrap_strategies,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from strategies._hypothesis.private import ConjectureData

T = TypeVar("T")
U = TypeVar("U")


def pick(draw: st.DrawFn, items: Sequence[T]) -> T:
    """One of `items`, shrinking to the first.

    Its strategy is built once per length, not as one `sampled_from` per draw.
    """
    return items[draw(_indices(len(items)))]


@lru_cache(maxsize=64)
def _indices(count: int) -> st.SearchStrategy[int]:
    return st.integers(0, count - 1)


def mapped(strategy: SearchStrategy[T], function: Callable[[T], U]) -> SearchStrategy[U]:
    """`strategy.map(function)`, in one span where `.map` takes three.

    It gives the same values from the same choices, so the same shrinking. What it leaves out is
    what a fuzzer's every case paid for and never used. Hypothesis's map opens a span of its
    own, and one for the mapped draw. It catches warnings, which copies the filters, twice. It
    records the call for the falsifying example's printout. The harness never prints that; it
    reports its own request.

    Every case went through several maps. `function` must not reject (`assume`). The draw would
    be discarded, not retried as `.map` retries it.
    """
    return _Mapped(strategy, function)


class _Mapped(SearchStrategy[U], Generic[T, U]):
    def __init__(self, strategy: SearchStrategy[T], function: Callable[[T], U]) -> None:
        super().__init__()
        self._strategy = strategy
        self._function = function
        self._unwrapped: SearchStrategy[T] | None = None

    def calc_label(self) -> int:
        # The drawn strategy's own: the one span there is carries what the mutator groups by.
        return self._strategy.label

    def calc_is_empty(self, recur: Any) -> bool:
        return bool(recur(self._strategy))

    def calc_is_cacheable(self, recur: Any) -> bool:
        return bool(recur(self._strategy))

    def do_validate(self) -> None:
        self._strategy.validate()

    def do_draw(self, data: ConjectureData) -> U:
        unwrapped = self._unwrapped
        if unwrapped is None:
            unwrapped = self._unwrapped = inlined(self._strategy)
        return self._function(unwrapped.do_draw(data))

    def __repr__(self) -> str:
        return f"mapped({self._strategy!r}, {getattr(self._function, '__name__', self._function)!r})"


def inlined(strategy: SearchStrategy[T]) -> SearchStrategy[T]:
    """`strategy` unwrapped and validated, for a strategy built on it to draw inline.

    A strategy built on `strategy` may call this one's `do_draw` itself. The draw is then inside
    its own span, rather than in one more, as `data.draw` would open. Lazy and deferred wrappers
    are unwrapped. The result is validated, which `data.draw` would have done. Call it at the
    first draw, not when building: a deferred strategy is built when it is unwrapped.
    """
    unwrapped: SearchStrategy[T] = unwrap_strategies(strategy)  # type: ignore[no-untyped-call]
    unwrapped.validate()
    return unwrapped


def deferred(definition: Callable[[], SearchStrategy[T]]) -> SearchStrategy[T]:
    """`st.deferred(definition)`, whose strategy, once built, is found at once on every draw.

    Each draw unwraps what it draws from. Hypothesis remembers the unwrapping of a lazy strategy,
    but not of a deferred one. It redoes that every time, with a thread-local cache for cycles
    and two attribute errors. Property values and array items are deferred, for recursive
    schemas. So an object of two integers paid it twice a case. Remembering the unwrapping made
    the demo's `add` valid arguments cheaper to draw.
    """
    return _Deferred(definition)


class _Deferred(DeferredStrategy):
    @property
    def wrapped_strategy(self) -> SearchStrategy[Any]:
        built: SearchStrategy[Any] = super().wrapped_strategy
        if "_unwrapped" not in self.__dict__:
            # What `unwrap_strategies` reads first for a lazy strategy; a cycle of deferred
            # strategies (unwrapped to one of them) is left to Hypothesis.
            unwrapped = unwrap_strategies(built)  # type: ignore[no-untyped-call]
            if not isinstance(unwrapped, (LazyStrategy, DeferredStrategy)):
                self.__dict__["_unwrapped"] = unwrapped
        return built


def drawn(definition: Callable[[st.DrawFn], T]) -> SearchStrategy[T]:
    """`st.composite(definition)()`, for a definition made anew at each build.

    Such a definition is a closure over one schema's parts. `@st.composite` is meant for a
    definition made once, at import. Each time it decorates a function, it reads the function's
    signature. It parses its source to check that it draws (`inspect.getsource`, `ast.parse`).
    It compiles a wrapper with the same signature. That work was repeated at each build of an
    object's, an array's or an invalid value's strategy, at a real cost to a run.

    The strategy, its label and its draws are the composite's. The label is what the mutator
    groups spans by.
    """
    return _Drawn(definition)


class _Drawn(CompositeStrategy):
    def __init__(self, definition: Callable[[st.DrawFn], Any]) -> None:
        super().__init__(definition, (), {})  # type: ignore[no-untyped-call]

    def calc_label(self) -> int:
        label: int = combine_labels(calc_label_from_cls(CompositeStrategy), calc_label_from_callable(self.definition))
        return label

    def __repr__(self) -> str:
        return f"{getattr(self.definition, '__name__', 'drawn')}()"


def tupled(*strategies: SearchStrategy[Any]) -> SearchStrategy[tuple[Any, ...]]:
    """`st.tuples(*strategies)`, without the two context managers an element costs.

    Hypothesis's tuple wraps each element's draw in `track_arg_label` and `track_arg_span`. It
    also keeps a printer for the tuple. Its explain phase and its falsifying example's printout
    read these. The harness runs neither; it reports its own request. A batch of cases is a
    tuple of 32, or 16 over HTTP. An unknown tool's call is a tuple of a name and arguments. So
    the cost per element adds up. The strategy, its label, its spans and its values from the
    same choices are the tuple's.
    """
    return _Tupled(strategies)


class _Tupled(TupleStrategy):
    @property
    def class_label(self) -> int:
        return calc_label_from_cls(TupleStrategy)

    def do_draw(self, data: ConjectureData) -> tuple[Any, ...]:
        draw = data.draw
        return tuple([draw(strategy) for strategy in self.element_strategies])
