"""The oracle: which rule, if any, an exchange violates for its case, under a profile.

Checks run from the most fundamental to the advisory ones.
The most fundamental are that the target died, or that the answer is not JSON-RPC.
An advisory one is an error message that leaks a stack trace.
The first violation of an enabled rule is the verdict.
So each failing example fails for one rule, and shrinks for that rule.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from fuzz.judging import rules
from fuzz.judging._dressed_errors import dressed_error
from fuzz.judging._round_checks import elicits, round_problems, rounds_story
from fuzz.judging._task_checks import task_problems
from fuzz.judging.answers import AnswerClass, Observation, observe
from fuzz.judging.findings import Finding, rounds_of
from fuzz.judging.profiles import SEP_2145, Profile
from fuzz.judging.rules import Rule
from fuzz.text import clip, show
from fuzz.wire import stateless
from fuzz.wire.jsonrpc import (
    HEADER_MISMATCH,
    INVALID_PARAMS,
    INVALID_REQUEST,
    MCP_DEFINED_CODES,
    MCP_RESERVED_CODES,
    MCP_RETIRED_CODES,
    METHOD_NOT_FOUND,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    UNSUPPORTED_PROTOCOL_VERSION,
)
from fuzz.wire.replies import AnomalyKind, Answered, Exchange, UnreadableAnswer
from fuzz.wire.shapes import (
    LATEST_KNOWN_VERSION,
    OBJECT_STRUCTURED_CONTENT,
    WITHOUT_OUTPUT_SCHEMA,
)
from strategies import ABSENT, Case, CaseKind, Tool
from strategies.meta import CLIENT_CAPABILITIES_KEY, PROTOCOL_VERSION_KEY
from strategies.verdicts import json_equal


@dataclass(frozen=True, slots=True)
class Criteria:
    """Everything a verdict depends on besides the exchange itself."""

    profile: Profile = SEP_2145
    enabled: frozenset[str] | None = None
    """Rule ids to judge by; None for all of the profile's rules."""
    protocol_version: str = LATEST_KNOWN_VERSION
    listed_names: tuple[str, ...] = ()

    def is_enabled(self, rule_id: str) -> bool:
        return self.enabled is None or rule_id in self.enabled


@dataclass(frozen=True, slots=True)
class Violation:
    rule: Rule
    observation: Observation
    expected: str
    why: str
    """What was wrong, in a sentence that names the answer."""


def judge(case: Case, exchange: Exchange, tool: Tool | None = None, criteria: Criteria = Criteria(), *, answers_ping: bool = True) -> Violation | None:
    """The first violation of an enabled rule, or None.

    `answers_ping` is whether the target answered a `ping` after this exchange.
    The engine asks only when the request went unanswered.
    """
    return assess(case, exchange, tool, criteria, answers_ping=answers_ping)[1]


def assess(
    case: Case, exchange: Exchange, tool: Tool | None = None, criteria: Criteria = Criteria(), *, answers_ping: bool = True
) -> tuple[Observation, Violation | None]:
    """`judge`, with the observation it started from.

    The observation says what kind of answer came, and coverage counts it."""
    if case.kind is CaseKind.INVALID_INPUT_RESPONSE:
        if not exchange.rounds:
            # The tool asked for no input, so nothing invalid was sent: the call is a valid-arguments
            # call, which that kind's own cases judge.
            return observe(exchange, criteria.protocol_version), None
        exchange = exchange.rounds[0]  # judged on the retry that carried the invalid inputResponses
    observation = observe(exchange, criteria.protocol_version)
    expected = criteria.profile.expectations[case.kind].expected
    for rule, why in _candidates(case, exchange, tool, criteria, observation, answers_ping):
        if criteria.is_enabled(rule.id):
            said = rule.title if rule.id in _LIFECYCLE_RULES else expected
            return observation, Violation(criteria.profile.rule(rule.id), observation, said, why)
    return observation, None


_LIFECYCLE_RULES = frozenset(
    rule.id
    for rule in (
        rules.TASK_LIFECYCLE,
        rules.TASK_RELATED_META,
        rules.TASK_FAILED_ON_TOOL_ERROR,
        rules.TASK_COMPLETED_ON_TOOL_ERROR,
        rules.INPUT_REQUEST_UNDECLARED,
    )
)
"""The rules the way to a call's answer violates (its task, its rounds), not the answer: what they
expect is their title."""


