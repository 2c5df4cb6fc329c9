"""Hypothesis's example database, kept beside the corpus so that CI caches one directory.

A later run tries the examples that failed before first. The database is an accelerator, never
a requirement: a corpus directory that cannot be written gets a read-only view of what is there,
and one that does not exist and cannot be made gets none; undecodable entries are skipped by
Hypothesis itself.
"""

from __future__ import annotations

import contextlib
import os
from functools import cache
from pathlib import Path

from hypothesis.configuration import set_hypothesis_home_dir
from hypothesis.database import (
    DirectoryBasedExampleDatabase,
    ExampleDatabase,
    ReadOnlyDatabase,
)

DIRECTORY = ".hypothesis"


def use_user_cache() -> Path:
    """Point Hypothesis's own storage (its unicode charmap, its constants cache) at a per-user
    cache directory, never the user's working directory: a run in a fresh CI checkout reuses what
    an earlier run on the machine built. (The costly table, a codec's ~200 MiB encoding of every
    code point, is never built: see `strategies.characters.JSON_CHARACTERS`.) `$MCP_TOOLFUZZ_CACHE`, else
    `$XDG_CACHE_HOME/mcp-toolfuzz/hypothesis`, else `~/.cache/mcp-toolfuzz/hypothesis`. The
    example database is apart from it (beside the corpus, see `example_database`)."""
    chosen = os.environ.get("MCP_TOOLFUZZ_CACHE")
    if chosen:
        path = Path(chosen)
    else:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        path = Path(base) / "mcp-toolfuzz" / "hypothesis"
    with contextlib.suppress(OSError):
        path.mkdir(parents=True, exist_ok=True)
    set_hypothesis_home_dir(path)
    return path


@cache
def example_database(corpus: Path | None) -> ExampleDatabase | None:
    if corpus is None:
        return None
    path = corpus / DIRECTORY
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        return ReadOnlyDatabase(DirectoryBasedExampleDatabase(path)) if path.is_dir() else None
    if not os.access(path, os.W_OK):
        return ReadOnlyDatabase(DirectoryBasedExampleDatabase(path))
    return DirectoryBasedExampleDatabase(path)
