"""Every use of Hypothesis's private API, fenced in one package.

The rest of mcp-toolfuzz uses Hypothesis's public API only, and reaches its internals through
this package. `private` imports the private names; nothing else does. Importing patches
nothing: the run calls `install()` before it builds a strategy.

Each patch has its reason in its module. The patches are:

- `filtered`. A filtered strategy remembers that it was validated. Hypothesis 6.170 validates
  it again at every draw, re-reading each predicate's source.
- `fresh_generation` and `quick_draws`. The explorations' own tests draw every batch afresh,
  since Hypothesis's mutations repeat the batch before. They draw through a
  `ConjectureData.draw` without its per-call imports.
- `threads`. The parts of Hypothesis that worker threads share unguarded are used one thread
  at a time. A worker thread's unused Random is left unregistered.
- `no_local_constants`. The harness's runs draw Hypothesis's own constants only, never the
  literals of the modules loaded in the process, so a seed draws the same values in the CLI,
  under `python -m fuzz`, under the pytest plugin and in a test's process.

`marks` sets a test's seed and database key through attributes Hypothesis keeps private.
`tests/test_hypothesis_fence.py` fails when a release changes the code a patch replaces.
"""

from __future__ import annotations

from strategies._hypothesis.filtered import keep_filtered_validation
from strategies._hypothesis.fresh_generation import fresh_generation
from strategies._hypothesis.no_local_constants import draws_without_local_constants
from strategies._hypothesis.threads import describe_one_at_a_time

__all__ = ["REVIEWED", "WRITTEN_FOR", "fresh_generation", "install", "marks", "no_local_constants", "private", "threads"]

WRITTEN_FOR = "6.170.29"
"""The Hypothesis release whose source each patch was last reviewed against."""

REVIEWED: dict[str, tuple[str, str]] = {
    "hypothesis.strategies._internal.strategies:FilteredStrategy.do_validate": ("72548f084b6c0946", "filtered"),
    "hypothesis.internal.conjecture.engine:ConjectureRunner.generate_new_test_cases": ("8223048fa15520c7", "fresh_generation"),
    "hypothesis.internal.conjecture.engine:ConjectureRunner.new_conjecture_data": ("ec829c9fa14a7241", "fresh_generation"),
    "hypothesis.internal.conjecture.data:ConjectureData.draw": ("632251ac5b39edcc", "quick_draws"),
    "hypothesis.internal.lambda_sources:lambda_description": ("68507e833d754e0f", "threads"),
    "hypothesis.internal.filtering:get_numeric_predicate_bounds": ("2d491ff1dacd8230", "threads"),
    "hypothesis.internal.conjecture.providers:_get_local_constants": ("c1f5bd54b11ae515", "threads"),
    "hypothesis.internal.conjecture.providers:HypothesisProvider._maybe_draw_constant": ("c5dc3e00cfd338b6", "no_local_constants"),
    "hypothesis.core:get_random_for_wrapped_test": ("008a9d4bd112a46e", "threads, marks"),
    "hypothesis.internal.reflection:function_digest": ("444233892948d0cc", "marks"),
}
"""Each private function a patch replaces, re-implements or relies on.

Each maps to two things. The first is the first 16 hex digits of the SHA-256 of its source in
`WRITTEN_FOR`. The second is the patch's module.
"""


def install() -> None:
    """Apply every patch of Hypothesis's internals (idempotent; cheap when called again)."""
    keep_filtered_validation()
    fresh_generation()
    draws_without_local_constants()
    describe_one_at_a_time()