def _candidates(case: Case, sent: Exchange, tool: Tool | None, criteria: Criteria, observation: Observation, answers_ping: bool) -> Iterator[tuple[Rule, str]]:
    """Every rule this exchange violates, most fundamental first, with why.

    A call that made a task is judged by its final answer (`Exchange.final`), and by the task rules.
    """
    exchange = sent.final
    answer = observation.answer
    if answer is AnswerClass.TARGET_EXITED:
        if exchange.reply.closed_by_harness:  # type: ignore[union-attr]
            return
        yield rules.TARGET_ALIVE, f"the target exited (code {exchange.reply.returncode}) on this request"  # type: ignore[union-attr]
        return
    wrong_ids = [a for a in exchange.anomalies if a.kind in (AnomalyKind.STRAY_ANSWER, AnomalyKind.DUPLICATE_ANSWER)]
    if wrong_ids:
        yield rules.RESPONSE_WELL_FORMED, wrong_ids[0].describe()
    garbage = [a for a in exchange.anomalies if a.kind is AnomalyKind.GARBAGE]
    if answer is AnswerClass.NO_ANSWER and exchange.reply.held_up:  # type: ignore[union-attr]
        return
    if answer in (AnswerClass.NO_ANSWER, AnswerClass.NOT_DELIVERED):
        unreadable = [a for a in exchange.anomalies if a.kind is AnomalyKind.UNREADABLE]
        if unreadable:
            yield rules.RESPONSE_WELL_FORMED, f"{observation.detail}, and {unreadable[0].describe()}"
        if not answers_ping:
            yield rules.TARGET_ALIVE, f"{observation.detail}, and the target then stopped answering ping"
        if answer is AnswerClass.NOT_DELIVERED:
            yield rules.RESPONSE_WELL_FORMED, f"no JSON-RPC answer came back: {observation.detail}"
        else:
            yield rules.REQUEST_ANSWERED, observation.detail
        if garbage:
            yield rules.STDOUT_NOT_PROTOCOL, garbage[0].describe()
        return
    if answer is AnswerClass.MALFORMED_ANSWER:
        yield rules.RESPONSE_WELL_FORMED, observation.detail
        return
    if criteria.protocol_version in stateless.STATELESS_PROTOCOL_VERSIONS:
        yield from round_problems(sent, criteria.protocol_version)
    if case.as_task:
        yield from task_problems(case, sent, criteria.protocol_version, observation)
    if answer is AnswerClass.TASK_UNENDED:
        return
    refused_for_capability = answer is AnswerClass.PROTOCOL_ERROR and _undeclared_capability(sent, observation)
    violated = None if refused_for_capability else criteria.profile.expectations[case.kind].violated_by(answer)
    if violated is not None:
        yield violated, f"answered with {observation.detail}{_made_task(sent)}"
    if answer is AnswerClass.PROTOCOL_ERROR:
        yield from _reserved_code(criteria, observation)
        if not refused_for_capability:
            yield from _error_problems(case, sent, observation)
    if answer is AnswerClass.INVALID_RESULT:
        yield rules.RESPONSE_WELL_FORMED, observation.detail
        return
    has_output = criteria.protocol_version not in WITHOUT_OUTPUT_SCHEMA
    if answer is AnswerClass.SUCCESS and has_output:
        yield from _output_problems(case, tool, observation, criteria.protocol_version)
    structured = (observation.result or {}).get("structuredContent", {})
    object_only = criteria.protocol_version in OBJECT_STRUCTURED_CONTENT
    if object_only and not isinstance(structured, dict) and (tool is None or tool.output_check is None):
        yield rules.RESPONSE_WELL_FORMED, f"structuredContent {show(structured, 100)} is not an object"
    for check in _ADVISORY_CHECKS:
        yield from check(case, criteria, observation)
    if garbage:
        yield rules.STDOUT_NOT_PROTOCOL, garbage[0].describe()


