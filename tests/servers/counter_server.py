"""A small MCP server over stdio (standard library only) whose state shows in no id: a counter.

- `tick` (no arguments) answers `ticks: N`, N the calls of `tick` so far: its answer changes with
  the calls before it, and nothing in it is a value another call takes.
- `roll` (no arguments, annotated read-only) answers a random number: its answers differ at every
  call, which is chance, not state.

`--stateless`: `tick` always answers `ticks: 1` (the server keeps nothing). Every answer is
compliant with SEP-2145 either way: the state probe of the sequence phase is what it is for.
"""

from __future__ import annotations

import random
import sys
from typing import Any

import stdio_loop

STATELESS = "--stateless" in sys.argv
TICKS = [0]
NO_ARGUMENTS = {"type": "object", "properties": {}, "additionalProperties": False}
TOOLS = [
    {"name": "tick", "description": "count a call", "inputSchema": NO_ARGUMENTS},
    {"name": "roll", "description": "a random number", "inputSchema": NO_ARGUMENTS, "annotations": {"readOnlyHint": True}},
]


def text(value: str, *, error: bool = False) -> dict[str, Any]:
    return {"result": {"content": [{"type": "text", "text": value}], **({"isError": True} if error else {})}}


def answer(message: dict[str, Any]) -> dict[str, Any]:
    plain = stdio_loop.plain_server(message, {"name": "counter", "version": "1.0"}, TOOLS)
    if plain is not None:
        return plain
    params = message["params"]
    name, arguments = params["name"], params.get("arguments", {})
    if name not in ("tick", "roll"):
        return text(f"Unknown tool {name!r}", error=True)
    if arguments:
        return text(f"{name} takes no arguments", error=True)
    if name == "roll":
        return text(str(random.random()))
    TICKS[0] += 1
    return text(f"ticks: {1 if STATELESS else TICKS[0]}")


if __name__ == "__main__":
    stdio_loop.serve(answer)
