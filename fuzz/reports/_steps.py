"""A sequence finding's steps as the reports tell them (`fuzz.engine.phases._sequences`).

The steps are the requests sent before the violating one. They are numbered from 1, as the finding's
label numbers its request: `sequence step 3: ...` follows steps 1 and 2. Each comes with its answer.
Each value a request reused says where it came from: `note_id from step 1's answer
(structuredContent.id)`.

An argument's name and the keys of a path are the server's text. Each report renders them its own
way (`quote`): `printable` for plain text, a code span in Markdown. A path key that is not a plain
word is written as a JSON string (`fuzz.text.json_text`), in brackets.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from fuzz.judging.findings import Finding, SequenceStep, Use
from fuzz.text import json_text, printable

_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def path_text(path: Iterable[str | int]) -> str:
    """A path into an answer: `structuredContent.id`, `content[0].text.notes[2].id`.

    A key that is not a plain word goes in brackets, as JSON: `structuredContent["note id"]`.
    """
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        elif _PLAIN_KEY.match(part):
            text += f".{part}" if text else part
        else:
            text += f"[{json_text(part)}]"
    return text


def use_text(use: Use, quote: Callable[[str], str] = printable) -> str:
    """`note_id from step 1's answer (structuredContent.id)`, the argument and the path `quote`d."""
    return f"{quote(use.argument)} from step {use.step + 1}'s answer ({quote(path_text(use.path))})"


def uses_text(uses: Iterable[Use], quote: Callable[[str], str] = printable) -> str:
    """Each reused value (`use_text`), `; ` between two."""
    return "; ".join(use_text(use, quote) for use in uses)


def called(step: SequenceStep | Finding) -> str | None:
    """The tool a step's request named (None when its params name none, as sent)."""
    params = step.request.get("params")
    name = params.get("name") if isinstance(params, dict) else None
    return name if isinstance(name, str) else None


def labelled_lines(finding: Finding, json: Callable[[Any], str]) -> list[tuple[str, str]]:
    """A sequence finding's steps as (label, text) lines, in order.

    `json` renders a request or an answer. `step 1:` comes with its request. `reused:` comes with
    the values it reused, when it did. `answer 1:` comes with its answer, or `(none)`. The list is
    empty for any other finding.
    """
    lines: list[tuple[str, str]] = []
    for number, step in enumerate(finding.steps, 1):
        lines.append((f"step {number}:", json(step.request)))
        if step.uses:
            lines.append(("reused:", uses_text(step.uses)))
        lines.append((f"answer {number}:", json(step.response) if step.response is not None else "(none)"))
    return lines


def aligned(label: str, text: str, width: int) -> str:
    """`label` padded to `width`, then `text` (a space between them when the label is longer)."""
    return f"{label:<{width}}{text}" if len(label) < width else f"{label} {text}"
