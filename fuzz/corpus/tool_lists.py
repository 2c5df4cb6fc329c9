"""The target's last tool list, kept in the corpus, so that the next run can say what changed.

Each run that keeps a corpus writes the tools its target listed (every entry of `tools/list` as the
server sent it) to `.tool-list` in the target's own subdirectory (`fuzz.corpus.targets`), with
the server's `serverInfo` and the time. The next run compares its own list with it
(`fuzz.judging.tool_changes`), then writes its own in its place.

The file holds JSON, but its name is neither a reproduction's nor `*.json`: it starts with a dot, so
that what reads reproductions (`replay`, `export`, the corpus replay) never takes it for one, and it
has no `.json`, so that a glob for a corpus's reproductions (`corpus/**/*.json`, which in Python's
`pathlib` takes hidden files too) does not find it either. It is written atomically. A file that cannot be read as such a list (not
JSON, another format, a later version) raises `CorruptToolList`: the run says so as a warning and
writes its own list over it. A list is history, and losing one costs one night's comparison;
stopping the nightly job for it would cost more.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fuzz.corpus.targets import TargetIdentity
from fuzz.files import write_json_atomically

FILE_NAME = ".tool-list"
FORMAT = "mcp-toolfuzz tool list"
VERSION = 1


class CorruptToolList(Exception):
    """A stored tool list that cannot be read; its message names the file and why."""


@dataclass(frozen=True, slots=True)
class StoredToolList:
    tools: tuple[Mapping[str, Any], ...]
    """The entries of `tools/list`, as the server sent them."""
    server_info: Mapping[str, Any]
    recorded: str
    """When the run that listed them wrote them: ISO 8601, UTC, to the second."""


def path_of(corpus: Path, identity: TargetIdentity) -> Path:
    """Where the target's list is kept."""
    return corpus / identity.key / FILE_NAME


def load(path: Path) -> StoredToolList | None:
    """The list kept at `path`, or None when there is none yet. Raises CorruptToolList."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise CorruptToolList(f"{path} cannot be read: {getattr(error, 'strerror', None) or error}") from None
    try:
        document = json.loads(text)
    except ValueError as error:
        raise CorruptToolList(f"{path} is not JSON ({error})") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise CorruptToolList(f'{path} is not a tool list mcp-toolfuzz wrote (no "format": "{FORMAT}")')
    if document.get("version") != VERSION:
        raise CorruptToolList(f"{path} is a tool list of version {json.dumps(document.get('version'))}; this mcp-toolfuzz reads version {VERSION}")
    tools, server_info, recorded = document.get("tools"), document.get("serverInfo"), document.get("recorded")
    if not isinstance(tools, list) or not all(isinstance(tool, dict) for tool in tools):
        raise CorruptToolList(f"{path}: tools is not a list of tool definitions")
    if not isinstance(server_info, dict) or not isinstance(recorded, str):
        raise CorruptToolList(f"{path}: serverInfo or recorded is missing or not what it should be")
    return StoredToolList(tuple(tools), server_info, recorded)


def record(path: Path, tools: Sequence[Mapping[str, Any]], server_info: Mapping[str, Any], now: datetime | None = None) -> str:
    """Write the list atomically, and return the time it records."""
    recorded = (now or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
    document = {"format": FORMAT, "version": VERSION, "recorded": recorded, "serverInfo": dict(server_info), "tools": [dict(tool) for tool in tools]}
    write_json_atomically(document, path)
    return recorded
