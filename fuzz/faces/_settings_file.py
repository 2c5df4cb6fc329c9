"""The harness's own settings file, so that a nightly command line stays short and reviewable.

It is read from `--config-file PATH`. Else it is read from the first directory, from the
working directory up, that has one of two files. One is `mcp-toolfuzz.toml`, read at its top
level. The other is a `pyproject.toml` with `[tool.mcp-toolfuzz]`. When a directory has both,
`mcp-toolfuzz.toml` comes first. This is the way Schemathesis finds `schemathesis.toml`:

    [tool.mcp-toolfuzz]
    command = ["python", "-m", "my_server"]      # the target: or url = "...", header = [...]
    max-examples = 500
    max-time = 1800
    report = ["junit:toolfuzz.xml", "sarif:toolfuzz.sarif"]
    baseline = ".toolfuzz-baseline.json"

    [tool.mcp-toolfuzz.tools.delete_repo]
    skip = true
    [tool.mcp-toolfuzz.tools.admin]
    unavailable = true
    [tool.mcp-toolfuzz.tools.search]
    allow-destructive = true                     # argument cases whatever its annotations
    max-examples = 2000                          # its own example count
    [tool.mcp-toolfuzz.tools.git_log]
    arguments = { repo_path = "${REPO}" }        # known-good values, as --argument git_log.repo_path=...

Every option of `mcp-toolfuzz run` is a key under its long name without the dashes:
`no-corpus = true`, `exclude-tools = ["a", "b"]`. `${VAR}` in a string is the environment
variable VAR. An option given on the command line wins over the file's. A repeatable one
replaces the file's list. The settings become command-line arguments, parsed by the same
parser, so there is one way to check a value. A key that is not an option is one line, naming
the nearest key, and exit 2.
"""

from __future__ import annotations

import argparse
import difflib
import json
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fuzz.errors import ConfigurationError
from fuzz.faces._client_config import expand_variables

OWN_FILE = "mcp-toolfuzz.toml"
TABLE = "mcp-toolfuzz"
_TOOL_KEYS = ("skip", "unavailable", "allow-destructive", "max-examples", "arguments")
_NOT_SETTINGS = frozenset({"help", "config-file"})


@dataclass(frozen=True, slots=True)
class Settings:
    path: Path
    arguments: tuple[tuple[str, ...], ...]
    """As command-line arguments, one option (and its value) each, for before the command line's own."""
    command: tuple[str, ...]
    """The target's command (`command = [...]`), used when the command line names no target."""

    @property
    def where(self) -> str:
        return f"{self.path} [tool.{TABLE}]" if self.path.name == "pyproject.toml" else str(self.path)


def find(start: Path) -> Path | None:
    for directory in (start, *start.parents):
        own = directory / OWN_FILE
        if own.is_file():
            return own
        project = directory / "pyproject.toml"
        if project.is_file() and TABLE in _read(project).get("tool", {}):
            return project
    return None


