#!/usr/bin/env python3
"""Assemble tests/schemas/ from the gathered raw files.

Reads the raw corpus files written by collect_stdio.py, gen_pydantic.py and gen_zod.mjs
(default /tmp/schema-gather/raw) plus the hand-written files already in tests/schemas/
(handwritten-*.json, which are their own source), then:

* checks every schema with ``validator_for(schema).check_schema(schema)`` for the dialect
  its ``$schema`` names (2020-12 when it names none) and leaves out any that fail;
* drops exact duplicates across the whole corpus (same JSON after sorting keys), keeping
  the first in priority order: npm servers, PyPI servers, Python SDK, fastmcp, TypeScript
  SDK, hand-written;
* writes each group to tests/schemas/<group>.json, schemas unchanged.

From tests/schemas/gather/, with the project venv:

    ../../../.venv/bin/python build_corpus.py [--raw /tmp/schema-gather/raw]

Not a test module (no ``test_`` prefix): pytest does not collect it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from jsonschema.validators import validator_for

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent
FIRST = ["python-sdk-pydantic", "python-fastmcp", "typescript-sdk-zod"]


def canonical(schema: object) -> str:
    return json.dumps(schema, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def check(schema: object) -> str | None:
    try:
        cls = validator_for(schema, default=Draft202012Validator)
        cls.check_schema(schema)
    except SchemaError as exc:
        return f"{exc.message} (at {'/'.join(map(str, exc.absolute_path)) or 'root'})"
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def ordered_inputs(raw: Path) -> list[Path]:
    def rank(p: Path) -> tuple[int, str]:
        name = p.stem
        if name.startswith("npm-"):
            return (0, name)
        if name.startswith("pypi-"):
            return (1, name)
        if name in FIRST:
            return (2 + FIRST.index(name), name)
        return (9, name)

    files = [p for p in sorted(raw.glob("*.json")) if not p.name.startswith("_") and not p.name.startswith("handwritten-")]
    files.sort(key=rank)
    return files + sorted(CORPUS.glob("handwritten-*.json"))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", type=Path, default=Path("/tmp/schema-gather/raw"))
    args = ap.parse_args()
    seen: dict[str, str] = {}
    rejected: list[tuple[str, str]] = []
    dropped = 0
    total = 0
    for path in ordered_inputs(args.raw):
        doc = json.loads(path.read_text())
        kept = []
        for entry in doc["schemas"]:
            problem = check(entry["schema"])
            if problem:
                rejected.append((entry["id"], problem))
                continue
            key = canonical(entry["schema"])
            if key in seen:
                dropped += 1
                continue
            seen[key] = entry["id"]
            kept.append(entry)
        handwritten = path.name.startswith("handwritten-")
        if handwritten and len(kept) != len(doc["schemas"]):
            print(f"warning: {path.name} has schemas that are invalid or duplicate earlier ones; it is left as it is", file=sys.stderr)
        if not handwritten:
            doc["schemas"] = kept
            (CORPUS / path.name).write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
        total += len(kept)
        print(f"{path.name}: {len(kept)}")
    print(f"total {total}, duplicates dropped {dropped}, rejected {len(rejected)}")
    for sid, problem in rejected:
        print(f"  rejected {sid}: {problem[:200]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
