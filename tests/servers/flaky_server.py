"""A small MCP server over stdio (standard library only) with one bug every call and one by chance.

- `steady` (x: integer) answers arguments that fail its schema with JSON-RPC -32602 every time: an
  `arguments-not-validated` violation that reproduces on every try (stable).
- `shaky` (x: integer) answers them with -32602 once in N calls (`--one-in N`, default 3), drawn at
  random in each process, and with a tool execution error otherwise: the same violation, flaky.
- `fine` (x: integer) is compliant.

`--counter FILE` makes `shaky`'s chance a count instead: its bad calls are numbered across every
process that shares FILE, and each third one (each N-th) gets -32602. The same bug, but a test can
say how many of its tries reproduce it.

`--from-the-first` counts instead in each process, from the bug: a process's first bad call of
`shaky` gets it, then each N-th after. Every fresh copy's first call shows it.

`--fixed steady` or `--fixed shaky` makes that tool compliant: a night on which a bug was fixed. The
environment's `FLAKY_FIXED` (names, comma-separated) does the same and leaves the command as it was:
the same target, night after night, for its corpus.
`--name NAME` changes `serverInfo.name` (default `flaky`). Valid calls succeed.
"""

from __future__ import annotations

import fcntl
import os
import random
import sys
from pathlib import Path
from typing import Any

import stdio_loop


def _option(name: str, default: str) -> str:
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


ONE_IN = int(_option("--one-in", "3"))
FIXED = {sys.argv[index + 1] for index, word in enumerate(sys.argv[:-1]) if word == "--fixed"} | set(filter(None, os.environ.get("FLAKY_FIXED", "").split(",")))
NAME = _option("--name", "flaky")
CHANCE = random.SystemRandom()
COUNTER = Path(_option("--counter", "")) if "--counter" in sys.argv else None
FROM_THE_FIRST = "--from-the-first" in sys.argv
CALLS = [0]
SCHEMA = {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"], "additionalProperties": False}
TOOLS = [{"name": name, "description": f"{name}: x back", "inputSchema": SCHEMA, "annotations": {"readOnlyHint": True}} for name in ("steady", "shaky", "fine")]


def text(value: str, *, error: bool = False) -> dict[str, Any]:
    return {"result": {"content": [{"type": "text", "text": value}], **({"isError": True} if error else {})}}


def valid(arguments: dict[str, Any]) -> bool:
    """Whether `arguments` are `{"x": an integer}`: 2.0 is one too, as JSON Schema counts."""
    x = arguments.get("x")
    return set(arguments) == {"x"} and isinstance(x, (int, float)) and not isinstance(x, bool) and float(x).is_integer()


def unlucky() -> bool:
    """Whether this bad call of `shaky` gets the bug: by chance, or each N-th of the shared count."""
    if FROM_THE_FIRST:
        CALLS[0] += 1
        return (CALLS[0] - 1) % ONE_IN == 0
    if COUNTER is None:
        return CHANCE.randrange(ONE_IN) == 0
    with COUNTER.open("a+") as file:
        fcntl.flock(file, fcntl.LOCK_EX)
        file.seek(0)
        count = int(file.read() or 0) + 1
        file.seek(0)
        file.truncate()
        file.write(str(count))
    return count % ONE_IN == 0


def answer(message: dict[str, Any]) -> dict[str, Any]:
    plain = stdio_loop.plain_server(message, {"name": NAME, "version": "1.0"}, TOOLS)
    if plain is not None:
        return plain
    params = message["params"]
    name, arguments = params["name"], params.get("arguments", {})
    if name not in ("steady", "shaky", "fine"):
        return text(f"Unknown tool {name!r}", error=True)
    if valid(arguments):
        return text(str(arguments["x"]))
    buggy = name not in FIXED and (name == "steady" or (name == "shaky" and unlucky()))
    if buggy:
        return {"error": {"code": -32602, "message": f"Invalid arguments for {name}"}}
    return text(f"{name} needs an integer x and nothing else", error=True)


if __name__ == "__main__":
    stdio_loop.serve(answer)
