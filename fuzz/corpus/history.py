"""The history file: one line of JSON per run, appended, read back for the trend.

Each line is a `fuzz.judging.nights.Night` with a format marker. Appending a line is the whole
write, so a history shared by a night's shards, or a job killed while writing, loses at most its own
line. A line that cannot be read (cut short, edited, from a newer mcp-toolfuzz) is left in the file
and skipped with a warning: the history is the run's memory, not its input, and a bad line costs the
trend one night, never the run its findings. By default the file is `nights.jsonl` in the corpus
directory; its name does not end in `.json`, so the corpus's reproductions never include it.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from pathlib import Path

from fuzz.judging.findings import Night, RunResult
from fuzz.judging.nights import night_of, now, of_server

HISTORY_FILE = "nights.jsonl"
FORMAT = "mcp-toolfuzz/night"
VERSION = 1


@dataclass(frozen=True, slots=True)
class Read:
    """What a history file holds: its records in file order, and a warning per line skipped."""

    records: tuple[Night, ...]
    warnings: tuple[str, ...]


def read(path: Path) -> Read:
    """The records of `path`; none for a file that does not exist yet."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Read((), ())
    except (OSError, UnicodeDecodeError) as error:
        return Read((), (f"history {path} cannot be read ({error}); the trend starts again from this run",))
    records: list[Night] = []
    skipped: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            if not isinstance(data, dict) or data.get("format") != FORMAT:
                raise ValueError(f'no "format": "{FORMAT}"')
            if data.get("version") != VERSION:
                raise ValueError(f"version {data.get('version')!r}; this mcp-toolfuzz reads version {VERSION}")
            records.append(Night.from_json(data))
        except ValueError as error:
            skipped.append(str(number))
            reason = str(error)
    if skipped:
        where = f"line {skipped[0]}" if len(skipped) == 1 else f"{len(skipped)} lines ({', '.join(skipped[:5])}{', ...' if len(skipped) > 5 else ''})"
        return Read(tuple(records), (f"history {path}: {where} skipped, not a night's record ({reason}); the other nights are kept",))
    return Read(tuple(records), ())


def append(path: Path, night: Night) -> str | None:
    """Append `night` as one line. Returns a warning when it could not be written, else None."""
    line = json.dumps({"format": FORMAT, "version": VERSION, **night.as_json()}, ensure_ascii=False, sort_keys=True) + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as file:
            if file.tell() > 0 and not _ends_with_newline(path):
                file.write("\n")  # a line cut short by a killed job stays one bad line, not two
            file.write(line)
            file.flush()
            os.fsync(file.fileno())
    except OSError as error:
        return f"history {path} cannot be written ({error.strerror or error}); this night is not recorded"
    return None


def _ends_with_newline(path: Path) -> bool:
    with path.open("rb") as file:
        file.seek(-1, os.SEEK_END)
        return file.read(1) == b"\n"


def recorded(result: RunResult, path: Path) -> RunResult:
    """`result` with the nights of its server, its own appended to the history file at `path`.

    A run the user stopped is not recorded: half a night would read as a drop in the trend. What
    goes wrong with the file becomes the result's warnings.
    """
    if result.stopped_by_user:
        return result
    history = read(path)
    night = night_of(result, now())
    failed = append(path, night)
    warnings = [*history.warnings, *([failed] if failed else [])]
    return replace(result, nights=of_server((*history.records, night), night.server), warnings=(*result.warnings, *warnings))
