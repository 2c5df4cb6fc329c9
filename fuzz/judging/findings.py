"""A run's results as data: findings, what each tool was sent, and the whole run.

There is one finding per distinct rule, tool and case kind."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from fuzz.judging.rules import Level, Rule
from fuzz.judging.schema_coverage import KeywordCoverage
from fuzz.judging.tool_changes import ToolChange
from fuzz.wire.replies import Exchange
from strategies import CaseKind
from strategies.inputs import Inputs
from strategies.meta import HeaderOverrides


@dataclass(frozen=True, slots=True, order=True)
class FindingKey:
    """What makes two findings the same one: rule, tool and case kind.

    Baselines match on it."""

    rule: str
    tool: str
    case: str

    def as_json(self) -> dict[str, str | None]:
        return {"rule": self.rule, "tool": self.tool or None, "case": self.case}


@dataclass(frozen=True, slots=True)
class Stability:
    """How often a finding came back when tried again on fresh targets (`--tries`).

    `reproduced` of `attempts` (two on each fresh target: `fuzz.engine._stability`): a finding is
    stable when every attempt reproduced it, flaky otherwise. A finding that no attempt reproduced
    is flaky too: the run saw it once, and it would not come back alone. The label travels with the
    finding into every report and its reproduction file, so a reader can tell a bug that fails every
    night from one that fails one night in three.
    """

    reproduced: int
    attempts: int

    @property
    def stable(self) -> bool:
        return self.reproduced == self.attempts

    @property
    def label(self) -> str:
        """`stable (10 of 10)` or `flaky (3 of 10)`."""
        return f"{'stable' if self.stable else 'flaky'} ({self.reproduced} of {self.attempts})"

    def as_json(self) -> dict[str, Any]:
        return {"reproduced": self.reproduced, "attempts": self.attempts, "stable": self.stable}

    @classmethod
    def from_json(cls, value: Any) -> Stability | None:
        """The label a report or a reproduction file recorded; None when there is none or it is damaged."""
        if not isinstance(value, dict):
            return None
        reproduced, attempts = value.get("reproduced"), value.get("attempts")
        if type(reproduced) is not int or type(attempts) is not int or not 0 <= reproduced <= attempts or attempts < 1:
            return None
        return cls(reproduced, attempts)


@dataclass(frozen=True, slots=True)
class Replayed:
    """A reproduction from the corpus, replayed before the run fuzzed anything."""

    path: str
    status: str
    """FIXED, STILL FAILING, ERROR or TOOL GONE (`fuzz.corpus.replay.ReplayStatus`)."""
    detail: str
    key: FindingKey | None = None
    level: Level | None = None
    stability: Stability | None = None
    """How it reproduced when tried again: its file's label, or the tries' when it replayed FIXED
    (a replay FIXED that a try reproduces is flaky, and STILL FAILING)."""

    @property
    def flaky(self) -> bool:
        return self.stability is not None and not self.stability.stable

    def as_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "status": self.status,
            "detail": self.detail,
            **(self.key.as_json() if self.key else {}),
            "level": self.level.label if self.level is not None else None,
            "stability": self.stability.as_json() if self.stability is not None else None,
        }


@dataclass(frozen=True, slots=True)
class Use:
    """A value a sequence's request reused from an earlier answer.

    Argument `argument` took the value found at `path` in the answer of step `step`: an argument
    of a call, or a member of a task method's params (`reused_in`).
    `path` starts at the result's root, and `step` is 0-based.
    So a replay can take the value that answer holds *then*."""

    argument: str
    step: int
    path: tuple[str | int, ...]

    def as_json(self) -> dict[str, Any]:
        return {"argument": self.argument, "step": self.step, "path": list(self.path)}


def reused_in(request: dict[str, Any]) -> dict[str, Any] | None:
    """Where a request's reused values (`Use.argument`) go: a call's arguments, or the params of
    another method (a task method's `taskId`). None when the request has no such object."""
    params = request.get("params")
    if not isinstance(params, dict):
        return None
    holder = params.get("arguments") if request.get("method") == "tools/call" else params
    return holder if isinstance(holder, dict) else None


@dataclass(frozen=True, slots=True)
class SequenceStep:
    """A request a sequence sent before the one that violated a rule, and its answer."""

    request: dict[str, Any]
    response: dict[str, Any] | None
    uses: tuple[Use, ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {"request": self.request, "response": self.response, "uses": [use.as_json() for use in self.uses]}


@dataclass(frozen=True, slots=True)
class Round:
    """A retry of a call answered `input_required` (2026-07-28): the answer that asked for input,
    the retry that answered it, and the retry's own answer."""

    asked: dict[str, Any] | None
    request: dict[str, Any]
    response: dict[str, Any] | None

    def as_json(self) -> dict[str, Any]:
        return {"asked": self.asked, "request": self.request, "response": self.response}


def rounds_of(exchange: Exchange) -> tuple[Round, ...]:
    """The rounds of a call's exchange, each retry with the answer it answered and its own final one."""
    chain = (exchange, *exchange.rounds)
    return tuple(Round(before.final.answer, retry.request, retry.final.answer) for before, retry in pairwise(chain))


@dataclass(frozen=True, slots=True)
class Finding:
    """A rule violated by a tool for a kind of case, with the request and its answer.

    The request is the minimal one Hypothesis shrank to.
    The answer is the exact one it got, or None when none came."""

    rule: Rule
    tool: str
    """The tool the case was aimed at.

    It is "" for a malformed request that names no tool."""
    case: CaseKind
    label: str
    request: dict[str, Any]
    response: dict[str, Any] | None
    message: str
    """The whole story in one paragraph: rule, request, answer, expectation, spec sentence."""
    why: str = ""
    """What was wrong with the answer.

    An example: `answered with JSON-RPC error -32602 "Unknown tool"`."""
    expected: str = ""
    stderr: tuple[str, ...] = ()
    headers: HeaderOverrides = ()
    """The HTTP header values sent instead of those the request implies.

    A header mismatch case sends them."""
    reproduction: str | None = None
    """The reproduction file written for it, if the run keeps a corpus."""
    first_seen: bool = True
    """False when the corpus already held this very reproduction."""
    steps: tuple[SequenceStep, ...] = ()
    """A sequence finding's requests before `request`, in order.

    `fuzz.engine.phases._sequences` sends them."""
    uses: tuple[Use, ...] = ()
    """Where the values `request` reused came from, for a sequence finding."""
    inputs: Inputs | None = None
    """What the call declared and how it answered input requests (2026-07-28): replay answers the
    same way."""
    rounds: tuple[Round, ...] = ()
    """The retries its `input_required` answers led to, in order; `response` is the last's answer."""
    judged_as: CaseKind | None = None
    """The kind of case a sequence finding's request was judged as.

    That is valid arguments, invalid arguments, or an unknown tool.
    None: it was judged as `case`."""
    stability: Stability | None = None
    """How often it came back on fresh targets (`--tries`); None when it was not tried."""

    @property
    def flaky(self) -> bool:
        return self.stability is not None and not self.stability.stable

    @property
    def answer_kind(self) -> str:
        """The kind of answer it got.

        Problems group findings by it, and revisions are compared by it."""
        response = self.response
        if response is None:
            return "no answer"
        error = response.get("error")
        if isinstance(error, dict):
            return f"JSON-RPC error {error.get('code')}"
        result = response.get("result")
        if isinstance(result, dict):
            return "a tool execution error" if result.get("isError") is True else "a result"
        return "an answer that is neither"

    @property
    def key(self) -> FindingKey:
        return FindingKey(self.rule.id, self.tool, self.case.value)

    def as_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule.id,
            "level": self.rule.level.label,
            "tool": self.tool or None,
            "case": self.case.value,
            "label": self.label,
            "request": self.request,
            "response": self.response,
            "message": self.message,
            "why": self.why,
            "expected": self.expected,
            "stderr": list(self.stderr),
            **({"headers": dict(self.headers)} if self.headers else {}),
            **({"inputs": self.inputs.as_json(), "rounds": [r.as_json() for r in self.rounds]} if self.inputs is not None and self.rounds else {}),
            "reproduction": self.reproduction,
            "firstSeen": self.first_seen,
            "stability": self.stability.as_json() if self.stability is not None else None,
            **(
                {
                    "steps": [step.as_json() for step in self.steps],
                    "uses": [use.as_json() for use in self.uses],
                    "judgedAs": self.judged_as.value if self.judged_as else None,
                }
                if self.case is CaseKind.SEQUENCE
                else {}
            ),
        }


@dataclass(frozen=True, slots=True)
class Skip:
    """A case kind a tool did not get, and why."""

    tool: str
    case: CaseKind
    reason: str


@dataclass(frozen=True, slots=True)
class ToolSummary:
    tool: str
    cases_sent: dict[CaseKind, int]
    findings: tuple[Finding, ...]
    skips: tuple[Skip, ...] = ()
    seconds: dict[CaseKind, float] = field(default_factory=dict)
    """Wall time spent on each case kind, shrinking included."""
    answers: dict[CaseKind, dict[str, int]] = field(default_factory=dict)
    """How the cases of each kind were answered, shrinking included.

    Answers are counted by `fuzz.judging.coverage.BUCKETS` name."""
    refused_fields: dict[str, int] = field(default_factory=dict)
    """Of the refused valid calls, how many named each top-level field.

    It hints at which value the tool wants."""
    has_output_schema: bool = False
    takes_arguments: bool = True
    """Its inputSchema names an argument.

    A tool that takes none has no field to give a value for."""
    schema_coverage: tuple[KeywordCoverage, ...] = ()
    """Each keyword of the tool's schemas, and the cases that reached each of its sides.

    See `fuzz.judging.schema_coverage`.
    It is empty for a tool that got no argument or output cases."""
    boundary_cases: int = 0
    """Cases the boundary phase sent, of its argument and output kinds.

    The phase is `fuzz.engine.phases._boundary`."""
    boundary_left_out: int = 0
    """Boundary values the phase's bound per schema left out.

    The bound is `strategies.boundaries.BOUNDARY_LIMIT`."""
    conclusion: str | None = None
    """What the phase of this unit concluded about the target, in words.

    The sequence phase says whether the target keeps state, and what that earned.
    See `fuzz.engine.phases._state_probe`."""

    @property
    def total_sent(self) -> int:
        return sum(self.cases_sent.values())


@dataclass(frozen=True, slots=True)
class ShardOfRun:
    """The part of a run one runner made, with `--shard`.

    See `fuzz.engine.sharding`."""

    number: int
    """1-based."""
    count: int
    plan: str
    """The fingerprint of the plan the run was split from.

    It is the same in every shard of one run."""
    units: tuple[str, ...]
    """Every unit of the plan, in plan order.

    A unit is a tool's name, `ENVELOPE` or `SEQUENCES`."""
    owned: tuple[str, ...]
    """This shard's units, in plan order."""

    def as_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "count": self.count,
            "plan": self.plan,
            "units": [unit or None for unit in self.units],
            "owned": [unit or None for unit in self.owned],
        }


