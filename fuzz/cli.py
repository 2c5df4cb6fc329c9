"""The command line: parse arguments, build the options, call the engine, report, exit.

Exit codes: 0 no MUST or SHOULD rule violated, 1 one was, 2 the run could not be made.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import re
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from fuzz import __version__, baseline, engine, settings_file
from fuzz.corpus import CorruptReproduction, discover
from fuzz.corpus import load as load_reproduction
from fuzz.errors import ConfigurationError, HarnessError
from fuzz.export import export_pytest
from fuzz.known_arguments import KnownArgument, parse_known_argument
from fuzz.wire.lifecycle import ALL_VERSIONS, SPOKEN_PROTOCOL_VERSIONS
from fuzz.options import DEFAULT_WORKERS, default_processes
from fuzz.plan import DestructiveMode, Selection
from fuzz.profiles import PROFILES, SEP_2145
from fuzz.replay import ReplayOutcome, ReplayStatus, replay_files
from fuzz.reports import WRITERS
from fuzz.reports.terminal import TerminalReporter
from fuzz.rules import RULES, Level
from fuzz.config import target_from_config
from fuzz.text import printable
from fuzz.target import HttpTarget, StdioTarget, TargetSpec, demo_target
from fuzz.wire.framing import DEFAULT_MAX_MESSAGE_BYTES


@dataclass(frozen=True, slots=True)
class ReportRequest:
    format: str
    path: Path


def _report_request(text: str) -> ReportRequest:
    kind, separator, path = text.partition(":")
    if not separator or kind not in WRITERS or not path:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not FORMAT:PATH with FORMAT one of {', '.join(WRITERS)}; e.g. --report junit:results.xml"
        )
    return ReportRequest(kind, Path(path))


def _protocol_version(text: str) -> str:
    if text != ALL_VERSIONS and text not in SPOKEN_PROTOCOL_VERSIONS:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an MCP revision mcp-toolfuzz speaks: {', '.join(reversed(SPOKEN_PROTOCOL_VERSIONS))}, or {ALL_VERSIONS}"
        )
    return text


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is too small; it must be 1 or more")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text} seconds is not a positive time")
    return value


_UNITS = {"": 1, "b": 1, "kb": 1000, "kib": 1024, "mb": 1000**2, "mib": 1024**2, "gb": 1000**3, "gib": 1024**3}


def _size(text: str) -> int:
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*", text)
    unit = match.group(2).lower() if match else ""
    if match is None or unit not in _UNITS:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size: give bytes, or a number with a unit (kB, KiB, MB, MiB, GB, GiB), e.g. 64MiB")
    value = int(float(match.group(1)) * _UNITS[unit])
    if value < 1024:
        raise argparse.ArgumentTypeError(f"{text} is below 1 KiB: no MCP answer fits in it")
    return value


def _seed(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number (seeds are printed at the start of each run)") from None


def _header(text: str) -> tuple[str, str]:
    name, colon, value = text.partition(":")
    if not colon or not name.strip() or any(c.isspace() for c in name.strip()):
        raise argparse.ArgumentTypeError("a header is 'Name: value', e.g. --header 'Authorization: Bearer $TOKEN'")
    return name.strip(), value.strip()


def _add_target_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "target", "a stdio server's command after `--`, or one of --url and --config"
    )
    group.add_argument("--url", default=None, metavar="URL", help="a Streamable HTTP server's MCP endpoint, e.g. http://127.0.0.1:8000/mcp")
    group.add_argument("--header", type=_header, action="append", default=[], metavar="'NAME: VALUE'",
                       help="an HTTP header for every request to --url (auth); repeatable; never printed or written")
    group.add_argument("--config", type=Path, default=None, metavar="FILE",
                       help="an MCP client config (mcpServers JSON) naming the server")
    group.add_argument("--server", default=None, metavar="NAME", help="the server in --config to fuzz")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mcp-toolfuzz",
        description="Fuzz an MCP server's tools/call error classification (SEP-2145).",
    )
    parser.add_argument("--version", action="version", version=f"mcp-toolfuzz {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    run = commands.add_parser(
        "run",
        help="fuzz a server",
        description="Fuzz a stdio MCP server started with the command after `--` "
        "(no command: the bundled demo server).",
        usage="mcp-toolfuzz run [options] [--url URL | --config FILE | -- COMMAND [ARG ...]]",
    )
    run.add_argument("--max-examples", type=_positive_int, default=100, metavar="N",
                     help="cases generated per tool and case kind, before shrinking, in whole batches of up to 8 (default 100)")
    run.add_argument("--seed", type=_seed, default=None, metavar="N",
                     help="the run's seed; the same seed, target and options repeat a run (default: random, printed)")
    run.add_argument("--timeout", type=_seconds, default=5.0, metavar="SECONDS",
                     help="how long to wait for the answer to one request (default 5)")
    run.add_argument("--startup-timeout", type=_seconds, default=20.0, metavar="SECONDS",
                     help="how long to wait for the answers to initialize and tools/list (default 20)")
    run.add_argument("--max-answer-size", type=_size, default=DEFAULT_MAX_MESSAGE_BYTES, metavar="SIZE",
                     help="the longest answer read whole (a stdout line, an HTTP body, an SSE event), in bytes or with "
                          "a unit (64MiB, 500kB); a longer one is judged an unreadable answer (default 16MiB)")
    run.add_argument("--max-time", type=_seconds, default=None, metavar="SECONDS",
                     help="stop the run after this long, keeping what was found (default: no limit)")
    run.add_argument("--workers", type=_positive_int, default=DEFAULT_WORKERS, metavar="N",
                     help=f"explorations (tool x case kind) fuzzed at once on the one connection; what is found "
                          f"does not depend on it (default {DEFAULT_WORKERS})")
    run.add_argument("--protocol-version", type=_protocol_version, default=None, metavar="VERSION",
                     help=f"the MCP revision to speak ({', '.join(reversed(SPOKEN_PROTOCOL_VERSIONS))}), which the target must "
                          f"speak; {ALL_VERSIONS}: the same fuzzing under each revision it speaks, one report with a section per "
                          "revision and the differences (default: the newest both sides speak, found with server/discover, else "
                          "the initialize handshake)")
    run.add_argument("--processes", type=_positive_int, default=default_processes(), metavar="N",
                     help="worker processes, each with its own copy of a stdio target (or its own session with a URL) "
                          f"and its share of the tools; what is found does not depend on it (default {default_processes()}: "
                          "two where two cores are free, else one)")
    run.add_argument("--report", type=_report_request, action="append", default=[], metavar="FORMAT:PATH",
                     help=f"also write the result to PATH; FORMAT is {', '.join(WRITERS)} (repeatable)")
    _add_target_options(run)
    judging = run.add_argument_group("judging")
    judging.add_argument("--profile", choices=sorted(PROFILES), default=SEP_2145.id,
                         help="the rule set: sep-2145 (the accepted proposal, default) or 2025-11-25 (the published revision)")
    judging.add_argument("--rules", type=_names, default=None, metavar="ID,...", help="judge by these rules only")
    judging.add_argument("--exclude-rules", type=_names, default=frozenset(), metavar="ID,...", help="do not judge by these rules")
    judging.add_argument("--fail-on", choices=[level.value for level in Level], default=Level.SHOULD.value,
                         help="exit 1 on a violation of this level or above (default should: MUST and SHOULD rules)")
    tools = run.add_argument_group("tools")
    tools.add_argument("--tools", type=_names, default=None, metavar="NAME,...", help="fuzz only these tools")
    tools.add_argument("--exclude-tools", type=_names, default=frozenset(), metavar="NAME,...", help="do not fuzz these tools")
    tools.add_argument("--unavailable", action="append", default=[], metavar="NAME",
                       help="a tool the server has but must refuse (disabled, policy-restricted); repeatable")
    tools.add_argument("--allow-destructive-tool", action="append", default=[], metavar="NAME",
                       help="send argument cases to this tool whatever its annotations (repeatable)")
    tools.add_argument("--tool-max-examples", type=_tool_examples, action="append", default=[], metavar="TOOL=N",
                       help="this tool's own --max-examples (repeatable)")
    tools.add_argument("--argument", type=_known_argument, action="append", default=[], metavar="TOOL.FIELD=VALUE",
                       help="a known-good value every generated argument object of TOOL holds (VALUE is JSON if it parses, "
                            "else a string; repeat a field to give choices; TOOL * for every tool with FIELD)")
    tools.add_argument("--mirror-tool", default=None, metavar="NAME",
                       help='a tool that returns its `output` argument as structuredContent, to fuzz output validation')
    safety = tools.add_mutually_exclusive_group()
    safety.add_argument("--allow-destructive", action="store_true",
                        help="also send argument cases to tools that may be destructive (unannotated ones included)")
    safety.add_argument("--read-only", action="store_true",
                        help="send argument cases only to tools annotated readOnlyHint: true")
    run.add_argument("--no-progress", action="store_true",
                     help="no progress line (redrawn in place on a terminal; a plain line every 30 s otherwise)")
    run.add_argument("--config-file", type=Path, default=None, metavar="PATH",
                     help="read settings from PATH (default: mcp-toolfuzz.toml, or pyproject.toml's [tool.mcp-toolfuzz], "
                          "in the working directory or the nearest above it); command-line options win")
    keeping = run.add_argument_group("corpus and baselines")
    keeping.add_argument("--corpus", type=Path, default=Path("corpus"), metavar="DIR",
                         help="replay this target's reproductions from DIR first, write new ones there, keep "
                         "Hypothesis's database in DIR/.hypothesis (default: corpus)")
    keeping.add_argument("--no-corpus", action="store_true", help="neither replay nor write reproductions")
    keeping.add_argument("--baseline", type=Path, default=None, metavar="FILE",
                         help="findings listed in FILE are known: reported, but they fail no run")
    keeping.add_argument("--baseline-update", action="store_true", help="write this run's findings to the --baseline FILE")

    replay = commands.add_parser(
        "replay",
        help="replay reproductions: FIXED, STILL FAILING or ERROR per file",
        description="Send each reproduction's request again and judge the answer as the run did. Exit 0 when all "
        "are fixed, 1 when one still fails, 2 when one could not be run (and none still fails).",
        usage="mcp-toolfuzz replay PATH [PATH ...] [--timeout SECONDS] [--url URL | --config FILE | -- COMMAND [ARG ...]]",
    )
    replay.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="reproduction files or directories of them")
    replay.add_argument("--timeout", type=_seconds, default=None, metavar="SECONDS",
                        help="how long to wait for the answer (default: the timeout the file records)")
    replay.add_argument("--startup-timeout", type=_seconds, default=20.0, metavar="SECONDS")
    _add_target_options(replay)

    export = commands.add_parser(
        "export",
        help="turn reproductions into a standalone pytest file",
        usage="mcp-toolfuzz export PATH [PATH ...] --pytest [-o FILE]",
    )
    export.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="reproduction files or directories of them")
    export.add_argument("--pytest", action="store_true", required=True, help="write a pytest file (the one format so far)")
    export.add_argument("-o", "--output", type=Path, default=Path("test_mcp_toolfuzz_reproductions.py"), metavar="FILE")
    return parser


def _tool_examples(text: str) -> tuple[str, int]:
    tool, equals, count = text.rpartition("=")
    if not equals or not tool:
        raise argparse.ArgumentTypeError(f"{text!r} is not TOOL=N (e.g. search=1000)")
    return tool, _positive_int(count)


def _known_argument(text: str) -> KnownArgument:
    try:
        return parse_known_argument(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _names(text: str) -> frozenset[str]:
    names = frozenset(name.strip() for name in text.split(",") if name.strip())
    if not names:
        raise argparse.ArgumentTypeError(f"{text!r} names nothing; give a comma-separated list")
    return names


DEMO_SELECTION = {"mirror_tool": "mirror", "unavailable": frozenset({"maintenance"})}
"""What `run` with no target adds, so that the demo shows every rule family."""


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
                "nothing after `--`: give the server's command, e.g. `mcp-toolfuzz run -- python server.py`, "
                "or leave out `--` to fuzz the bundled demo server"
            )
        if options.command == "replay":
            return _replay(options, command)
        if options.command == "export":
            return _export(options)
        return _run(options, command)
    except HarnessError as error:
        print(f"mcp-toolfuzz: {printable(str(error))}", file=sys.stderr)  # it may quote the server
        return error.exit_code


def _with_settings(
    parser: argparse.ArgumentParser, options: argparse.Namespace, arguments: list[str], command: list[str]
) -> tuple[argparse.Namespace, list[str]]:
    """`run`'s options with the settings file's under them (see `fuzz.settings_file`)."""
    path = options.config_file or settings_file.find(Path.cwd())
    if path is None:
        return options, command
    run_at = arguments.index("run")
    settings = settings_file.load(path, _run_parser(parser))
    _check_settings(parser, settings)
    given = arguments[run_at + 1 :]
    combined = parser.parse_args([*arguments[: run_at + 1], *settings_file.merged(settings, given)])
    combined.settings_where = settings.where
    names_target = command or combined.url or combined.config
    return combined, command if names_target or not settings.command else list(settings.command)


def _check_settings(parser: argparse.ArgumentParser, settings: settings_file.Settings) -> None:
    """A value an option refuses, named with the settings file it came from."""
    parsed_run([part for group in settings.arguments for part in group], where=settings.where, parser=parser)


def parsed_run(arguments: Sequence[str], *, where: str, parser: argparse.ArgumentParser | None = None) -> argparse.Namespace:
    """`run`'s options parsed from `arguments`; an option or value refused is a ConfigurationError
    naming `where` they came from, not argparse's usage text (which speaks of the command line)."""
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
    return subparsers.choices["run"]


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


