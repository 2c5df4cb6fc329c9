"""A run's JSON report read back into the RunResult it was written from.

`mcp-toolfuzz merge` uses it. Every report format renders from the read RunResult what it rendered
from the run itself. `as_json` of it is the document read (`fuzz.reports._json_report`).

What the report derives from the run is not read; it is made again from what is. That covers
`exitCode`, `rules`, `coverage`, `problems`, each tool's `rules` and `hint`, and the baseline's
`stale`. A finding's rule is the one with its id in the profile the report names. That profile
judges under the report's revision (`fuzz.judging.profiles.resolve`), as the run judged.

A document that is not such a report raises `ReportError`. The error names the file and the place in
it (`tools[2].casesSent`). It says what is there and what was expected. The report of a run under
every revision raises it too (`--protocol-version all`, `fuzz.reports.by_revision`). That report
holds a run per revision and the differences between them, and is not read back.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn, TypeVar

from fuzz import __version__
from fuzz.errors import ReportError
from fuzz.judging.findings import Finding, FindingKey, Replayed, RunResult, SequenceStep, ShardOfRun, Skip, Stability, ToolSummary, Use
from fuzz.judging.profiles import PROFILES, Profile, resolve
from fuzz.judging.rules import Level
from fuzz.judging.schema_coverage import KeywordCoverage, SchemaRole, SideReach
from fuzz.judging.tool_changes import ChangeKind, ToolChange
from fuzz.reports._json_report import FORMAT_VERSION
from fuzz.text import clip, json_text
from fuzz.wire.tasks import TaskEra
from strategies import CaseKind

T = TypeVar("T")

_MISSING = object()
"""The value of a key the document does not have."""
_KINDS = {kind.value: kind for kind in CaseKind}
_LEVEL_LABELS = {level.label: level for level in Level}
_LEVEL_VALUES = {level.value: level for level in Level}
_ROLES = {role.value: role for role in SchemaRole}
_CHANGE_KINDS = {kind.value: kind for kind in ChangeKind}
_TASK_ERAS = {era.value: era.value for era in TaskEra}
"""A report written before the task rules has no `tasks`: its server was judged as declaring none."""
_WRITTEN_BY = "the JSON report `mcp-toolfuzz run --report json:PATH` writes"


def load(path: Path) -> RunResult:
    """The run whose JSON report `path` is. Raises ReportError, naming the file, when it is not one."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ReportError(f"{path} cannot be read: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise ReportError(f"{path} is not UTF-8 text; expected {_WRITTEN_BY}") from None
    except ValueError as error:
        raise ReportError(f"{path} is not JSON ({error}); expected {_WRITTEN_BY}") from None
    return result_from_json(document, str(path))


