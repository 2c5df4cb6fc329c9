"""The harness's draws without Hypothesis's "local constants": the same in every process.

Now and then Hypothesis draws a constant instead of a random value: one of its own (0, -1, inf,
"", ...) or a "local" one, read from the source of the modules loaded from outside site-packages
and the standard library (`providers._get_local_constants`). For a property test that finds bugs
near the code's own literals. For the harness it made one seed draw other values in other
processes:

- The `mcp-toolfuzz` console script is itself such a module (its `'__main__'`), and
  `python -m fuzz` is not.
- Under the pytest plugin, the user's own modules (the package of the server under test, say)
  are such modules. Their test modules are not: Hypothesis leaves out `tests/` and `test_*.py`.
- Run from a checkout, the harness's own modules are local too. One imported while explorations
  draw adds its literals mid-run, at a moment that depends on the threads.

In CI, runs in a test's own process drew otherwise than the same seed elsewhere: one found a
finding that needs a rare draw (an inf) where the plugin's run did not, and two runs of one seed
differed by one drawn value.

Here a draw inside `without_local_constants()`, on its thread, draws Hypothesis's own constants
only, as Hypothesis does when no local constant exists: the same random calls, so a seed draws
what it drew in a process that had none (`python -m fuzz`). The harness's Hypothesis runs are all
made in that block (`fuzz.engine.phases._hypothesis_runs.in_parts`). A user's own tests, in the
same process, keep their local constants.

The pools (`strategies._pools`) already draw without local constants in every process, by a
provider of their own and in steps of their own (their values must not change).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from strategies._hypothesis.private import GLOBAL_CONSTANTS, HypothesisProvider, choice_constraints_key, choice_permitted

_PATCHED = "_toolfuzz_no_local_constants"
"""Set (True) on the patched `_maybe_draw_constant`, so that installing twice patches once."""

_here = threading.local()

_permitted: dict[Any, tuple[Any, ...]] = {}
"""`global_constants_permitted`'s answers, by choice type and constraints.

Hypothesis's `CONSTANTS_CACHE` cannot serve: it holds the local constants beside them.
"""


def global_constants_permitted(choice_type: Any, constraints: Any) -> tuple[Any, ...]:
    """Hypothesis's own constants of `choice_type` that `constraints` permit, in its order."""
    key = (choice_type, choice_constraints_key(choice_type, constraints))
    permitted = _permitted.get(key)
    if permitted is None:
        permitted = tuple(choice for choice in GLOBAL_CONSTANTS.set_for_type(choice_type) if choice_permitted(choice, constraints))
        _permitted[key] = permitted
    return permitted


@contextmanager
def without_local_constants() -> Iterator[None]:
    """In the block, on this thread, Hypothesis's draws take no local constant."""
    before = getattr(_here, "on", False)
    _here.on = True
    try:
        yield
    finally:
        _here.on = before


def draws_without_local_constants() -> None:
    """Patch `HypothesisProvider._maybe_draw_constant` to leave out local constants inside the block (idempotent).

    The provider is patched, not a runner's data: Hypothesis draws a new example's choices through
    providers of its own making too (`datatree.draw_choice`), and each must draw alike.
    """
    original = HypothesisProvider._maybe_draw_constant
    if getattr(original, _PATCHED, False):
        return

    def _maybe_draw_constant(self: Any, choice_type: Any, constraints: Any, *, p: float = 0.05) -> Any:
        if not getattr(_here, "on", False):
            return original(self, choice_type, constraints, p=p)
        # Hypothesis's own steps with an empty local pool: whether to draw a constant, which pool
        # (the one), which constant. So a seed draws what it drew in a process with no local module.
        assert self._random is not None
        if self._random.random() > p:
            return None
        permitted = global_constants_permitted(choice_type, constraints)
        if not permitted:
            return None
        return self._random.choice(self._random.choice([permitted]))

    setattr(_maybe_draw_constant, _PATCHED, True)
    HypothesisProvider._maybe_draw_constant = _maybe_draw_constant  # type: ignore[method-assign]
