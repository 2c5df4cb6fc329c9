"""What servers send, made fit for a person or a CI log to read.

Text is escaped, shortened, and listed here.
Every string a server sends is data, never markup.
That covers its name, tool names, error messages, and stderr.

Printed raw, server text can do harm.
In a terminal, an ESC or C1 control moves the cursor, retitles the window or hides a link.
A line break followed by `::error ...::` or `##[error]` becomes a GitHub Actions annotation.
`::add-mask::` hides text from the log.
`::stop-commands::` switches the runner's command parsing off.
A bidi override shows a name that is not the one sent.

So whatever reaches a person goes through `printable` (plain text) or `json_text` (JSON).
Their users here do too: `show`, `quote` and `listing`.
This happens at the point where text is rendered.
Findings and the JSON report keep the exact values.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

_C0 = "\x00-\x1f"
"""C0 controls, tab and line breaks included.

JSON text escapes them itself."""
_INVISIBLE = (
    "\x7f-\x9f"  # DEL, C1 controls (\x85: next line; \x9b: a CSI, as ESC [ is)
    "\u00ad\u061c\u180e"  # soft hyphen, Arabic letter mark, Mongolian vowel separator
    "\u200b\u200e\u200f"  # zero-width space, left-to-right and right-to-left marks (not the joiners)
    "\u2028\u2029"  # line and paragraph separators
    "\u202a-\u202e\u2060-\u206f"  # bidi embeddings and overrides, invisible operators, bidi isolates
    "\ufeff\ufff9-\ufffb"  # byte order mark, interlinear annotation
    "\ud800-\udfff"  # lone surrogates (no encoding can print them)
    "\U000e0000-\U000e007f"  # tag characters: invisible text a model still reads
)
_UNSAFE = re.compile(f"[{_C0}{_INVISIBLE}]")
"""What a terminal acts on or does not show: each is written as an escape instead.

The zero-width joiners stay, since emoji and several scripts need them.
A backslash stays as it is, so paths and regular expressions read as sent.
The JSON report tells a sent `\\x1b` from an ESC."""

_ANYWHERE_COMMAND = re.compile(r"(##(?:vso)?)\[", re.IGNORECASE)
"""CI commands obeyed anywhere in a line: the `[` after them is escaped.

These are GitHub's older `##[command]` form and Azure Pipelines' `##vso[command]`."""

_LINE_COMMAND = re.compile(r"^(\s*):(?=:)")
"""GitHub's `::command::` form, obeyed when a line starts with it.

Leading spaces are ignored."""

_SHORT = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def escape_character(character: str) -> str:
    """One character as `printable` writes it: `\\n`, `\\x1b`, `\\u2028`, `\\U000e0041`."""
    if character in _SHORT:
        return _SHORT[character]
    code = ord(character)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def printable(text: str) -> str:
    """`text` on one line, as a person or a CI log should see it.

    Controls, line breaks and separators are written as escapes.
    So are bidi and invisible characters: `\\x1b`, `\\n`, `\\u2028`.
    CI workflow commands are defused: `##[` becomes `##\\x5b`.
    Where the text could start a line, `::` becomes `\\x3a:`."""
    text = _UNSAFE.sub(lambda match: escape_character(match.group()), text)
    text = _ANYWHERE_COMMAND.sub(lambda match: match.group(1) + "\\x5b", text)
    return safe_line(text)


def safe_line(line: str) -> str:
    """A line of output made of harness text and printable pieces, guarded as a whole.

    Pieces put side by side may still start the line with `::`.
    Such a line gets its first colon escaped."""
    return _LINE_COMMAND.sub(lambda match: match.group(1) + "\\x3a", line)


_UNSAFE_IN_JSON = re.compile(f"[{_INVISIBLE}]")
"""What `json.dumps` leaves raw in strings, of what `_UNSAFE` matches.

Its C0 controls outside strings are the layout: line breaks and spaces."""


def _json_escape(character: str) -> str:
    code = ord(character)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


_LEGIBLE_JSON = json.JSONEncoder(ensure_ascii=False)
"""Made once, for the one-line texts.

`json.dumps` with options makes an encoder at every call."""


def json_text(value: Any, indent: int | None = None) -> str:
    """`value` as JSON that reads the same value back, and is safe to print.

    The characters `printable` escapes are written as `\\u` escapes.
    A CI command's `[` is written `\\u005b`.
    Those characters only occur inside JSON strings, so the escapes stay valid JSON.
    Unicode text stays legible."""
    text = _LEGIBLE_JSON.encode(value) if indent is None else json.dumps(value, ensure_ascii=False, indent=indent)
    text = _UNSAFE_IN_JSON.sub(lambda match: _json_escape(match.group()), text)
    return _ANYWHERE_COMMAND.sub(lambda match: match.group(1) + "\\u005b", text)


def clip(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, an ellipsis marking the cut."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def show(value: Any, limit: int) -> str:
    """A JSON value as compact JSON text, safe to print, clipped."""
    return clip(json_text(value), limit)


def quote(text: str) -> str:
    """Text as a short JSON string literal, safe to print, for one-line descriptions of answers."""
    return json_text(clip(text, 120))


LISTED = 3
"""How many items a cut list names before its count of the others."""


def listing(items: Iterable[str], shown: int = LISTED) -> str:
    """Items joined by commas, cut after the first `shown` if more than one more follows.

    A cut list reads `get_a, get_b, get_c and 76 more`.
    The items are joined as given, so escape them first."""
    items = list(items)
    if len(items) <= shown + 1:
        return ", ".join(items)
    return f"{', '.join(items[:shown])} and {len(items) - shown} more"
