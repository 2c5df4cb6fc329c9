"""Values drawn as an index into a pool drawn once: junk that costs two choices.

A fuzzer's malformed requests and unknown-tool calls carry arbitrary JSON. Examples are a
request's `params` as an array, or an unknown tool's arguments. No rule reads these values
closely, yet they are a large share of a run's cases on a fast server. Drawn whole, small nested
JSON costs Hypothesis a choice and a span for each part. Drawing from the pool is cheaper than
drawing afresh.

`pooled(strategy, name)` usually draws one index into a pool (`FROM_POOL` says how often). The
pool holds `POOL_SIZE` values of `strategy`, drawn once per process. Otherwise it draws a value
afresh.

- The pool is drawn from a seed that is the pool's name. So it holds the same values in every
  process, run and machine. A run is then repeatable from its seed. A failure saved in the
  example database replays in a later run (`fuzz.engine.examples`).
- The pool is ordered simplest first, in Hypothesis's own order of choice sequences. The choice
  between pool and fresh shrinks to fresh. So junk that does not matter to a failure shrinks to
  the simplest value, as before. Junk that does matter shrinks to the simplest value of the pool
  that still fails. That is not always as far as a fresh draw would go, since Hypothesis cannot
  take a pooled value apart. But what the rules judge of such requests is their shape, which the
  label names: an unknown name, or `params` that is not an object.
- A value drawn from the pool is shared between the cases that drew it. So callers treat drawn
  values as immutable. Every strategy here builds new containers rather than change one.
"""

from __future__ import annotations

import hashlib
import threading
from random import Random
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from hypothesis.errors import StopTest
from hypothesis.strategies import SearchStrategy

from strategies._hypothesis.no_local_constants import global_constants_permitted
from strategies._hypothesis.private import (
    BuildContext,
    ChoiceTemplate,
    ConjectureData,
    HypothesisProvider,
    calc_label_from_cls,
    combine_labels,
    sort_key,
)

if TYPE_CHECKING:
    from collections.abc import Callable

T = TypeVar("T")

POOL_SIZE = 64
"""Values in a pool."""

FROM_POOL = 0.75
"""How often a draw takes a value from the pool rather than drawing one afresh."""

_FILLING = threading.RLock()
"""Held while a pool is drawn.

It is reentrant, as a pool of values that hold pooled values fills both pools.
"""


def pooled(strategy: SearchStrategy[T], name: str, size: int = POOL_SIZE) -> SearchStrategy[T]:
    """`strategy`'s values, most of them from a pool of `size` drawn once.

    See the module's docstring for why. `name` seeds the pool: give each pooled strategy its
    own.
    """
    return _Pooled(strategy, name, size)


class _Pooled(SearchStrategy[T], Generic[T]):
    def __init__(self, strategy: SearchStrategy[T], name: str, size: int) -> None:
        super().__init__()
        self._strategy = strategy
        self._name = name
        self._size = size
        self._pool: tuple[T, ...] | None = None

    def calc_label(self) -> int:
        label: int = combine_labels(calc_label_from_cls(_Pooled), self._strategy.label)
        return label

    def calc_is_empty(self, recur: Callable[[SearchStrategy[Any]], bool]) -> bool:
        return bool(recur(self._strategy))

    def calc_is_cacheable(self, recur: Callable[[SearchStrategy[Any]], bool]) -> bool:
        return bool(recur(self._strategy))

    def do_validate(self) -> None:
        self._strategy.validate()

    def do_draw(self, data: ConjectureData) -> T:
        if not data.draw_boolean(FROM_POOL):
            return data.draw(self._strategy)
        pool = self.pool
        if not pool:  # a strategy that rejected every value drawn for it
            return data.draw(self._strategy)
        return pool[data.draw_integer(0, len(pool) - 1)]

    @property
    def pool(self) -> tuple[T, ...]:
        return self._pool if self._pool is not None else self._fill()

    def _fill(self) -> tuple[T, ...]:
        with _FILLING:
            if self._pool is None:
                self._pool = draw_pool(self._strategy, self._name, self._size)
            return self._pool

    def __repr__(self) -> str:
        return f"pooled({self._strategy!r}, {self._name!r})"


def draw_pool(strategy: SearchStrategy[T], name: str, size: int) -> tuple[T, ...]:
    """Up to `size` distinct values of `strategy`, the simplest first.

    Values are distinct by repr. They are drawn from a seed made of `name`. The first is the
    strategy's simplest value.
    """
    random = Random(int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest(), "big"))
    drawn: dict[str, tuple[tuple[int, tuple[int, ...]], T]] = {}
    prefixes = [ConjectureData.for_choices((ChoiceTemplate("simplest", count=None),), provider=_GlobalConstantsOnly)]
    for _ in range(4 * size):
        data = prefixes.pop() if prefixes else ConjectureData(random=random, provider=_GlobalConstantsOnly)
        try:
            value = draw_outside_a_test(strategy, data)
        except StopTest:
            continue
        data.freeze()
        key = repr(value)
        if key not in drawn:
            drawn[key] = (sort_key(data.nodes), value)
            if len(drawn) == size:
                break
    return tuple(value for _, value in sorted(drawn.values(), key=lambda item: item[0]))


def draw_outside_a_test(strategy: SearchStrategy[T], data: ConjectureData) -> T:
    """A value of `strategy` drawn into `data`, outside any test.

    A build context is still entered, because some strategies record there how to print what
    they drew. Raises StopTest when `data` rejects the value.
    """
    with BuildContext(data, wrapped_test=draw_outside_a_test):
        return data.draw(strategy)


class _GlobalConstantsOnly(HypothesisProvider):
    """Hypothesis's provider, minus its "local constants".

    Local constants are read from the modules of the code under test. Which modules those are
    depends on the process: the CLI, a pytest run, or a user's suite. A pool must not depend on
    the process.
    """

    def _maybe_draw_constant(self, choice_type: Any, constraints: Any, *, p: float = 0.05) -> Any:
        assert self._random is not None
        if self._random.random() > p:
            return None
        permitted = global_constants_permitted(choice_type, constraints)
        return self._random.choice(permitted) if permitted else None
