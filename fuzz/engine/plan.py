"""Which case kinds each tool gets, and what is skipped and why.

A fuzzer must not wipe the data of the server it tests. Valid arguments run a tool's body. Invalid
ones may run it too, on a server that does not validate. So argument cases go only to tools that are
safe to run.

By default, those are tools annotated `readOnlyHint: true` or `destructiveHint: false`. MCP's
default for a tool without annotations is "may be destructive": `destructiveHint` defaults to true.
So an unannotated tool gets only the cases that cannot reach its body: unknown names and malformed
requests. With `--allow-destructive`, every tool gets every case kind. With `--read-only`, only
tools annotated `readOnlyHint: true` get argument cases.

Tools named with `--unavailable` are ones the server must refuse. They and the `--mirror-tool`
are called on the user's word. They get their own case kinds, whatever their annotations.

A name listed more than once is fuzzed once, by its first definition. Names SHOULD be unique: the
tool-name rule says so. When its definitions differ, which one a call reaches is unknown. So it gets
only the cases that do not depend on one. These are unknown names, malformed requests, and the
refusal of an --unavailable tool.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

from fuzz.errors import ConfigurationError
from fuzz.judging.findings import Skip
from fuzz.wire.tasks import TaskEra
from strategies import CaseKind, TaskSupport, Tool
from strategies.cases import ENVELOPE, ROUNDS, SEQUENCES, STATELESS_KINDS, TASK_METHODS, TaskMode
from strategies.meta import Stateless
from strategies.values import can_reject_an_object
from strategies.verdicts import json_equal

ARGUMENT_KINDS = (CaseKind.VALID_ARGUMENTS, CaseKind.INVALID_ARGUMENTS)
BODYLESS_KINDS = (CaseKind.UNKNOWN_TOOL, CaseKind.MALFORMED_REQUEST)
GENERAL_KINDS = (*ARGUMENT_KINDS, *BODYLESS_KINDS)


class DestructiveMode(Enum):
    """What tools get argument cases (see the module docstring)."""

    SAFE = "safe"
    ALLOW = "allow-destructive"
    READ_ONLY = "read-only"


@dataclass(frozen=True, slots=True)
class Selection:
    """The user's choice of tools and cases."""

    tools: frozenset[str] | None = None
    exclude_tools: frozenset[str] = frozenset()
    unavailable: frozenset[str] = frozenset()
    mirror_tool: str | None = None
    destructive: DestructiveMode = DestructiveMode.SAFE
    destructive_allowed: frozenset[str] = frozenset()
    """Tools that get argument cases whatever their annotations (`--allow-destructive-tool`)."""


class Unit(Enum):
    """What a plan entry, and each job made of it, works on."""

    TOOL = "tool"
    """One tool: its cases name it."""
    ENVELOPE = "envelope"
    """The malformed request envelopes, which name no tool."""
    SEQUENCES = "sequences"
    """Sequences of calls over every tool that may take part."""
    TASKS = "tasks"
    """The server's tasks, through the task methods."""
    ROUNDS = "rounds"
    """The 2026-07-28 server's listing, and the `requestState` of its tools that ask for input."""


_UNIT_NAMES = {Unit.ENVELOPE: ENVELOPE, Unit.SEQUENCES: SEQUENCES, Unit.TASKS: TASK_METHODS, Unit.ROUNDS: ROUNDS}


@dataclass(frozen=True, slots=True)
class ToolPlan:
    tool: Tool | None
    """The tool of a `Unit.TOOL` entry; None for the other units, which concern no one tool."""
    kinds: tuple[CaseKind, ...]
    skips: tuple[Skip, ...] = ()
    unit: Unit = Unit.TOOL

    @property
    def name(self) -> str:
        """The tool's name, or the unit's name in reports (`NOT_TOOLS`)."""
        if self.tool is not None:
            return self.tool.name
        return _UNIT_NAMES[self.unit]