_REFUSED_FOR_TASKS: dict[CaseKind, tuple[Rule, tuple[int, ...]]] = {
    CaseKind.CALL_WITHOUT_TASK: (rules.TASK_REQUIRED, (METHOD_NOT_FOUND, INVALID_REQUEST)),
    CaseKind.TASK_FOR_FORBIDDEN: (rules.TASK_FORBIDDEN, (METHOD_NOT_FOUND,)),
}
"""The codes the task kinds' refusals may carry (2025-11-25). A call without a task to a tool that
requires one may also get -32600: the tasks page's Error Handling allows it for a request type that
requires tasks."""


def _error_problems(case: Case, exchange: Exchange, observation: Observation) -> Iterator[tuple[Rule, str]]:
    """A JSON-RPC error of the wrong code for its case kind, or over HTTP the wrong status."""
    code, status = observation.error_code, observation.status
    if case.kind in (CaseKind.MALFORMED_REQUEST, CaseKind.MALFORMED_META):
        rule = rules.MALFORMED_REQUEST_CODE if case.kind is CaseKind.MALFORMED_REQUEST else rules.MALFORMED_META
        unmirrorable = stateless.unmirrorable(exchange.request) if status is not None else None
        if code != INVALID_PARAMS and not (code == HEADER_MISMATCH and unmirrorable):
            yield rule, f"answered with {observation.detail}, not -32602"
        elif case.kind is CaseKind.MALFORMED_META and status is not None and status != 400:
            yield rule, f"answered with {observation.detail} and HTTP status {status}, not 400 Bad Request"
    elif case.kind is CaseKind.UNSUPPORTED_VERSION:
        problem = _unsupported_version_problem(exchange, observation)
        if problem is not None:
            yield rules.UNSUPPORTED_VERSION, f"answered with {observation.detail}: {problem}"
    elif case.kind in _REFUSED_FOR_TASKS:
        rule, codes = _REFUSED_FOR_TASKS[case.kind]
        if code not in codes:
            yield rule, f"answered with {observation.detail}, not {' or '.join(map(str, codes))}"
    elif case.kind is CaseKind.HEADER_MISMATCH:
        if code != HEADER_MISMATCH:
            yield rules.HEADER_MISMATCH, f"answered with {observation.detail}, not -32020"
        elif status is not None and status != 400:
            yield rules.HEADER_MISMATCH, f"answered with {observation.detail} and HTTP status {status}, not 400 Bad Request"


def _made_task(sent: Exchange) -> str:
    """`, the final answer of task "ID"`, for a call that made a task; "" for another."""
    return "" if sent.task is None else f", the final answer of the task it made ({sent.task.task_id!r})"


def _undeclared_capability(sent: Exchange, observation: Observation) -> bool:
    """Whether the answer is -32021 naming a capability the request did not declare (2026-07-28).

    That is the right answer of a server that cannot serve the call without it: a tool that must
    run as a task, to a call that did not declare the tasks extension, for one.
    """
    if observation.error_code != MISSING_REQUIRED_CLIENT_CAPABILITY or not isinstance(observation.error_data, dict):
        return False
    required = observation.error_data.get("requiredCapabilities")
    if not isinstance(required, dict) or not required:
        return False
    params = sent.request.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    declared = meta.get(CLIENT_CAPABILITIES_KEY) if isinstance(meta, dict) else None
    return not _covers(declared if isinstance(declared, dict) else {}, required)


def _covers(declared: dict[str, Any], required: dict[str, Any]) -> bool:
    """Whether `declared` capabilities hold every one `required` names, at every depth.

    `elicitation: {}` required is form elicitation, as `elicitation: {}` declared is (the revision's
    example "form mode only, implicit"): a declaration of URL mode alone does not cover it."""
    for name, needed in required.items():
        if name not in declared:
            return False
        if name == "elicitation" and isinstance(needed, dict) and not needed and not elicits(declared[name], "form"):
            return False
        if isinstance(needed, dict) and needed and not (isinstance(declared[name], dict) and _covers(declared[name], needed)):
            return False
    return True


def _reserved_code(criteria: Criteria, observation: Observation) -> Iterator[tuple[Rule, str]]:
    """Under 2026-07-28, an error code of MCP's reserved range it does not define, or a retired one."""
    code = observation.error_code
    if criteria.protocol_version not in stateless.STATELESS_PROTOCOL_VERSIONS or not isinstance(code, int):
        return
    if code in MCP_RETIRED_CODES:
        yield rules.RESERVED_ERROR_CODE, f"answered with {observation.detail}: {code} ({MCP_RETIRED_CODES[code]}) is retired"
    elif code in MCP_RESERVED_CODES and code not in MCP_DEFINED_CODES:
        yield rules.RESERVED_ERROR_CODE, f"answered with {observation.detail}: {code} is in MCP's reserved range and the revision defines no such code"