INTERRUPTED = "interrupted (Ctrl-C)"
TERMINATED = "terminated (SIGTERM)"
"""The `stopped_early` of a run the user stopped."""


LEVELS = tuple(level.label for level in Level)
"""The levels a night counts problems at, in the order reports show them."""


@dataclass(frozen=True, slots=True, order=True)
class NightProblem:
    """A problem as a night records it: its key, its level, and whether it was flaky that night."""

    rule: str
    tool: str
    case: str
    level: str
    flaky: bool = False

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.rule, self.tool, self.case)

    def as_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "tool": self.tool or None, "case": self.case, "level": self.level, **({"flaky": True} if self.flaky else {})}


@dataclass(frozen=True, slots=True)
class Night:
    """One run of one server, as the history keeps it."""

    date: str
    """When the run ended: ISO 8601, UTC, to the second (`2026-12-07T03:17:42Z`)."""
    server: str
    """The server's `serverInfo.name` (the target's description when it gave none): the history a
    run draws its trend from is that of its server, whatever command or version started it."""
    version: str | None
    """The server's `serverInfo.version`."""
    target: str
    seed: int
    protocol_version: str | None
    problems: tuple[NightProblem, ...]
    cases: int
    seconds: float
    keywords: tuple[int, int]
    """(keywords reached on every side, keywords) over every tool's schemas."""
    rules_exercised: tuple[str, ...]
    rules_judged: tuple[str, ...]
    tool_changes: int = 0
    """Changes to the tool list since the run before (`fuzz.judging.tool_changes`)."""
    breaking_changes: int = 0
    shard: tuple[int, int, str] | None = None
    """(number, count, plan fingerprint) of a shard's record, merged with its run's others."""

    @property
    def day(self) -> str:
        return self.date[:10]

    @property
    def flaky(self) -> int:
        return sum(problem.flaky for problem in self.problems)

    def by_level(self) -> dict[str, int]:
        counts = dict.fromkeys(LEVELS, 0)
        for problem in self.problems:
            counts[problem.level] = counts.get(problem.level, 0) + 1
        return counts

    def by_rule(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for problem in self.problems:
            counts[problem.rule] = counts.get(problem.rule, 0) + 1
        return dict(sorted(counts.items()))

    @property
    def coverage(self) -> float | None:
        """The share of keywords reached on every side, 0 to 1; None for schemas without keywords."""
        reached, total = self.keywords
        return reached / total if total else None

    def as_json(self) -> dict[str, Any]:
        return {
            "date": self.date,
            "server": self.server,
            "serverVersion": self.version,
            "target": self.target,
            "seed": self.seed,
            "protocolVersion": self.protocol_version,
            "byLevel": self.by_level(),
            "byRule": self.by_rule(),
            "problems": [problem.as_json() for problem in self.problems],
            "cases": self.cases,
            "seconds": round(self.seconds, 1),
            "keywords": list(self.keywords),
            "rulesExercised": list(self.rules_exercised),
            "rulesJudged": list(self.rules_judged),
            "toolChanges": self.tool_changes,
            "breakingChanges": self.breaking_changes,
            **({"shard": list(self.shard)} if self.shard is not None else {}),
        }

    @classmethod
    def from_json(cls, data: Any) -> Night:
        """Raises ValueError, saying what is wrong, when `data` is not a night's record."""
        if not isinstance(data, dict):
            raise ValueError(f"expected an object, found {type(data).__name__}")
        try:
            shard = data.get("shard")
            return cls(
                date=_text(data, "date"),
                server=_text(data, "server"),
                version=data.get("serverVersion") if isinstance(data.get("serverVersion"), str) else None,
                target=_text(data, "target"),
                seed=_whole(data, "seed"),
                protocol_version=data.get("protocolVersion") if isinstance(data.get("protocolVersion"), str) else None,
                problems=tuple(sorted(_problem(entry) for entry in _list(data, "problems"))),
                cases=_whole(data, "cases"),
                seconds=float(data["seconds"]),
                keywords=(int(data["keywords"][0]), int(data["keywords"][1])),
                rules_exercised=tuple(str(rule) for rule in _list(data, "rulesExercised")),
                rules_judged=tuple(str(rule) for rule in _list(data, "rulesJudged")),
                tool_changes=int(data.get("toolChanges", 0)),
                breaking_changes=int(data.get("breakingChanges", 0)),
                shard=(int(shard[0]), int(shard[1]), str(shard[2])) if isinstance(shard, list) and len(shard) == 3 else None,
            )
        except (KeyError, IndexError, TypeError, ValueError) as error:
            raise ValueError(f"a member is missing or of the wrong type ({error})") from None


def _text(data: dict[str, Any], key: str) -> str:
    value = data[key]
    if not isinstance(value, str):
        raise TypeError(f"{key} is not a string")
    return value


def _whole(data: dict[str, Any], key: str) -> int:
    value = data[key]
    if type(value) is not int:
        raise TypeError(f"{key} is not an integer")
    return value


def _list(data: dict[str, Any], key: str) -> list[Any]:
    value = data[key]
    if not isinstance(value, list):
        raise TypeError(f"{key} is not a list")
    return value


def _problem(entry: Any) -> NightProblem:
    if not isinstance(entry, dict):
        raise TypeError("a problem is not an object")
    return NightProblem(_text(entry, "rule"), entry.get("tool") or "", _text(entry, "case"), _text(entry, "level"), entry.get("flaky") is True)


@dataclass(frozen=True, slots=True)
class RunResult:
    seed: int
    target: dict[str, Any]
    target_description: str
    protocol_version: str | None
    server_info: dict[str, Any]
    options: dict[str, Any]
    tools: tuple[ToolSummary, ...]
    seconds: float
    target_restarts: int = 0
    stopped_early: str | None = None
    """Why the run ended before every tool was fuzzed, or None.

    It may have been interrupted, or lost its target."""
    out_of_time: bool = False
    """It ended because --max-time was reached.

    That is a time box the user chose, not a failure."""
    profile: str = "sep-2145"
    fail_on: Level = Level.SHOULD
    excluded_tools: tuple[str, ...] = ()
    replayed: tuple[Replayed, ...] = ()
    baseline: frozenset[FindingKey] = frozenset()
    """Known findings, from --baseline: reported, but they fail no run."""
    shard: ShardOfRun | None = None
    """The part of the run this is, with `--shard`.

    None for a whole run, a merged one included."""
    warnings: tuple[str, ...] = ()
    """What went wrong while the run ran, without stopping it; each said once.

    An example is the example database left out."""
    tasks: str = "none"
    """Which tasks the server declared for `tools/call`: "none", "2025-11-25" or "2026-07-28"
    (`fuzz.wire.tasks.TaskEra`). The task rules are judged only where it declared some."""
    flaky_fails: bool = True
    """Whether a flaky finding fails the run (`--flaky fail`, the default) or is reported only
    (`--flaky report`)."""
    nights: tuple[Night, ...] = ()
    """The runs the history keeps of this server, oldest first, this one last (`--history`); empty
    when no history is kept."""
    tool_changes: tuple[ToolChange, ...] = ()
    """What changed in the target's tool list since the list the corpus kept (`fuzz.judging.tool_changes`)."""
    tool_list_since: str | None = None
    """When the list compared with was recorded (ISO 8601, UTC); None when none was compared."""
    tool_list_recorded: bool = False
    """The run kept its target's tool list in the corpus (`fuzz.corpus.tool_lists`)."""
    fail_on_breaking: bool = False
    """`--fail-on-breaking`: a breaking change of the tool list fails the run."""

    @property
    def breaking_changes(self) -> tuple[ToolChange, ...]:
        return tuple(change for change in self.tool_changes if change.breaking)

    @property
    def failed_on_breaking(self) -> bool:
        """--fail-on-breaking, and a breaking change of the tool list."""
        return self.fail_on_breaking and bool(self.breaking_changes)

    @property
    def findings(self) -> tuple[Finding, ...]:
        return tuple(finding for tool in self.tools for finding in tool.findings)

    @property
    def stopped_by_user(self) -> bool:
        return self.stopped_early in (INTERRUPTED, TERMINATED)

    @property
    def failed(self) -> bool:
        if self.failed_on_breaking:
            return True
        return any(self._fails(f.rule.level, f.key, f.flaky) for f in self.findings) or any(
            r.status == "STILL FAILING" and r.level is not None and r.key is not None and self._fails(r.level, r.key, r.flaky) for r in self.replayed
        )

    def _fails(self, level: Level, key: FindingKey, flaky: bool) -> bool:
        return level.at_least(self.fail_on) and key not in self.baseline and (self.flaky_fails or not flaky)

    @property
    def stale_baseline(self) -> tuple[FindingKey, ...]:
        """Baseline entries that this run did not reproduce.

        With `--tries`, an entry whose reproduction replayed FIXED is stale only when no try brought
        it back: one that came back is flaky, and counts as reproduced."""
        seen = {f.key for f in self.findings} | {r.key for r in self.replayed if r.status == "STILL FAILING"}
        return tuple(sorted(self.baseline - seen))

    @property
    def exit_code(self) -> int:
        """The process exit code for this result: 1, 2 or 0.

        1 on a violation at the --fail-on level or above.
        By default that level takes in MUST and SHOULD.
        1 too, with --fail-on-breaking, on a breaking change of the tool list.
        Otherwise 2 when the run stopped early, for any reason but --max-time.
        A clean partial run proves nothing.
        Else 0."""
        if self.failed:
            return 1
        return 2 if self.stopped_early and not self.out_of_time else 0
