"""What every part of one schema's generation shares: the context and the limits.

The families (`_numbers`, `_strings`, `_collections`) build the strategy for one type of one
subschema. A collection recurses into its items and properties through the context. The context
carries the generator's entry (`_core`). So no family imports the module that dispatches to it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

from hypothesis import strategies as st

from strategies.drawing import deferred

MAX_DEPTH = 6
"""Nesting past which values take their smallest form.

Recursive schemas end here.
"""

MAX_EXTRA_PROPERTIES = 3
MAX_ITEMS = 5
"""Arrays and extra properties stay small unless the schema asks for more.

Big values cost the target time and rarely find more.
"""

Subschema: TypeAlias = Mapping[str, Any] | bool
"""A schema or a part of one: an object, or `true` / `false`."""

Verdict: TypeAlias = Callable[[Subschema, Any], bool]
"""The dialect's standard verdict on a value against a subschema.

Refs are resolved from the root.
"""


@dataclass(frozen=True, slots=True)
class Context:
    """One schema's generation: its root, its dialect, the validator, and the generator."""

    root: Mapping[str, Any]
    draft_07: bool
    """Whether the dialect is draft-07 or older.

    There `items` may be an array, `$ref` siblings are ignored, and `dependencies` is read.
    """
    is_valid: Verdict
    """The verdict used for what generation cannot aim at.

    That is `not`, `oneOf`, `contains`, and parts that were not merged.
    """
    build: Callable[[Any, Context, int], st.SearchStrategy[Any]]
    """The generator's entry: the strategy for a subschema at a depth of nesting."""

    def strategy(self, schema: Any, depth: int) -> st.SearchStrategy[Any]:
        """The strategy for a subschema, built now."""
        return self.build(schema, self, depth)

    def lazy(self, schema: Any, depth: int) -> st.SearchStrategy[Any]:
        """The strategy for a subschema, built on first use and then kept.

        Built eagerly, a recursive schema would never finish. Built per draw, every draw would
        pay for it.
        """
        return deferred(lambda: self.build(schema, self, depth))
