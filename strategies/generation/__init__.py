"""Values from a JSON Schema, with Hypothesis's public API.

The generator reads the keywords real tool schemas use (see the README's list) and builds a
strategy that *aims* at valid values; it is never trusted: `strategies.values` keeps only what
the dialect's standard validator accepts, formats asserted. Aiming well matters for speed and
for reaching rare shapes; validating matters for truth.

Layout: `core` reads a schema as a whole (references, combinators, `const`/`enum`, documented
values) and chooses a type; `numbers`, `strings` and `collections` build the values of one type
each; `context` is what they share (the schema's root and dialect, the validator's verdict, the
generator itself for subschemas, the limits on depth and size), so that no family imports
`core`. This package's face names what the rest of `strategies` uses.

How the hard keywords are read:

- `allOf` and a `$ref` with siblings (2020-12) are merged into one schema where the merge is
  exact (properties, required, bounds, types); what cannot be merged is checked afterwards.
- `anyOf`/`oneOf` draw a branch, merged with the rest of the schema; `oneOf`'s exclusivity and
  `not` are checked afterwards.
- `if`/`then`/`else`: either `if` and `then` both hold, or `else` holds and `if` does not.
- `$ref` is followed lazily and recursion is bounded: past `MAX_DEPTH` nested values, objects
  carry only their required properties and arrays their minimum of items, and a reference
  that must go deeper generates nothing (so `anyOf: [{"$ref": "#"}, {"type": "null"}]` ends in
  null).
- `unevaluatedProperties: false` is read as `additionalProperties: false` over the merged
  properties; `dependentRequired` adds the dependent properties; `dependentSchemas` and
  draft-07 `dependencies` are merged in when their property is required, checked otherwise.
- `format`: the formats `strings` lists are generated; others are annotations and generate
  plain strings.

Shrinking: optional properties are left out, extra properties and array items dropped, numbers
taken towards zero (or the bound), strings towards "": a value shrinks to the required
properties at their simplest.
"""

from __future__ import annotations

from strategies.generation.core import from_schema as from_schema
from strategies.generation.core import from_subschema as from_subschema
from strategies.generation.core import json_values as json_values