def _read(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigurationError(f"cannot read the settings file {path}: {error.strerror or error}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigurationError(f"{path} is not valid TOML: {error}") from None


def load(path: Path, run_parser: argparse.ArgumentParser) -> Settings:
    """The settings of `path` for `mcp-toolfuzz run`, checked against its options."""
    document = _read(path)
    table = document if path.name != "pyproject.toml" else document.get("tool", {}).get(TABLE, {})
    where = f"{path} [tool.{TABLE}]" if path.name == "pyproject.toml" else str(path)
    if not isinstance(table, dict):
        raise ConfigurationError(f"{where} must be a table of settings")
    options = _options(run_parser)
    arguments: list[tuple[str, ...]] = []
    command: tuple[str, ...] = ()
    for key, value in table.items():
        if key == "tools":
            arguments += _tool_settings(value, where)
        elif key == "command":
            command = tuple(_strings(value, f"{where}: command", split=False))
        elif key in options:
            arguments += _as_arguments(options[key], key, value, where)
        else:
            raise ConfigurationError(_unknown(key, [*options, "command", "tools"], where))
    return Settings(path, tuple(arguments), command)


def _options(run_parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    found: dict[str, argparse.Action] = {}
    for action in run_parser._actions:
        for option in action.option_strings:
            if option.startswith("--") and option[2:] not in _NOT_SETTINGS:
                found[option[2:]] = action
    return found


def _unknown(key: str, known: Sequence[str], where: str) -> str:
    near = difflib.get_close_matches(key.replace("_", "-"), known, n=1)
    hint = f"; did you mean {near[0]!r}?" if near else ""
    return f"{where}: {key!r} is not a setting{hint} (the settings: {', '.join(sorted(set(known)))})"


def _strings(value: Any, where: str, *, split: bool = True) -> list[str]:
    items = value if isinstance(value, list) else [value]
    if not all(isinstance(item, (str, int, float)) and not isinstance(item, bool) for item in items):
        raise ConfigurationError(f"{where} must be a string or a list of strings, not {json.dumps(value)[:60]}")
    return [expand_variables(str(item), where) for item in items]


def _as_arguments(action: argparse.Action, key: str, value: Any, where: str) -> list[tuple[str, ...]]:
    option = f"--{key}"
    if action.nargs == 0:
        if not isinstance(value, bool):
            raise ConfigurationError(f"{where}: {key} is a switch: write {key} = true or false")
        return [(option,)] if value else []
    texts = _strings(value, f"{where}: {key}")
    if isinstance(action, argparse._AppendAction):
        return [(option, text) for text in texts]
    if isinstance(value, list):
        return [(option, ",".join(texts))]
    return [(option, texts[0])]


def _tool_settings(tools: Any, where: str) -> list[tuple[str, ...]]:
    if not isinstance(tools, dict):
        raise ConfigurationError(f"{where}: tools must be a table of tables, e.g. [tool.{TABLE}.tools.NAME]")
    arguments: list[tuple[str, ...]] = []
    skipped: list[str] = []
    for name, settings in tools.items():
        at = f"{where}: tools.{name}"
        if not isinstance(settings, dict):
            raise ConfigurationError(f"{at} must be a table")
        for key, value in settings.items():
            if key not in _TOOL_KEYS:
                raise ConfigurationError(_unknown(key, _TOOL_KEYS, at))
            if key in ("skip", "unavailable", "allow-destructive") and not isinstance(value, bool):
                raise ConfigurationError(f"{at}: {key} is true or false")
            if key == "skip" and value:
                skipped.append(name)
            elif key == "unavailable" and value:
                arguments.append(("--unavailable", name))
            elif key == "allow-destructive" and value:
                arguments.append(("--allow-destructive-tool", name))
            elif key == "max-examples":
                if not isinstance(value, int) or isinstance(value, bool):
                    raise ConfigurationError(f"{at}: max-examples is a whole number")
                arguments.append(("--tool-max-examples", f"{name}={value}"))
            elif key == "arguments":
                arguments += _known_arguments(name, value, at)
    return arguments + ([("--exclude-tools", ",".join(skipped))] if skipped else [])


def _known_arguments(tool: str, value: Any, where: str) -> list[tuple[str, ...]]:
    if not isinstance(value, Mapping):
        raise ConfigurationError(f"{where}: arguments is a table of field = value")
    arguments: list[tuple[str, ...]] = []
    for field, known in value.items():
        for choice in known if isinstance(known, list) else [known]:
            expanded = expand_variables(choice, where) if isinstance(choice, str) else choice
            arguments.append(("--argument", f"{tool}.{field}={json.dumps(expanded, ensure_ascii=False)}"))
    return arguments


def merged(settings: Settings, given: Sequence[str]) -> list[str]:
    """The settings' arguments the command line `given` does not override, then `given`."""
    on_command_line = {token.split("=", 1)[0] for token in given if token.startswith("--")}
    kept = [part for group in settings.arguments if group[0] not in on_command_line for part in group]
    return kept + list(given)
