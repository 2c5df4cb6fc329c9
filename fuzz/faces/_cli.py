"""The command line: parse arguments, build the options, call the engine, report, exit.

Exit codes: 0 when no MUST or SHOULD rule was violated, 1 when one was, 2 when the run could not be
made.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from fuzz.corpus import baseline
from fuzz.corpus.database import DatabaseChoice
from fuzz.corpus.export import export_pytest
from fuzz.corpus.history import HISTORY_FILE, recorded
from fuzz.corpus.ownership import legacy_files
from fuzz.corpus.replay import ReplayOutcome, ReplayStatus, replay_files
from fuzz.corpus.reproductions import CorruptReproduction, discover
from fuzz.corpus.reproductions import load as load_reproduction
from fuzz.engine.events import RunFinished, RunStarted
from fuzz.engine.options import RunOptions
from fuzz.engine.plan import DestructiveMode, Selection
from fuzz.engine.run import run as run_engine
from fuzz.errors import ConfigurationError, HarnessError
from fuzz.faces import _settings_file
from fuzz.faces._arguments import ReportRequest, build_parser
from fuzz.faces._client_config import target_from_config
from fuzz.judging.rules import RULES, Level
from fuzz.reports import WRITERS
from fuzz.reports.json_read import load as load_report
from fuzz.reports.shard_reports import merge as merge_shards
from fuzz.reports.terminal import TerminalReporter
from fuzz.text import printable
from fuzz.wire.lifecycle import ALL_VERSIONS
from fuzz.wire.target import HttpTarget, StdioTarget, TargetSpec, demo_target
from strategies.cases import NOT_TOOLS

DEMO_MIRROR = "mirror"
DEMO_UNAVAILABLE = frozenset({"maintenance"})
"""What `run` with no target adds (`--mirror-tool`, `--unavailable`).

