r"""Strings a schema accepts: the generator's text family.

Reads `minLength`, `maxLength`, `pattern` and `format`.

A pattern is an ECMA-262 regular expression. It is drawn from with `from_regex`, through its
Python translation (`strategies.ecma_patterns.to_python`). For example, `$` becomes `\Z`, so no
final newline, and `\d` becomes `[0-9]`.

- A repeated single atom is sized by the length bounds. So no length filter throws most
  candidates away.
- Every string is kept only where the pattern matches it by ECMA-262.
- A pattern with no translation is drawn from as Python's `re` reads it, or as plain text. It
  is filtered the same way.
- A pattern that is not ECMA-262 gets no string.
- zod's startsWith/endsWith/includes patterns, split over `allOf`, are joined into one.

The `format`s generated are date-time, date, time, email, idn-email, uri, uri-reference, iri,
uuid, ipv4, ipv6, hostname, idn-hostname, duration and regex. Other formats are annotations and
get plain text. Plain text is rich in the characters servers mishandle
(`strategies.characters`). Shrinks towards the shortest string allowed.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from hypothesis.provisional import domains, urls

from strategies.characters import BMP_JSON_CHARACTERS, JSON_CHARACTERS, edge_rich_text, json_text
from strategies.drawing import deferred
from strategies.ecma_patterns import is_ecma, to_python, unit_sensitive
from strategies.schemas import matches_pattern

_FORMATS: dict[str, st.SearchStrategy[str]] = {
    "date-time": st.datetimes().map(lambda moment: moment.isoformat() + "Z"),
    "date": st.dates().map(lambda day: day.isoformat()),
    "time": st.times().map(lambda moment: moment.isoformat() + "Z"),
    "email": st.emails(),
    "idn-email": st.emails(),
    "uri": urls(),
    "iri": urls(),
    "uri-reference": st.one_of(urls(), st.from_regex(r"\A(/[a-z0-9]{1,8}){0,3}\Z", alphabet=JSON_CHARACTERS)),
    "uuid": st.uuids().map(str),
    "ipv4": st.ip_addresses(v=4).map(str),
    "ipv6": st.ip_addresses(v=6).map(str),
    "hostname": domains(),
    "idn-hostname": domains(),
    "duration": st.one_of(
        st.integers(0, 10_000).map(lambda days: f"P{days}D"),
        st.tuples(st.integers(0, 99), st.integers(0, 59), st.integers(0, 59)).map(lambda t: f"PT{t[0]}H{t[1]}M{t[2]}S"),
        st.integers(0, 99).map(lambda weeks: f"P{weeks}W"),
    ),
    "regex": st.sampled_from(["", "^a$", "[0-9]+", "\\w+@\\w+"]),
}


def strings_for(schema: Mapping[str, Any]) -> st.SearchStrategy[Any]:
    """Strings within the schema's length bounds that match its pattern(s).

    For a known format, they are also of that format.
    """
    low = schema.get("minLength", 0) if isinstance(schema.get("minLength"), int) else 0
    high = schema.get("maxLength") if isinstance(schema.get("maxLength"), int) else None
    if high is not None and low > high:
        return st.nothing()
    pattern = _joined_literal_patterns(schema) or schema.get("pattern")
    declared_format = schema.get("format")
    known_format = _FORMATS.get(declared_format) if isinstance(declared_format, str) else None
    if isinstance(pattern, str):
        if not is_ecma(pattern):
            return st.nothing()
        drawn = _drawn_from(_sized(pattern, low, high))
        base = json_text() if drawn is None else drawn
        if known_format is not None:
            # A format's text is ASCII: drawn from ASCII, fewer candidates miss it.
            ascii_drawn = _drawn_from(_sized(pattern, low, high), ascii_only=True)
            base = st.one_of(known_format, base if ascii_drawn is None else ascii_drawn)
        base = base.filter(lambda text: matches_pattern(pattern, text))
    elif known_format is not None:
        base = known_format
    else:
        return edge_rich_text(low, high if high is not None else max(low, 0) + 40)
    return base.filter(lambda text: low <= len(text) and (high is None or len(text) <= high))


def pattern_keys(pattern: str) -> st.SearchStrategy[str]:
    """Property names that `pattern` matches by ECMA-262, for `patternProperties`.

    Draws nothing when the pattern is not ECMA-262.
    """
    if not is_ecma(pattern):
        return st.nothing()
    drawn = _drawn_from(pattern)
    return st.nothing() if drawn is None else drawn.filter(lambda key: matches_pattern(pattern, key))


@functools.lru_cache(maxsize=512)
def _drawn_from(pattern: str, *, ascii_only: bool = False) -> st.SearchStrategy[str] | None:
    r"""Strings aimed at the ECMA-262 `pattern`, or None when none can be drawn.

    They are unfiltered: the caller keeps those the pattern matches. They are drawn from the
    pattern's Python translation. Without one, they are drawn from the pattern as Python's `re`
    reads it, with named groups as Python writes them. None means Hypothesis cannot draw from
    either.

    Built once per pattern, because Hypothesis walks every code point of a class. For `\p{L}`
    that is slow.
    """
    translated = to_python(pattern)
    python_pattern = translated if translated is not None else re.sub(r"\(\?<(?![=!])", "(?P<", pattern)
    try:
        alphabet = _ASCII if ascii_only else BMP_JSON_CHARACTERS if unit_sensitive(pattern) else JSON_CHARACTERS
        strategy = st.from_regex(python_pattern, alphabet=alphabet)
        strategy.validate()
    except (re.error, ValueError, InvalidArgument):
        return None
    # Deferred, so that a filter over it draws from this one built strategy: `.filter` on the
    # lazy `from_regex` makes a lazy copy that walks the pattern's classes again.
    return deferred(lambda: strategy)


_ASCII = st.characters(codec="ascii")


_LITERAL_PATTERN = re.compile(r"(\^)?(\.\*)?([^\\^$.*+?()\[\]{}|]*)(\.\*)?(\$)?")


def _joined_literal_patterns(schema: Mapping[str, Any]) -> str | None:
    """Several patterns that each pin a literal, joined as one pattern that satisfies all.

    Each pins a literal to the start, the end or anywhere. zod's startsWith/endsWith/includes
    write them: `^sk_.*`, `.*_x$`, `test`. Joined, they read `^sk_.*test.*_x$`. So no candidate
    is thrown away for missing one of them.
    """
    parts = [schema.get("pattern")] + [
        part.get("pattern") for part in schema.get("allOf", []) if isinstance(part, Mapping) and set(part) <= {"pattern", "type"}
    ]
    patterns = [pattern for pattern in parts if isinstance(pattern, str)]
    if len(patterns) < 2:
        return None
    starts, ends, middles = [], [], []
    for pattern in patterns:
        match = _LITERAL_PATTERN.fullmatch(pattern)
        if match is None:
            return None
        anchored_start, free_start, literal, free_end, anchored_end = match.groups()
        if anchored_start and not free_start:
            starts.append(literal)
        elif anchored_end and not free_end:
            ends.append(literal)
        else:
            middles.append(literal)
    if len(starts) > 1 or len(ends) > 1:
        return None
    return "^" + ".*".join([*starts, "", *middles, "", *ends]) + "$"


_REPEATED_ATOM = re.compile(r"^\^(\[[^\]]*\]|\\[dwsDWS]|\.)[+*]\$$")


def _sized(pattern: str, low: int, high: int | None) -> str:
    """A repeated single atom, sized by the length bounds.

    For example, `^[0-9]+$` with minLength 6 and maxLength 6 becomes `^[0-9]{6,6}$`. A length
    filter over a pattern that ignores it would throw almost every string away.
    """
    match = _REPEATED_ATOM.match(pattern)
    if match is None or (low == 0 and high is None):
        return pattern
    fewest = max(low, 1 if pattern.endswith("+$") else 0)
    return f"^{match.group(1)}{{{fewest},{'' if high is None else high}}}$"