def plan(listed: Iterable[Tool], selection: Selection, revision_kinds: tuple[CaseKind, ...] = (), tasks: TaskEra = TaskEra.NONE) -> tuple[ToolPlan, ...]:
    """One plan per tool to fuzz: listed tools, then unlisted unavailable ones.

    The unavailable tools come after, when the server does not list them. `revision_kinds` are the
    kinds the spoken revision adds (`revision_kinds_for`), and each tool's task support adds its own
    under `tasks` (`task_kinds_for`). They go where argument cases go. Raises ConfigurationError
    when the selection names tools that cannot be used.
    """
    entries = list(listed)
    tools = _first_of_each(entries)
    names = {tool.name for tool in tools}
    _check_names(selection, tools, names)
    plans: list[ToolPlan] = []
    for tool in tools:
        if _selected(tool, selection):
            added = (*revision_kinds, *task_kinds_for(tool, tasks))
            plans.append(_definition_free(_unreachable_without_tasks(_plan_tool(tool, selection, added), tasks), entries))
    for name in sorted(selection.unavailable - names):
        unlisted = Tool(name=name, input_schema={"type": "object"})
        plans.append(ToolPlan(unlisted, (CaseKind.UNAVAILABLE_TOOL,)))
    return tuple(plans)


def excluded(listed: Iterable[Tool], selection: Selection) -> tuple[str, ...]:
    """The listed tools --tools / --exclude-tools leave out."""
    return tuple(tool.name for tool in _first_of_each(listed) if not _selected(tool, selection))


def _first_of_each(listed: Iterable[Tool]) -> list[Tool]:
    """The first definition of each listed name, in listing order."""
    first: dict[str, Tool] = {}
    for tool in listed:
        first.setdefault(tool.name, tool)
    return list(first.values())


_DEFINITION_FREE = (CaseKind.UNAVAILABLE_TOOL, *BODYLESS_KINDS)


def _definition_free(tool_plan: ToolPlan, entries: Sequence[Tool]) -> ToolPlan:
    """`tool_plan`, cut to the kinds that need no definition, if definitions differ.

    That happens when its name is listed with different definitions. See the module docstring.
    """
    assert tool_plan.tool is not None
    name = tool_plan.tool.name
    definitions = [tool.listing for tool in entries if tool.name == name]
    if all(json_equal(definition, definitions[0]) for definition in definitions):
        return tool_plan
    reason = f"the server lists {len(definitions)} tools of this name with different definitions: which one a call reaches is unknown"
    dropped = tuple(Skip(name, kind, reason) for kind in tool_plan.kinds if kind not in _DEFINITION_FREE)
    kept = tuple(kind for kind in tool_plan.kinds if kind in _DEFINITION_FREE)
    return ToolPlan(tool_plan.tool, kept, tool_plan.skips + dropped)


def _selected(tool: Tool, selection: Selection) -> bool:
    chosen = selection.tools is None or tool.name in selection.tools
    return chosen and tool.name not in selection.exclude_tools


def revision_kinds_for(stateless: Stateless | None) -> tuple[CaseKind, ...]:
    """The case kinds the spoken revision adds.

    The stateless revision adds its envelope's kinds, and invalid answers to input requests. Its
    headers' kind comes only over HTTP. The handshake revisions add none.
    """
    if stateless is None:
        return ()
    envelope = tuple(kind for kind in STATELESS_KINDS if stateless.over_http or kind is not CaseKind.HEADER_MISMATCH)
    return (*envelope, CaseKind.INVALID_INPUT_RESPONSE)


UNREACHABLE_WITHOUT_TASKS = (
    "it declares execution.taskSupport required, and the server declares no tasks for tools/call "
    "(capabilities.tasks.requests.tools.call): no call may run its body, so its refusals would judge nothing"
)


