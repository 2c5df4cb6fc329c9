"""What a run keeps as it goes, so that an interruption loses nothing.

It keeps its progress, read back when it is interrupted. It writes a finding's reproduction the
moment the finding is shrunk. It compares the target's tool list with the one the corpus kept, and
keeps the new one. It replays the corpus before fuzzing. And it merges each exploration's counts
into its tool's summary.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from fuzz.corpus.ownership import already_kept, belongs_to, candidate_files
from fuzz.corpus.replay import ReplayOutcome, ReplayStatus, gone, replay_alone, replay_on
from fuzz.corpus.reproductions import CorruptReproduction, Reproduction
from fuzz.corpus.reproductions import load as load_reproduction
from fuzz.corpus.reproductions import write as write_reproduction
from fuzz.corpus.targets import TargetIdentity, identity_of
from fuzz.corpus.tool_lists import CorruptToolList
from fuzz.corpus.tool_lists import load as load_tool_list
from fuzz.corpus.tool_lists import path_of as tool_list_path
from fuzz.corpus.tool_lists import record as record_tool_list
from fuzz.engine.events import (
    CorpusReplayed,
    Listener,
    Warned,
)
from fuzz.engine.jobs import Outcome
from fuzz.engine.options import RunOptions
from fuzz.engine.sharding import unit_of
from fuzz.errors import ConfigurationError
from fuzz.judging.findings import Finding, FindingKey, Replayed, ShardOfRun, Skip, ToolSummary
from fuzz.judging.profiles import resolve
from fuzz.judging.tool_changes import ToolChange, diff
from fuzz.wire.target import Target
from strategies import CaseKind, Tool


@dataclass
class RunProgress:
    """What the run has found so far; read back when it is interrupted."""

    summaries: dict[int, ToolSummary] = field(default_factory=dict)
    """Per tool, by its place in the plan (the envelope first), once its first exploration ran."""
    description: Any = None
    restarts: int = 0
    excluded: tuple[str, ...] = ()
    replayed: list[Replayed] = field(default_factory=list)
    shard: ShardOfRun | None = None
    warnings: list[str] = field(default_factory=list)
    """The example database's warnings, as announced (`fuzz.engine.examples`)."""
    tool_changes: tuple[ToolChange, ...] = ()
    tool_list_since: str | None = None
    tool_list_recorded: bool = False
    tool_list_warnings: list[str] = field(default_factory=list)
    """What went wrong with the kept tool list, apart from `warnings`, whose place counts the
    database's announced."""


def identity(options: RunOptions, target: Target) -> TargetIdentity:
    """The run's target as reproductions record it across nights (`fuzz.corpus.targets`)."""
    return identity_of(options.target.as_json(), target.description.server_info)


def compare_tool_list(options: RunOptions, target: Target, listener: Listener, progress: RunProgress) -> None:
    """Compare the target's tools with the list the corpus kept, then keep this run's.

    A first run compares nothing and keeps its list. A kept list that cannot be read, or a list that
    cannot be written, is a warning: the run goes on without the comparison.
    """
    assert options.corpus is not None
    path = tool_list_path(options.corpus, identity(options, target))
    listing = [dict(tool.listing) if tool.listing else _listing_of(tool) for tool in target.tools]
    try:
        stored = load_tool_list(path)
    except CorruptToolList as error:
        _warn(f"the kept tool list is unusable, so no change is reported and this run's replaces it: {error}", listener, progress)
        stored = None
    if stored is not None:
        progress.tool_changes = diff(stored.tools, listing)
        progress.tool_list_since = stored.recorded
    try:
        record_tool_list(path, listing, target.description.server_info)
    except OSError as error:
        _warn(f"could not keep the tool list in {path}: {error.strerror or error}", listener, progress)
    else:
        progress.tool_list_recorded = True


def _listing_of(tool: Tool) -> dict[str, Any]:
    """A tool's definition, for a tool made otherwise than from a listing."""
    listing: dict[str, Any] = {"name": tool.name, "inputSchema": dict(tool.input_schema)}
    if tool.output_schema is not None:
        listing["outputSchema"] = dict(tool.output_schema)
    if tool.annotations:
        listing["annotations"] = dict(tool.annotations)
    return listing


def _warn(warning: str, listener: Listener, progress: RunProgress) -> None:
    progress.tool_list_warnings.append(warning)
    listener(Warned(warning))


