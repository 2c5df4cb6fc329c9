"""`ConjectureData.draw` without the three imports it makes at every call, for the examples of
the explorations' own tests (`strategies._hypothesis.fresh_generation`: generated, shrunk and replayed).

Every strategy a case is made of is drawn through `data.draw`: a list's items, a `one_of`'s
branch, a filter's retries, a composite's every `draw(...)`, ten to twenty draws a case. In
Hypothesis 6.170 the method begins with three `from ... import ...` statements (they break an
import cycle), which CPython runs at each call: about 3 µs of the 4-5 µs that the method adds to
a draw, on this project's 2-core machine. `QuickDraws.draw` does below the top level what the
method does there, in the same order (validation, the empty-strategy and depth checks, one span
opened under the drawn strategy's label, its value recorded, the span closed), with the names
imported once; the top-level draw (once an example: it times the draw) and a draw that must
re-encode a value (a `ValueHole` in the prefix) are Hypothesis's own. The same choices give the
same values and the same spans, so the shrinker, which sees only those, does what it did
(tests/test_draw_cost.py holds both, and fails first if a Hypothesis release moves what this
uses). Any other test (the sequence phase's, a pytest plugin user's) draws through Hypothesis's
own class.

On the demo, drawing a batch of 16 cases cost 10-20% less (`kindcost`, four interleaved pairs);
the reports of one seed are the same.
"""

from __future__ import annotations

from typing import Any

from hypothesis.errors import FlakyStrategyDefinition

from strategies._hypothesis.private import MAX_DEPTH, ConjectureData, ValueHole, unwrap_strategies

_SPAN_RECORD = "_ConjectureData__span_record"
"""`ConjectureData.__span_record`, as its name is mangled: where a span's drawn value is recorded."""


def quick(data: Any) -> Any:
    """`data` (a `ConjectureData` Hypothesis made) drawing through `QuickDraws.draw`, where this
    Hypothesis has what that uses; else `data` as it was."""
    if type(data) is ConjectureData and hasattr(data, _SPAN_RECORD):
        data.__class__ = QuickDraws
    return data


class QuickDraws(ConjectureData):
    """A `ConjectureData` whose draws below the top level skip the imports (see the module)."""

    __slots__ = ()

    def draw(self, strategy: Any, label: int | None = None, observe_as: str | None = None) -> Any:
        prefix = self.prefix
        if self.depth == 0 or (prefix is not None and self.index < len(prefix) and isinstance(prefix[self.index], ValueHole)):
            return super().draw(strategy, label, observe_as)
        strategy.validate()
        if strategy.is_empty:
            self.mark_invalid(f"empty strategy {strategy!r}")
        if self.depth >= MAX_DEPTH:
            self.mark_invalid("max depth exceeded")
        unwrapped = unwrap_strategies(strategy)  # type: ignore[no-untyped-call]
        if label is None:
            label = unwrapped.label
        record = getattr(self, _SPAN_RECORD)
        span_index = record.span_count
        self.start_span(label=label)
        try:
            value = unwrapped.do_draw(self)
            record.record_value_for_span(span_index, value)
            return value
        except FlakyStrategyDefinition as error:
            error.add_note(f"while drawing from {strategy!r}")
            raise
        finally:
            self.stop_span()
