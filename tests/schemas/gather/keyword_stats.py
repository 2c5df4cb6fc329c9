#!/usr/bin/env python3
"""Count, for each JSON Schema keyword, how many corpus schemas use it anywhere inside.

Walks each schema through its subschema positions only (so property names, enum/const
values, defaults and examples are not mistaken for keywords).  Prints per-file and total
counts, the ``$schema`` dialects named, and one line per keyword: ``keyword  count``.

    python3 keyword_stats.py [tests/schemas]

Not a test module (no ``test_`` prefix): pytest does not collect it.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

# keyword -> how its value holds subschemas
MAP_OF_SCHEMAS = {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
LIST_OF_SCHEMAS = {"allOf", "anyOf", "oneOf", "prefixItems"}
ONE_SCHEMA = {
    "not",
    "if",
    "then",
    "else",
    "additionalProperties",
    "additionalItems",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contains",
    "propertyNames",
    "contentSchema",
}


def keywords(schema: object, found: set[str]) -> None:
    if not isinstance(schema, dict):
        return  # boolean schemas
    for key, value in schema.items():
        found.add(key)
        if key in MAP_OF_SCHEMAS and isinstance(value, dict):
            for sub in value.values():
                keywords(sub, found)
        elif key in LIST_OF_SCHEMAS and isinstance(value, list):
            for sub in value:
                keywords(sub, found)
        elif key in ONE_SCHEMA:
            keywords(value, found)
        elif key == "items":
            for sub in value if isinstance(value, list) else [value]:
                keywords(sub, found)
        elif key == "dependencies" and isinstance(value, dict):
            for sub in value.values():
                if isinstance(sub, (dict, bool)):
                    keywords(sub, found)


def main() -> int:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent
    counts: Counter[str] = Counter()
    dialects: Counter[str] = Counter()
    total = 0
    for path in sorted(root.glob("*.json")):
        doc = json.loads(path.read_text())
        n = len(doc["schemas"])
        total += n
        print(f"{path.name}: {n}")
        for entry in doc["schemas"]:
            found: set[str] = set()
            keywords(entry["schema"], found)
            counts.update(found)
            s = entry["schema"]
            dialects[s.get("$schema", "(none)") if isinstance(s, dict) else "(boolean)"] += 1
    print(f"total: {total}")
    print("dialects: " + ", ".join(f"{k} {v}" for k, v in dialects.most_common()))
    for key, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"{key}\t{n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
