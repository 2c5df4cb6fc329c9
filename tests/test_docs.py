"""The manual against the code it describes.

- The option tables in docs/usage.md (one per command, each after an `<!-- options: COMMAND -->`
  marker) against the CLI's own parser: the same options, spelled with the parser's metavars and
  choices, with the parser's defaults. An option added to the parser and not to its table (or
  the other way round) fails here, so the two cannot drift.
- The README stays a front page (at most 220 lines) whose first `-m pytest` line is the test
  command CI runs.
- Every relative link in README.md and docs/*.md points at a file that exists (and, into a page
  of the manual, at a heading it has); every page is in mkdocs.yml's nav.
- The site builds with `mkdocs build --strict`, where MkDocs and the Material theme are
  installed (`pip install '.[docs]'`).
- The GitHub Action's tables in docs/ci.md (after `<!-- action: inputs -->` and
  `<!-- action: outputs -->`) list exactly action.yml's inputs, with its defaults, and outputs.
"""

from __future__ import annotations

import argparse
import os
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from fuzz.faces._arguments import build_parser

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"
OPTIONS_PAGE = DOCS / "usage.md"
README_MAX_LINES = 220

NO_VALUE = frozenset({"none", "all", "random", "detected", "searched", "recorded", "DIR/.hypothesis"})
"""How a table says an option has no default value (the parser's None, or an empty list):
`none` (nothing is added), `all` (no selection: every rule or tool), `random` (`--seed`),
`detected` (`--protocol-version`), `searched` (`--config-file`: the settings file is looked
for), `recorded` (`replay --timeout`: the file's own), `DIR/.hypothesis` (`--database`: beside
the corpus)."""

COMMAND_AFTER_SEPARATOR = "-- COMMAND ..."
"""The stdio target's command, after `--`: the CLI splits it off before the parser runs, so the
parser has no action for it; a table may document it for a command that has the target options."""


@dataclass(frozen=True)
class Row:
    """One row of an option table: what its first cell spells, its default cell, the whole row."""

    spellings: tuple[str, ...]
    default: str
    text: str


def option_table(command: str, page: Path = OPTIONS_PAGE) -> list[Row]:
    """The rows of the table after `<!-- options: COMMAND -->` on `page`."""
    lines = page.read_text(encoding="utf-8").splitlines()
    marker = f"<!-- options: {command} -->"
    assert marker in lines, f"{page.name} has no {marker} before the option table of `mcp-toolfuzz {command}`"
    start = lines.index(marker) + 1
    while start < len(lines) and not lines[start].startswith("|"):
        start += 1
    table = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        table.append(line)
    assert len(table) > 2, f"the table after {marker} has no rows"
    rows = []
    for line in table[2:]:  # past the header and the |---| line
        cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        spellings = tuple(re.findall(r"`([^`]+)`", cells[0]))
        assert spellings, f"a row of `{command}`'s table names no option in backticks: {line}"
        rows.append(Row(spellings, cells[1].strip("`"), line))
    return rows


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("the CLI's parser has no subcommands")


def default_processes() -> int:
    """What `--processes` defaults to on this machine, as the table says: two, one on one core."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    return min(2, cores)


def default_disagreement(action: argparse.Action, documented: str) -> str | None:
    """Why the table's default cell disagrees with the parser's default, or None."""
    option = action.option_strings[-1]
    if action.nargs == 0:  # a switch
        expected = "required" if action.required else "off"
        return None if documented == expected else f"{option} is a switch: its default is `{expected}`, not {documented!r}"
    if action.dest == "processes":  # depends on the machine; the table says how
        if documented != "2 (1 on one core)" or action.default != default_processes():
            return f"--processes: the table says {documented!r}, the parser {action.default!r} here"
        return None
    if action.default is None or (isinstance(action.default, (list, tuple, set, frozenset)) and not action.default):
        if documented in NO_VALUE:
            return None
        return f"{option} has no default value in the parser, but the table says {documented!r} (say one of {sorted(NO_VALUE)})"
    # A simple default (a number, a string, a path, a size): the table's text read by the
    # option's own type is the parser's value (16MiB is 16777216, 5 is 5.0, corpus is Path('corpus')).
    try:
        read = action.type(documented) if callable(action.type) else documented
    except (argparse.ArgumentTypeError, TypeError, ValueError) as error:
        return f"{option}: the table's default {documented!r} is not a value the option takes ({error})"
    if read != action.default:
        return f"{option}: the table's default {documented!r} reads as {read!r}, the parser's is {action.default!r}"
    return None


def disagreements(command: str, parser: argparse.ArgumentParser, rows: list[Row]) -> list[str]:
    """Everything on which `command`'s option table and its parser disagree."""
    problems: list[str] = []
    actions = [action for action in parser._actions if not isinstance(action, argparse._HelpAction)]
    by_option = {string: action for action in actions for string in action.option_strings}
    positionals = {str(action.metavar or action.dest): action for action in actions if not action.option_strings}
    documented_options: dict[str, Row] = {}
    documented_positionals: set[str] = set()
    for row in rows:
        for spelling in row.spellings:
            if spelling == COMMAND_AFTER_SEPARATOR:
                if "--url" not in by_option:
                    problems.append(f"`{command}` takes no target, but its table documents `{spelling}`")
                continue
            if not spelling.startswith("-"):
                documented_positionals.add(spelling.removesuffix(" ...").strip())
                continue
            name, _, argument = spelling.partition(" ")
            if name in documented_options:
                problems.append(f"{name} is documented twice in `{command}`'s table")
            documented_options[name] = row
            action = by_option.get(name)
            if action is None:
                problems.append(f"{name} is documented for `{command}`, but its parser has no such option")
                continue
            problems.extend(spelling_disagreements(name, argument, action, row))
            problem = default_disagreement(action, row.default)
            if problem:
                problems.append(problem)
    for name in by_option:
        if name not in documented_options:
            problems.append(f"{name} is an option of `mcp-toolfuzz {command}` but has no row in its table in {OPTIONS_PAGE.name}")
    for argument in positionals.keys() - documented_positionals:
        problems.append(f"`{command}`'s argument {argument} has no row in its table")
    for argument in documented_positionals - positionals.keys():
        problems.append(f"`{command}`'s table documents an argument {argument} its parser does not take")
    return problems


