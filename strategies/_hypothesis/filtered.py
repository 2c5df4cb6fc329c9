"""Filtered strategies validated once, as Hypothesis means them to be, not at every draw.

Hypothesis calls `validate()` on every strategy it draws from. It relies on the strategy
remembering that it ran. The record is `validate_called`, a dict per strategy since validation
became thread-safe.

A filtered strategy's validation re-initialises the strategy in place. That re-applies its
predicates to the now-reified inner strategy. But the re-initialisation also replaces the dict
with an empty one. So with Hypothesis 6.170, each draw of a `.filter(...)` validates it again
and re-applies every predicate. For `integers().filter(...)` it also parses the predicate's
source with `ast`, to look for bounds. On the demo's integer arguments, that was a large share
of the drawing time.

`keep_filtered_validation` restores the memory after the re-initialisation. It changes no
value drawn: the validation it skips would rebuild the same strategy. With a Hypothesis that
keeps the record itself, it does nothing. The dict it puts back is then the one already there.

It is installed by `strategies._hypothesis.install`, which the run calls. Importing patches
nothing. No upstream issue was found for it (searched 2026-12-07).
"""

from __future__ import annotations

from typing import Any

from strategies._hypothesis.private import FilteredStrategy


def keep_filtered_validation() -> None:
    """Make `FilteredStrategy.do_validate` keep the strategy's record of validation.

    Idempotent. It does nothing where Hypothesis has no such class or method.
    """
    validate = getattr(FilteredStrategy, "do_validate", None)
    if validate is None or getattr(validate, "keeps_validation", False):
        return

    def do_validate(self: Any) -> None:
        called = getattr(self, "validate_called", None)
        validate(self)
        if called is not None:
            self.validate_called = called

    do_validate.keeps_validation = True  # type: ignore[attr-defined]
    FilteredStrategy.do_validate = do_validate  # type: ignore[method-assign]
