"""How a violated rule fails a Hypothesis example, and how to read what a run raised.

A violation raises an exception whose type is the rule's own. So Hypothesis tells the rules apart,
and shrinks each to its own minimal example (`report_multiple_bugs`).
"""

from __future__ import annotations

from fuzz.judging.findings import Finding


class RuleViolated(Exception):
    """Raised inside a Hypothesis example to fail it; carries the finding."""

    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.message)
        self.finding = finding


_types: dict[str, type[RuleViolated]] = {}


def violation_type(key: str) -> type[RuleViolated]:
    """One exception class per key, so that Hypothesis tells them apart while shrinking.

    A key is a rule id. For sequences it is a rule id and a tool, so that one tool's violation does
    not hide another's.
    """
    if key not in _types:
        name = "RuleViolated_" + "".join(character if character.isalnum() else "_" for character in key)
        _types[key] = type(name, (RuleViolated,), {})
    return _types[key]


def violations_in(error: BaseException) -> list[RuleViolated]:
    if isinstance(error, RuleViolated):
        return [error]
    if isinstance(error, BaseExceptionGroup):
        return [found for inner in error.exceptions for found in violations_in(inner)]
    return []


def leaves_of_type(error: BaseException, types: tuple[type[BaseException], ...]) -> bool:
    if isinstance(error, BaseExceptionGroup):
        return any(leaves_of_type(inner, types) for inner in error.exceptions)
    return isinstance(error, types)