def spelling_disagreements(name: str, argument: str, action: argparse.Action, row: Row) -> list[str]:
    """The table spells an option's value as the parser does: its metavar, or its choices as
    argparse shows them (`{must,should,advisory}`; a choice the row names elsewhere, such as an
    old name, may be left out of the braces)."""
    if action.nargs == 0:
        return [f"{name} is a switch, but the table gives it a value: {argument!r}"] if argument else []
    if action.choices is not None:
        if not (argument.startswith("{") and argument.endswith("}")):
            return [f"{name}: the table spells its choices {argument!r}, not as {{a,b,...}}"]
        documented = set(argument[1:-1].split(","))
        problems = [f"{name}: the table offers {choice!r}, which the parser refuses" for choice in sorted(documented - set(action.choices))]
        problems += [
            f"{name}: the parser accepts {choice!r}, which its row never mentions"
            for choice in action.choices
            if choice not in documented and f"`{choice}`" not in row.text
        ]
        return problems
    expected = action.metavar or action.dest.upper()
    return [] if argument == expected else [f"{name}: the table spells its value {argument!r}, the parser {expected!r}"]


DOCUMENTED_COMMANDS = ("run", "replay", "merge", "export")


def test_every_command_has_an_option_table():
    assert set(subcommands(build_parser())) == set(DOCUMENTED_COMMANDS)


@pytest.mark.parametrize("command", DOCUMENTED_COMMANDS)
def test_option_table_agrees_with_the_parser(command):
    parser = subcommands(build_parser())[command]
    assert disagreements(command, parser, option_table(command)) == []


def test_an_undocumented_option_fails_the_check():
    parser = subcommands(build_parser())["run"]
    parser.add_argument("--shiny-new-option", type=int, default=3, metavar="N")
    assert disagreements("run", parser, option_table("run")) == [
        "--shiny-new-option is an option of `mcp-toolfuzz run` but has no row in its table in usage.md"
    ]


def test_a_wrong_default_or_spelling_fails_the_check():
    rows = [
        Row(("--timeout SECONDS",), "7", "| `--timeout SECONDS` | 7 | |"),
        Row(("--max-answer-size SIZE",), "16MiB", "| `--max-answer-size SIZE` | 16MiB | |"),
        Row(("--seed SEED",), "42", "| `--seed SEED` | 42 | |"),
        Row(("--fail-on {must,should,never}",), "`should`", "| `--fail-on {must,should,never}` | `should` | |"),
        Row(("--no-such-option",), "off", "| `--no-such-option` | off | |"),
    ]
    problems = disagreements("run", subcommands(build_parser())["run"], rows)
    assert "--timeout: the table's default '7' reads as 7.0, the parser's is 5.0" in problems
    assert not any(problem.startswith("--max-answer-size") for problem in problems)  # 16MiB is 16777216
    assert "--seed: the table spells its value 'SEED', the parser 'N'" in problems
    assert "--seed has no default value in the parser, but the table says '42' (say one of " + str(sorted(NO_VALUE)) + ")" in problems
    assert "--fail-on: the table offers 'never', which the parser refuses" in problems
    assert "--fail-on: the parser accepts 'advisory', which its row never mentions" in problems
    assert "--no-such-option is documented for `run`, but its parser has no such option" in problems


