"""Writing files that readers may see at any moment: reports, reproductions, baselines."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def write_json_atomically(document: Any, path: Path) -> None:
    """Write `document` as JSON to `path`, atomically.

    A reader never sees a half-written file, even if the process is killed meanwhile.
    See `write_text_atomically`."""
    write_text_atomically(json.dumps(document, ensure_ascii=False, indent=2) + "\n", path)


def write_text_atomically(text: str, path: Path) -> None:
    """Write `text` to `path`, atomically.

    A reader never sees a half-written file, even if the process is killed meanwhile.
    The text goes to a temporary file beside `path`, is flushed, then renamed.

    A lone UTF-16 surrogate is written as its escape, `\\ud800`.
    A server may send one as `"\\ud800"`, which is valid JSON.
    Python decodes it to a str that no UTF-8 can carry.
    Inside a JSON string, the escape is the very one the server sent.
    In any other text, it is a readable one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", errors="backslashreplace") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
