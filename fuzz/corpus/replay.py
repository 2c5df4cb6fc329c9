"""Replaying reproductions: send the recorded request again and judge the answer as the run did.

Each file gets a verdict. FIXED means the rule is no longer violated. STILL FAILING means it is.
ERROR means the file could not be read or the target could not be run. TOOL GONE means the tool
it calls is no longer listed, so it was not sent: that fails nothing, and the tool list's
comparison (`fuzz.judging.tool_changes`) says the tool was removed or renamed. Replay needs nothing but the
file and the target. The target is the one the file names, or one given on the command line for a
rebuilt server.

A sequence's reproduction is replayed on a fresh target. Each file gets a target of its own; a
running stdio target is restarted first. Its steps are sent again. The values they reused are taken
from this replay's answers (`fuzz.corpus.sequence_replay`). Its last request is judged as the kind
of case it was judged as then. A target given by URL cannot be restarted: the replay says so.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

import trio

from fuzz.corpus.reproductions import CorruptReproduction, Reproduction, discover, load
from fuzz.corpus.sequence_replay import play_steps, steps_in, with_id
from fuzz.errors import HarnessError, first_leaf
from fuzz.judging.listing_checks import listing_problems
from fuzz.judging.oracle import Criteria, Violation, judge
from fuzz.judging.profiles import PROFILES, resolve
from fuzz.judging.request_state import state_problem
from fuzz.judging.rules import TASK_TERMINAL_KEPT
from fuzz.judging.task_methods import CANCEL_WATCH, task_method_problem
from fuzz.redaction import REDACTED
from fuzz.text import json_text
from fuzz.wire.framing import DEFAULT_MAX_MESSAGE_BYTES
from fuzz.wire.replies import Exchange, NoAnswer, NotDelivered
from fuzz.wire.rounds import follow_rounds
from fuzz.wire.state_trials import Tamper, trial_for
from fuzz.wire.stateless import listings
from fuzz.wire.target import (
    HttpTarget,
    StdioTarget,
    Target,
    TargetSpec,
    demo_target,
    open_target,
)
from fuzz.wire.tasks import follow
from strategies import Case, CaseKind, InvalidSchema, Tool
from strategies.cases import NOT_TOOLS
from strategies.inputs import Inputs


class ReplayStatus(Enum):
    FIXED = "FIXED"
    STILL_FAILING = "STILL FAILING"
    ERROR = "ERROR"
    TOOL_GONE = "TOOL GONE"


NEVER_LISTED = frozenset({CaseKind.UNKNOWN_TOOL, CaseKind.UNAVAILABLE_TOOL})
"""Case kinds that call a tool the server does not list, by design."""


def gone(reproduction: Reproduction, listed: Sequence[Tool]) -> str | None:
    """Why the reproduction is not replayed, when the tool it calls is no longer listed; else None.

    The envelope's and the phases' own names (`NOT_TOOLS`) are no tools, and the calls of unknown
    and unavailable tools name unlisted ones on purpose: they are replayed.
    """
    if reproduction.tool in NOT_TOOLS or reproduction.judged_kind in NEVER_LISTED or any(tool.name == reproduction.tool for tool in listed):
        return None
    return f"tool {json_text(reproduction.tool)} is no longer listed, so its reproduction is not replayed"


@dataclass(frozen=True, slots=True)
class ReplayOutcome:
    path: Path | None
    status: ReplayStatus
    detail: str
    reproduction: Reproduction | None = None
    violation: Violation | None = None
    response: dict[str, Any] | None = None

    @property
    def name(self) -> str:
        return str(self.path) if self.path else "(reproduction)"


def case_of(reproduction: Reproduction, request: dict[str, Any] | None = None) -> Case:
    """The case a reproduction's request is judged as.

    `request` may stand in for it: the same request, with a sequence's reused values resolved. A
    sequence's is judged as the kind of case it was judged as when found.
    """
    sent = reproduction.request if request is None else request
    return Case.from_request(reproduction.judged_kind, reproduction.tool, sent, reproduction.label, reproduction.inputs)


async def follow_call(target: Target, exchange: Exchange, inputs: Inputs | None, wait: float) -> Exchange:
    """A replayed call followed as the run followed it: the task it made, to its end; the rounds
    its `input_required` answers ask for, answered by `inputs`."""
    session, era, meta = target.session, target.task_era, target.request_meta

    async def task_of(sent: Exchange) -> Exchange:
        return await follow(session, sent, era, timeout=wait, meta=meta)

    return await follow_rounds(session, await task_of(exchange), inputs, timeout=wait, then=task_of)


async def replay_on(target: Target, reproduction: Reproduction, *, timeout: float | None = None, fresh: bool = False) -> ReplayOutcome:
    """Send the reproduction's request to a running target and judge the answer.

    It is judged by the rule, profile and tool definition the file records. A sequence's steps are
    sent first, on a fresh target. `fresh` says `target` is one, just opened. Otherwise a stdio
    target is restarted.
    """
    if reproduction.profile not in PROFILES:
        return _error(reproduction, f"profile {reproduction.profile!r} is unknown to this mcp-toolfuzz")
    profile = resolve(reproduction.profile, target.description.protocol_version)
    why_not = gone(reproduction, target.tools)
    if why_not is not None:
        return ReplayOutcome(reproduction.source, ReplayStatus.TOOL_GONE, why_not, reproduction)
    try:
        tool = Tool.from_listing(reproduction.tool_listing) if reproduction.tool_listing else None
    except InvalidSchema as error:
        return _error(reproduction, f"its tool definition is unusable: {error}")
    wait = timeout if timeout is not None else reproduction.timeout
    if reproduction.case is CaseKind.TASK_METHOD:
        return await _replay_task_method(target, reproduction, wait, fresh=fresh)
    if reproduction.case is CaseKind.REQUEST_STATE:
        return await _replay_request_state(target, reproduction, tool, wait)
    if reproduction.of_the_listing_asked_again:
        return await _replay_listing(target, reproduction, wait)
    request, notes, listed = reproduction.request, [], tuple(target.tools)
    if reproduction.is_sequence:
        if isinstance(target.spec, HttpTarget):
            notes.append("not on a fresh target: one given by URL cannot be restarted, so the steps met the state it had")
        elif not fresh:
            await target.restart()
        played = await play_steps(target, reproduction, wait)
        if played.lost is not None:
            await target.restart()
            return _error(reproduction, f"{played.lost}: the sequence cannot be replayed (sequence of {steps_in(reproduction)} steps)")
        request, notes, listed = played.request, [*notes, *played.notes], listed if played.tools is None else played.tools
        tool = tool or next((known for known in (*listed, *target.tools) if known.name == reproduction.tool), None)
    exchange = await target.session.send_request(with_id(request), timeout=wait, headers=reproduction.headers)
    exchange = await follow_call(target, exchange, reproduction.inputs, wait)
    answers_ping = True
    if isinstance(exchange.reply, (NoAnswer, NotDelivered)) and not target.session.closed:
        answers_ping = await target.ping(timeout=wait)
    criteria = Criteria(
        profile=profile,
        protocol_version=target.description.protocol_version,
        listed_names=tuple(t.name for t in listed),
        enabled=frozenset({reproduction.rule}),
    )
    violation = judge(case_of(reproduction, request), exchange, tool, criteria, answers_ping=answers_ping)
    response = getattr(exchange.final.reply, "message", None)
    if target.session.closed or not answers_ping:
        await target.restart()
    told = f" (sequence of {steps_in(reproduction)} steps{''.join(f'; {note}' for note in notes)})" if reproduction.is_sequence else ""
    if violation is not None:
        return ReplayOutcome(reproduction.source, ReplayStatus.STILL_FAILING, violation.why + told, reproduction, violation, response)
    return ReplayOutcome(reproduction.source, ReplayStatus.FIXED, f"{reproduction.rule} no longer violated{told}", reproduction, None, response)


async def _replay_task_method(target: Target, reproduction: Reproduction, wait: float, *, fresh: bool) -> ReplayOutcome:
    """Replay a task phase finding: its steps again, each task id the one its own call made, then
    its request, judged as the phase judged it (`fuzz.judging.task_methods`)."""
    if not fresh and not isinstance(target.spec, HttpTarget):
        await target.restart()
    played = await play_steps(target, reproduction, wait, follow_tasks=False)
    told = f" (after {len(reproduction.steps)} steps{''.join(f'; {note}' for note in played.notes)})"
    if played.lost is not None:
        await target.restart()
        return _error(reproduction, f"{played.lost}: the task phase's steps cannot be replayed{told}")
    # A status that changes later is watched for as long as the phase watched it.
    watched_until = trio.current_time() + (CANCEL_WATCH if reproduction.rule == TASK_TERMINAL_KEPT.id else 0.0)
    while True:
        exchange = await target.session.send_request(with_id(played.request), timeout=wait)
        response = exchange.answer
        problem = task_method_problem(played.request, response, played.steps, stateless=target.description.stateless)
        if problem is not None or response is None or trio.current_time() >= watched_until:
            break
        await trio.sleep(CANCEL_WATCH / 5)
    if target.session.closed or response is None:
        await target.restart()
    if problem is not None and problem[0].id == reproduction.rule:
        return ReplayOutcome(reproduction.source, ReplayStatus.STILL_FAILING, problem[1] + told, reproduction, None, response)
    return ReplayOutcome(reproduction.source, ReplayStatus.FIXED, f"{reproduction.rule} no longer violated{told}", reproduction, None, response)


async def _replay_request_state(target: Target, reproduction: Reproduction, tool: Tool | None, wait: float) -> ReplayOutcome:
    """Replay a rounds phase state finding: the same trial (`fuzz.wire.state_trials`) on the tool
    with the recorded arguments, with states the server gives now, judged as the phase judged it."""
    tamper = next((tamper for tamper in Tamper if reproduction.label.endswith(tamper.value)), None)
    params = reproduction.request.get("params")
    arguments = params.get("arguments") if isinstance(params, dict) else None
    tool = tool or next((listed for listed in target.tools if listed.name == reproduction.tool), None)
    if tamper is None or not isinstance(arguments, dict) or tool is None:
        return _error(reproduction, "it names no tampering, arguments or tool this mcp-toolfuzz can try again")
    trial = await trial_for(target, tool, arguments, tamper, wait)
    problem = state_problem(trial) if trial is not None else None
    response = trial.tampered.answer if trial is not None else None
    if target.session.closed:
        await target.restart()
    if problem is not None and problem[0].id == reproduction.rule:
        return ReplayOutcome(reproduction.source, ReplayStatus.STILL_FAILING, problem[1], reproduction, None, response)
    told = "" if trial is not None else f": {tool.name!r} no longer asks for input with a requestState"
    return ReplayOutcome(reproduction.source, ReplayStatus.FIXED, f"{reproduction.rule} no longer violated{told}", reproduction, None, response)


async def _replay_listing(target: Target, reproduction: Reproduction, wait: float) -> ReplayOutcome:
    """Replay a rounds phase listing finding: `server/discover` and `tools/list` asked again, judged
    as the phase judged them (`fuzz.judging.listing_checks`)."""
    sent = await listings(target.session, timeout=wait, version=target.description.protocol_version)
    problems = {rule.id: (why, index) for rule, why, index in listing_problems(sent)}
    if reproduction.rule in problems:
        why, index = problems[reproduction.rule]
        return ReplayOutcome(reproduction.source, ReplayStatus.STILL_FAILING, why, reproduction, None, sent[index].answer)
    return ReplayOutcome(reproduction.source, ReplayStatus.FIXED, f"{reproduction.rule} no longer violated", reproduction, None, sent[-1].answer)


def _error(reproduction: Reproduction | None, detail: str, path: Path | None = None) -> ReplayOutcome:
    return ReplayOutcome(path or (reproduction.source if reproduction else None), ReplayStatus.ERROR, detail, reproduction)


def target_of(reproduction: Reproduction) -> TargetSpec:
    """The target a reproduction names. Raises HarnessError when it cannot be run as recorded."""
    target = reproduction.target
    if target.get("demo") is True:
        return demo_target()
    if target.get("transport") == "http" and isinstance(target.get("url"), str):
        if target.get("headers") or REDACTED in target["url"]:
            raise HarnessError("its target's headers or URL had secrets redacted; give them with --url URL --header 'NAME: VALUE'")
        return HttpTarget(target["url"])
    command = target.get("command")
    if target.get("transport") != "stdio" or not isinstance(command, list) or not command:
        raise HarnessError(f"it names a target mcp-toolfuzz cannot start ({target!r:.120}); give one with `-- COMMAND`, --url or --config")
    if any(REDACTED in str(part) for part in command) or target.get("env"):
        raise HarnessError("its command or environment had secrets redacted; give the target with `-- COMMAND` or --config")
    return StdioTarget(tuple(str(part) for part in command))


def replay_files(
    paths: list[Path],
    *,
    override: TargetSpec | None = None,
    timeout: float | None = None,
    startup_timeout: float = 20.0,
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    on_outcome: Callable[[ReplayOutcome], None] = lambda outcome: None,
) -> list[ReplayOutcome]:
    """Replay each file against its own fresh target.

    Raises HarnessError when `paths` name nothing that exists.
    """
    outcomes: list[ReplayOutcome] = []
    for path in discover(paths):
        outcome = trio.run(_replay_file, path, override, timeout, startup_timeout, max_message_bytes)
        outcomes.append(outcome)
        on_outcome(outcome)
    return outcomes


async def _replay_file(path: Path, override: TargetSpec | None, timeout: float | None, startup_timeout: float, max_message_bytes: int) -> ReplayOutcome:
    try:
        reproduction = load(path)
    except CorruptReproduction as error:
        return _error(None, str(error), path)
    try:
        spec = override or target_of(reproduction)
    except HarnessError as error:
        return _error(reproduction, str(error), path)
    return await replay_alone(spec, reproduction, timeout=timeout, startup_timeout=startup_timeout, max_message_bytes=max_message_bytes)


async def replay_alone(
    spec: TargetSpec,
    reproduction: Reproduction,
    *,
    timeout: float | None = None,
    startup_timeout: float = 20.0,
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    protocol_version: str | None = None,
) -> ReplayOutcome:
    """Replay `reproduction` on a target of its own, opened for it.

    A stdio target gets a fresh process. The replay speaks the revision the file records, or
    `protocol_version`. The verdict is ERROR when it cannot be run.
    """
    try:
        async with open_target(
            spec, startup_timeout=startup_timeout, protocol_version=protocol_version or reproduction.protocol_version, max_message_bytes=max_message_bytes
        ) as target:
            return await replay_on(target, reproduction, timeout=timeout, fresh=True)
    except BaseExceptionGroup as group:
        leaf = first_leaf(group)
        if isinstance(leaf, HarnessError):
            return _error(reproduction, str(leaf))
        raise
    except HarnessError as error:
        return _error(reproduction, str(error))