def result_from_json(document: object, source: str) -> RunResult:
    """The RunResult that `document` was written from.

    `document` is `fuzz.reports._json_report.as_json` of that result. `source` names the document in
    errors (its file). Raises ReportError when it is not a JSON report this mcp-toolfuzz writes.
    Raises it too for the report of a run under every revision.
    """
    root = _checked(document, source)
    profile_id = root["profile"].choice({name: name for name in PROFILES}, "a profile")
    protocol_version = root["protocolVersion"].optional_string()
    profile = resolve(profile_id, protocol_version)
    under = f"profile {profile_id} under {protocol_version}" if protocol_version else f"profile {profile_id}"
    findings = [_finding(node, profile, under) for node in root["findings"].items()]
    tools, taken = [], 0
    for node in root["tools"].items():
        summary = _summary(node, findings, taken)
        tools.append(summary)
        taken += len(summary.findings)
    if taken != len(findings):
        raise ReportError(f"{source}: findings[{taken}] is in no tool's findings; expected every finding in one tool's, in order")
    return RunResult(
        seed=root["seed"].integer(),
        target=root["target"].json_object(),
        target_description=root["targetDescription"].string(),
        protocol_version=protocol_version,
        server_info=root["serverInfo"].json_object(),
        tasks=root["tasks"].choice(_TASK_ERAS, "a task era") if root.has("tasks") else TaskEra.NONE.value,
        options=root["options"].json_object(),
        tools=tuple(tools),
        seconds=root["seconds"].number(),
        target_restarts=root["targetRestarts"].integer(),
        stopped_early=root["stoppedEarly"].optional_string(),
        out_of_time=root["outOfTime"].boolean(),
        profile=profile_id,
        fail_on=root["failOn"].choice(_LEVEL_VALUES, "a level"),
        excluded_tools=tuple(node.string() for node in root["excludedTools"].items()),
        replayed=tuple(_replayed(node) for node in root["replayed"].items()),
        baseline=frozenset(_key(node) for node in root["baseline"]["known"].items()),
        shard=_shard(root["shard"]) if root.has("shard") else None,
        warnings=tuple(node.string() for node in root["warnings"].items()),
        flaky_fails=root["flaky"].choice({"fail": True, "report": False}, "fail or report") if root.has("flaky") else True,
        # A report written before the tool list was kept has none of these.
        tool_changes=tuple(_tool_change(node) for node in root["toolChanges"].items()) if root.has("toolChanges") else (),
        tool_list_since=root["toolListSince"].optional_string() if root.has("toolListSince") else None,
        tool_list_recorded=root["toolListRecorded"].boolean() if root.has("toolListRecorded") else False,
        fail_on_breaking=root["failOnBreaking"].boolean() if root.has("failOnBreaking") else False,
    )


def _checked(document: object, source: str) -> _Node:
    """`document` as the root of a single run's JSON report of this format."""
    if not isinstance(document, dict):
        raise ReportError(f"{source} is not an mcp-toolfuzz JSON report: it holds {_described(document)}; expected {_WRITTEN_BY}")
    tool = document.get("tool")
    if not isinstance(tool, dict) or tool.get("name") != "mcp-toolfuzz" or "format" not in document:
        raise ReportError(f'{source} is not an mcp-toolfuzz JSON report: it has no "format" and "tool": {{"name": "mcp-toolfuzz"}}; expected {_WRITTEN_BY}')
    written, version = document["format"], tool.get("version")
    if isinstance(written, bool) or written != FORMAT_VERSION:
        by = version if isinstance(version, str) else json_text(version)
        raise ReportError(
            f"{source} is a JSON report of format {json_text(written)} (by mcp-toolfuzz {by}); "
            f"this mcp-toolfuzz ({__version__}) reads format {FORMAT_VERSION}: write the report again with it"
        )
    if document.get("protocolVersion") == "all" or "revisions" in document:
        raise ReportError(
            f"{source} is the report of a run under every revision (--protocol-version all), which cannot be read back "
            "(to merge it) as one run; expected the report of a run under one revision (--protocol-version VERSION, or none)"
        )
    return _Node(source, "", document)


def _finding(node: _Node, profile: Profile, under: str) -> Finding:
    case = node["case"].choice(_KINDS, "a case kind")
    sequence = case is CaseKind.SEQUENCE
    return Finding(
        rule=node["rule"].choice(profile.rules, f"the id of a rule of {under}"),
        tool=node["tool"].optional_string() or "",
        case=case,
        label=node["label"].string(),
        request=node["request"].json_object(),
        response=node["response"].optional_json_object(),
        message=node["message"].string(),
        why=node["why"].string(),
        expected=node["expected"].string(),
        stderr=tuple(line.string() for line in node["stderr"].items()),
        headers=tuple((name, value.optional_string()) for name, value in node["headers"].members()) if node.has("headers") else (),
        reproduction=node["reproduction"].optional_string(),
        first_seen=node["firstSeen"].boolean(),
        steps=tuple(_step(step) for step in node["steps"].items()) if sequence else (),
        uses=tuple(_use(use) for use in node["uses"].items()) if sequence else (),
        judged_as=node["judgedAs"].optional_choice(_KINDS, "a case kind") if sequence else None,
        stability=_stability(node),
    )


