"""Hypothesis's example database, kept beside the corpus so that CI caches one directory.

A later run tries the examples that failed before first. The database is an accelerator, never
a requirement: a corpus directory that cannot be written gets a read-only view of what is there,
and one that does not exist and cannot be made gets none; undecodable entries are skipped by
Hypothesis itself.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from hypothesis.database import (
    DirectoryBasedExampleDatabase,
    ExampleDatabase,
    ReadOnlyDatabase,
)

DIRECTORY = ".hypothesis"


@lru_cache(maxsize=None)
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
