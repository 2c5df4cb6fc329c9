"""What a run exercised: how each kind of case was answered, and which rules could be judged.

A rule that found nothing has proved something only if what it judges happened.
Take "no violation of arguments-not-validated".
It means nothing when no valid call ever succeeded.
A tool that refuses everything refuses invalid arguments too, for the wrong reason.
So each rule has a precondition on the answers.
A rule whose precondition never held is reported as not exercised, with why.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from fuzz.judging._dressed_errors import dressed_error
from fuzz.judging.answers import AnswerClass, Observation, observe
from fuzz.judging.findings import RunResult, ToolSummary
from fuzz.judging.profiles import PROFILES, resolve
from fuzz.judging.rules import ERROR_AS_SUCCESS, RULES_BY_ID, Evidence, Revisions, Rule
from fuzz.wire.replies import Exchange
from fuzz.wire.stateless import STATELESS_PROTOCOL_VERSIONS
from fuzz.wire.tasks import TaskEra
from strategies import CaseKind
from strategies.cases import NOT_TOOLS

SUCCESS, TOOL_ERROR, INPUT_REQUIRED, PROTOCOL_ERROR, NO_ANSWER, MALFORMED, EXITED, TASK_UNENDED = (
    "success",
    "tool-error",
    "input-required",
    "protocol-error",
    "no-answer",
    "malformed-answer",
    "target-exited",
    "task-unended",
)
DRESSED_ERROR = ERROR_AS_SUCCESS.id
"""A success whose own text or JSON says the call failed: not counted as a success.

`fuzz.judging._dressed_errors` tells such a result.
The bucket bears the name of the rule it violates."""
BUCKETS = (SUCCESS, DRESSED_ERROR, TOOL_ERROR, INPUT_REQUIRED, PROTOCOL_ERROR, NO_ANSWER, MALFORMED, EXITED, TASK_UNENDED)
"""How a case was answered, as reports name it."""

_BUCKET_OF = {
    AnswerClass.SUCCESS: SUCCESS,
    AnswerClass.TOOL_EXECUTION_ERROR: TOOL_ERROR,
    AnswerClass.INPUT_REQUIRED: INPUT_REQUIRED,
    AnswerClass.PROTOCOL_ERROR: PROTOCOL_ERROR,
    AnswerClass.NO_ANSWER: NO_ANSWER,
    AnswerClass.NOT_DELIVERED: NO_ANSWER,
    AnswerClass.INVALID_RESULT: MALFORMED,
    AnswerClass.MALFORMED_ANSWER: MALFORMED,
    AnswerClass.TARGET_EXITED: EXITED,
    AnswerClass.TASK_UNENDED: TASK_UNENDED,
}
_ANSWERED = (SUCCESS, TOOL_ERROR, INPUT_REQUIRED, PROTOCOL_ERROR, MALFORMED)


class RuleState(Enum):
    """A rule on one tool, as the reports' tables mark it."""

    VIOLATED = "violated"
    CLEAN = "no violation"
    NOT_EXERCISED = "not exercised on that tool, or not for it"


def rule_state(summary: ToolSummary, rule_id: str, on_tool: Mapping[str, Exercise]) -> RuleState:
    """How the reports' tables mark `rule_id` on the tool of `summary`.

    `on_tool` is the tool's exercises: `exercise_by_tool(result)[summary.tool]`."""
    if any(finding.rule.id == rule_id for finding in summary.findings):
        return RuleState.VIOLATED
    exercise = on_tool.get(rule_id)
    return RuleState.CLEAN if exercise is not None and exercise.exercised else RuleState.NOT_EXERCISED


def bucket(answer: AnswerClass) -> str:
    return _BUCKET_OF[answer]


def answer_bucket(observation: Observation, arguments: Any = None) -> str:
    """How a call was answered, as reports count it.

    A failure dressed as a success is counted apart."""
    if observation.answer is AnswerClass.SUCCESS and dressed_error(observation.result, arguments) is not None:
        return DRESSED_ERROR
    return bucket(observation.answer)


