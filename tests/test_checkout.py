"""What the repository holds: nothing of the machine it was made on.

A committed file that names one machine's directories works there and nowhere else: a
reproduction whose target is `/home/someone/.venv/bin/python`, a usage line that `cd`s into a
developer's checkout. Two checks find them:

- the paths of this machine: the checkout's own directory, the home directory, the virtual
  environment's and the interpreter's prefixes (a file made here names them);
- the shape of a home or work directory anywhere (`/home/NAME/`, `/Users/NAME/`, `/root/`,
  `/work/`, `C:\\Users\\NAME\\`): a file made on another machine names those.

Fixtures that hold such paths on purpose are listed with the reason, and each must still hold
one (a listing that outlives its reason is removed).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

HOME_OR_WORK = re.compile(r"(?<![\w.~-])(?:/home/[\w.-]+/|/Users/[\w.-]+/|/root/|/work/|[A-Za-z]:\\\\?Users\\\\?[\w.-]+)")
"""An absolute path into a home or work directory, as a file made on a developer's machine or a
CI runner names it (a JSON file escapes the backslashes of a Windows path)."""

ON_PURPOSE = {
    "tests/test_checkout.py": "this module: the patterns it looks for",
    "tests/test_corpus_per_target.py": "a target's identity keeps a script's directory (`/home/ci/app/server.py`)",
    "tests/schemas/npm-circleci-mcp.json": "a published server's schema, as it was listed: its descriptions give example paths",
}
"""Committed files that name such paths on purpose, and why."""


def committed_files() -> list[Path]:
    """The files git tracks (in a clone); every file of the tree but what .gitignore leaves out
    otherwise (an unpacked sdist)."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=False)
    if listed.returncode == 0 and listed.stdout:
        return [ROOT / name for name in listed.stdout.split("\0") if name]
    skipped = {".git", ".venv", "node_modules", "__pycache__", ".hypothesis", ".pytest_cache", "site", "build", "dist"}
    return [path for path in ROOT.rglob("*") if path.is_file() and not skipped.intersection(path.relative_to(ROOT).parts)]


def machine_paths() -> list[str]:
    """This machine's own directories, as a file made here would name them."""
    places = {str(ROOT), str(Path.home()), sys.prefix, sys.base_prefix, os.path.realpath(sys.executable)}
    return sorted(place for place in places if place.count("/") >= 2 or place.count("\\") >= 2)


def _text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
        return None  # a binary file (a PNG), or one deleted and not yet committed


def test_no_committed_file_names_a_home_or_work_directory_or_this_machines_paths() -> None:
    files = committed_files()
    assert len(files) > 100, "the listing of the checkout's files found almost nothing"
    own = machine_paths()
    found: list[str] = []
    for path in files:
        name = path.relative_to(ROOT).as_posix()
        text = _text(path)
        if text is None or name in ON_PURPOSE:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if HOME_OR_WORK.search(line) or any(place in line for place in own):
                found.append(f"{name}:{number}: {line.strip()[:160]}")
    assert not found, "committed files name one machine's paths:\n" + "\n".join(found)


@pytest.mark.parametrize("name", sorted(ON_PURPOSE))
def test_each_file_listed_on_purpose_still_holds_such_a_path(name: str) -> None:
    text = _text(ROOT / name)
    assert text is not None and HOME_OR_WORK.search(text), f"{name} no longer names a home or work directory: drop it from ON_PURPOSE"


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ('"command": ["/work/main/.venv/bin/python", "server.py"]', True),
        ("cd /home/alice/src/server && python server.py", True),
        ("/Users/bob/Library/server", True),
        ('"C:\\\\Users\\\\carol\\\\server.exe"', True),
        ("/root/.cache/pip", True),
        ("python -m fuzz.demo_server", False),
        ("mkdir -p /tmp/schema-gather/raw", False),
        ("https://example.com/home/page/", False),
        ("~/work/notes and ./home/x/", False),
    ],
)
def test_the_pattern_tells_a_machine_path_from_other_text(text: str, named: bool) -> None:
    assert bool(HOME_OR_WORK.search(text)) is named