def _unreachable_without_tasks(tool_plan: ToolPlan, tasks: TaskEra) -> ToolPlan:
    """`tool_plan` without its argument kinds, for a tool that requires tasks on a server that takes none.

    Under 2025-11-25 a client MUST NOT send such a server a task, and the tool runs only as one. Its
    argument cases would all meet the same refusal: a "no violation" of theirs would be vacuous. So
    they are skipped, saying why. Under 2026-07-28 no tool declares it: the server decides per call.
    """
    tool = tool_plan.tool
    if tasks is not TaskEra.NONE or tool is None or tool.task_support is not TaskSupport.REQUIRED:
        return tool_plan
    dropped = tuple(Skip(tool.name, kind, UNREACHABLE_WITHOUT_TASKS) for kind in tool_plan.kinds if kind in ARGUMENT_KINDS)
    kept = tuple(kind for kind in tool_plan.kinds if kind not in ARGUMENT_KINDS)
    return ToolPlan(tool, kept, tool_plan.skips + dropped, unit=tool_plan.unit) if dropped else tool_plan


def task_kinds_for(tool: Tool, tasks: TaskEra) -> tuple[CaseKind, ...]:
    """The case kinds `tool`'s declared task support adds.

    Only under 2025-11-25, on a server that takes tasks for `tools/call`: a tool that requires tasks
    gets calls without one, and a tool that forbids them gets calls as one. 2026-07-28 declares no
    support per tool: the server decides per call.
    """
    if tasks is not TaskEra.AUGMENTED:
        return ()
    support = tool.task_support
    if support is TaskSupport.REQUIRED:
        return (CaseKind.CALL_WITHOUT_TASK,)
    return (CaseKind.TASK_FOR_FORBIDDEN,) if support is TaskSupport.FORBIDDEN else ()


_TASKABLE_KINDS = (CaseKind.VALID_ARGUMENTS, CaseKind.INVALID_ARGUMENTS, CaseKind.UNKNOWN_TOOL)
"""The kinds whose calls may go as tasks: what a plain call of theirs must get, a task must end in."""


def task_mode(tasks: TaskEra, tool: Tool | None, kind: CaseKind) -> TaskMode:
    """Whether `kind`'s cases for `tool` are sent as tasks, on a server that speaks `tasks`.

    A tool that requires tasks gets its argument cases as tasks, always; one that takes them
    optionally, sometimes (drawn). An unknown name may go either way. Under 2026-07-28 any call may
    declare the extension, and the server decides.
    """
    if kind is CaseKind.TASK_FOR_FORBIDDEN:
        return TaskMode.ALWAYS
    if tasks is TaskEra.NONE or kind not in _TASKABLE_KINDS:
        return TaskMode.NEVER
    if tasks is TaskEra.EXTENSION or kind is CaseKind.UNKNOWN_TOOL or tool is None:
        return TaskMode.SOMETIMES
    support = tool.task_support
    return TaskMode.ALWAYS if support is TaskSupport.REQUIRED else TaskMode.SOMETIMES if support is TaskSupport.OPTIONAL else TaskMode.NEVER


def may_take_part(tool: Tool, selection: Selection) -> bool:
    """Whether a tool may be called in a sequence.

    It must be selected, and get valid arguments as a single case. So an unavailable tool, the
    mirror tool and an unsafe tool may not.
    """
    return _selected(tool, selection) and CaseKind.VALID_ARGUMENTS in _plan_tool(tool, selection).kinds


