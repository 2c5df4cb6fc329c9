"""Start a benchmark target in this process, counting the tools/call requests it receives.

    python benchmarks/servers/counting.py [--count-dir DIR] demo
    python benchmarks/servers/counting.py [--count-dir DIR] sdk [--http PORT]

Throughput is counted in the server's own view, not from what a client claims it sent: a
fuzzer's "examples" include cases that never reach the wire, retries, and shrinking replays. Each
request appends `RECORD` bytes (a digest of what it asks) to `DIR/<pid>` (see `Counter`), so the count survives any way the
server ends and can be read live, from the files' sizes. One file per process: a fuzzer that
restarts its target starts several, and the benchmark adds them up. DIR is `--count-dir`, else
`$TOOLFUZZ_BENCH_COUNT_DIR` (the argument survives clients that start servers with a bare
environment, as the MCP SDK's stdio client does); with neither, nothing is counted.

- demo: the bundled `fuzz.demo_server`, its module-level `handle(method, params)` wrapped (the
  demo's `answer` looks it up at each call), then its own `main()`.
- sdk: `tests/servers/python_sdk_highlevel.py`, loaded as a module, with an outermost
  middleware on its low-level server (SDK middleware sees every request before validation,
  on stdio and Streamable HTTP alike), then its own `main()` with the remaining arguments.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
COUNT_DIR_VARIABLE = "TOOLFUZZ_BENCH_COUNT_DIR"
SDK_SERVER = ROOT / "tests" / "servers" / "python_sdk_highlevel.py"


RECORD = 8
"""Bytes written per request: a digest of what it asks (`Counter.add`)."""


class Counter:
    """tools/call requests seen by this process: RECORD bytes appended to a file per request, a
    digest of its tool name and arguments (so that the requests a client sent twice can be told
    from those it sent once: `distinct_in`).

    One unbuffered `write(2)` per request (a microsecond or two, and about as much for the
    digest) and no state in the server: a count kept in memory and written at exit is lost when
    a client ends its server with SIGKILL, as mcp-fuzzer does, and a periodic writer loses the
    last moments' calls."""

    def __init__(self, directory: Path) -> None:
        self._fd = os.open(directory / str(os.getpid()), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)

    def add(self, params: Any) -> None:
        asked = (params.get("name"), params.get("arguments")) if isinstance(params, dict) else params
        os.write(self._fd, hashlib.blake2b(repr(asked).encode(errors="surrogatepass"), digest_size=RECORD).digest())


def start_counter(directory: str | None = None) -> Counter | None:
    """A counter writing to `directory` (default: the environment's), or None."""
    directory = directory or os.environ.get(COUNT_DIR_VARIABLE)
    return Counter(Path(directory)) if directory else None


def count_in(directory: Path) -> int:
    """The tools/call requests the servers that wrote to `directory` received, so far."""
    return sum(path.stat().st_size for path in directory.iterdir()) // RECORD


def distinct_in(directory: Path) -> int:
    """How many of those asked for something no earlier one did (the same tool name and
    arguments: a `_meta` or a JSON-RPC id of its own does not make a request new)."""
    seen: set[bytes] = set()
    for path in directory.iterdir():
        records = path.read_bytes()
        seen.update(records[start : start + RECORD] for start in range(0, len(records) - RECORD + 1, RECORD))
    return len(seen)


def run_demo(counter: Counter | None) -> None:
    sys.path.insert(0, str(ROOT))
    import fuzz.demo_server as demo

    if counter is not None:
        handle = demo.handle

        def counted(method: str, params: Any) -> dict[str, Any]:
            if method == "tools/call":
                counter.add(params)
            return handle(method, params)

        demo.handle = counted
    demo.main()


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


def run_sdk(counter: Counter | None, arguments: list[str]) -> None:
    server = _load(SDK_SERVER)
    if counter is not None:

        async def count_calls(ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
            if ctx.method == "tools/call":
                counter.add(ctx.params)
            return await call_next(ctx)

        server.mcp._lowlevel_server.middleware.insert(0, count_calls)
    sys.argv = [str(SDK_SERVER), *arguments]
    server.main()


def main() -> None:
    arguments = sys.argv[1:]
    directory = None
    if arguments[:1] == ["--count-dir"] and len(arguments) > 1:
        directory, arguments = arguments[1], arguments[2:]
    if not arguments or arguments[0] not in ("demo", "sdk"):
        sys.exit(f"usage: {sys.argv[0]} [--count-dir DIR] demo | sdk [--http PORT]")
    counter = start_counter(directory)
    if arguments[0] == "demo":
        run_demo(counter)
    else:
        run_sdk(counter, arguments[1:])


if __name__ == "__main__":
    main()
