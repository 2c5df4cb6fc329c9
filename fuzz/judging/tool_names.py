"""The tool-name rule: what a listed tool's name SHOULD be (MCP 2025-11-25, server/tools, *Tool
Names*), judged on the `tools/list` answer, once per run.

Why here and not in the oracle: the oracle judges one exchange for one case; a name is judged
once, on the listing the run starts from, with no request of its own and nothing to shrink.
The engine asks `listing_findings` for the tools this process fuzzes (its shard's, with
`--processes`), so that each name's finding is made by the one process that owns its tool:
never twice, never by none. The finding goes into that tool's summary like any other, so the
reports, `--rules`/`--exclude-rules`, `--fail-on` and baselines treat it alike.

Which revisions: the profile decides (`fuzz.judging.profiles`). `sep-2145` judges names under every
revision, as it judges everything by the accepted texts whatever the revision spoken: a name
with a space breaks clients whichever revision the server speaks. `published` judges them only
from 2025-11-25 on, the first revision with the section: before it no revision says anything
of a name's form. Names differing only in case are distinct (the section says names are
case-sensitive), so `getUser` and `GetUser` are no duplicate. Every name is quoted escaped
(JSON, ASCII only, a CI command's `##[` defused): a name is the server's data, and
`"\\n::error::x"`, `##[error]` or an ESC in it must reach no terminal or CI log raw.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from fuzz.judging.findings import Finding
from fuzz.judging.rules import TOOL_NAME, Rule
from strategies import CaseKind, Tool

LONGEST = 128
_ALLOWED = re.compile(r"[A-Za-z0-9_.-]*")
_ALLOWED_WORDS = "A-Z, a-z, 0-9, _, - and ."
_NAMED = {" ": "space", ",": "comma"}
_CHARACTERS_SHOWN = 8
_ANYWHERE_COMMAND = re.compile(r"(##(?:vso)?)\[", re.IGNORECASE)
"""GitHub's `##[command]` and Azure Pipelines' `##vso[command]`, obeyed anywhere in a line."""
_NAME_SHOWN = 120
"""Characters of a name quoted in a message (a longer one is cut, its length said)."""

EXPECTED = f"a name of 1 to {LONGEST} characters, only {_ALLOWED_WORDS}, listed once"
LISTING_REQUEST: dict[str, Any] = {"jsonrpc": "2.0", "method": "tools/list"}
"""A name finding's request: the listing (the run's own had an id, and a cursor per page)."""


def quoted(name: str) -> str:
    """`name` as a JSON string literal of ASCII characters only (control characters, ESC and
    anything beyond ASCII escaped; the `[` of a CI command as `\\u005b`, still the same JSON
    string), cut after _NAME_SHOWN characters."""
    shown = name if len(name) <= _NAME_SHOWN else name[: _NAME_SHOWN - 3] + "..."
    return _ANYWHERE_COMMAND.sub(lambda match: match.group(1) + "\\u005b", json.dumps(shown, ensure_ascii=True))


def name_problems(name: str, times_listed: int = 1) -> tuple[str, ...]:
    """What is wrong with `name` by the section, each as a clause naming the requirement it
    breaks; () for a compliant name."""
    problems = []
    if not name:
        problems.append(f"is empty (names SHOULD be between 1 and {LONGEST} characters)")
    elif len(name) > LONGEST:
        problems.append(f"is {len(name)} characters long (names SHOULD be between 1 and {LONGEST} characters)")
    outside = list(dict.fromkeys(character for character in name if not _ALLOWED.fullmatch(character)))
    if outside:
        shown = ", ".join(_character(character) for character in outside[:_CHARACTERS_SHOWN])
        more = f" and {len(outside) - _CHARACTERS_SHOWN} more" if len(outside) > _CHARACTERS_SHOWN else ""
        problems.append(f"has characters outside {_ALLOWED_WORDS} (the only ones names SHOULD use): {shown}{more}")
    if times_listed > 1:
        problems.append(f"is listed {times_listed} times (names SHOULD be unique within a server)")
    return tuple(problems)


def _character(character: str) -> str:
    literal = json.dumps(character, ensure_ascii=True)
    return f"{literal} ({_NAMED[character]})" if character in _NAMED else literal


def listing_findings(listing: Sequence[Tool], names: Collection[str], rule: Rule = TOOL_NAME) -> dict[str, Finding]:
    """The tool-name finding of each of `names` (the tools a process fuzzes) whose name breaks
    the section, judged against the whole `listing` (every entry `tools/list` gave, duplicates
    included), by `rule` (the profile's version of it)."""
    times = Counter(tool.name for tool in listing)
    entries: dict[str, list[Mapping[str, Any]]] = {}
    for tool in listing:
        entries.setdefault(tool.name, []).append(tool.listing or {"name": tool.name})
    findings = {}
    for name in names:
        problems = name_problems(name, times[name]) if name in times else ()
        if problems:
            findings[name] = _finding(rule, name, problems, entries[name])
    return findings


def _finding(rule: Rule, name: str, problems: tuple[str, ...], entries: list[Mapping[str, Any]]) -> Finding:
    why = f"the listed tool name {quoted(name)} " + "; it ".join(problems)
    return Finding(
        rule=rule,
        tool=name,
        case=CaseKind.TOOL_LISTING,
        label="the tool's name as tools/list gave it",
        request=dict(LISTING_REQUEST),
        response={"jsonrpc": "2.0", "result": {"tools": [dict(entry) for entry in entries]}},
        message=f"{rule.id} ({rule.level.label}): {why}. Expected {EXPECTED}. {rule.source}",
        why=why,
        expected=EXPECTED,
    )
