"""The record every strategy draws: a value and the reason it is what it is."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Labelled(Generic[T]):
    """A drawn value with its label, e.g. `arguments.b: missing (required)`.

    A label is a checked statement, never a guess: the strategy that attaches it has verified
    it (with `jsonschema` for argument labels, by exact comparison for names).
    """

    value: T
    label: str