def run_options_from(options: argparse.Namespace, command: list[str]) -> tuple[engine.RunOptions, list[str]]:
    """The run that parsed `run` options ask for, and the notes to print with it (the settings
    file used, the demo's selection). The pytest plugin builds its runs here too."""
    chosen = _target(options, command)
    target = chosen or demo_target()
    selection = Selection(
        tools=options.tools,
        exclude_tools=options.exclude_tools,
        unavailable=frozenset(options.unavailable),
        mirror_tool=options.mirror_tool,
        destructive=DestructiveMode.ALLOW if options.allow_destructive else (
            DestructiveMode.READ_ONLY if options.read_only else DestructiveMode.SAFE
        ),
        destructive_allowed=frozenset(options.allow_destructive_tool),
    )
    notes: list[str] = [f"config  {options.settings_where}"] if getattr(options, "settings_where", None) else []
    if chosen is None and options.mirror_tool is None and not options.unavailable:
        selection = replace(selection, **DEMO_SELECTION)
        notes.append("demo    the bundled demo server, with --mirror-tool mirror --unavailable maintenance")
    run_options = engine.RunOptions(
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
        corpus=None if options.no_corpus else options.corpus,
        baseline=baseline.load(options.baseline) if options.baseline and not options.baseline_update else frozenset(),
        max_time=options.max_time,
        workers=options.workers,
        processes=options.processes,
        protocol_version=options.protocol_version,
        known_arguments=tuple(options.argument),
        tool_max_examples=tuple(options.tool_max_examples),
    )
    return run_options, notes


