"""What a run is asked to do: the options the CLI (or a test) gives the engine."""

from __future__ import annotations

import os
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from fuzz.corpus.database import DatabaseChoice
from fuzz.engine.known_arguments import KnownArgument
from fuzz.engine.plan import Selection
from fuzz.judging.coverage import kinds_judging
from fuzz.judging.findings import FindingKey
from fuzz.judging.profiles import SEP_2145
from fuzz.judging.rules import Level
from fuzz.wire.framing import DEFAULT_MAX_MESSAGE_BYTES
from fuzz.wire.target import TargetSpec
from strategies import CaseKind

DEFAULT_WORKERS = 1
"""Explorations at once by default: one.

That measured best on a 2-core machine, against targets that answer in microseconds, such as the
demo and an `mcp` SDK server. There the harness computes more than it waits. Python threads that all
compute only take turns, at a cost.

While explorations wait on the target, extra workers start (`_scheduler.EXTRA_WORKERS`). One more
starts while they spend `_scheduler.WAITING_SHARE` of their time waiting, as against an SDK server. A
target may answer slowly, drop requests or hang. Against such a target, --workers 4 from the start
is faster still (README, *Cases in flight*).
"""


def default_processes() -> int:
    """Worker processes by default: two where two cores are free to the harness, else one.

    Two measured best on a 2-core machine (docs/throughput.md). More cores can take more.
    """
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    return min(2, cores)


class RunPhase(Enum):
    """The parts of a run (`--phases`), in the order they run for each exploration."""

    BOUNDARY = "boundary"
    """Deterministic cases, before the search.

    These are each case kind's canonical cases, the simplest form of every shape. And each keyword's
    boundary values (`strategies.boundaries`).
    """
    RANDOM = "random"
    """Hypothesis's search, seeded by --seed."""
    SEQUENCE = "sequence"
    """Sequences of calls, later ones reusing what earlier answers gave.

    See `fuzz.engine.phases._sequences`.
    """
    TASKS = "tasks"
    """The task methods' own rules, where the server declares tasks.

    See `fuzz.engine.phases._task_methods`.
    """
    ROUNDS = "rounds"
    """The 2026-07-28 rules beyond one call: the listing's caching hints and order, and each
    tool's tampered `requestState`.

    See `fuzz.engine.phases._rounds`.
    """


ALL_PHASES = frozenset(RunPhase)


@dataclass(frozen=True, slots=True)
class Shard:
    """`--shard NUMBER/COUNT`: this runner makes part NUMBER of a run split over COUNT runners.

    NUMBER is 1-based. The runners are a CI matrix's jobs (`fuzz.engine.sharding`).
    """

    number: int
    count: int

    def __str__(self) -> str:
        return f"{self.number}/{self.count}"


@dataclass(frozen=True, slots=True)
class ProcessPart:
    """The part of a run one worker process makes: worker `index` of `count`.

    See `fuzz.engine._processes`.
    """

    index: int
    count: int


