"""The characters and free text every strategy draws.

Names, envelopes, cases, mutations and the schema generator draw free text only through
`json_text`, or through `edge_rich_text`, which mixes the edge characters in. So no strategy
ever draws a lone surrogate. Every value is JSON text a conforming client could send.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

from hypothesis import strategies as st

_EDGE_CHARACTERS = "\0\u0301\u05d0\u0627\u202e\u200d\ufeff\U0001f600\U00010348\u2028"
"""Characters that servers mishandle, mixed into any text.

They are NUL and a combining acute. Then Hebrew and Arabic letters, which are right-to-left, and
the RLO override. Then a zero width joiner and a BOM. Then an emoji and a Gothic letter, from
the astral planes. Last, LINE SEPARATOR: raw in JSON text, but a line break to some readers.
"""

_LONE_SURROGATES: tuple[Literal["Cs"], ...] = ("Cs",)

JSON_CHARACTERS = st.characters(exclude_categories=_LONE_SURROGATES)
"""Every character JSON text can carry: any code point but the lone surrogates.

RFC 8259 leaves lone surrogates undefined, I-JSON forbids them, and UTF-8 cannot encode them.
Every text strategy draws from this set, through `json_text`.

It is spelled by category, not as `characters(codec="utf-8")`. That spelling gives the same set,
and is Hypothesis's default alphabet for `text()` and `from_regex`. But it makes Hypothesis
encode each of the 1.1 million code points once per machine, which costs much memory on a
first run.
"""


BMP_JSON_CHARACTERS = st.characters(max_codepoint=0xFFFF, exclude_categories=_LONE_SURROGATES)
"""`JSON_CHARACTERS` up to U+FFFF, for patterns that count UTF-16 units.

Some patterns read a character past U+FFFF as one or two units
(`ecma_patterns.unit_sensitive`). Strings for them are drawn from this set. A string holding
such a character gets no verdict and would be thrown away. For `^\\S+@\\S+$`, that was most
draws.
"""


@lru_cache(maxsize=256)
def json_text(min_size: int = 0, max_size: int | None = None) -> st.SearchStrategy[str]:
    """`st.text` over `JSON_CHARACTERS`: the one way strategies here draw free text.

    Shrinks towards the shortest text allowed. It is built once per size, because a mutator
    asks for one inside a draw.
    """
    return st.text(JSON_CHARACTERS, min_size=min_size, max_size=max_size)


_EDGY_CHARACTERS = st.sampled_from(_EDGE_CHARACTERS + "a0 ")
"""The edge characters, with a few plain ones between them."""


def edge_rich_text(min_size: int, max_size: int) -> st.SearchStrategy[str]:
    """Text of `min_size` to `max_size` characters, often from the edge characters.

    It draws from every character JSON can carry, or as often from the edge characters.
    Hypothesis merges the alphabets of `text(one_of(...))` into one set of code points. That
    drowned ten edge characters among a million, and they were rarely drawn. A choice between
    two texts keeps them frequent, and each text is still drawn whole. Shrinks towards
    `json_text`'s simplest.
    """
    return st.one_of(json_text(min_size, max_size), st.text(_EDGY_CHARACTERS, min_size=min_size, max_size=max_size))
