"""Values from a JSON Schema, with Hypothesis's public API.

The generator reads the keywords real tool schemas use; the README lists them. It builds a
strategy that *aims* at valid values. It is never trusted: `strategies.values` keeps only what
the dialect's standard validator accepts, formats asserted. Aiming well matters for speed and
for reaching rare shapes. Validating matters for truth.

The modules divide the work:

- `_core` reads a schema as a whole and chooses a type. A whole schema has references,
  combinators, `const`/`enum` and documented values.
- `_numbers`, `_strings` and `_collections` build the values of one type each.
- `_context` is what they share, so that no family imports `_core`. It holds the schema's root
  and dialect, and the validator's verdict. It holds the generator itself, for subschemas, and
  the limits on depth and size.

This package's face names what the rest of `strategies` uses.

How the hard keywords are read:

- `allOf`, and a `$ref` with siblings (2020-12), are merged into one schema. They are merged
  where the merge is exact: properties, required, bounds, types. What cannot be merged is
  checked afterwards.
- `anyOf`/`oneOf` draw a branch, merged with the rest of the schema. `oneOf`'s exclusivity and
  `not` are checked afterwards.
- `if`/`then`/`else`. Either `if` and `then` both hold, or `else` holds and `if` does not.
- `$ref` is followed lazily, and recursion is bounded. Past `MAX_DEPTH` nested values, objects
  carry only their required properties, and arrays their minimum of items. A reference that
  must go deeper generates nothing. So `anyOf: [{"$ref": "#"}, {"type": "null"}]` ends in null.
- `unevaluatedProperties: false` is read as `additionalProperties: false` over the merged
  properties. `dependentRequired` adds the dependent properties. `dependentSchemas` and
  draft-07 `dependencies` are merged in when their property is required, and checked
  otherwise.
- `format`. The formats `_strings` lists are generated. Others are annotations and generate
  plain strings.

Shrinking leaves optional properties out, and drops extra properties and array items. It takes
numbers towards zero, or the bound, and strings towards "". So a value shrinks to the required
properties at their simplest.
"""

from __future__ import annotations

from strategies.generation._core import from_schema as from_schema
from strategies.generation._core import from_subschema as from_subschema
from strategies.generation._core import json_values as json_values

__all__ = [
    "from_schema",
    "from_subschema",
    "json_values",
]