@dataclass(frozen=True, slots=True)
class RunOptions:
    target: TargetSpec
    seed: int
    max_examples: int = 100
    timeout: float = 5.0
    """Seconds to wait for the answer to one request."""
    startup_timeout: float = 20.0
    """Seconds to wait for the answers to `initialize` and `tools/list`."""
    max_answer_size: int = DEFAULT_MAX_MESSAGE_BYTES
    """The longest answer read whole: a stdout line, an HTTP body, an SSE event.

    A longer one is an unreadable answer (`fuzz.wire.framing`).
    """
    protocol_version: str | None = None
    """The revision to speak (`--protocol-version`).

    None: offer the newest, and speak what the server answers.
    """
    selection: Selection = Selection()  # noqa: RUF009 - frozen: one shared default is safe
    profile: str = SEP_2145.id
    rules: frozenset[str] | None = None
    """The rule ids to judge by (--rules minus --exclude-rules); None for all."""
    fail_on: Level = Level.SHOULD
    fail_on_breaking: bool = False
    """`--fail-on-breaking`: a breaking change of the target's tool list fails the run."""
    envelope: bool = True
    """Send the malformed requests that name no tool (once per run)."""
    corpus: Path | None = None
    """Where reproductions are replayed from and written to; None for neither.

    Hypothesis's database is kept there too by default (`database`).
    """
    database: DatabaseChoice = DatabaseChoice()  # noqa: RUF009 - frozen: one shared default is safe
    """Where Hypothesis keeps its examples (`--database`): by default beside the corpus."""
    baseline: frozenset[FindingKey] = frozenset()
    max_time: float | None = None
    """Seconds the whole run may take; None for no limit.

    The run stops within a few seconds of it, keeping what it found.
    """
    workers: int = DEFAULT_WORKERS
    """Explorations (tool x case kind) fuzzed at once, on the one connection.

    Each runs in its own thread. Their findings do not depend on it: each exploration is seeded on
    its own.
    """
    processes: int = 1
    """Worker processes, each with its own connection and share of the tools.

    See `fuzz.engine._processes`. What is found does not depend on it. The CLI's default is
    `default_processes()`.
    """
    shard: Shard | None = None
    """`--shard`: the part of the run this runner makes (None: all of it)."""
    process_part: ProcessPart | None = None
    """Set in a worker process: the tools it fuzzes (of its shard's, with `shard`)."""
    only: frozenset[str] | None = None
    """Fuzz only these of the planned tools, by name.

    `strategies.cases.ENVELOPE` names the malformed envelopes. The pytest plugin fuzzes one tool per
    call, on one target. It uses the same plan, and so the same seeds, as a run of all.
    """
    kinds: frozenset[CaseKind] | None = None
    """Send only these of the planned case kinds (None: all).

    The pytest plugin's `-k RULE` needs only the kinds its rules judge (`coverage.kinds_judging`).
    """
    replay_corpus: bool = True
    """Replay the corpus's reproductions of this target before fuzzing, if `corpus` is set."""
    tool_max_examples: tuple[tuple[str, int], ...] = ()
    """Per tool, its own --max-examples (`--tool-max-examples TOOL=N`)."""
    known_arguments: tuple[KnownArgument, ...] = ()
    """Known-good values (`--argument TOOL.FIELD=VALUE`).

    They are resolved against the listed tools when the run starts (`fuzz.engine.known_arguments`).
    """
    phases: frozenset[RunPhase] = ALL_PHASES
    """The phases to run (`--phases`): all by default."""
    tries: int = 0
    """`--tries`: how many fresh targets each new finding, and each reproduction that replayed FIXED,
    is tried again on (`fuzz.engine.stability`). 0 tries nothing; the CLI's default is 5."""
    flaky_fails: bool = True
    """`--flaky fail` (the default) or `report`: whether a flaky finding fails the run."""
    history: Path | None = None
    """`--history`: the file that keeps one record per run (`fuzz.corpus.history`); None keeps none.
    The CLI's default is `nights.jsonl` in the corpus."""

    @property
    def kinds_sent(self) -> frozenset[CaseKind] | None:
        """The case kinds of those planned that the run sends (None: all).

        They are `kinds` when given. Otherwise a run that judges some rules only (`--rules`) sends
        the case kinds whose answers judge them, as the pytest plugin's `-k RULE` does: cases no
        chosen rule judges would cost the server's time and find nothing reported. A chosen rule
        judged on any kind's answers (request-answered) keeps them all, and sequences are kept,
        since their steps are judged by every chosen rule.
        """
        if self.kinds is not None or self.rules is None:
            return self.kinds
        judging = kinds_judging(self.rules)
        return None if judging is None else judging | {CaseKind.SEQUENCE}

    def sends(self, kind: CaseKind) -> bool:
        """Whether the run sends `kind`'s cases where they are planned (`kinds_sent`)."""
        sent = self.kinds_sent
        return sent is None or kind in sent

    def max_examples_for(self, tool: str | None) -> int:
        return dict(self.tool_max_examples).get(tool or "", self.max_examples)

    def as_json(self) -> dict[str, Any]:
        selection = self.selection
        return {
            "maxExamples": self.max_examples,
            "timeout": self.timeout,
            "maxAnswerSize": self.max_answer_size,
            "profile": self.profile,
            "rules": sorted(self.rules) if self.rules is not None else None,
            "failOn": self.fail_on.value,
            "failOnBreaking": self.fail_on_breaking,
            "tools": sorted(selection.tools) if selection.tools is not None else None,
            "excludeTools": sorted(selection.exclude_tools),
            "unavailable": sorted(selection.unavailable),
            "mirrorTool": selection.mirror_tool,
            "destructive": selection.destructive.value,
            "corpus": str(self.corpus) if self.corpus is not None else None,
            "database": self.database.as_json(self.corpus),
            "maxTime": self.max_time,
            "workers": self.workers,
            "processes": self.processes,
            "protocolVersion": self.protocol_version,
            "arguments": [{"field": key, "value": value} for key, value in self.known_arguments],
            "toolMaxExamples": dict(self.tool_max_examples),
            "destructiveAllowed": sorted(selection.destructive_allowed),
            "phases": [phase.value for phase in RunPhase if phase in self.phases],
            "shard": str(self.shard) if self.shard is not None else None,
            "tries": self.tries,
            "flaky": "fail" if self.flaky_fails else "report",
            "history": str(self.history) if self.history is not None else None,
        }
