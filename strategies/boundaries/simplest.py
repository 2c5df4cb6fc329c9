"""The simplest value a part of a schema accepts: what Hypothesis shrinks towards.

The boundary phase changes one place of a value and leaves the rest at its simplest. So a
value that violates a rule needs no shrinking.

"Simplest" is Hypothesis's own order over the generator's choices (`strategies.generation`).
It is the first value `hypothesis.find` accepts, shrunk. The engine is derandomized and has no
database, so the same schema always gives the same value.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, find, settings
from hypothesis.errors import HypothesisException

from strategies.generation import from_subschema
from strategies.schemas import SchemaCheck
from strategies.values import encodes_as_json

NOTHING: Any = object()
"""No value: the part accepts none the generator can find."""

_FIND_SETTINGS = settings(
    database=None,
    derandomize=True,
    max_examples=40,
    phases=(Phase.generate, Phase.shrink),
    suppress_health_check=list(HealthCheck),
    verbosity=Verbosity.quiet,
    deadline=None,
)
_FIRST_SETTINGS = settings(_FIND_SETTINGS, max_examples=1, phases=(Phase.generate,))
"""Settings that try only Hypothesis's first example, made of the simplest choices.

When that example is accepted, it is the simplest value. Shrinking then has nothing to do, and
shrinking is most of `find`'s time.
"""


class Simplest:
    """The simplest values of the parts of one schema, each found once."""

    def __init__(self, check: SchemaCheck) -> None:
        self.check = check
        self._found: dict[str, Any] = {}

    def value(self, subschema: Mapping[str, Any] | bool, *, strictly: bool = True) -> Any:
        """The simplest value `subschema` accepts; `NOTHING` when none is found.

        `subschema` is a part of the checked schema, or a variant of one. Formats are asserted
        when `strictly`.
        """
        key = json.dumps([subschema, strictly], sort_keys=True, default=repr)
        if key not in self._found:
            self._found[key] = self._find(subschema, strictly)
        return self._found[key]

    def _find(self, subschema: Mapping[str, Any] | bool, strictly: bool) -> Any:
        check = self.check
        validator = check.strict if strictly else check.standard
        accepted = validator.evolve(schema=subschema)
        strategy = from_subschema(check.schema, subschema, check.subschema_accepts)
        for tried in (_FIRST_SETTINGS, _FIND_SETTINGS):
            try:
                return find(strategy, lambda value: accepted.is_valid(value) and encodes_as_json(value), settings=tried)
            except (HypothesisException, RecursionError, ValueError, TypeError):
                continue
        return NOTHING
