"""Helpers for drawing inside a composite strategy, shared by the families."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, TypeVar

from hypothesis import strategies as st

if TYPE_CHECKING:
    from collections.abc import Sequence

T = TypeVar("T")


def pick(draw: st.DrawFn, items: Sequence[T]) -> T:
    """One of `items`, shrinking to the first, with a strategy built once per length (not one
    `sampled_from` per draw)."""
    return items[draw(_indices(len(items)))]


@lru_cache(maxsize=64)
def _indices(count: int) -> st.SearchStrategy[int]:
    return st.integers(0, count - 1)
