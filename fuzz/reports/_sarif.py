"""SARIF 2.1.0 (`--report sarif:PATH`), for code-scanning dashboards.

Each rule of the run's profile is one `rule`: its level, title, and source sentence as help.

Each *problem* is one `result` (`fuzz.reports.problems`): what is fixed once, seen on one tool or
many. Its `partialFingerprints` entry is made of the rule, the case kind, the kind of answer and the
tools. So a dashboard tracks it from night to night, whatever the request ids, seeds or shrunk
values were.

Each result has a logical location per tool (`tool` kind). Where the run knows one, it also has a
physical location: the server's entry point. That is the first file of a stdio command that exists,
relative to the working directory.

The minimal request and the answer of the representative finding are in the message and in
`properties`. A sequence problem also has the steps before it: each request and answer, and where
each reused value came from. Those are in the message too. They are also in `properties.steps`,
`uses` and `judgedAs`, as the JSON report has them.

Text a person reads is escaped as the terminal escapes it (`fuzz.text`). That covers the message and
the tools' names in locations. `properties` keep the exact values, as the JSON report does.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fuzz import __version__
from fuzz.files import write_json_atomically
from fuzz.judging.findings import Finding, RunResult
from fuzz.judging.profiles import resolve
from fuzz.judging.rules import Level, Rule
from fuzz.reports._steps import uses_text
from fuzz.reports.problems import Problem, group, shown, tries_text
from fuzz.text import json_text, printable
from strategies import CaseKind

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
FINGERPRINT = "mcpToolfuzzProblem/v1"
INFORMATION_URI = "https://github.com/modelcontextprotocol/modelcontextprotocol/pull/2145"
_LEVELS = {Level.MUST: "error", Level.SHOULD: "warning", Level.ADVISORY: "note"}


def _rule(rule: Rule) -> dict[str, Any]:
    return {
        "id": rule.id,
        "name": "".join(part.capitalize() for part in rule.id.split("-")),
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.source},
        "help": {"text": f"{rule.title} ({rule.level.label}). {rule.source}", "markdown": f"**{rule.title}** ({rule.level.label}).\n\n> {rule.source}"},
        "defaultConfiguration": {"level": _LEVELS[rule.level]},
        "properties": {"level": rule.level.label, "tags": ["mcp", "sep-2145", rule.level.label.lower()]},
    }


def entry_point(target: dict[str, Any], cwd: Path) -> str | None:
    """The server's entry point as a path relative to `cwd`.

    It is the first argument of a stdio command that is an existing file under `cwd`. It is None
    when there is none: an HTTP server, the demo, a file outside the working directory.
    """
    if target.get("transport") != "stdio" or target.get("demo"):
        return None
    for argument in target.get("command", [])[1:]:
        candidate = Path(str(argument))
        path = candidate if candidate.is_absolute() else cwd / candidate
        try:
            if path.is_file():
                return path.resolve().relative_to(cwd.resolve()).as_posix()
        except (OSError, ValueError):
            continue
    return None


def _result(problem: Problem, rule_index: int, entry: str | None) -> dict[str, Any]:
    finding = problem.representative
    text = (
        f"{problem.rule.id} ({problem.rule.level.label}) on {problem.describe_tools()}, {problem.case.value} case: "
        f"{printable(finding.why)}; expected {printable(finding.expected)}.{_steps_text(finding)} Minimal request: {json_text(finding.request)}"
    )
    if finding.uses:
        text += f" (reused: {uses_text(finding.uses)})"
    tries = tries_text(problem)
    if tries:
        text += f" Tried again: {tries} on fresh targets."
    location: dict[str, Any] = {
        "logicalLocations": [{"name": shown(tool), "fullyQualifiedName": f"tools/{shown(tool)}", "kind": "tool"} for tool in problem.tools],
    }
    if entry is not None:
        location["physicalLocation"] = {"artifactLocation": {"uri": entry, "uriBaseId": "%SRCROOT%"}, "region": {"startLine": 1}}
    return {
        "ruleId": problem.rule.id,
        "ruleIndex": rule_index,
        "level": _LEVELS[problem.rule.level],
        "message": {"text": text},
        "locations": [location],
        "partialFingerprints": {FINGERPRINT: problem.fingerprint},
        "properties": {
            "case": problem.case.value,
            "answerKind": problem.answer,
            "tools": [tool or None for tool in problem.tools],
            "request": finding.request,
            "response": finding.response,
            "reproductions": [member.reproduction for member in problem.findings if member.reproduction],
            "stability": [member.stability.as_json() if member.stability is not None else None for member in problem.findings],
            "flaky": any(member.flaky for member in problem.findings),
            **(
                {
                    "steps": [step.as_json() for step in finding.steps],
                    "uses": [use.as_json() for use in finding.uses],
                    "judgedAs": finding.judged_as.value if finding.judged_as else None,
                }
                if problem.case is CaseKind.SEQUENCE
                else {}
            ),
        },
    }


def _steps_text(finding: Finding) -> str:
    """` Steps before it: step 1: {...}, answered {...}; step 2: ... .` for a sequence finding."""
    if not finding.steps:
        return ""
    steps = []
    for number, step in enumerate(finding.steps, 1):
        reused = f" (reused: {uses_text(step.uses)})" if step.uses else ""
        answer = json_text(step.response) if step.response is not None else "no answer"
        steps.append(f"step {number}: {json_text(step.request)}{reused}, answered {answer}")
    return f" Steps before the request: {'; '.join(steps)}."


def as_sarif(result: RunResult, cwd: Path | None = None) -> dict[str, Any]:
    rules = list(resolve(result.profile, result.protocol_version).rules.values())
    index = {rule.id: position for position, rule in enumerate(rules)}
    entry = entry_point(result.target, cwd or Path.cwd())
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {"name": "mcp-toolfuzz", "version": __version__, "informationUri": INFORMATION_URI, "rules": [_rule(rule) for rule in rules]}
                },
                "invocations": [
                    {
                        "executionSuccessful": result.exit_code != 2 or result.out_of_time,
                        "exitCode": result.exit_code,
                        "properties": {"seed": result.seed, "target": result.target_description},
                    }
                ],
                "originalUriBaseIds": {"%SRCROOT%": {"uri": (cwd or Path.cwd()).resolve().as_uri() + "/"}},
                "results": [_result(problem, index[problem.rule.id], entry) for problem in group(result.findings)],
            }
        ],
    }


def as_sarif_runs(results: Sequence[RunResult], cwd: Path | None = None) -> dict[str, Any]:
    """A SARIF run per revision (`--protocol-version all`).

    Each run has the revision as its `automationDetails.id`. Code scanning keeps each one apart as a
    category.
    """
    runs = []
    for result in results:
        (run,) = as_sarif(result, cwd)["runs"]
        runs.append({**run, "automationDetails": {"id": f"mcp-toolfuzz/{result.protocol_version}/"}})
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": runs}


def write(result: RunResult, path: Path) -> None:
    write_json_atomically(as_sarif(result), path)
