"""The command line's grammar: `mcp-toolfuzz run`, `replay` and `export`, and their options.

It says how each value is read: sizes, seconds, TOOL=N, TOOL.FIELD=VALUE, lists of names. When a
value is wrong, the message says what was expected. The settings file and the pytest plugin read
their options through this same parser. `tests/test_docs.py` checks the docs' option tables against
it.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass
from pathlib import Path

from fuzz import __version__
from fuzz.engine.known_arguments import KnownArgument, parse_known_argument
from fuzz.engine.options import ALL_PHASES, DEFAULT_WORKERS, RunPhase, Shard, default_processes
from fuzz.engine.sharding import parse_shard
from fuzz.errors import ConfigurationError
from fuzz.judging.profiles import PROFILES, SEP_2145
from fuzz.judging.rules import Level
from fuzz.reports import WRITERS
from fuzz.wire.framing import DEFAULT_MAX_MESSAGE_BYTES
from fuzz.wire.lifecycle import ALL_VERSIONS, SPOKEN_PROTOCOL_VERSIONS


@dataclass(frozen=True, slots=True)
class ReportRequest:
    format: str
    path: Path


def _report_request(text: str) -> ReportRequest:
    kind, separator, path = text.partition(":")
    if not separator or kind not in WRITERS or not path:
        raise argparse.ArgumentTypeError(f"{text!r} is not FORMAT:PATH with FORMAT one of {', '.join(WRITERS)}; e.g. --report junit:results.xml")
    return ReportRequest(kind, Path(path))


def _protocol_version(text: str) -> str:
    if text != ALL_VERSIONS and text not in SPOKEN_PROTOCOL_VERSIONS:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an MCP revision mcp-toolfuzz speaks: {', '.join(reversed(SPOKEN_PROTOCOL_VERSIONS))}, or {ALL_VERSIONS}"
        )
    return text


def _whole(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"{value} is too small; it must be {least} or more")
    return value


def _positive_int(text: str) -> int:
    return _whole(text, 1)


def _count(text: str) -> int:
    return _whole(text, 0)


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
    group = parser.add_argument_group("target", "a stdio server's command after `--`, or one of --url and --config")
    group.add_argument("--url", default=None, metavar="URL", help="a Streamable HTTP server's MCP endpoint, e.g. http://127.0.0.1:8000/mcp")
    group.add_argument(
        "--header",
        type=_header,
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="an HTTP header for every request to --url (auth); repeatable; never printed or written",
    )
    group.add_argument("--config", type=Path, default=None, metavar="FILE", help="an MCP client config (mcpServers JSON) naming the server")
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
        description="Fuzz a stdio MCP server started with the command after `--` (no command: the bundled demo server).",
        usage="mcp-toolfuzz run [options] [--url URL | --config FILE | -- COMMAND [ARG ...]]",
    )
    run.add_argument(
        "--max-examples",
        type=_positive_int,
        default=100,
        metavar="N",
        help="cases generated per tool and case kind, before shrinking, in whole batches of up to 16 (default 100)",
    )
    run.add_argument(
        "--seed", type=_seed, default=None, metavar="N", help="the run's seed; the same seed, target and options repeat a run (default: random, printed)"
    )
    run.add_argument("--timeout", type=_seconds, default=5.0, metavar="SECONDS", help="how long to wait for the answer to one request (default 5)")
    run.add_argument(
        "--startup-timeout", type=_seconds, default=20.0, metavar="SECONDS", help="how long to wait for the answers to initialize and tools/list (default 20)"
    )
    run.add_argument(
        "--max-answer-size",
        type=_size,
        default=DEFAULT_MAX_MESSAGE_BYTES,
        metavar="SIZE",
        help="the longest answer read whole (a stdout line, an HTTP body, an SSE event), in bytes or with "
        "a unit (64MiB, 500kB); a longer one is judged an unreadable answer (default 16MiB)",
    )
    run.add_argument(
        "--max-time", type=_seconds, default=None, metavar="SECONDS", help="stop the run after this long, keeping what was found (default: no limit)"
    )
    run.add_argument(
        "--workers",
        type=_positive_int,
        default=DEFAULT_WORKERS,
        metavar="N",
        help=f"explorations (tool x case kind) fuzzed at once on the one connection; what is found does not depend on it (default {DEFAULT_WORKERS})",
    )
    run.add_argument(
        "--protocol-version",
        type=_protocol_version,
        default=None,
        metavar="VERSION",
        help=f"the MCP revision to speak ({', '.join(reversed(SPOKEN_PROTOCOL_VERSIONS))}), which the target must "
        f"speak; {ALL_VERSIONS}: the same fuzzing under each revision it speaks, one report with a section per "
        "revision and the differences (default: the newest both sides speak, found with server/discover, else "
        "the initialize handshake)",
    )
    run.add_argument(
        "--processes",
        type=_positive_int,
        default=default_processes(),
        metavar="N",
        help="worker processes, each with its own copy of a stdio target (or its own session with a URL) "
        f"and its share of the tools; what is found does not depend on it (default {default_processes()}: "
        "two where two cores are free, else one)",
    )
    run.add_argument(
        "--shard",
        type=_shard,
        default=None,
        metavar="NUMBER/COUNT",
        help="make part NUMBER (1-based) of the run split over COUNT runners, a CI matrix's jobs; "
        "`mcp-toolfuzz merge` joins their JSON reports into one run (default: the whole run)",
    )
    run.add_argument(
        "--phases",
        type=_phases,
        default=ALL_PHASES,
        metavar="PHASE,...",
        help="the phases to run: boundary (each tool, deterministic: every shape's simplest case and each schema "
        "keyword's boundary values), random (each tool: Hypothesis's search, seeded) and sequence (sequences "
        "of calls reusing what earlier answers gave) (default: all three)",
    )
    run.add_argument(
        "--report",
        type=_report_request,
        action="append",
        default=[],
        metavar="FORMAT:PATH",
        help=f"also write the result to PATH; FORMAT is {', '.join(WRITERS)} (repeatable)",
    )
    _add_target_options(run)
    judging = run.add_argument_group("judging")
    judging.add_argument(
        "--profile",
        choices=sorted(PROFILES),
        default=SEP_2145.id,
        help="the rule set: sep-2145 (the accepted proposal, default) or 2025-11-25 (the published revision)",
    )
    judging.add_argument("--rules", type=_names, default=None, metavar="ID,...", help="judge by these rules only")
    judging.add_argument("--exclude-rules", type=_names, default=frozenset(), metavar="ID,...", help="do not judge by these rules")
    judging.add_argument(
        "--fail-on",
        choices=[level.value for level in Level],
        default=Level.SHOULD.value,
        help="exit 1 on a violation of this level or above (default should: MUST and SHOULD rules)",
    )
    judging.add_argument(
        "--fail-on-breaking",
        action="store_true",
        help="exit 1 when the target's tool list changed, since the list the corpus kept, in a way that breaks clients",
    )
    tools = run.add_argument_group("tools")
    tools.add_argument("--tools", type=_names, default=None, metavar="NAME,...", help="fuzz only these tools")
    tools.add_argument("--exclude-tools", type=_names, default=frozenset(), metavar="NAME,...", help="do not fuzz these tools")
    tools.add_argument(
        "--unavailable", action="append", default=[], metavar="NAME", help="a tool the server has but must refuse (disabled, policy-restricted); repeatable"
    )
    tools.add_argument(
        "--allow-destructive-tool", action="append", default=[], metavar="NAME", help="send argument cases to this tool whatever its annotations (repeatable)"
    )
    tools.add_argument(
        "--tool-max-examples", type=_tool_examples, action="append", default=[], metavar="TOOL=N", help="this tool's own --max-examples (repeatable)"
    )
    tools.add_argument(
        "--argument",
        type=_known_argument,
        action="append",
        default=[],
        metavar="TOOL.FIELD=VALUE",
        help="a known-good value every generated argument object of TOOL holds (VALUE is JSON if it parses, "
        "else a string; repeat a field to give choices; TOOL * for every tool with FIELD)",
    )
    tools.add_argument(
        "--mirror-tool", default=None, metavar="NAME", help="a tool that returns its `output` argument as structuredContent, to fuzz output validation"
    )
    safety = tools.add_mutually_exclusive_group()
    safety.add_argument(
        "--allow-destructive", action="store_true", help="also send argument cases to tools that may be destructive (unannotated ones included)"
    )
    safety.add_argument("--read-only", action="store_true", help="send argument cases only to tools annotated readOnlyHint: true")
    run.add_argument("--no-progress", action="store_true", help="no progress line (redrawn in place on a terminal; a plain line every 30 s otherwise)")
    run.add_argument(
        "--config-file",
        type=Path,
        default=None,
        metavar="PATH",
        help="read settings from PATH (default: mcp-toolfuzz.toml, or pyproject.toml's [tool.mcp-toolfuzz], "
        "in the working directory or the nearest above it); command-line options win",
    )
    keeping = run.add_argument_group("corpus and baselines")
    keeping.add_argument(
        "--corpus",
        type=Path,
        default=Path("corpus"),
        metavar="DIR",
        help="replay this target's reproductions from DIR first, write new ones there, keep "
        "Hypothesis's database in DIR/.hypothesis unless --database says otherwise (default: corpus)",
    )
    keeping.add_argument("--no-corpus", action="store_true", help="neither replay nor write reproductions")
    keeping.add_argument(
        "--database",
        default=None,
        metavar="LOCATION",
        help="where Hypothesis keeps the examples that failed, tried first by later runs: a directory, a Redis "
        "server (redis://, rediss://, unix://; written together with DIR/.hypothesis; needs "
        "mcp-toolfuzz[redis]) or none (default: DIR/.hypothesis of --corpus; none with --no-corpus)",
    )
    keeping.add_argument(
        "--database-read-only",
        action="store_true",
        help="read the example database, never change it: Hypothesis deletes examples that no longer fail, "
        "and a pull request's build must not erase what the nightly run found",
    )
    keeping.add_argument("--baseline", type=Path, default=None, metavar="FILE", help="findings listed in FILE are known: reported, but they fail no run")
    keeping.add_argument("--baseline-update", action="store_true", help="write this run's findings to the --baseline FILE")
    keeping.add_argument(
        "--tries",
        type=_count,
        default=5,
        metavar="N",
        help="try each new finding, and each reproduction that replayed FIXED, again on N fresh targets, and label it "
        "stable (N of N) or flaky; 0 tries nothing (default 5)",
    )
    keeping.add_argument(
        "--flaky",
        choices=("fail", "report"),
        default="fail",
        help="whether a flaky finding fails the run (fail, the default) or is reported only (report)",
    )
    keeping.add_argument(
        "--history",
        type=Path,
        default=None,
        metavar="FILE",
        help="keep one record per run in FILE, for the trend and the delta since the last night (default: nights.jsonl in --corpus; none with --no-corpus)",
    )

    replay = commands.add_parser(
        "replay",
        help="replay reproductions: FIXED, STILL FAILING, ERROR or TOOL GONE per file",
        description="Send each reproduction's request again and judge the answer as the run did. Exit 0 when all "
        "are fixed, 1 when one still fails, 2 when one could not be run (and none still fails).",
        usage="mcp-toolfuzz replay PATH [PATH ...] [--timeout SECONDS] [--url URL | --config FILE | -- COMMAND [ARG ...]]",
    )
    replay.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="reproduction files or directories of them")
    replay.add_argument(
        "--timeout", type=_seconds, default=None, metavar="SECONDS", help="how long to wait for the answer (default: the timeout the file records)"
    )
    replay.add_argument("--startup-timeout", type=_seconds, default=20.0, metavar="SECONDS")
    replay.add_argument(
        "--max-answer-size", type=_size, default=DEFAULT_MAX_MESSAGE_BYTES, metavar="SIZE", help="the longest answer read whole, as for run (default 16MiB)"
    )
    _add_target_options(replay)

    merge = commands.add_parser(
        "merge",
        help="join the JSON reports of a run's shards (--shard) into one run",
        description="Join the JSON reports of the shards of one run (`run --shard NUMBER/COUNT --report json:PATH`) into "
        "one run: shown, written in every format, and judged as the unsharded run would have been. Exit 0, 1 or 2 as "
        "`run` does; 2 also when the reports are not the shards of one run.",
        usage="mcp-toolfuzz merge REPORT.json [REPORT.json ...] [--report FORMAT:PATH ...] [--baseline FILE] [--history FILE] [--fail-on-breaking]",
    )
    merge.add_argument("paths", nargs="+", type=Path, metavar="REPORT.json", help="the shards' JSON reports")
    merge.add_argument(
        "--history",
        type=Path,
        default=None,
        metavar="FILE",
        help="append the merged run's record to FILE (as run --history does) and show the trend and the delta since the last night",
    )
    merge.add_argument(
        "--report",
        type=_report_request,
        action="append",
        default=[],
        metavar="FORMAT:PATH",
        help=f"write the merged run to PATH; FORMAT is {', '.join(WRITERS)} (repeatable)",
    )
    merge.add_argument(
        "--baseline",
        type=Path,
        default=None,
        metavar="FILE",
        help="findings listed in FILE are known: reported, but they fail no run (default: the shards' own)",
    )
    merge.add_argument("--fail-on-breaking", action="store_true", help="exit 1 on a breaking change of the tool list (default: as the shards were run)")

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


def _shard(text: str) -> Shard:
    try:
        return parse_shard(text)
    except ConfigurationError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix(f"--shard {text!r}: ")) from None


def _phases(text: str) -> frozenset[RunPhase]:
    names = _names(text)
    known = {phase.value: phase for phase in RunPhase}
    unknown = sorted(names - known.keys())
    if unknown:
        raise argparse.ArgumentTypeError(f"no phase named {unknown[0]!r}; the phases are: {', '.join(known)}")
    return frozenset(known[name] for name in names)


def _names(text: str) -> frozenset[str]:
    names = frozenset(name.strip() for name in text.split(",") if name.strip())
    if not names:
        raise argparse.ArgumentTypeError(f"{text!r} names nothing; give a comma-separated list")
    return names