def exchange_bucket(exchange: Exchange) -> str:
    """How a request of a phase of its own was answered, as reports count it: by its envelope
    alone (a success or a protocol error), since most of them are no `tools/call` and even a call's
    answer there may be no CallToolResult (a task made, input asked for)."""
    message = exchange.answer
    if message is None:
        return answer_bucket(observe(exchange))
    return PROTOCOL_ERROR if "error" in message else SUCCESS


@dataclass(frozen=True, slots=True)
class Exercise:
    """Whether a rule was judged on a tool, or in the run; `reason` says why not."""

    rule: str
    exercised: bool
    reason: str = ""

    def as_json(self) -> dict[str, object]:
        return {"exercised": self.exercised, "reason": self.reason or None}


def _answered(summary: ToolSummary, kind: CaseKind, buckets: Iterable[str] = _ANSWERED) -> int:
    counts = summary.answers.get(kind, {})
    return sum(counts.get(name, 0) for name in buckets)


def _sent_phrase(summary: ToolSummary, kind: CaseKind) -> str:
    if any(skip.case is kind for skip in summary.skips):
        return f"its {kind.value} cases were skipped (see Skipped)"
    if kind not in summary.cases_sent:
        return f"it got no {kind.value} cases"
    return f"none of its {summary.cases_sent[kind]} {kind.value} cases was answered"


def _refused_valid(summary: ToolSummary) -> str:
    counts = summary.answers.get(CaseKind.VALID_ARGUMENTS, {})
    total = sum(counts.values())
    return f"no valid call succeeded ({total - counts.get(SUCCESS, 0)} of {total} refused or unanswered)"


def kinds_judging(rule_ids: Iterable[str]) -> frozenset[CaseKind] | None:
    """The case kinds whose answers judge these rules.

    None when one of them is judged on any kind's answers.
    It is None too for a rule judged on several kinds, like output-schema."""
    kinds = set()
    for rule_id in rule_ids:
        kind = RULES_BY_ID[rule_id].judged_on
        if kind is None:
            return None
        kinds.add(kind)
    if CaseKind.INVALID_ARGUMENTS in kinds:
        kinds.add(CaseKind.VALID_ARGUMENTS)  # the values invalid ones mutate, and the successes that make a refusal count
    return frozenset(kinds)


def _planned(summary: ToolSummary, kind: CaseKind) -> bool:
    return kind in summary.cases_sent or any(skip.case is kind for skip in summary.skips)


