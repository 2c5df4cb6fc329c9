"""What `invariants(...)` declares: a target and its `run` options.

They are kept as the command line the CLI parses, so the plugin and the CLI build one run alike.
This module sits below both the plugin's hooks (`fuzz.faces.pytest_hooks`) and its tests
(`fuzz.faces._pytest_items`), which read it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

_LISTS = {"tools", "exclude_tools", "rules", "exclude_rules"}
"""Options the CLI takes as one comma-separated value."""

_TARGET_KEYS = {"url", "headers", "config", "server", "fixture", "scope"}


@dataclass(frozen=True)
class Invariants:
    """A declaration: what `invariants(...)` returns for a target known at collection."""

    command: tuple[str, ...]
    arguments: tuple[str, ...]
    """The `run` command line its options make (the target included, but a command)."""
    scope: str
    seed: int | None
    max_examples: int | None
    line: int = 0
    """The line (0-based) of the `invariants(...)` call: where its tests are reported."""

    def where(self, name: str) -> str:
        return f"invariants() of {name}"


def run_arguments(options: dict[str, Any]) -> list[str]:
    """`run` options as its command line.

    `mirror_tool="m"` is `--mirror-tool m`, and True makes a flag. A list repeats the option. Where
    the CLI takes NAME,..., a list is joined with commas instead. `arguments` is a mapping of
    TOOL.FIELD to values.
    """
    arguments: list[str] = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if key == "arguments":
            for name, known in dict(value).items():
                for one in known if isinstance(known, list) else [known]:
                    arguments += ["--argument", f"{name}={one if isinstance(one, str) else json.dumps(one)}"]
        elif value is True:
            arguments.append(flag)
        elif value is False or value is None:
            continue
        elif isinstance(value, (list, tuple, set, frozenset)):
            if key in _LISTS:
                arguments += [flag, ",".join(map(str, value))]
            else:
                for one in value:
                    arguments += [flag, str(one)]
        else:
            arguments += [flag, str(value)]
    return arguments
