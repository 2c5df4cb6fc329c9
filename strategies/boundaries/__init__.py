"""The boundary phase's values, and the sites the schema coverage counts.

`_values` puts each keyword of a schema at its edges. It is deterministic, and its values are
checked like every label. `_sites` says which sides of which keywords a value sent reached.
"""

from __future__ import annotations

from strategies.boundaries._cases import BOUNDARY_KINDS as BOUNDARY_KINDS
from strategies.boundaries._cases import boundary_cases as boundary_cases
from strategies.boundaries._sites import KeywordSite as KeywordSite
from strategies.boundaries._sites import Side as Side
from strategies.boundaries._sites import keyword_sites as keyword_sites
from strategies.boundaries._sites import reached as reached
from strategies.boundaries._values import BOUNDARY_LIMIT as BOUNDARY_LIMIT
from strategies.boundaries._values import Boundaries as Boundaries
from strategies.boundaries._values import boundary_values as boundary_values

__all__ = [
    "BOUNDARY_KINDS",
    "BOUNDARY_LIMIT",
    "Boundaries",
    "KeywordSite",
    "Side",
    "boundary_cases",
    "boundary_values",
    "keyword_sites",
    "reached",
    "simplest",
]