With them, the demo shows every rule family.
"""


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    command: list[str] = []
    separator_given = "--" in arguments
    if separator_given:
        split = arguments.index("--")
        arguments, command = arguments[:split], arguments[split + 1 :]
    parser = build_parser()
    options = parser.parse_args(arguments)
    if options.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        if options.command == "run":
            options, command = _with_settings(parser, options, arguments, command)
        if separator_given and not command:
            raise ConfigurationError(
                "nothing after `--`: give the server's command, e.g. `mcp-toolfuzz run -- python server.py`, or leave out `--` to fuzz the bundled demo server"
            )
        if options.command == "replay":
            return _replay(options, command)
        if options.command == "export":
            return _export(options)
        if options.command == "merge":
            return _merge(options)
        return _run(options, command)
    except HarnessError as error:
        print(f"mcp-toolfuzz: {printable(str(error))}", file=sys.stderr)  # it may quote the server
        return error.exit_code


def _with_settings(
    parser: argparse.ArgumentParser, options: argparse.Namespace, arguments: list[str], command: list[str]
) -> tuple[argparse.Namespace, list[str]]:
    """`run`'s options with the settings file's under them (see `fuzz.faces._settings_file`)."""
    path = options.config_file or _settings_file.find(Path.cwd())
    if path is None:
        return options, command
    run_at = arguments.index("run")
    settings = _settings_file.load(path, _run_parser(parser))
    _check_settings(parser, settings)
    given = arguments[run_at + 1 :]
    combined = parser.parse_args([*arguments[: run_at + 1], *_settings_file.merged(settings, given)])
    combined.settings_where = settings.where
    names_target = command or combined.url or combined.config
    return combined, command if names_target or not settings.command else list(settings.command)


def _check_settings(parser: argparse.ArgumentParser, settings: _settings_file.Settings) -> None:
    """A value an option refuses, named with the settings file it came from."""
    parsed = parsed_run([part for group in settings.arguments for part in group], where=settings.where, parser=parser)
    database_choice(parsed, where=f"{settings.where}: database")


def parsed_run(arguments: Sequence[str], *, where: str, parser: argparse.ArgumentParser | None = None) -> argparse.Namespace:
    """`run`'s options parsed from `arguments`.

    An option or value refused is a ConfigurationError naming `where` they came from. It is not
    argparse's usage text, which speaks of the command line.
    """
    refusal = io.StringIO()
    try:
        with contextlib.redirect_stderr(refusal):
            return (parser or build_parser()).parse_args(["run", *arguments])
    except SystemExit:
        lines = refusal.getvalue().strip().splitlines()
        reason = lines[-1].split("error: ", 1)[-1] if lines else "a value is refused"
        raise ConfigurationError(f"{where}: {reason}") from None


def _run_parser(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    subparsers = next(action for action in parser._actions if isinstance(action, argparse._SubParsersAction))
    run: argparse.ArgumentParser = subparsers.choices["run"]
    return run


def _target(options: argparse.Namespace, command: list[str]) -> TargetSpec | None:
    """The target the command line names, or None when it names none."""
    given = [name for name, present in (("-- COMMAND", command), ("--url", options.url), ("--config", options.config)) if present]
    if len(given) > 1:
        raise ConfigurationError(f"{' and '.join(given)} both name a target; give one")
    if options.header and not options.url:
        raise ConfigurationError("--header goes with --url (a config file's server carries its own headers)")
    if options.server and not options.config:
        raise ConfigurationError("--server NAME picks a server from --config FILE; give the file")
    if options.url:
        if not options.url.startswith(("http://", "https://")):
            raise ConfigurationError(f"--url {options.url!r} is not an http:// or https:// URL")
        return HttpTarget(options.url, tuple(options.header))
    if options.config:
        return target_from_config(options.config, options.server)
    return StdioTarget(tuple(command)) if command else None


def run_options_from(options: argparse.Namespace, command: list[str]) -> tuple[RunOptions, list[str]]:
    """The run that parsed `run` options ask for, and the notes to print with it.

    The notes name the settings file used and the demo's selection. The pytest plugin builds its
    runs here too.
    """
    chosen = _target(options, command)
    target = chosen or demo_target()
    selection = Selection(
        tools=options.tools,
        exclude_tools=options.exclude_tools,
        unavailable=frozenset(options.unavailable),
        mirror_tool=options.mirror_tool,
        destructive=DestructiveMode.ALLOW if options.allow_destructive else (DestructiveMode.READ_ONLY if options.read_only else DestructiveMode.SAFE),
        destructive_allowed=frozenset(options.allow_destructive_tool),
    )
    notes: list[str] = [f"config  {options.settings_where}"] if getattr(options, "settings_where", None) else []
    if chosen is None and options.mirror_tool is None and not options.unavailable:
        selection = replace(selection, mirror_tool=DEMO_MIRROR, unavailable=DEMO_UNAVAILABLE)
        notes.append("demo    the bundled demo server, with --mirror-tool mirror --unavailable maintenance")
    run_options = RunOptions(
        target=target,
        seed=options.seed if options.seed is not None else random.SystemRandom().randrange(2**32),
        max_examples=options.max_examples,
        timeout=options.timeout,
        startup_timeout=options.startup_timeout,
        max_answer_size=options.max_answer_size,
        selection=selection,
        profile=options.profile,
        rules=_chosen_rules(options.rules, options.exclude_rules),
        fail_on=Level(options.fail_on),
        fail_on_breaking=options.fail_on_breaking,
        corpus=None if options.no_corpus else options.corpus,
        database=database_choice(options),
        baseline=baseline.load(options.baseline) if options.baseline and not options.baseline_update else frozenset(),
        max_time=options.max_time,
        workers=options.workers,
        processes=options.processes,
        protocol_version=options.protocol_version,
        known_arguments=tuple(options.argument),
        tool_max_examples=tuple(options.tool_max_examples),
        phases=options.phases,
        shard=options.shard,
        tries=options.tries,
        flaky_fails=options.flaky == "fail",
        history=None if options.no_corpus and options.history is None else options.history or options.corpus / HISTORY_FILE,
    )
    if options.database is not None or options.database_read_only:
        notes.append(f"database {printable(run_options.database.describe(run_options.corpus))}")
    return run_options, notes


def database_choice(options: argparse.Namespace, *, where: str = "--database") -> DatabaseChoice:
    """Where `--database` and `--database-read-only` (or their settings) keep Hypothesis's examples."""
    if options.database is None:
        return DatabaseChoice(read_only=options.database_read_only)
    try:
        return DatabaseChoice.parse(options.database, read_only=options.database_read_only)
    except ValueError as error:
        raise ConfigurationError(f"{where} {error}") from None


