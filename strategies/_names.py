"""Tool names that no listed tool has.

A well-formed `tools/call` naming no callable tool must be answered with a tool execution error
(SEP-2145). The names drawn here are the ones a model or a stale client really sends. They are
empty, whitespace, unicode, very long, and near-misses of the listed names.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass

from hypothesis import strategies as st

from strategies.characters import JSON_CHARACTERS, json_text
from strategies.drawing import drawn, mapped, pick
from strategies.labelled import Labelled

_WHITESPACE = " \t\n\r\u00a0\u2028\u3000\ufeff"


LONGEST_NAME = 20_000


def unknown_tool_names(listed: Collection[str], *, longest: int = LONGEST_NAME) -> st.SearchStrategy[Labelled[str]]:
    """Names not in `listed` (exact comparison), each labelled with how it was made.

    `longest` is the longest name drawn. Under 2026-07-28, an HTTP header must carry the name,
    so it is kept to what servers' header limits allow. Shrinks towards the empty name. Then it
    shrinks towards the smallest near-miss of the first listed name, a one-character change.
    """
    known = frozenset(listed)
    families: list[st.SearchStrategy[Labelled[str]]] = [
        st.just(Labelled("", "empty name")),
    ]
    if known:
        families.append(_near_misses(sorted(known)))
    families += [
        mapped(st.text(alphabet=_WHITESPACE, min_size=1, max_size=8), lambda n: Labelled(n, "whitespace only")),
        mapped(json_text(1, 40), lambda n: Labelled(n, "arbitrary unicode")),
        mapped(st.integers(min_value=min(256, longest), max_value=longest), lambda size: Labelled("t" * size, f"{size} characters long")),
    ]
    return st.one_of(families).filter(lambda labelled: labelled.value not in known)


def _near_misses(names: list[str]) -> st.SearchStrategy[Labelled[str]]:
    chosen_names = st.sampled_from(names)
    edits = st.sampled_from(_EDITS)

    def near_miss(draw: st.DrawFn) -> Labelled[str]:
        name = draw(chosen_names)
        edit = draw(edits)
        return Labelled(edit.apply(draw, name), f"near-miss of {name!r}: {edit.description}")

    return drawn(near_miss)


@dataclass(frozen=True, slots=True)
class _Edit:
    description: str
    apply: Callable[[st.DrawFn, str], str]


def _position(draw: st.DrawFn, name: str, *, inclusive: bool) -> int:
    return pick(draw, range(max(0, len(name) - (0 if inclusive else 1)) + 1))


def _char(draw: st.DrawFn) -> str:
    return draw(JSON_CHARACTERS)


def _swap_case(draw: st.DrawFn, name: str) -> str:
    return pick(draw, [name.upper(), name.lower(), name.swapcase(), name.title()])


def _delete(draw: st.DrawFn, name: str) -> str:
    at = _position(draw, name, inclusive=False)
    return name[:at] + name[at + 1 :]


def _insert(draw: st.DrawFn, name: str) -> str:
    at = _position(draw, name, inclusive=True)
    return name[:at] + _char(draw) + name[at:]


def _substitute(draw: st.DrawFn, name: str) -> str:
    at = _position(draw, name, inclusive=False)
    return name[:at] + _char(draw) + name[at + 1 :]


def _affix(draw: st.DrawFn, name: str) -> str:
    affix = draw(_AFFIXES)
    return name + affix if draw(_AFTER) else affix + name


_AFFIXES = st.sampled_from([" ", "_", "-", ".", "/", "s", "_v2", "()", "\x00"])
_AFTER = st.booleans()


def _truncate(draw: st.DrawFn, name: str) -> str:
    return name[: _position(draw, name, inclusive=False)]


_EDITS = (
    _Edit("one character substituted", _substitute),
    _Edit("one character deleted", _delete),
    _Edit("one character inserted", _insert),
    _Edit("case changed", _swap_case),
    _Edit("prefix or suffix added", _affix),
    _Edit("truncated", _truncate),
)
