"""Schema coverage as the reports tell it (`fuzz.judging.schema_coverage`).

It says how many keywords of a tool's schemas were reached on every side they have. It names those
that were not. It counts how the cases that reached a side were answered.

A place names the properties of the server's schema (`arguments.title`), so it is server text.
Everything here that a person reads goes through `fuzz.text.printable`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from fuzz.judging.schema_coverage import KeywordCoverage, SideReach, reached_count
from fuzz.text import listing, printable


def ordered(entries: Iterable[KeywordCoverage]) -> list[KeywordCoverage]:
    """The keywords not reached on every side first, each group in the schema's order."""
    listed = list(entries)
    return [entry for entry in listed if not entry.fully_reached] + [entry for entry in listed if entry.fully_reached]


def reached(entries: Sequence[KeywordCoverage]) -> str:
    """`31 of 34 reached on every side`."""
    done, total = reached_count(entries)
    return f"{done} of {total} reached on every side"


def unreached(entry: KeywordCoverage) -> str:
    """`arguments.title maxLength invalid`, or `... valid/invalid` when neither side was reached."""
    return f"{printable(entry.path)} {printable(entry.keyword)} {'/'.join(entry.unreached_sides)}"


def line(entries: Sequence[KeywordCoverage]) -> str:
    """The terminal's line for a tool's keywords.

    For example: `keywords: 31 of 34 reached on every side (not reached: arguments.title maxLength
    invalid, arguments.tags maxItems valid, ... and 1 more)`.
    """
    missing = [unreached(entry) for entry in entries if not entry.fully_reached]
    return f"keywords: {reached(entries)}" + (f" (not reached: {listing(missing)})" if missing else "")


def answered(answers: Mapping[str, int]) -> str:
    """`success 3, tool-error 1`: each kind of answer (`fuzz.judging.coverage.BUCKETS`), most first."""
    ranked = sorted(answers.items(), key=lambda item: (-item[1], item[0]))
    return ", ".join(f"{printable(name)} {count}" for name, count in ranked if count)


def sides_answered(entry: KeywordCoverage) -> str:
    """`valid: success 3; invalid: tool-error 1`, the sides no case reached left out; "" for none."""
    parts = [(name, side) for name, side in (("valid", entry.valid), ("invalid", entry.invalid)) if side is not None and side.sent]
    return "; ".join(f"{name}: {answered(side.answers) or 'no answer counted'}" for name, side in parts)


def sent(side: SideReach | None) -> str:
    """A side's count of cases, `–` for a side the keyword does not have."""
    return "–" if side is None else str(side.sent)
