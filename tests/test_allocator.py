"""The CLI's allocator settings (`fuzz.faces.console.compact_allocator`): one glibc arena for all
threads, so that the engine's worker threads do not each keep one (the memory figures are the
benchmark's: docs/throughput.md)."""

from __future__ import annotations

import ctypes
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from fuzz.faces import console

ARENAS = textwrap.dedent("""
    import ctypes, re, sys, threading
    if sys.argv[1] == "compact":
        from fuzz.faces.console import compact_allocator
        compact_allocator()

    def churn():
        kept = [bytes(4096 + size) for size in range(300)]  # beyond pymalloc's 512 bytes: malloc's
        del kept

    threads = [threading.Thread(target=churn) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    libc = ctypes.CDLL(None)
    libc.fopen.restype = ctypes.c_void_p
    libc.fopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
    libc.fclose.argtypes = [ctypes.c_void_p]
    stream = libc.fopen(sys.argv[2].encode(), b"w")
    libc.malloc_info(0, stream)
    libc.fclose(stream)
    print(len(re.findall(r"<heap nr=", open(sys.argv[2]).read())))
""")


@pytest.mark.skipif(not hasattr(ctypes.CDLL(None), "malloc_info"), reason="glibc's malloc_info counts the arenas")
def test_threads_share_one_arena_once_the_allocator_is_compact(tmp_path: Path) -> None:
    script = tmp_path / "arenas.py"
    script.write_text(ARENAS)
    ran = subprocess.run([sys.executable, str(script), "compact", str(tmp_path / "info.xml")], capture_output=True, text=True, check=True, timeout=60)
    assert ran.stdout.strip() == "1"


def test_without_mallopt_the_allocator_is_left_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    """macOS's and Windows's C libraries have no `mallopt`: nothing is set, nothing raised."""

    class NoMallopt:
        def __init__(self, name: object) -> None:
            pass

    monkeypatch.setattr(console.ctypes, "CDLL", NoMallopt)
    console.compact_allocator()