def _step(node: _Node) -> SequenceStep:
    return SequenceStep(
        request=node["request"].json_object(),
        response=node["response"].optional_json_object(),
        uses=tuple(_use(use) for use in node["uses"].items()),
    )


def _use(node: _Node) -> Use:
    return Use(argument=node["argument"].string(), step=node["step"].integer(), path=tuple(part.key_or_index() for part in node["path"].items()))


def _summary(node: _Node, findings: list[Finding], taken: int) -> ToolSummary:
    """A tool's summary, its findings taken in order from `findings`.

    The first `taken` of them belong to earlier tools.
    """
    tool = node["name"].optional_string() or ""
    places = node["findings"].items()
    for offset, place in enumerate(places):
        if place.integer() != taken + offset:
            place.fail(f"{taken + offset}: each finding's place in findings once, in order of the tools")
    if taken + len(places) > len(findings):
        places[-1].fail(f"a place in findings, which has {len(findings)}")
    return ToolSummary(
        tool=tool,
        cases_sent=_by_kind(node["casesSent"], _Node.integer),
        findings=tuple(findings[taken : taken + len(places)]),
        skips=tuple(Skip(tool, skip["case"].choice(_KINDS, "a case kind"), skip["reason"].string()) for skip in node["skipped"].items()),
        seconds=_by_kind(node["secondsSpent"], _Node.number),
        answers=_by_kind(node["answers"], _counts),
        refused_fields=_counts(node["refusedFields"]),
        has_output_schema=node["hasOutputSchema"].boolean(),
        takes_arguments=node["takesArguments"].boolean(),
        schema_coverage=tuple(_keyword(entry) for entry in node["schemaCoverage"].items()),
        boundary_cases=node["boundaryCases"].integer(),
        boundary_left_out=node["boundaryLeftOut"].integer(),
        conclusion=node["conclusion"].optional_string() if node.has("conclusion") else None,
    )


def _by_kind(node: _Node, read: Callable[[_Node], T]) -> dict[CaseKind, T]:
    return {_Node(node.source, f"a key of {node.where}", name).choice(_KINDS, "a case kind"): read(value) for name, value in node.members()}


def _counts(node: _Node) -> dict[str, int]:
    return {name: value.integer() for name, value in node.members()}


def _keyword(node: _Node) -> KeywordCoverage:
    return KeywordCoverage(
        schema=node["schema"].choice(_ROLES, "a schema"),
        path=node["path"].string(),
        schema_path=node["schemaPath"].string(),
        keyword=node["keyword"].string(),
        valid=_side(node["valid"]),
        invalid=_side(node["invalid"]),
    )


def _side(node: _Node) -> SideReach | None:
    if node.value is None:
        return None
    return SideReach(sent=node["sent"].integer(), answers=_counts(node["answers"]))


def _replayed(node: _Node) -> Replayed:
    return Replayed(
        path=node["path"].string(),
        status=node["status"].string(),
        detail=node["detail"].string(),
        key=_key(node) if node.has("rule") else None,
        level=node["level"].optional_choice(_LEVEL_LABELS, "a level"),
        stability=_stability(node),
    )


def _stability(node: _Node) -> Stability | None:
    """A finding's or a replay's `stability`, if the report has one (reports before it had none)."""
    if not node.has("stability") or node["stability"].value is None:
        return None
    label = node["stability"]
    reproduced, attempts = label["reproduced"].integer(), label["attempts"].integer()
    if not 0 <= reproduced <= attempts or attempts < 1:
        label.fail("{reproduced, attempts} with 0 <= reproduced <= attempts and attempts >= 1")
    return Stability(reproduced, attempts)


def _key(node: _Node) -> FindingKey:
    return FindingKey(node["rule"].string(), node["tool"].optional_string() or "", node["case"].string())


