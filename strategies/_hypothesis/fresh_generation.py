"""Hypothesis's generation phase without what makes a batch of cases repeat the one before.

Hypothesis's generation spends most of its examples on two things that serve a property-based
test of one value well, and a batch of cases (`fuzz.engine.phases.random_search`) badly:

- after each new example, up to five *mutations* of it (`generate_mutations_from`): a part of the
  example copied over another part drawn by the same strategy, so that a value appears twice.
  Every case of a batch is drawn by the same strategy, so each mutation is the batch before with
  one case changed: all but one of its requests sent again;
- for its first tenth of examples (up to 50 a run), the *zero extension* of each new example's
  prefix, run before the example itself: the prefix, then every choice at its simplest, a batch
  whose cases after the first are the simplest case again.

On the demo in one process for 10 s, 77% of the cases an exploration sent were cases it had
already sent (16,395 of 21,000). `fresh_generation` replaces the generation loop for the
explorations' own tests (those marked `FRESH`): each example is one of Hypothesis's novel
prefixes (the tree of choices made so far tells which) completed at random by its provider.
The rest of Hypothesis is as it was: the example database's examples first, shrinking, the
seed. Hypothesis's simplest example, which it runs before generating, is run only where the
test is marked `SIMPLEST_FIRST` (an exploration's first part of its first round: the simplest
case is the same every time). Every example of these tests draws through
`strategies._hypothesis.quick_draws`, shrinking's too. Any other test, the pytest plugin's users' among
them, runs Hypothesis's own loop and draws. Installed by `strategies._hypothesis.install`.
"""

from __future__ import annotations

from typing import Any

from hypothesis import Phase

from strategies._hypothesis.private import ChoiceTemplate, ConjectureRunner
from strategies._hypothesis.quick_draws import quick

FRESH = "_toolfuzz_fresh_batches"
"""Set (True) on a test function whose examples `fresh_generation` draws."""

SIMPLEST_FIRST = "_toolfuzz_simplest_first"
"""Set (True) on such a test function when its run starts with Hypothesis's simplest example."""


def fresh_generation() -> None:
    """Make `ConjectureRunner.generate_new_test_cases` draw the `FRESH` tests' examples afresh,
    and every example of theirs (generated, shrunk, replayed) draw through `QuickDraws`
    (idempotent)."""
    original = ConjectureRunner.generate_new_test_cases
    if getattr(original, FRESH, False):
        return
    original_data = ConjectureRunner.new_conjecture_data

    def generate_new_test_cases(self: Any) -> None:
        test = _test_of(self)
        if not getattr(test, FRESH, False) or not self.using_hypothesis_backend:
            return original(self)
        if Phase.generate not in self.settings.phases or getattr(self, "interesting_test_cases", None):
            return None  # what Hypothesis's loop does: a failure from the database is reported first
        if getattr(test, SIMPLEST_FIRST, False) and self.should_generate_more():
            self.cached_test_function((ChoiceTemplate("simplest", count=None),))
        while self.should_generate_more():
            self._current_phase = "generate"
            self.test_function(self.new_conjecture_data(self.generate_novel_prefix()))
        return None

    def new_conjecture_data(self: Any, *arguments: Any, **options: Any) -> Any:
        data = original_data(self, *arguments, **options)
        return quick(data) if getattr(_test_of(self), FRESH, False) else data

    setattr(generate_new_test_cases, FRESH, True)
    ConjectureRunner.generate_new_test_cases = generate_new_test_cases  # type: ignore[method-assign]
    ConjectureRunner.new_conjecture_data = new_conjecture_data  # type: ignore[method-assign]


def _test_of(runner: Any) -> Any:
    """The test function a runner runs (what `FRESH` marks), or None."""
    return getattr(getattr(getattr(runner, "_test_function", None), "__self__", None), "test", None)