def _run(options: argparse.Namespace, command: list[str]) -> int:
    run_options, notes = run_options_from(options, command)
    if options.baseline_update and options.baseline is None:
        raise ConfigurationError("--baseline-update needs --baseline FILE: the file to write")
    if options.protocol_version == ALL_VERSIONS:
        return _run_each_revision(options, run_options, notes)
    result = engine.run(run_options, TerminalReporter(notes=notes, progress=not options.no_progress))
    if options.baseline_update:
        baseline.write(result, options.baseline)
        print(f"baseline written to {options.baseline} ({len(result.findings)} findings)")
    _write_reports(options.report, WRITERS, result)
    return result.exit_code


def _write_reports(requests: Sequence[ReportRequest], writers: Mapping[str, Callable[[Any, Path], None]], subject: Any) -> None:
    """Write `subject` (a run, or a run per revision) as each `--report FORMAT:PATH` asks."""
    for request in requests:
        try:
            writers[request.format](subject, request.path)
        except OSError as error:
            raise ConfigurationError(f"could not write the report to {request.path}: {error.strerror or error}") from None
        print(f"report written to {request.path}")


def _run_each_revision(options: argparse.Namespace, run_options: engine.RunOptions, notes: list[str]) -> int:
    from fuzz.events import Event, Listener
    from fuzz.reports import by_revision
    from fuzz.revisions import run_each_revision

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


def _replay(options: argparse.Namespace, command: list[str]) -> int:
    override = _target(options, command)

    def show(outcome: ReplayOutcome) -> None:
        rule = f"{outcome.reproduction.rule} · " if outcome.reproduction else ""
        print(f"{outcome.status.value:<13} {printable(outcome.name)}: {rule}{printable(outcome.detail)}", flush=True)

    outcomes = replay_files(options.paths, override=override, timeout=options.timeout, startup_timeout=options.startup_timeout, on_outcome=show)
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
    if not reproductions:
        raise ConfigurationError(f"no reproduction to export in {', '.join(map(str, options.paths))}")
    if any(r.target.get("transport") != "stdio" for r in reproductions):
        raise ConfigurationError("export --pytest writes tests for stdio targets only; replay HTTP reproductions with `mcp-toolfuzz replay FILE --url URL`")
    commands = {tuple(r.target.get("command", [])) for r in reproductions}
    if len(commands) > 1:
        raise ConfigurationError("the reproductions name different targets; export one target's files at a time")
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