def tool_exercise(summary: ToolSummary, rule_ids: Sequence[str], *, has_output_schema: bool) -> dict[str, Exercise]:
    """Each rule's exercise on one tool, for the rules that apply to it.

    The envelope counts as a tool here.
    A rule judged on one case kind applies only where that kind was planned.
    So unknown-tool does not apply to the envelope.
    Nor does unavailable-tool apply to a tool not named with --unavailable.
    The output-schema rule applies to a tool with an outputSchema, or to the mirror.
    """
    any_answer = any(_answered(summary, kind) for kind in summary.answers)
    successes = _answered(summary, CaseKind.VALID_ARGUMENTS, (SUCCESS,))

    def applies(rule: Rule) -> bool:
        if rule.evidence is Evidence.THE_LISTING:
            return _listed(summary) or _planned(summary, CaseKind.TOOL_LISTING)
        if rule.judged_on is not None and not _planned(summary, rule.judged_on):
            return False
        return rule.evidence is not Evidence.STRUCTURED_OUTPUT or has_output_schema or _planned(summary, CaseKind.VALID_OUTPUT)

    def exercise(rule: Rule) -> Exercise:
        def by_kind(kind: CaseKind) -> Exercise:
            return Exercise(rule.id, True) if _answered(summary, kind) else Exercise(rule.id, False, _sent_phrase(summary, kind))

        def if_any(count: int, reason: str) -> Exercise:
            return Exercise(rule.id, True) if count else Exercise(rule.id, False, reason)

        evidence = rule.evidence
        if evidence is Evidence.AN_ANSWER_OF_ITS_KIND:
            assert rule.judged_on is not None
            return by_kind(rule.judged_on)
        if evidence is Evidence.INVALID_BESIDE_A_SUCCESS:
            judged = by_kind(CaseKind.INVALID_ARGUMENTS)
            if judged.exercised and not successes:
                return Exercise(rule.id, False, _refused_valid(summary) + ", so a refused invalid call proves nothing")
            return judged
        if evidence is Evidence.THE_LISTING:
            return Exercise(rule.id, True)  # judged on the listing, before any case
        if evidence is Evidence.STRUCTURED_OUTPUT:
            mirrored = _answered(summary, CaseKind.VALID_OUTPUT) + _answered(summary, CaseKind.INVALID_OUTPUT)
            if mirrored or (has_output_schema and successes):
                return Exercise(rule.id, True)
            if not has_output_schema:
                return Exercise(rule.id, False, _sent_phrase(summary, CaseKind.VALID_OUTPUT))
            return Exercise(rule.id, False, _refused_valid(summary) + ", so no structured output was checked")
        if evidence is Evidence.A_TOOL_ERROR:
            return if_any(sum(_answered(summary, kind, (TOOL_ERROR,)) for kind in summary.answers), "no tool execution error came")
        if evidence is Evidence.A_PROTOCOL_ERROR:
            return if_any(sum(_answered(summary, kind, (PROTOCOL_ERROR,)) for kind in summary.answers), "no JSON-RPC error came")
        if evidence is Evidence.AN_ERROR:
            return if_any(sum(_answered(summary, kind, (TOOL_ERROR, PROTOCOL_ERROR)) for kind in summary.answers), "no error came")
        return if_any(any_answer, "no case was answered")

    return {rule.id: exercise(rule) for rule in map(RULES_BY_ID.__getitem__, rule_ids) if applies(rule)}


def _listed(summary: ToolSummary) -> bool:
    """Whether `summary` is a listed tool's.

    It is not if it is the envelope's or the sequences'.
    Nor is it for an --unavailable tool the server does not list.
    Such a tool was planned the unavailable kind alone."""
    planned = set(summary.cases_sent) | {skip.case for skip in summary.skips}
    return summary.tool not in NOT_TOOLS and planned != {CaseKind.UNAVAILABLE_TOOL}


def run_exercise(per_tool: Mapping[str, Mapping[str, Exercise]], rule_ids: Sequence[str]) -> dict[str, Exercise]:
    """Each rule's exercise in the run, from its exercises per tool.

    A rule is exercised in the run when it was on one tool.
    Otherwise the reason is given, per tool."""
    results: dict[str, Exercise] = {}
    for rule in rule_ids:
        exercises = {tool: exercises[rule] for tool, exercises in per_tool.items() if rule in exercises}
        if not exercises:
            results[rule] = Exercise(rule, False, RULES_BY_ID[rule].unjudged)
            continue
        if any(exercise.exercised for exercise in exercises.values()):
            results[rule] = Exercise(rule, True)
            continue
        reasons: dict[str, list[str]] = {}
        for tool, exercise in exercises.items():
            reasons.setdefault(exercise.reason, []).append(tool or "(envelope)")
        results[rule] = Exercise(rule, False, "; ".join(f"{', '.join(tools)}: {reason}" for reason, tools in reasons.items()))
    return results


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")


def named_fields(texts: Iterable[str], fields: Iterable[str]) -> Counter[str]:
    """How many of `texts` (refusals) name each of `fields` as a word."""
    wanted = set(fields)
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(wanted & {word.strip(".") for word in _WORD.findall(text)})
    return counts