def _run(options: argparse.Namespace, command: list[str]) -> int:
    run_options, notes = run_options_from(options, command)
    if options.baseline_update and options.baseline is None:
        raise ConfigurationError("--baseline-update needs --baseline FILE: the file to write")
    notes += _legacy_corpus_note(run_options)
    if options.protocol_version == ALL_VERSIONS:
        return _run_each_revision(options, run_options, notes)
    result = run_engine(run_options, TerminalReporter(notes=notes, progress=not options.no_progress))
    if options.baseline_update:
        baseline.write(result, options.baseline)
        print(f"baseline written to {options.baseline} ({len(result.findings)} findings)")
    _write_reports(options.report, WRITERS, result)
    return result.exit_code


def _legacy_corpus_note(run_options: RunOptions) -> list[str]:
    """One line when the corpus holds this target's reproductions from before targets were recorded.

    Those are read as they were then: by their command.
    """
    if run_options.corpus is None:
        return []
    legacy = legacy_files(run_options.corpus, run_options.target.as_json())
    if not legacy:
        return []
    return [
        f"corpus  {printable(str(run_options.corpus))}: {len(legacy)} reproduction{'s' if len(legacy) > 1 else ''} written "
        "before reproductions named their target, read as this target's by their recorded command; "
        "new ones go to this target's own subdirectory"
    ]


def _write_reports(requests: Sequence[ReportRequest], writers: Mapping[str, Callable[[Any, Path], None]], subject: Any) -> None:
    """Write `subject` (a run, or a run per revision) as each `--report FORMAT:PATH` asks."""
    for request in requests:
        try:
            writers[request.format](subject, request.path)
        except OSError as error:
            raise ConfigurationError(f"could not write the report to {request.path}: {error.strerror or error}") from None
        print(f"report written to {request.path}")


def _run_each_revision(options: argparse.Namespace, run_options: RunOptions, notes: list[str]) -> int:
    from fuzz.engine.events import Event, Listener
    from fuzz.engine.revisions import run_each_revision
    from fuzz.reports import by_revision

    if options.baseline_update:
        raise ConfigurationError(
            f"--baseline-update with --protocol-version {ALL_VERSIONS}: a baseline is written from one revision's run; "
            "update it with --protocol-version VERSION"
        )

    def listener_for(version: str) -> Listener:
        """The run's terminal report under a heading, shown once the run has begun to report."""
        reporter = TerminalReporter(notes=notes, progress=not options.no_progress)
        headed = False

        def listener(event: Event) -> None:
            nonlocal headed
            if not headed:
                print(f"\n== under {version} ==", flush=True)
                headed = True
            reporter(event)

        return listener

    runs = run_each_revision(run_options, listener_for)
    by_revision.print_comparison(runs, sys.stdout)
    _write_reports(options.report, by_revision.WRITERS, runs)
    return runs.exit_code


def _merge(options: argparse.Namespace) -> int:
    """`merge`: the shards' reports as one run, shown as `run` shows its end, and written."""
    reports = [(str(path), load_report(path)) for path in options.paths]
    result = merge_shards(reports, baseline.load(options.baseline) if options.baseline else None, fail_on_breaking=options.fail_on_breaking)
    if options.history is not None:
        result = recorded(result, options.history)
    reporter = TerminalReporter(notes=[f"merged  {len(reports)} shard reports of {printable(str(options.paths[0].parent))}"], progress=False)
    reporter(
        RunStarted(
            seed=result.seed,
            target=result.target_description,
            protocol_version=result.protocol_version or "?",
            server_name=str(result.server_info.get("name", "?")),
            profile=result.profile,
            tool_names=tuple(summary.tool for summary in result.tools if summary.tool not in NOT_TOOLS),
        )
    )
    reporter(RunFinished(result))
    _write_reports(options.report, WRITERS, result)
    return result.exit_code


