"""The characters and free text every strategy draws.

Names, envelopes, cases, mutations and the schema generator draw free text only through
`json_text` (or `edge_rich_text`, which mixes the edge characters in), so no strategy ever
draws a lone surrogate: every value is JSON text a conforming client could send.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

from hypothesis import strategies as st

_EDGE_CHARACTERS = "\0\u0301\u05d0\u0627\u202e\u200d\ufeff\U0001f600\U00010348\u2028"
"""NUL, a combining acute, Hebrew and Arabic letters (right-to-left), the RLO override, a zero
width joiner, a BOM, an emoji and a Gothic letter (astral planes), LINE SEPARATOR (raw in JSON
text, a line break to some readers): what servers mishandle, mixed into any text."""

_LONE_SURROGATES: tuple[Literal["Cs"], ...] = ("Cs",)

JSON_CHARACTERS = st.characters(exclude_categories=_LONE_SURROGATES)
"""Every character JSON text can carry: any code point but the lone surrogates, which RFC 8259
leaves undefined, I-JSON forbids, and UTF-8 cannot encode. Every text strategy draws from it
(through `json_text`). Spelled by category, not as `characters(codec="utf-8")` (the same set, and
Hypothesis's default alphabet for `text()` and `from_regex`): the codec spelling makes Hypothesis
encode each of the 1.1 million code points once per machine, ~200 MiB of peak memory on a first
run."""


BMP_JSON_CHARACTERS = st.characters(max_codepoint=0xFFFF, exclude_categories=_LONE_SURROGATES)
"""`JSON_CHARACTERS` up to U+FFFF: what strings for a pattern that reads a character past U+FFFF
as one or two units (`ecma_patterns.unit_sensitive`) are drawn from, since a string holding one
gets no verdict and would be thrown away (`^\\S+@\\S+$`: two draws in three)."""


@lru_cache(maxsize=256)
def json_text(min_size: int = 0, max_size: int | None = None) -> st.SearchStrategy[str]:
    """`st.text` over `JSON_CHARACTERS`: the one way strategies here draw free text. Shrinks
    towards the shortest text allowed. Built once per size (a mutator asks for one inside a
    draw)."""
    return st.text(JSON_CHARACTERS, min_size=min_size, max_size=max_size)


_EDGY_CHARACTERS = st.sampled_from(_EDGE_CHARACTERS + "a0 ")
"""The edge characters, with a few plain ones between them."""


def edge_rich_text(min_size: int, max_size: int) -> st.SearchStrategy[str]:
    """Text of `min_size` to `max_size` characters: from every character JSON can carry, or (as
    often) from the edge characters. Hypothesis merges the alphabets of `text(one_of(...))` into
    one set of code points, which drowned ten edge characters among a million (1 in 200
    characters drawn); a choice between two texts keeps them frequent, and each text is still
    drawn whole. Shrinks towards `json_text`'s simplest."""
    return st.one_of(json_text(min_size, max_size), st.text(_EDGY_CHARACTERS, min_size=min_size, max_size=max_size))
