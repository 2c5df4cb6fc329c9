"""The tool-name rule: what a listed tool's name SHOULD be.

The rule comes from MCP 2025-11-25, server/tools, *Tool Names*.
It is judged on the `tools/list` answer, once per run.

Why here and not in the oracle?
The oracle judges one exchange for one case.
A name is judged once, on the listing the run starts from.
It has no request of its own, and nothing to shrink.

The engine asks `listing_findings` for the tools this process fuzzes.
With `--processes`, those are its shard's tools.
So each name's finding is made by the one process that owns its tool.
It is made never twice, and never by none.
The finding goes into that tool's summary like any other.
So the reports, `--rules`/`--exclude-rules`, `--fail-on` and baselines treat it alike.

Which revisions judge names? The profile decides (`fuzz.judging.profiles`).
`sep-2145` judges names under every revision.
It judges everything by the accepted texts, whatever the revision spoken.
A name with a space breaks clients whichever revision the server speaks.
`published` judges names only from 2025-11-25 on, the first revision with the section.
Before it, no revision says anything of a name's form.

Names differing only in case are distinct, since the section says names are case-sensitive.
So `getUser` and `GetUser` are no duplicate.

Every name is quoted escaped: as JSON, ASCII only, with a CI command's `##[` defused.
A name is the server's data.
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
"""Characters of a name quoted in a message.

A longer name is cut, and its length said."""

EXPECTED = f"a name of 1 to {LONGEST} characters, only {_ALLOWED_WORDS}, listed once"
LISTING_REQUEST: dict[str, Any] = {"jsonrpc": "2.0", "method": "tools/list"}
"""The request a name finding shows: the listing.

The run's own request had an id, and a cursor per page."""


def quoted(name: str) -> str:
    """`name` as a JSON string literal of ASCII characters only.

    Control characters, ESC and anything beyond ASCII are escaped.
    The `[` of a CI command is written `\\u005b`, which is still the same JSON string.
    The name is cut after _NAME_SHOWN characters."""
    shown = name if len(name) <= _NAME_SHOWN else name[: _NAME_SHOWN - 3] + "..."
    return _ANYWHERE_COMMAND.sub(lambda match: match.group(1) + "\\u005b", json.dumps(shown, ensure_ascii=True))


def name_problems(name: str, times_listed: int = 1) -> tuple[str, ...]:
    """What is wrong with `name` by the section; () for a compliant name.

    Each problem is a clause naming the requirement it breaks."""
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
    """The tool-name finding of each of `names` whose name breaks the section.

    `names` are the tools a process fuzzes.
    They are judged against the whole `listing`: every entry `tools/list` gave, duplicates included.
    `rule` is the profile's version of the tool-name rule."""
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