def _replay(options: argparse.Namespace, command: list[str]) -> int:
    override = _target(options, command)

    def show(outcome: ReplayOutcome) -> None:
        rule = f"{outcome.reproduction.rule} · " if outcome.reproduction else ""
        print(f"{outcome.status.value:<13} {printable(outcome.name)}: {rule}{printable(outcome.detail)}", flush=True)

    outcomes = replay_files(
        options.paths,
        override=override,
        timeout=options.timeout,
        startup_timeout=options.startup_timeout,
        max_message_bytes=options.max_answer_size,
        on_outcome=show,
    )
    if not outcomes:
        raise ConfigurationError(f"no reproduction files in {', '.join(map(str, options.paths))}")
    statuses = [outcome.status for outcome in outcomes]
    counts = ", ".join(f"{statuses.count(status)} {status.value}" for status in ReplayStatus)
    print(f"\n{len(outcomes)} replayed: {counts}")
    if ReplayStatus.STILL_FAILING in statuses:
        return 1
    return 2 if ReplayStatus.ERROR in statuses else 0


def _export(options: argparse.Namespace) -> int:
    reproductions = []
    for path in discover(options.paths):
        try:
            reproductions.append(load_reproduction(path))
        except CorruptReproduction as error:
            print(f"mcp-toolfuzz: skipped {printable(str(error))}", file=sys.stderr)
    for reproduction in (r for r in reproductions if r.not_exported):
        where = printable(str(reproduction.source or reproduction.file_name))
        print(f"mcp-toolfuzz: skipped {where}: {reproduction.not_exported}; `mcp-toolfuzz replay` it", file=sys.stderr)
    reproductions = [r for r in reproductions if not r.not_exported]
    if not reproductions:
        raise ConfigurationError(f"no reproduction to export in {', '.join(map(str, options.paths))}")
    if any(r.target.get("transport") != "stdio" for r in reproductions):
        raise ConfigurationError("export --pytest writes tests for stdio targets only; replay HTTP reproductions with `mcp-toolfuzz replay FILE --url URL`")
    commands = {json.dumps(r.target.get("command", [])) for r in reproductions}
    keys = {r.target_identity.key for r in reproductions if r.target_identity is not None}
    targets = max(len(commands), len(keys))  # a file from before targets were recorded has no key: its command tells
    if targets > 1:
        places = sorted({str(r.source.parent) for r in reproductions if r.source is not None})
        raise ConfigurationError(
            f"the reproductions are of {targets} different targets (in {', '.join(places[:4])}{', ...' if len(places) > 4 else ''}); "
            "export one target's files at a time: give its subdirectory of the corpus, e.g. "
            f"`mcp-toolfuzz export {places[-1] if places else 'corpus/TARGET'} --pytest -o FILE`"
        )
    text = export_pytest(reproductions, file_name=options.output.name)
    options.output.parent.mkdir(parents=True, exist_ok=True)
    options.output.write_text(text, encoding="utf-8", errors="backslashreplace")
    print(f"{len(reproductions)} reproductions exported to {options.output}; run it with: pytest {options.output}")
    return 0


def _chosen_rules(chosen: frozenset[str] | None, excluded: frozenset[str]) -> frozenset[str] | None:
    known = {rule.id for rule in RULES}
    unknown = sorted((chosen or frozenset()) - known | excluded - known)
    if unknown:
        raise ConfigurationError(f"no rule with id {', '.join(map(repr, unknown))}; the rules are: {', '.join(r.id for r in RULES)}")
    if chosen is None and not excluded:
        return None
    return frozenset(chosen if chosen is not None else known) - excluded


def entry_point() -> None:
    sys.exit(main())