def _unsupported_version_problem(exchange: Exchange, observation: Observation) -> str | None:
    if observation.error_code != UNSUPPORTED_PROTOCOL_VERSION:
        return "the code is not -32022"
    data = observation.error_data
    params = exchange.request.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    requested = meta.get(PROTOCOL_VERSION_KEY) if isinstance(meta, dict) else None
    if not isinstance(data, dict):
        return "its data is not an object with supported and requested"
    supported = data.get("supported")
    if not isinstance(supported, list) or not all(isinstance(version, str) for version in supported):
        return f"data.supported is {show(supported, 80)}, not an array of revision strings"
    if data.get("requested") != requested:
        return f"data.requested is {show(data.get('requested'), 80)}, not the revision requested ({requested!r})"
    if observation.status is not None and observation.status != 400:
        return f"the HTTP status is {observation.status}, not 400 Bad Request"
    return None


def _output_problems(case: Case, tool: Tool | None, observation: Observation, protocol_version: str) -> Iterator[tuple[Rule, str]]:
    """What is wrong with a success's structured output.

    A success of a tool that declares an outputSchema must carry conforming structuredContent.
    It must be an object, except under 2026-07-28, which allows any JSON value.
    A mirror asked for a conforming value must return that very value."""
    result = observation.result or {}
    structured = result.get("structuredContent", ABSENT)
    asked = case.mirrored_output
    if case.kind is CaseKind.VALID_OUTPUT and (structured is ABSENT or not json_equal(structured, asked)):
        shown = "no structuredContent" if structured is ABSENT else f"structuredContent {show(structured, 100)}"
        yield rules.OUTPUT_SCHEMA, f"the mirror was asked for {show(asked, 100)} and answered a success with {shown}"
        return
    if tool is None or tool.output_check is None or case.kind is CaseKind.INVALID_OUTPUT:
        return
    if structured is ABSENT:
        yield rules.OUTPUT_SCHEMA, "answered a success without structuredContent, though the tool declares an outputSchema"
    elif not isinstance(structured, dict) and protocol_version in OBJECT_STRUCTURED_CONTENT:
        yield rules.OUTPUT_SCHEMA, f"answered a success whose structuredContent {show(structured, 100)} is not an object"
    elif not tool.output_check.accepts(structured):  # no error exactly when it accepts; compiled where plain
        error = next(tool.output_check.errors(structured), None)
        if error is not None:
            where = "structuredContent" + "".join(f"[{p!r}]" for p in error.absolute_path)
            yield rules.OUTPUT_SCHEMA, f"answered a success whose structuredContent does not conform to the outputSchema: {where}: {error.message}"


def _error_message(case: Case, criteria: Criteria, observation: Observation) -> Iterator[tuple[Rule, str]]:
    if observation.answer is not AnswerClass.TOOL_EXECUTION_ERROR:
        return
    content = (observation.result or {}).get("content", [])
    first = content[0] if content else None
    if first is None:
        yield rules.ERROR_MESSAGE, "the tool execution error has no content at all"
    elif first.get("type") != "text" or not str(first.get("text", "")).strip():
        yield rules.ERROR_MESSAGE, f"the tool execution error's first content item is {show(first, 100)}, not a non-empty text block"


def _tool_list_leak(case: Case, criteria: Criteria, observation: Observation) -> Iterator[tuple[Rule, str]]:
    if case.kind is not CaseKind.UNKNOWN_TOOL:
        return
    text = "\n".join(_error_texts(observation))
    named = [  # each name once: a listing with a name twice (a `tool-name` finding) names one tool by it
        name for name in dict.fromkeys(criteria.listed_names) if len(name) >= 3 and re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text)
    ]
    if len(named) >= 2:
        yield rules.TOOL_LIST_LEAK, f"the error for an unknown tool names {len(named)} listed tools ({', '.join(named[:5])})"


