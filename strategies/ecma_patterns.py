r"""JSON Schema's `pattern` as ECMA-262 means it, for the whole project: judged, and aimed at.

`pattern` values and `patternProperties` names are ECMA-262 regular expressions. Python's `re`
reads them differently. Its `$` also matches before a final newline. Its `\d`, `\w` and `\s`
take Unicode's digits, word characters and spaces. Its `.` stops only at `\n`. And `\p{L}`,
`(?<name>…)`, `[^]` or `\cJ` do not compile. So nothing here is read by `re`.

*Judging* is `search`. It uses the `regress` engine (ECMA-262, in Rust). It reads a pattern
with the `u` flag when the pattern compiles with it, else without. 2020-12 says patterns SHOULD
be read with `u`, and Ajv does. Only then do `\p{…}` and `\u{…}` mean anything. Some patterns
are written for a RegExp without `u`: an identity escape such as `\_`, or a lone `{`. Those are
a syntax error under `u`, and are read as that RegExp reads them (Annex B).

One difference stays between servers. A RegExp without `u`, such as zod's `.regex(/…/)`, counts
a character past U+FFFF as two code units. One with `u` counts it as one. `regress` counts code
points either way. So a text holding such a character gets no verdict (`Undecided`) from a
pattern that could count it differently. `unit_sensitive` finds those patterns: `.`, a negated
class or escape, `\p`, `\u`, or a literal from U+D800 up. Strings for them are drawn from the
BMP.

*Generation* is `to_python`. It gives a Python pattern with the same meaning for Hypothesis's
`from_regex`, or None. It aims; `search` decides every value. So a mistake costs a value, never
a claim.

A pattern the harness cannot use is said so once, and left out of the claims, not guessed.

- A pattern `regress` cannot compile is not ECMA-262. `search` raises `Undecided` wherever its
  verdict is needed. `strategies.schemas` turns that into "not accepted" for a claim of
  validity, and "not rejected" for one of invalidity. No string is generated for it.
- A pattern with no translation is judged exactly. Its strings are drawn as Python reads it, or
  as plain text. They are kept only where `search` accepts them.

`untranslatable(schema)` lists both kinds, and `problem` says which. The engine gives one
warning per pattern from them.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, TypeAlias

import regress


class Undecided(ValueError):
    """No verdict can be given.

    Either the pattern is not ECMA-262, or the text is one engines read differently.
    """


@functools.lru_cache(maxsize=4096)
def _compiled(pattern: str) -> tuple[regress.Regex, bool] | str:
    """The engine for `pattern`, and whether it reads it with `u`.

    When it cannot compile the pattern, it says why not.
    """
    if _SURROGATE.search(pattern):
        return "it holds a lone surrogate"
    for flags in ("u", ""):
        try:
            return regress.Regex(pattern, flags), flags == "u"
        except (regress.RegressError, ValueError) as error:
            reason = str(error)
    return reason


def search(pattern: str, text: str) -> bool:
    """Whether `pattern` matches somewhere in `text`, unanchored.

    It answers as `RegExp.prototype.test` does. Raises Undecided when there is no verdict to
    give (see the module's docstring).
    """
    if isinstance(compiled := _compiled(pattern), str):
        raise Undecided(f"pattern {pattern!r} is not an ECMA-262 regular expression: {compiled}")
    if _SURROGATE.search(text):
        raise Undecided("the text holds a lone surrogate")
    if _ASTRAL.search(text) and unit_sensitive(pattern):
        raise Undecided(f"pattern {pattern!r} may count a character past U+FFFF as one or two, as the RegExp's `u` flag says")
    return compiled[0].find(text) is not None


def verdict(pattern: str, text: str) -> bool | None:
    """`search`, with None for no verdict."""
    try:
        return search(pattern, text)
    except Undecided:
        return None


def unit_sensitive(pattern: str) -> bool:  # see the module's docstring
    return _UNIT_SENSITIVE.search(pattern) is not None


def is_ecma(pattern: str) -> bool:
    """Whether `pattern` is an ECMA-262 regular expression.

    That is what `format: regex` asks of a text.
    """
    return not isinstance(_compiled(pattern), str)


def problem(pattern: str) -> str | None:
    """Why the harness cannot fully use `pattern`; None when it can.

    The reason is worded as the end of a sentence.
    """
    if isinstance(compiled := _compiled(pattern), str):
        return f"is not an ECMA-262 regular expression ({compiled}): no value is claimed valid or invalid by it, and no string is generated for it"
    if to_python(pattern) is None:
        return "has no Python translation: its strings are drawn as Python's re reads it, or as plain text, and kept only where it matches them"
    return None


def untranslatable(schema: Any) -> list[str]:
    """The patterns of a schema that `problem` finds a problem with.

    Patterns are `pattern` values and `patternProperties` names. Each is listed once, in the
    order met.
    """
    return [pattern for pattern in dict.fromkeys(_patterns_in(schema)) if problem(pattern) is not None]


_NOT_SCHEMAS = frozenset({"const", "enum", "default", "examples", "required", "dependentRequired"})
_NAMED_SCHEMAS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"})


def _patterns_in(node: Any) -> Iterator[str]:
    for key, value in node.items() if isinstance(node, Mapping) else enumerate(node) if isinstance(node, list) else ():
        if key == "pattern" and isinstance(value, str):
            yield value
        elif key in _NAMED_SCHEMAS and isinstance(value, Mapping):
            yield from (name for name in value if key == "patternProperties" and isinstance(name, str))
            for subschema in value.values():
                yield from _patterns_in(subschema)
        elif key not in _NOT_SCHEMAS:
            yield from _patterns_in(value)


_SURROGATE = re.compile(r"[\ud800-\udfff]")
_ASTRAL = re.compile(r"[\U00010000-\U0010ffff]")
_UNIT_SENSITIVE = re.compile(r"[.\ud800-\U0010ffff]|\[\^|\\[DPSWpu]")

Intervals: TypeAlias = tuple[tuple[int, int], ...]
_LAST = 0x10FFFF


def _normal(ranges: Iterable[tuple[int, int]]) -> Intervals:
    merged: list[tuple[int, int]] = []
    for low, high in sorted(ranges):
        if merged and low <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], high))
        else:
            merged.append((low, high))
    return tuple(merged)


def _complement(ranges: Intervals) -> Intervals:
    gaps, start = [], 0
    for low, high in ranges:
        if low > start:
            gaps.append((start, low - 1))
        start = high + 1
    return tuple(gaps + ([(start, _LAST)] if start <= _LAST else []))


_DIGITS: Intervals = ((0x30, 0x39),)
_WORD: Intervals = ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A))
_SPACE = _normal(
    [
        (0x09, 0x0D),
        (0x20, 0x20),
        (0xA0, 0xA0),
        (0x1680, 0x1680),
        (0x2000, 0x200A),
        (0x2028, 0x2029),
        (0x202F, 0x202F),
        (0x205F, 0x205F),
        (0x3000, 0x3000),
        (0xFEFF, 0xFEFF),
    ]
)
"""ECMA-262's WhiteSpace and LineTerminator.

They are U+0009 to U+000D, the Zs spaces and U+FEFF.
"""
_DOT = _complement(((0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)))
_ESCAPES = {"d": _DIGITS, "D": _complement(_DIGITS), "w": _WORD, "W": _complement(_WORD), "s": _SPACE, "S": _complement(_SPACE)}
_CONTROLS = {"f": 0x0C, "n": 0x0A, "r": 0x0D, "t": 0x09, "v": 0x0B}
_QUANTIFIER = re.compile(r"\{[0-9]+(?:,[0-9]*)?\}")
_HEX4 = re.compile(r"[0-9A-Fa-f]{4}")


class _Unfaithful(Exception):
    pass


@functools.lru_cache(maxsize=1024)
def to_python(pattern: str) -> str | None:
    """A Python `re` pattern matching what `pattern` matches by ECMA-262, for `from_regex`.

    The result needs no flags. For example, `$` becomes `\\Z` and `\\d` becomes `[0-9]`.
    `\\p{L}` becomes the letters `unicodedata` knows.

    None when `pattern` is not ECMA-262, or when no faithful translation is known. None is known
    for a script property, or a reference to a group not yet closed. Nor for Annex B's octal
    escapes, modifiers, or a lookbehind `re` refuses.
    """
    if isinstance(compiled := _compiled(pattern), str):
        return None
    try:
        translated = _Translator(pattern, unicode=compiled[1]).translate()
        re.compile(translated)
    except (_Unfaithful, re.error, OverflowError):
        return None
    return translated


class _Translator:
    def __init__(self, source: str, *, unicode: bool) -> None:
        self.source, self.at, self.unicode = source, 0, unicode
        self.opened: list[int | None] = []
        self.closed: set[int] = set()
        self.names: dict[str, int] = {}
        self.groups = 0
        self.total, self.named = _count_groups(source)

    def translate(self) -> str:
        out: list[str] = []
        source = self.source
        while self.at < len(source):
            char = source[self.at]
            self.at += 1
            if char == "\\":
                out.append(self._atom_escape())
            elif char == "[":
                out.append(self._class())
            elif char == "(":
                out.append(self._open())
            elif char == ")" and self.opened:
                self.closed.add(self.opened.pop() or 0)
                out.append(")")
            elif char == ".":
                out.append(self._set(_DOT))
            elif char == "$":
                out.append(r"\Z")
            elif char == "{" and (quantifier := _QUANTIFIER.match(source, self.at - 1)):
                out.append(quantifier.group())
                self.at = quantifier.end()
            elif char in "^*+?|":
                out.append(char)
            else:
                if not self.unicode and ord(char) > 0xFFFF and source[self.at : self.at + 1] in ("*", "+", "?", "{"):
                    raise _Unfaithful  # two code units: the quantifier takes the second only
                out.append(_char(ord(char)))
        return "".join(out)

    def _next(self) -> str:
        if self.at >= len(self.source):
            raise _Unfaithful
        self.at += 1
        return self.source[self.at - 1]

    def _open(self) -> str:
        rest = self.source[self.at :]
        for prefix in ("?:", "?=", "?!", "?<=", "?<!"):
            if rest.startswith(prefix):
                self.at += len(prefix)
                self.opened.append(None)
                return "(" + prefix
        name = rest[2 : rest.find(">")] if rest.startswith("?<") else ""
        if rest.startswith("?") and not name.isidentifier():
            raise _Unfaithful  # modifiers such as (?i:…), or a group name Python does not take
        self.groups += 1
        self.opened.append(self.groups)
        if not name:
            return "("
        self.names[name] = self.groups
        self.at += len(name) + 3
        return f"(?P<{name}>"

    def _atom_escape(self) -> str:
        char = self._next()
        if char in _ESCAPES:
            return self._set(_ESCAPES[char])
        if char in "bB":
            return rf"(?a:\{char})"  # ECMA-262's word boundary is between [A-Za-z0-9_] and the rest
        if char in "123456789":
            while self.at < len(self.source) and self.source[self.at].isdigit():
                char += self._next()
            if int(char) > self.total or int(char) not in self.closed:
                raise _Unfaithful  # Annex B's octal escape, or a reference that matches empty
            return rf"(?:\{char})"
        if char == "k" and (self.unicode or self.named):
            end = self.source.find(">", self.at)
            name = self.source[self.at + 1 : end] if self.source.startswith("<", self.at) and end > 0 else ""
            if self.names.get(name) not in self.closed:
                raise _Unfaithful
            self.at = end + 1
            return f"(?P={name})"
        if char in "pP" and self.unicode:
            return self._set(self._property(negated=char == "P"))
        return _char(self._character_escape(char, in_class=False))

    def _character_escape(self, char: str, *, in_class: bool) -> int:
        source, at = self.source, self.at
        if char in _CONTROLS:
            return _CONTROLS[char]
        if char == "0" and not source[at : at + 1].isdigit():
            return 0
        if char == "c" and source[at : at + 1].isascii() and source[at : at + 1].isalpha():
            return ord(self._next()) % 32
        if char == "x" and re.fullmatch("[0-9A-Fa-f]{2}", source[at : at + 2]):
            self.at += 2
            return int(source[at : at + 2], 16)
        if char == "u" and self.unicode and source.startswith("{", at):
            self.at = source.index("}", at) + 1
            point = int(source[at + 1 : self.at - 1], 16)
        elif char == "u" and _HEX4.fullmatch(source, at, at + 4):
            point = int(source[at : at + 4], 16)
            self.at += 4
            trail = source[self.at + 2 : self.at + 6] if source.startswith("\\u", self.at) else ""
            if 0xD800 <= point <= 0xDBFF and _HEX4.fullmatch(trail) and 0xDC00 <= int(trail, 16) <= 0xDFFF:
                if in_class and not self.unicode:
                    raise _Unfaithful  # two code units, each a member of the class
                self.at += 6
                point = 0x10000 + ((point - 0xD800) << 10) + int(trail, 16) - 0xDC00
        elif char.isdigit() or char == "c":
            raise _Unfaithful  # Annex B's octal escapes, and its `\c` before a non-letter
        else:
            point = ord(char)  # an identity escape
        if 0xD800 <= point <= 0xDFFF:
            raise _Unfaithful
        return point

    def _class(self) -> str:
        negated = self.source.startswith("^", self.at)
        self.at += negated
        members: list[tuple[int, int]] = []
        while not self.source.startswith("]", self.at):
            first, single = self._class_atom()
            if self.source.startswith("-", self.at) and self.source[self.at + 1 : self.at + 2] not in ("]", ""):
                self.at += 1
                last, other = self._class_atom()
                if single is not None and other is not None:
                    if single > other:
                        raise _Unfaithful
                    members.append((single, other))
                else:
                    members += [*first, (0x2D, 0x2D), *last]  # Annex B: `[\w-z]` holds the hyphen
            else:
                members += first
        self.at += 1
        return self._set(_complement(_normal(members)) if negated else _normal(members))

    def _class_atom(self) -> tuple[Intervals, int | None]:
        char = self._next()
        if char == "\\":
            char = self._next()
            if char in _ESCAPES:
                return _ESCAPES[char], None
            if char in "pP" and self.unicode:
                return self._property(negated=char == "P"), None
            point = 0x08 if char == "b" else self._character_escape(char, in_class=True)
        else:
            point = ord(char)
            if point > 0xFFFF and not self.unicode:
                raise _Unfaithful
        return ((point, point),), point

    def _property(self, *, negated: bool) -> Intervals:
        end = self.source.find("}", self.at)
        ranges = _property_ranges(self.source[self.at + 1 : end]) if self.source.startswith("{", self.at) and end > 0 else None
        if ranges is None:
            raise _Unfaithful
        self.at = end + 1
        return _complement(ranges) if negated else ranges

    def _set(self, ranges: Intervals) -> str:
        """A class of `ranges`, written as what it leaves out when that is smaller.

        Hypothesis walks every code point of a class's ranges, so smaller is cheaper. Surrogates
        are left in, since no alphabet of JSON text draws one. Without `u`, a class atom matches
        one code unit. `search` gives no verdict on a text past U+FFFF for a pattern that could
        tell.
        """
        if not ranges:
            return "(?!)"
        if sum(high - low + 1 for low, high in ranges) <= _LAST // 2:
            return "[" + "".join(_char(low) if low == high else f"{_char(low)}-{_char(high)}" for low, high in ranges) + "]"
        rest = _complement(ranges)
        return "[^" + "".join(_char(low) if low == high else f"{_char(low)}-{_char(high)}" for low, high in rest) + "]" if rest else "(?s:.)"


def _char(point: int) -> str:
    if 0x20 < point < 0x7F:
        return re.escape(chr(point))
    return f"\\x{point:02x}" if point < 0x100 else f"\\u{point:04x}" if point < 0x10000 else f"\\U{point:08x}"


def _count_groups(source: str) -> tuple[int, bool]:
    """How many capturing groups `source` has, and if one is named.

    Groups are counted both before a reference and after it.
    """
    bare = re.sub(r"\\.|\[(?:\\.|[^\]\\])*\]", "", source, flags=re.S)
    return len(re.findall(r"\((?!\?)|\(\?<(?![=!])", bare)), re.search(r"\(\?<(?![=!])", bare) is not None


_LONG_NAMES = {
    "Letter": "L",
    "Cased_Letter": "LC",
    "Uppercase_Letter": "Lu",
    "Lowercase_Letter": "Ll",
    "Titlecase_Letter": "Lt",
    "Modifier_Letter": "Lm",
    "Other_Letter": "Lo",
    "Mark": "M",
    "Combining_Mark": "M",
    "Nonspacing_Mark": "Mn",
    "Spacing_Mark": "Mc",
    "Enclosing_Mark": "Me",
    "Number": "N",
    "Decimal_Number": "Nd",
    "digit": "Nd",
    "Letter_Number": "Nl",
    "Other_Number": "No",
    "Punctuation": "P",
    "punct": "P",
    "Connector_Punctuation": "Pc",
    "Dash_Punctuation": "Pd",
    "Open_Punctuation": "Ps",
    "Close_Punctuation": "Pe",
    "Initial_Punctuation": "Pi",
    "Final_Punctuation": "Pf",
    "Other_Punctuation": "Po",
    "Symbol": "S",
    "Math_Symbol": "Sm",
    "Currency_Symbol": "Sc",
    "Modifier_Symbol": "Sk",
    "Other_Symbol": "So",
    "Separator": "Z",
    "Space_Separator": "Zs",
    "Line_Separator": "Zl",
    "Paragraph_Separator": "Zp",
    "Other": "C",
    "Control": "Cc",
    "cntrl": "Cc",
    "Format": "Cf",
    "Private_Use": "Co",
    "Unassigned": "Cn",
}


@functools.lru_cache(maxsize=64)
def _property_ranges(name: str) -> Intervals | None:
    """The code points of a general category, `Any` or `ASCII`; None for any other property.

    A general category is written like `L`, `Lu`, `Letter` or `gc=Nd`. The code points come from
    this Python's `unicodedata`. Its Unicode version may lag the engine's. A character they
    disagree on is a value lost, not a claim.
    """
    name = name.removeprefix("General_Category=").removeprefix("gc=")
    if name in ("Any", "ASCII"):
        return ((0, _LAST if name == "Any" else 0x7F),)
    short = _LONG_NAMES.get(name, name)
    table = _categories()
    if short == "LC":
        wanted: tuple[str, ...] = ("Lu", "Ll", "Lt")
    elif len(short) == 1:
        wanted = tuple(category for category in table if category.startswith(short))
    else:
        wanted = (short,) if short in table else ()
    return _normal(span for category in wanted for span in table[category]) if wanted else None


@functools.cache
def _categories() -> dict[str, list[tuple[int, int]]]:
    """Every code point's general category, as runs.

    Building it is costly, so it is built once, for the first `\\p`.
    """
    table: dict[str, list[tuple[int, int]]] = {}
    start, current = 0, unicodedata.category("\0")
    for point in range(1, _LAST + 2):
        category = unicodedata.category(chr(point)) if point <= _LAST else ""
        if category != current:
            table.setdefault(current, []).append((start, point - 1))
            start, current = point, category
    return table