async def replay_corpus(
    options: RunOptions, target: Target, listener: Listener, progress: RunProgress, replays: Callable[[str], bool] = lambda unit: True
) -> None:
    """Replay this target's reproductions before anything new is generated.

    Only those of the revision spoken are replayed. A file that cannot be read is reported by name
    and skipped. One whose tool the target no longer lists is reported so, not sent. Other targets' files are left alone (`fuzz.corpus.ownership`). A sequence's
    reproduction is replayed on a target of its own, opened for it. So its steps neither meet nor
    leave state on the run's target.
    """
    assert options.corpus is not None
    own, recorded = identity(options, target), options.target.as_json()
    for path in candidate_files(options.corpus, own):
        try:
            reproduction = load_reproduction(path)
        except CorruptReproduction as error:
            replayed = Replayed(str(path), ReplayStatus.ERROR.value, f"skipped: {error}")
        else:
            if not belongs_to(reproduction, own, recorded) or reproduction.protocol_version != target.description.protocol_version:
                continue
            if not replays(unit_of(reproduction.tool, sequence=reproduction.is_sequence)):
                continue  # another shard's
            why_not = gone(reproduction, target.tools)
            if why_not is not None:
                outcome = ReplayOutcome(reproduction.source, ReplayStatus.TOOL_GONE, why_not, reproduction)
            elif reproduction.has_steps:
                outcome = await replay_alone(
                    options.target,
                    reproduction,
                    startup_timeout=options.startup_timeout,
                    max_message_bytes=options.max_answer_size,
                    protocol_version=target.description.protocol_version,
                )
            else:
                outcome = await replay_on(target, reproduction)
            rule = resolve(options.profile, target.description.protocol_version).rules.get(reproduction.rule)
            replayed = Replayed(
                str(path),
                outcome.status.value,
                outcome.detail,
                FindingKey(reproduction.rule, reproduction.tool, reproduction.case.value),
                rule.level if rule else None,
                reproduction.stability if outcome.status is ReplayStatus.STILL_FAILING else None,
            )
        progress.replayed.append(replayed)
        listener(CorpusReplayed(replayed))


def keep(finding: Finding, options: RunOptions, target: Target, tool: Tool | None) -> Finding:
    """Write the finding's reproduction into this target's part of the corpus.

    It is written now, and atomically, so a run killed later keeps it. The finding notes its file. A
    finding this target's reproductions already hold is not written again, and is marked so; it
    takes the stability label its file keeps.
    """
    if options.corpus is None:
        return finding
    reproduction = reproduction_of(finding, options, target, tool)
    kept = already_kept(reproduction, options.corpus)
    if kept is not None:
        try:
            label = load_reproduction(kept).stability
        except CorruptReproduction:
            label = None
        return replace(finding, reproduction=str(kept), first_seen=False, stability=label)
    try:
        path = write_reproduction(reproduction, options.corpus)
    except OSError as error:
        raise ConfigurationError(f"could not write a reproduction to {options.corpus}: {error.strerror or error} (use --corpus DIR or --no-corpus)") from None
    return replace(finding, reproduction=str(path))


def reproduction_of(finding: Finding, options: RunOptions, target: Target, tool: Tool | None) -> Reproduction:
    """The reproduction of `finding`, made on `target`.

    A sequence's finding keeps its steps. It also keeps the listed definition of the tool its last
    request called.
    """
    if tool is None and finding.case is CaseKind.SEQUENCE:
        tool = next((listed for listed in target.tools if listed.name == finding.tool), None)
    return Reproduction(
        rule=finding.rule.id,
        level=finding.rule.level.label,
        profile=options.profile,
        tool=finding.tool,
        case=finding.case,
        label=finding.label,
        target=options.target.as_json(),
        target_identity=identity(options, target),
        protocol_version=target.description.protocol_version,
        tool_listing=dict(tool.listing) if tool is not None and tool.listing else None,
        handshake=target.description.handshake,
        request=finding.request,
        response=finding.response,
        message=finding.message,
        seed=options.seed,
        timeout=options.timeout,
        stderr=finding.stderr,
        headers=finding.headers,
        steps=finding.steps,
        uses=finding.uses,
        judged_as=finding.judged_as,
        inputs=finding.inputs,
        rounds=finding.rounds,
        stability=finding.stability,
    )


def merge(summary: ToolSummary, exploration: Outcome, kinds: tuple[CaseKind, ...]) -> ToolSummary:
    """`summary` with what `exploration` sent, found, skipped and spent.

    The kinds are kept in plan order, whichever exploration finished first.
    """
    kind = exploration.kind
    skips = summary.skips + ((Skip(summary.tool, kind, exploration.skip),) if exploration.skip and exploration.round == 0 else ())
    order = {kind: position for position, kind in enumerate(kinds)}

    def by_kind(items: dict[CaseKind, Any]) -> dict[CaseKind, Any]:
        return dict(sorted(items.items(), key=lambda item: order.get(item[0], len(order))))

    return ToolSummary(
        tool=summary.tool,
        cases_sent=by_kind({**summary.cases_sent, kind: summary.cases_sent.get(kind, 0) + exploration.sent}),
        findings=tuple(sorted(summary.findings + tuple(exploration.findings), key=lambda finding: order.get(finding.case, len(order)))),
        skips=tuple(sorted(skips, key=lambda skip: order.get(skip.case, len(order)))),
        seconds=by_kind({**summary.seconds, kind: summary.seconds.get(kind, 0.0) + exploration.seconds}),
        answers=by_kind({**summary.answers, kind: _added(summary.answers.get(kind, {}), exploration.answers)}),
        refused_fields=_added(summary.refused_fields, exploration.refused_fields),
        has_output_schema=exploration.tool is not None and exploration.tool.output_schema is not None,
        takes_arguments=exploration.tool is None or exploration.tool.takes_arguments,
        conclusion=exploration.conclusion or summary.conclusion,
    )


def _added(counts: dict[str, int], more: dict[str, int]) -> dict[str, int]:
    return {name: counts.get(name, 0) + more.get(name, 0) for name in {**counts, **more}}