def _tool_change(node: _Node) -> ToolChange:
    return ToolChange(
        tool=node["tool"].string(),
        kind=node["kind"].choice(_CHANGE_KINDS, "a kind of tool change"),
        detail=node["detail"].string(),
        breaking=node["breaking"].boolean(),
        path=node["path"].string(),
    )


def _shard(node: _Node) -> ShardOfRun | None:
    if node.value is None:
        return None
    return ShardOfRun(
        number=node["number"].integer(),
        count=node["count"].integer(),
        plan=node["plan"].string(),
        units=tuple(unit.optional_string() or "" for unit in node["units"].items()),
        owned=tuple(unit.optional_string() or "" for unit in node["owned"].items()),
    )


@dataclass(frozen=True, slots=True)
class _Node:
    """A value of the document and where it is (`tools[2].casesSent`).

    It is read as what it must be. Each reading raises ReportError, naming the place, when the value
    is not that.
    """

    source: str
    where: str
    value: object

    def fail(self, expected: str) -> NoReturn:
        where = self.where or "the document"
        if self.value is _MISSING:
            raise ReportError(f"{self.source}: {where} is missing; expected {expected} (as every JSON report of mcp-toolfuzz {__version__} has)")
        raise ReportError(f"{self.source}: {where} is {_described(self.value)}; expected {expected}")

    def has(self, key: str) -> bool:
        return key in self.object()

    def __getitem__(self, key: str) -> _Node:
        where = f"{self.where}.{key}" if self.where else key
        return _Node(self.source, where, self.object().get(key, _MISSING))

    def object(self) -> dict[str, Any]:
        if not isinstance(self.value, dict):
            self.fail("an object")
        return self.value

    def members(self) -> list[tuple[str, _Node]]:
        """An object's keys, each with its value."""
        return [(key, _Node(self.source, f"{self.where}[{json_text(key)}]", value)) for key, value in self.object().items()]

    def items(self) -> list[_Node]:
        if not isinstance(self.value, list):
            self.fail("a list")
        return [_Node(self.source, f"{self.where}[{index}]", value) for index, value in enumerate(self.value)]

    def string(self) -> str:
        if not isinstance(self.value, str):
            self.fail("a string")
        return self.value

    def optional_string(self) -> str | None:
        if self.value is not None and not isinstance(self.value, str):
            self.fail("null or a string")
        return self.value

    def integer(self) -> int:
        if not isinstance(self.value, int) or isinstance(self.value, bool):
            self.fail("an integer")
        return self.value

    def number(self) -> float:
        if not isinstance(self.value, int | float) or isinstance(self.value, bool):
            self.fail("a number")
        return float(self.value)

    def boolean(self) -> bool:
        if not isinstance(self.value, bool):
            self.fail("true or false")
        return self.value

    def json_object(self) -> dict[str, Any]:
        """An object of the server's or the run's, kept as it is."""
        return self.object()

    def optional_json_object(self) -> dict[str, Any] | None:
        if self.value is not None and not isinstance(self.value, dict):
            self.fail("null or an object")
        return self.value

    def key_or_index(self) -> str | int:
        """A step of a path into an answer: an object's key or a list's index."""
        if isinstance(self.value, str):
            return self.value
        return self.integer() if isinstance(self.value, int) and not isinstance(self.value, bool) else self.fail("a string or an integer")

    def choice(self, choices: Mapping[str, T], what: str) -> T:
        """The value of `choices` that this string names."""
        name = self.value
        if not isinstance(name, str) or name not in choices:
            self.fail(f"{what}: {', '.join(choices)}")
        return choices[name]

    def optional_choice(self, choices: Mapping[str, T], what: str) -> T | None:
        return None if self.value is None else self.choice(choices, f"null or {what}")


def _described(value: object) -> str:
    """What a value of the document is, for an error message.

    For example: `the string "bogus"`, `a list of 3 items`.
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {json_text(clip(value, 60))}"
    if isinstance(value, list):
        return f"a list of {len(value)} item{'' if len(value) == 1 else 's'}"
    return "an object" if isinstance(value, dict) else type(value).__name__