_STACK_TRACE = re.compile(
    r"Traceback \(most recent call last\)"
    r"|File \"[^\"]+\", line \d+"
    r"|\n\s*at \S.*?:\d+:\d+\)?"
    r"|\n\s*at [\w.$]+\([\w$]+\.(?:java|kt|scala):\d+\)"
    r"|goroutine \d+ \[running\]"
)


def _internal_details_leak(case: Case, criteria: Criteria, observation: Observation) -> Iterator[tuple[Rule, str]]:
    for text in _error_texts(observation):
        match = _STACK_TRACE.search(text)
        if match:
            yield rules.INTERNAL_DETAILS_LEAK, f"the error text carries a stack trace ({clip(match.group(0).strip(), 80)!r})"
            return


def _error_as_success(case: Case, criteria: Criteria, observation: Observation) -> Iterator[tuple[Rule, str]]:
    if case.kind is CaseKind.VALID_ARGUMENTS and observation.answer is AnswerClass.SUCCESS:
        why = dressed_error(observation.result, case.params.get("arguments") if isinstance(case.params, dict) else None)
        if why is not None:
            yield rules.ERROR_AS_SUCCESS, why


def _error_texts(observation: Observation) -> tuple[str, ...]:
    return observation.error_texts + ((observation.error_message,) if observation.error_message else ())


_ADVISORY_CHECKS: tuple[Callable[[Case, Criteria, Observation], Iterator[tuple[Rule, str]]], ...] = (
    _error_message,
    _tool_list_leak,
    _internal_details_leak,
    _error_as_success,
)


_SHOWN = 400
"""Characters of the request and of the answer a finding's message shows."""


def describe_violation(violation: Violation, case: Case, exchange: Exchange) -> str:
    """The finding's message, in one paragraph.

    It gives the rule, what was sent and why, and what came back.
    Then it gives what was expected, and the spec sentence."""
    rule = violation.rule
    reply = exchange.final.reply
    if isinstance(reply, Answered):
        answer = json.dumps(reply.message, ensure_ascii=False)
    else:
        answer = f"unreadable: {reply.text}" if isinstance(reply, UnreadableAnswer) else "none"
    # The JSON-RPC id is not counted against the limit: the same request, sent beside others
    # (whose ids then differ), reads the same.
    limit = _SHOWN + len(json.dumps(exchange.request.get("id")))
    return (
        f"{rule.id} ({rule.level.label}): {violation.why}. "
        f"Sent {case.label} to {case.tool!r}: {show(exchange.request, limit)}. "
        f"{_lifecycle_story(exchange.last)}{rounds_story(exchange)}Answer: {clip(answer, limit)}. "
        f"Expected {violation.expected}. {rule.source}"
    )


def _lifecycle_story(exchange: Exchange) -> str:
    """`It made task "t1"; tasks/get: working, completed; then tasks/result. `; "" without a task."""
    task = exchange.task
    if task is None:
        return ""
    polls = ", ".join(status or "no task" for status in task.statuses) or "no answer"
    fetched = "; then tasks/result" if task.steps and task.steps[-1].request.get("method") == "tasks/result" else ""
    return f"It made task {show(task.task_id, 80)}; tasks/get: {polls}{fetched}. "


def finding_of(violation: Violation, case: Case, exchange: Exchange, kind: CaseKind, **more: Any) -> Finding:
    """The finding a violation makes: the rule, the request, the answer, and why.

    Every phase makes its findings here. `kind` is the case kind it is reported under. `more` sets
    the other fields of `Finding`, or replaces these (a sequence's label names its step).
    """
    if case.kind is CaseKind.INVALID_INPUT_RESPONSE and exchange.rounds:
        exchange = replace(exchange, rounds=exchange.rounds[:1])  # judged on the retry that carried them
    fields: dict[str, Any] = {
        "rule": violation.rule,
        "tool": case.tool,
        "case": kind,
        "label": case.label,
        "request": exchange.request,
        "response": exchange.final.answer,
        "message": describe_violation(violation, case, exchange),
        "why": violation.why,
        "expected": violation.expected,
        "stderr": exchange.stderr,
        "headers": exchange.headers,
        "inputs": case.inputs if exchange.rounds else None,
        "rounds": rounds_of(exchange),
    }
    return Finding(**(fields | more))
