"""`--protocol-version all`: the same fuzzing under every revision the target speaks.

It also says what differs between them.

Each revision gets a run of its own: its own copy of the target, the same seed and options. So each
is judged by its own text, exactly as `--protocol-version V` alone would judge it. Some revisions
the target does not open. It answers `initialize` with another, or leaves the revision out of
`server/discover`, or refuses or ignores the opening request. Such a revision is reported as not
spoken, with what the target answered. `--max-time` is shared out: each revision gets an equal part
of what is left.

A difference is a tool and case kind classified differently under two revisions. It may be another
finding: another rule, or another kind of answer. `JSON-RPC error -32603` is not `JSON-RPC error 0`.
It may also be another kind of answer where every case of the kind got one kind of answer under
each. An example: all tool execution errors under one revision, all JSON-RPC errors under the other.

Each exploration is seeded from the run's seed, tool and kind alone. So the same calls are drawn
under every revision until their answers differ. Answers that were mixed under a revision are not
compared. Which share of valid calls succeeds depends on the values drawn, not on the revision.

Some things only some revisions judged. A case kind may exist under one revision only, such as the
envelope kinds of 2026-07-28. A tool may be missing from one revision's listing. These cannot
differ, and are listed apart (`Uncompared`), with what those revisions made of them. So two
revisions with five problems and three are never shown as differing in nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from fuzz.engine.events import Listener
from fuzz.engine.options import RunOptions
from fuzz.engine.run import run
from fuzz.errors import HandshakeError, TargetStartError
from fuzz.judging.findings import Finding, RunResult
from fuzz.wire.handshake import ACCEPTED_PROTOCOL_VERSIONS
from fuzz.wire.lifecycle import SPOKEN_PROTOCOL_VERSIONS
from fuzz.wire.opening import NotSpoken, Refused, Silent
from strategies import CaseKind


@dataclass(frozen=True, slots=True)
class Unfuzzed:
    """A revision with no run: the target does not speak it, or time ran out."""

    version: str
    reason: str
    tried: bool = True
    """False when it was not even opened (no time left, an earlier revision's silence)."""


@dataclass(frozen=True, slots=True)
class Behaviour:
    """How the cases of one kind sent to one tool fared under one revision."""

    version: str
    answers: tuple[tuple[str, int], ...]
    """Answer kinds (`fuzz.judging.coverage.BUCKETS`) and how many cases got each."""
    findings: tuple[tuple[str, str], ...]
    """The rules broken, each with the kind of answer that broke it."""
    example: Finding | None
    """The first finding, for its minimal request."""

    @property
    def uniform_answer(self) -> str | None:
        return self.answers[0][0] if len(self.answers) == 1 else None


@dataclass(frozen=True, slots=True)
class Difference:
    tool: str
    case: CaseKind
    behaviours: tuple[Behaviour, ...]
    """One per revision that sent this tool cases of this kind, newest revision first."""


@dataclass(frozen=True, slots=True)
class Uncompared:
    """A tool and case kind that some of the revisions fuzzed did not judge."""

    tool: str
    case: CaseKind
    behaviours: tuple[Behaviour, ...]
    """One per revision that sent this tool cases of this kind, newest revision first."""
    missing: tuple[str, ...]
    """The revisions fuzzed that sent it none."""

    @property
    def versions(self) -> tuple[str, ...]:
        return tuple(behaviour.version for behaviour in self.behaviours)


@dataclass(frozen=True, slots=True)
class RevisionRuns:
    runs: tuple[RunResult, ...]
    """One per revision the target spoke, newest first."""
    unfuzzed: tuple[Unfuzzed, ...]
    differences: tuple[Difference, ...]
    seconds: float
    uncompared: tuple[Uncompared, ...] = ()
    """What only some of the revisions judged (none with one revision fuzzed)."""
    compared: int = 0
    """Tools and case kinds judged under two revisions or more.

    The `differences` are among those.
    """

    @property
    def exit_code(self) -> int:
        return max(result.exit_code for result in self.runs)

    @property
    def versions(self) -> tuple[str, ...]:
        return tuple(result.protocol_version or "" for result in self.runs)


NOT_SPOKEN = (NotSpoken, Refused, Silent)
"""What opening a connection under a revision raises when the target does not speak it."""


def run_each_revision(options: RunOptions, listener_for: Callable[[str], Listener]) -> RevisionRuns:
    """Fuzz the target under each revision the harness speaks, newest first.

    `listener_for` gives each run's listener. Stops after a run the user stopped. Raises
    HandshakeError when the target opens under none. The error names every revision's answer.
    """
    started = time.monotonic()
    runs: list[RunResult] = []
    unfuzzed: list[Unfuzzed] = []
    silent_to_initialize: str | None = None
    for index, version in enumerate(SPOKEN_PROTOCOL_VERSIONS):
        if silent_to_initialize is not None and version in ACCEPTED_PROTOCOL_VERSIONS:
            unfuzzed.append(Unfuzzed(version, f"not tried: the target did not answer initialize under {silent_to_initialize}", tried=False))
            continue
        share = None
        if options.max_time is not None:
            left = options.max_time - (time.monotonic() - started)
            if left <= 1:
                unfuzzed.append(Unfuzzed(version, f"not reached: --max-time {options.max_time:g} s ran out before it", tried=False))
                continue
            share = left / (len(SPOKEN_PROTOCOL_VERSIONS) - index)
        try:
            result = run(replace(options, protocol_version=version, max_time=share), listener_for(version))
        except TargetStartError as failure:
            opening = failure.opening
            if not isinstance(opening, NOT_SPOKEN):
                raise
            unfuzzed.append(Unfuzzed(version, opening.reason if isinstance(opening, NotSpoken) else str(opening)))
            if isinstance(opening, Silent) and version in ACCEPTED_PROTOCOL_VERSIONS:
                silent_to_initialize = version
            continue
        runs.append(result)
        if result.stopped_by_user:
            unfuzzed.extend(Unfuzzed(later, f"not reached: the run was {result.stopped_early}", tried=False) for later in SPOKEN_PROTOCOL_VERSIONS[index + 1 :])
            break
    if not runs:
        answers = "; ".join(f"{item.version}: {item.reason}" for item in unfuzzed if item.tried)
        raise HandshakeError(f"--protocol-version all: the target opened under none of the revisions mcp-toolfuzz speaks ({answers})")
    fuzzed = tuple(runs)
    return RevisionRuns(fuzzed, tuple(unfuzzed), differences(fuzzed), time.monotonic() - started, uncompared(fuzzed), compared(fuzzed))


def _behaviours(result: RunResult) -> dict[tuple[str, CaseKind], Behaviour]:
    version = result.protocol_version or ""
    found: dict[tuple[str, CaseKind], list[Finding]] = {}
    for finding in result.findings:
        found.setdefault((finding.tool, finding.case), []).append(finding)
    behaviours = {}
    for summary in result.tools:
        for kind, sent in summary.cases_sent.items():
            if not sent:
                continue
            findings = found.get((summary.tool, kind), [])
            behaviours[summary.tool, kind] = Behaviour(
                version=version,
                answers=tuple(sorted((bucket, count) for bucket, count in summary.answers.get(kind, {}).items() if count)),
                findings=tuple(sorted({(finding.rule.id, finding.answer_kind) for finding in findings})),
                example=findings[0] if findings else None,
            )
    return behaviours


def _classified_alike(behaviours: list[Behaviour]) -> bool:
    if len({behaviour.findings for behaviour in behaviours}) > 1:
        return False
    uniform = [behaviour.uniform_answer for behaviour in behaviours]
    return None in uniform or len(set(uniform)) == 1


def differences(runs: tuple[RunResult, ...]) -> tuple[Difference, ...]:
    """The tools and case kinds classified differently under two of `runs`.

    See the module docstring.
    """
    by_run = [_behaviours(result) for result in runs]
    keys = list(dict.fromkeys(key for behaviours in by_run for key in behaviours))
    found = []
    for tool, kind in keys:
        present = [behaviours[tool, kind] for behaviours in by_run if (tool, kind) in behaviours]
        if len(present) > 1 and not _classified_alike(present):
            found.append(Difference(tool, kind, tuple(present)))
    return tuple(found)


def uncompared(runs: tuple[RunResult, ...]) -> tuple[Uncompared, ...]:
    """The tools and case kinds that some of `runs` judged and others did not.

    See the module docstring.
    """
    if len(runs) < 2:
        return ()
    by_run = [(result.protocol_version or "", _behaviours(result)) for result in runs]
    keys = list(dict.fromkeys(key for _, behaviours in by_run for key in behaviours))
    found = []
    for tool, kind in keys:
        missing = tuple(version for version, behaviours in by_run if (tool, kind) not in behaviours)
        if missing:
            present = tuple(behaviours[tool, kind] for _, behaviours in by_run if (tool, kind) in behaviours)
            found.append(Uncompared(tool, kind, present, missing))
    return tuple(found)


def compared(runs: tuple[RunResult, ...]) -> int:
    """How many tools and case kinds two of `runs` or more judged.

    That is what `differences` compares.
    """
    counts: dict[tuple[str, CaseKind], int] = {}
    for result in runs:
        for key in _behaviours(result):
            counts[key] = counts.get(key, 0) + 1
    return sum(1 for count in counts.values() if count > 1)