def judged_rules(result: RunResult) -> list[str]:
    """The rules the run judged by: its profile's, less some.

    Those --rules and --exclude-rules left out are not.
    Nor are those of another revision or transport than the run's."""
    over_http = result.target.get("transport") == "http"
    return rules_judged(result.profile, result.options.get("rules"), result.protocol_version, over_http=over_http, tasks=TaskEra(result.tasks))


def rules_judged(profile: str, enabled: Iterable[str] | None, protocol_version: str | None, *, over_http: bool, tasks: TaskEra = TaskEra.NONE) -> list[str]:
    """`judged_rules` of a run with these options.

    It also leaves out the rules the profile does not state under the spoken revision.
    For example, the published profile has no tool-name before 2025-11-25."""
    stated = resolve(profile, protocol_version).rules
    rules = spoken_rules(rules_of(profile, enabled), protocol_version, over_http=over_http, tasks=tasks)
    return [rule for rule in rules if rule in stated]


def spoken_rules(rule_ids: Iterable[str], protocol_version: str | None, *, over_http: bool, tasks: TaskEra = TaskEra.NONE) -> list[str]:
    """Of `rule_ids`, those a run under `protocol_version` can judge.

    The stateless revision's rules are judged only under it.
    The header rule is judged only over HTTP, too.
    The task rules are judged only on a server that declares tasks, of their kind."""
    stateless = protocol_version in STATELESS_PROTOCOL_VERSIONS
    spoken = {Revisions.EVERY, *((Revisions.STATELESS,) if stateless else ()), *((Revisions.STATELESS_OVER_HTTP,) if stateless and over_http else ())}
    if tasks is not TaskEra.NONE:
        spoken |= {Revisions.TASKS, Revisions.TASKS_AUGMENTED if tasks is TaskEra.AUGMENTED else Revisions.TASKS_EXTENSION}
    return [rule for rule in rule_ids if RULES_BY_ID[rule].revisions in spoken]


def rules_of(profile: str, enabled: Iterable[str] | None) -> list[str]:
    """The rules a profile judges by, in its order, of those `enabled`.

    `enabled` None means all of them."""
    chosen = None if enabled is None else set(enabled)
    return [rule for rule in PROFILES[profile].rules if chosen is None or rule in chosen]


def exercise_by_tool(result: RunResult) -> dict[str, dict[str, Exercise]]:
    rules = judged_rules(result)
    return {summary.tool: tool_exercise(summary, rules, has_output_schema=summary.has_output_schema) for summary in result.tools}


def exercise_of_run(result: RunResult) -> dict[str, Exercise]:
    return run_exercise(exercise_by_tool(result), judged_rules(result))


def tool_hint(summary: ToolSummary) -> str | None:
    """A hint for a tool whose valid calls all failed.

    It says which field the refusals named, and how to give a value the tool accepts.
    It is None where `--argument` cannot help.
    That is a tool that takes no arguments, and the summaries of no tool (`NOT_TOOLS`).
    The sequences' calls are the tools' own, and the tools' hints say it."""
    counts = summary.answers.get(CaseKind.VALID_ARGUMENTS, {})
    total = sum(counts.values())
    if not total or counts.get(SUCCESS, 0) or not summary.takes_arguments or summary.tool in NOT_TOOLS:
        return None
    refused = total - counts.get(NO_ANSWER, 0) - counts.get(EXITED, 0)
    start = f"no valid call to {summary.tool} succeeded ({refused} of {total} refused)"
    if summary.refused_fields:
        field, named = max(summary.refused_fields.items(), key=lambda item: (item[1], item[0]))
        return f"{start}; the refusals named {field!r} ({named} of them): give a value it accepts with --argument {summary.tool}.{field}=VALUE"
    return f"{start}: give known-good values with --argument {summary.tool}.FIELD=VALUE"
