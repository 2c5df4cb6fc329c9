"""Schema coverage: which keywords of a tool's schemas a run reached, on which side.

A run that never sent a value at `maximum` cannot claim it tested `maximum`.
So a run counts cases per (place, keyword) of a tool's `inputSchema`.
The mirror tool's `outputSchema` is counted too.

A case reaches a keyword's *valid* side with a valid value at the keyword's boundary.
Examples are a string of exactly `maxLength` characters, the `maximum` itself, or an `enum` value.
A case reaches its *invalid* side with a value the validator rejects for that keyword there.
Each side also counts how the server answered its cases.

A side a keyword does not have is None.
`default` has no invalid side, and `additionalProperties: false` no valid one.
A side it has that no case reached has `sent == 0`.

Reaching a side is decided per case from the value sent, not from how it was made.
`strategies.boundaries.reached` decides it.
So the random search and the boundary phase are counted alike.
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
    """The cases that reached one side of a keyword, and how each was answered.

    Answers are counted by `fuzz.judging.coverage.BUCKETS` name."""

    sent: int = 0
    answers: Mapping[str, int] = field(default_factory=dict)

    def as_json(self) -> dict[str, object]:
        return {"sent": self.sent, "answers": dict(sorted(self.answers.items()))}


@dataclass(frozen=True, slots=True)
class KeywordCoverage:
    """One keyword at one place of one schema."""

    schema: SchemaRole
    path: str
    """The place as labels name it, such as `arguments.title` or `structuredContent.total`.

    `arguments.tags[]` names any item of `tags`."""
    schema_path: str
    """The keyword's schema as a JSON Pointer into the tool's schema: `/properties/title`."""
    keyword: str
    valid: SideReach | None
    """None: the keyword has no valid side to reach (`additionalProperties: false`)."""
    invalid: SideReach | None
    """None: the keyword has no invalid side.

    Examples are `default`, `examples`, and `format` as an annotation."""

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
    """(keywords reached on every side they have, keywords), for a terminal line.

    The line reads like `keywords: 31 of 34 reached on both sides`."""
    listed = list(entries)
    return sum(entry.fully_reached for entry in listed), len(listed)
