"""`ConjectureData.draw` without the three imports it makes at every call.

It serves the examples of the explorations' own tests, generated, shrunk and replayed. Those
tests are marked by `strategies._hypothesis.fresh_generation`.

Every strategy a case is made of is drawn through `data.draw`. That covers a list's items, a
`one_of`'s branch, a filter's retries and a composite's every `draw(...)`. So a case makes many
draws. In Hypothesis 6.170 the method begins with three `from ... import ...` statements, which
break an import cycle. CPython runs them at each call. They are most of what the method adds to
a draw.

`QuickDraws.draw` does below the top level what the method does there, in the same order. It
validates the strategy, then checks for an empty strategy and for depth. It opens one span
under the drawn strategy's label. It records the drawn value, and closes the span.

Its names are imported once. Two kinds of draw are left to Hypothesis's own method. One is the
top-level draw, once an example, which times the draw. The other is a draw that must re-encode
a value: a `ValueHole` in the prefix.

The same choices give the same values and the same spans. The shrinker sees only those, so it
does what it did. `tests/test_draw_cost.py` checks both. It fails first if a Hypothesis release
moves what this uses. Any other test draws through Hypothesis's own class: the sequence
phase's, or a pytest plugin user's.

Drawing a batch of cases costs less this way, and the reports of one seed stay the same.
"""

from __future__ import annotations

from typing import Any

from hypothesis.errors import FlakyStrategyDefinition

from strategies._hypothesis.private import MAX_DEPTH, ConjectureData, ValueHole, unwrap_strategies

_SPAN_RECORD = "_ConjectureData__span_record"
"""`ConjectureData.__span_record`, as its name is mangled.

It is where a span's drawn value is recorded.
"""


def quick(data: Any) -> Any:
    """`data`, drawing through `QuickDraws.draw` where this Hypothesis allows it.

    `data` is a `ConjectureData` Hypothesis made. Where this Hypothesis lacks what `QuickDraws`
    uses, `data` is returned as it was.
    """
    if type(data) is ConjectureData and hasattr(data, _SPAN_RECORD):
        data.__class__ = QuickDraws
    return data


class QuickDraws(ConjectureData):
    """A `ConjectureData` whose draws below the top level skip the imports.

    See the module's docstring for why.
    """

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
