"""Integers and numbers a schema accepts: the generator's numeric family.

Reads `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` and `multipleOf`. The
exclusive bounds are read in 2020-12's numeric form. Draft-04's boolean form is ignored and left
to the validator.

Integers come as ints and, as often, as the integral floats JSON Schema counts as integers. A
server must take 2.0 for 2. Shrinks towards zero, or towards the bound nearest it.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import TYPE_CHECKING, Any, TypeGuard

from hypothesis import strategies as st

from strategies.drawing import inlined

if TYPE_CHECKING:
    from collections.abc import Mapping

    from strategies._hypothesis.private import ConjectureData


def is_finite_number(value: object) -> TypeGuard[int | float]:
    """A JSON number the generator can compute with: not a boolean, not NaN or infinite."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def integers_for(schema: Mapping[str, Any]) -> st.SearchStrategy[Any]:
    """Integers within the schema's bounds and multiple of its `multipleOf`."""
    low, high = _integer_bounds(schema)
    if low is not None and high is not None and low > high:
        return st.nothing()
    step = schema.get("multipleOf")
    if is_finite_number(step) and step > 0 and float(step).is_integer():
        whole_step = int(step)
        first = None if low is None else -(-low // whole_step)
        last = None if high is None else high // whole_step
        base = st.integers(first, last).map(lambda k: k * whole_step)
    elif is_finite_number(step) and step > 0:
        return _multiples(schema, step).filter(lambda value: float(value).is_integer()).map(int)
    else:
        base = st.integers(low, high)
    return JsonIntegers(base)


class JsonIntegers(st.SearchStrategy[Any]):
    """The integers `base` draws, half of them as integral floats.

    JSON Schema also counts an integral float as an integer: a server must take 2.0 for 2. An
    int beyond 2**53 stays an int, since no float holds it exactly. Shrinks towards the int form
    of `base`'s simplest.

    It is one strategy rather than `one_of(base, base.filter(...).map(float))`. It gives the
    same values and shrinking in two draws, where that took five. The five were a branch, a
    filter and a map, each a span. Integers are the commonest leaf of a tool's arguments, so the
    saving counts.
    """

    def __init__(self, base: st.SearchStrategy[int]) -> None:
        super().__init__()
        self._base = base
        self._inlined: st.SearchStrategy[int] | None = None

    def do_validate(self) -> None:
        self._base.validate()

    def do_draw(self, data: ConjectureData) -> int | float:
        base = self._inlined
        if base is None:
            base = self._inlined = inlined(self._base)
        value = base.do_draw(data)
        as_float = data.draw_boolean()
        return float(value) if as_float and abs(value) < 2**53 else value

    def __repr__(self) -> str:
        return f"JsonIntegers({self._base!r})"


def _integer_bounds(schema: Mapping[str, Any]) -> tuple[int | None, int | None]:
    low = high = None
    if is_finite_number(schema.get("minimum")):
        low = math.ceil(schema["minimum"])
    if is_finite_number(schema.get("exclusiveMinimum")):
        bound = math.floor(schema["exclusiveMinimum"]) + 1
        low = bound if low is None else max(low, bound)
    if is_finite_number(schema.get("maximum")):
        high = math.floor(schema["maximum"])
    if is_finite_number(schema.get("exclusiveMaximum")):
        bound = math.ceil(schema["exclusiveMaximum"]) - 1
        high = bound if high is None else min(high, bound)
    return low, high


def floats_for(schema: Mapping[str, Any]) -> st.SearchStrategy[Any]:
    """Finite floats within the schema's bounds, or multiples of its `multipleOf`.

    Exclusive bounds are excluded.
    """
    step = schema.get("multipleOf")
    if is_finite_number(step) and step > 0:
        return _multiples(schema, step)
    low = schema.get("minimum") if is_finite_number(schema.get("minimum")) else None
    high = schema.get("maximum") if is_finite_number(schema.get("maximum")) else None
    exclude_low = exclude_high = False
    if is_finite_number(schema.get("exclusiveMinimum")) and (low is None or schema["exclusiveMinimum"] >= low):
        low, exclude_low = schema["exclusiveMinimum"], True
    if is_finite_number(schema.get("exclusiveMaximum")) and (high is None or schema["exclusiveMaximum"] <= high):
        high, exclude_high = schema["exclusiveMaximum"], True
    if low is not None and high is not None and (low > high or (low == high and (exclude_low or exclude_high))):
        return st.nothing()
    return st.floats(
        min_value=low,
        max_value=high,
        exclude_min=exclude_low and low is not None,
        exclude_max=exclude_high and high is not None,
        allow_nan=False,
        allow_infinity=False,
    )


_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")


def _multiples(schema: Mapping[str, Any], step: float) -> st.SearchStrategy[Any]:
    """k * multipleOf computed in decimal, so that 3 * 0.01 is 0.03.

    In floats it would be 0.030000000000000002. The validator still has the last word on float
    rounding.
    """
    exact = Decimal(repr(step))
    bounds = {key: value / step for key, value in schema.items() if key in _BOUNDS and is_finite_number(value)}
    low, high = _integer_bounds(bounds)
    return st.integers(low, high).map(lambda k: float(Decimal(k) * exact))
