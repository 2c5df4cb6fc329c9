"""What the engine tells whoever listens (reporters, progress bars) while it runs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from fuzz.judging.findings import Finding, Replayed, RunResult, ToolSummary


@dataclass(frozen=True, slots=True)
class RunStarted:
    seed: int
    target: str
    protocol_version: str
    server_name: str
    tool_names: tuple[str, ...]
    profile: str
    warnings: tuple[str, ...] = ()
    """What the run cannot do as asked, said once: a schema pattern the harness cannot use."""
    units: tuple[str, ...] = ()
    """The plan's units this run fuzzes (`ToolPlan.name`), in plan order.

    With `--shard`, only its shard's units.
    """
    shard: str | None = None
    """With `--shard`: which part of the run this is, in words."""


@dataclass(frozen=True, slots=True)
class Warned:
    """Something the run can no longer do as asked, said once, when it happens.

    An example: the example database failed and was left out. The run goes on, and its result keeps
    the warning.
    """

    warning: str


@dataclass(frozen=True, slots=True)
class CorpusReplayed:
    replayed: Replayed


@dataclass(frozen=True, slots=True)
class ToolStarted:
    tool: str


@dataclass(frozen=True, slots=True)
class FindingMade:
    finding: Finding


@dataclass(frozen=True, slots=True)
class ToolFinished:
    summary: ToolSummary


@dataclass(frozen=True, slots=True)
class Progress:
    """Sent every PROGRESS_EVERY seconds while explorations run."""

    running: tuple[tuple[str, str], ...]
    """What is being fuzzed: (tool, case kind) pairs in plan order.

    The envelope's tool is "".
    """
    cases: int
    findings: int
    seconds: float
    left: float | None
    """Seconds left of --max-time; None without it."""


PROGRESS_EVERY = 0.5


@dataclass(frozen=True, slots=True)
class RunFinished:
    result: RunResult


Event = RunStarted | Warned | CorpusReplayed | ToolStarted | FindingMade | ToolFinished | Progress | RunFinished
Listener = Callable[[Event], None]