def test_readme_is_a_front_page():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines; the front page keeps to {README_MAX_LINES}, the rest goes to docs/"
    # CI runs the README's first line containing `-m pytest` (.ci/run): it must be the test command.
    first = next(line for line in lines if "-m pytest" in line)
    assert first.startswith("python3 -m venv .venv && ") and "'.[test]'" in first and first.endswith(".venv/bin/python -m pytest -n 6 --dist worksteal")


def markdown_files() -> list[Path]:
    return [README, *sorted(DOCS.glob("*.md"))]


def links(path: Path) -> list[str]:
    """The targets of the Markdown links in `path`, code blocks and code spans left out."""
    text = re.sub(r"^(```|~~~).*?^\1", "", path.read_text(encoding="utf-8"), flags=re.MULTILINE | re.DOTALL)
    text = re.sub(r"`[^`\n]*`", "", text)
    return re.findall(r"\]\(([^)\s]+)\)", text)


def heading_ids(page: Path) -> set[str]:
    """The anchors MkDocs gives a page's headings (Python-Markdown's toc slugify)."""
    text = re.sub(r"^(```|~~~).*?^\1", "", page.read_text(encoding="utf-8"), flags=re.MULTILINE | re.DOTALL)
    ids = set()
    for heading in re.findall(r"^#{1,6} +(.+?) *$", text, flags=re.MULTILINE):
        plain = unicodedata.normalize("NFKD", heading.replace("`", "")).encode("ascii", "ignore").decode()
        ids.add(re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", plain).strip().lower()))
    return ids


@pytest.mark.parametrize("path", markdown_files(), ids=lambda path: str(path.relative_to(ROOT)))
def test_relative_links_point_at_existing_files(path):
    broken = []
    for target in links(path):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        resolved = (path.parent / file_part).resolve() if file_part else path
        if not resolved.exists():
            broken.append(f"{target}: no such file")
            continue
        if path.parent == DOCS and DOCS not in resolved.parents and resolved != DOCS:
            broken.append(f"{target}: outside docs/, so not part of the site (name the path in backticks instead)")
        if anchor and resolved.suffix == ".md" and resolved.parent == DOCS and anchor not in heading_ids(resolved):
            broken.append(f"{target}: {resolved.name} has no heading #{anchor}")
    assert broken == [], f"{path.relative_to(ROOT)}: {broken}"


def test_every_page_is_in_the_nav():
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    in_nav = set(re.findall(r"^\s*- [^:\n]+: (\S+\.md)\s*$", config, flags=re.MULTILINE))
    assert in_nav == {page.name for page in DOCS.glob("*.md")}


# The site itself is built by .ci/run (`mkdocs build --strict`, with the docs extra), not here:
# the test command installs only the test extra.


ACTION = ROOT / "action.yml"
CI_PAGE = DOCS / "ci.md"
EMPTY_DEFAULT = "(empty)"


def action_table(kind: str) -> dict[str, str]:
    """The rows of the table after `<!-- action: KIND -->` in docs/ci.md: each row's name (the
    first cell, in backticks) and its second cell, backticks stripped."""
    lines = CI_PAGE.read_text(encoding="utf-8").splitlines()
    marker = f"<!-- action: {kind} -->"
    assert marker in lines, f"ci.md has no {marker} before the table of the action's {kind}"
    rows = []
    for line in lines[lines.index(marker) + 1 :]:
        if rows and not line.startswith("|"):
            break
        if line.startswith("|"):
            rows.append(line)
    table: dict[str, str] = {}
    for line in rows[2:]:  # past the header and the |---| line
        cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        name = re.fullmatch(r"`([^`]+)`", cells[0])
        assert name, f"a row of the action's {kind} names no {kind[:-1]} in backticks: {line}"
        assert name[1] not in table, f"{name[1]} is documented twice"
        table[name[1]] = cells[1].strip("`")
    return table


def test_the_action_inputs_table_lists_exactly_its_inputs_with_their_defaults():
    inputs = yaml.safe_load(ACTION.read_text(encoding="utf-8"))["inputs"]
    table = action_table("inputs")
    assert list(table) == list(inputs), "the same inputs, in action.yml's order"
    documented = {name: "" if default == EMPTY_DEFAULT else default for name, default in table.items()}
    assert documented == {name: str(spec.get("default", "")) for name, spec in inputs.items()}


def test_the_action_outputs_table_lists_exactly_its_outputs():
    outputs = yaml.safe_load(ACTION.read_text(encoding="utf-8"))["outputs"]
    assert list(action_table("outputs")) == list(outputs)
