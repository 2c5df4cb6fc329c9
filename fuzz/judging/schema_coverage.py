"""Schema coverage: which keywords of a tool's schemas a run reached, on which side.

A run that never sent a value at `maximum` cannot claim it tested `maximum`. For each (place,
keyword) of a tool's `inputSchema` (and of the mirror tool's `outputSchema`), a run counts the
cases that reached it on its *valid* side (a valid value at the keyword's boundary: a string of
exactly `maxLength` characters, the `maximum` itself, an `enum` value) and on its *invalid* side
(a value the validator rejects for that keyword at that place), with how the server answered
them. A side a keyword does not have (`default` has no invalid side, `additionalProperties:
false` no valid one) is None; a side it has that no case reached has `sent == 0`.

What counts as reaching a side is decided per case from the value sent, not from how it was
made (`strategies.boundaries.reached`), so the random search and the boundary phase are counted
alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum


class SchemaRole(Enum):
    """Which of a tool's schemas an entry is about."""

    INPUT = "input"
    OUTPUT = "output"


@dataclass(frozen=True, slots=True)
class SideReach:
    """The cases that reached one side of a keyword, and how each was answered (by
    `fuzz.judging.coverage.BUCKETS` name)."""

    sent: int = 0
    answers: Mapping[str, int] = field(default_factory=dict)

    def as_json(self) -> dict[str, object]:
        return {"sent": self.sent, "answers": dict(sorted(self.answers.items()))}


@dataclass(frozen=True, slots=True)
class KeywordCoverage:
    """One keyword at one place of one schema."""

    schema: SchemaRole
    path: str
    """The place as labels name it: `arguments.title`, `arguments.tags[]` (any item), `structuredContent.total`."""
    schema_path: str
    """The keyword's schema as a JSON Pointer into the tool's schema: `/properties/title`."""
    keyword: str
    valid: SideReach | None
    """None: the keyword has no valid side to reach (`additionalProperties: false`)."""
    invalid: SideReach | None
    """None: the keyword has no invalid side (`default`, `examples`, `format` as an annotation)."""

    @property
    def sides(self) -> tuple[SideReach, ...]:
        return tuple(side for side in (self.valid, self.invalid) if side is not None)

    @property
    def fully_reached(self) -> bool:
        """Every side the keyword has was sent at least one case."""
        return all(side.sent > 0 for side in self.sides)

    @property
    def unreached_sides(self) -> tuple[str, ...]:
        return tuple(name for name, side in (("valid", self.valid), ("invalid", self.invalid)) if side is not None and side.sent == 0)

    def as_json(self) -> dict[str, object]:
        return {
            "schema": self.schema.value,
            "path": self.path,
            "schemaPath": self.schema_path,
            "keyword": self.keyword,
            "valid": self.valid.as_json() if self.valid is not None else None,
            "invalid": self.invalid.as_json() if self.invalid is not None else None,
        }


def reached_count(entries: Iterable[KeywordCoverage]) -> tuple[int, int]:
    """(keywords reached on every side they have, keywords) for a terminal line such as
    `keywords: 31 of 34 reached on both sides`."""
    listed = list(entries)
    return sum(entry.fully_reached for entry in listed), len(listed)