def _plan_tool(tool: Tool, selection: Selection, revision_kinds: tuple[CaseKind, ...] = ()) -> ToolPlan:
    if tool.name in selection.unavailable:
        return ToolPlan(tool, (CaseKind.UNAVAILABLE_TOOL, *BODYLESS_KINDS))
    if tool.name == selection.mirror_tool:
        return ToolPlan(tool, (CaseKind.VALID_OUTPUT, CaseKind.INVALID_OUTPUT, *BODYLESS_KINDS))
    mode = DestructiveMode.ALLOW if tool.name in selection.destructive_allowed else selection.destructive
    reason = _unsafe_reason(tool, mode)
    if reason is not None:
        return ToolPlan(tool, BODYLESS_KINDS, tuple(Skip(tool.name, kind, reason) for kind in (*ARGUMENT_KINDS, *revision_kinds)))
    if not can_reject_an_object(tool.input_schema):
        nothing_invalid = Skip(tool.name, CaseKind.INVALID_ARGUMENTS, "the inputSchema accepts every object: no arguments are invalid")
        kinds = tuple(k for k in GENERAL_KINDS if k is not CaseKind.INVALID_ARGUMENTS)
        return ToolPlan(tool, (*kinds, *revision_kinds), (nothing_invalid,))
    return ToolPlan(tool, (*GENERAL_KINDS, *revision_kinds))


def _unsafe_reason(tool: Tool, mode: DestructiveMode) -> str | None:
    read_only = tool.annotations.get("readOnlyHint") is True
    if mode is DestructiveMode.ALLOW or read_only:
        return None
    if mode is DestructiveMode.READ_ONLY:
        return "--read-only: the tool is not annotated readOnlyHint: true"
    destructive = tool.annotations.get("destructiveHint", True)
    if destructive is False:
        return None
    why = "annotated destructiveHint: true" if "destructiveHint" in tool.annotations else ("not annotated, and MCP's default is destructiveHint: true")
    return f"the tool may be destructive ({why}); --allow-destructive runs its body"


def _check_names(selection: Selection, tools: list[Tool], names: set[str]) -> None:
    listing = ", ".join(sorted(names)) or "no tools"
    for option, chosen in (("--tools", selection.tools or frozenset()), ("--exclude-tools", selection.exclude_tools)):
        unknown = sorted(chosen - names)
        if unknown:
            raise ConfigurationError(f"{option} names {', '.join(map(repr, unknown))}, which the target does not list (it lists: {listing})")
    mirror = selection.mirror_tool
    if mirror is not None:
        tool = next((t for t in tools if t.name == mirror), None)
        if tool is None:
            raise ConfigurationError(f"--mirror-tool {mirror!r}: the target does not list such a tool (it lists: {listing})")
        if tool.output_check is None:
            raise ConfigurationError(
                f"--mirror-tool {mirror!r}: the tool declares no outputSchema, so there is no output to fuzz; "
                "a mirror tool declares one and returns its `output` argument as structuredContent"
            )
    if mirror is not None and mirror in selection.unavailable:
        raise ConfigurationError(f"{mirror!r} is given both as --mirror-tool and as --unavailable; a tool is one or the other")


def with_envelope(plans: Sequence[ToolPlan], envelope: bool, *, sequences: bool = False, tasks: bool = False, rounds: bool = False) -> tuple[ToolPlan, ...]:
    """The run's plan: envelopes first, then the tools, then the sequences, the tasks, the rounds.

    The malformed requests that name no tool come first, when `envelope` is set. The sequences come
    next, when `sequences` is set and a tool may take part: one that gets valid arguments. The task
    methods come then, when `tasks` is set (the phase is chosen and the server declares tasks); the
    rounds last, when `rounds` is set (the phase is chosen and the server speaks 2026-07-28).
    """
    sequence = sequences and any(CaseKind.VALID_ARGUMENTS in tool_plan.kinds for tool_plan in plans)
    envelopes = (ToolPlan(None, (CaseKind.MALFORMED_REQUEST,), unit=Unit.ENVELOPE),) if envelope else ()
    after = (
        ((ToolPlan(None, (CaseKind.SEQUENCE,), unit=Unit.SEQUENCES),) if sequence else ())
        + ((ToolPlan(None, (CaseKind.TASK_METHOD,), unit=Unit.TASKS),) if tasks else ())
        + ((ToolPlan(None, (CaseKind.REQUEST_STATE,), unit=Unit.ROUNDS),) if rounds else ())
    )
    return envelopes + tuple(plans) + after
