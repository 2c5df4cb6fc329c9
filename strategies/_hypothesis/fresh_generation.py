"""Hypothesis's generation phase, without what makes a batch repeat the one before.

Hypothesis's generation spends most of its examples on two things. Both serve a property-based
test of one value well. Both serve a batch of cases (`fuzz.engine.phases._random_search`) badly.

- *Mutations*. After each new example, Hypothesis tries up to five mutations of it
  (`generate_mutations_from`). A mutation copies a part of the example over another part drawn
  by the same strategy, so that a value appears twice. Every case of a batch is drawn by the
  same strategy. So each mutation is the batch before with one case changed. All but one of its
  requests are sent again.
- The *zero extension*. For its first tenth of examples, up to 50 a run, Hypothesis runs each
  new example's prefix followed by every choice at its simplest. It runs this before the example
  itself. In the batch it makes, every case after the first is the simplest case again.

So most of the cases an exploration sent were cases it had already sent.

`fresh_generation` replaces the generation loop for the explorations' own tests, those marked
`FRESH`. Each example is one of Hypothesis's novel prefixes, completed at random by its
provider. The tree of choices made so far tells which prefixes are novel. The rest of
Hypothesis is as it was: the example database's examples first, shrinking, the seed.

Hypothesis runs its simplest example before generating. Here it runs only where the test is
marked `SIMPLEST_FIRST`: an exploration's first part of its first round. The simplest case is
the same every time, so once is enough.

Every example of these tests draws through `strategies._hypothesis.quick_draws`, shrinking's
too. Any other test runs Hypothesis's own loop and draws, the pytest plugin's users' among them.
Installed by `strategies._hypothesis.install`.
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
    """Make Hypothesis draw the `FRESH` tests' examples afresh (idempotent).

    It patches `ConjectureRunner.generate_new_test_cases` to draw their examples afresh. Every
    example of theirs draws through `QuickDraws`: generated, shrunk or replayed.
    """
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
