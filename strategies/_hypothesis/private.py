"""Hypothesis's private names that mcp-toolfuzz uses, imported here and nowhere else.

Hypothesis promises nothing about them. A release that moves one breaks this import alone, and
`tests/test_hypothesis_fence.py` says which name moved and which patch to review.
"""

from __future__ import annotations

from hypothesis.control import BuildContext
from hypothesis.core import threadlocal
from hypothesis.internal import filtering, lambda_sources
from hypothesis.internal.conjecture import providers
from hypothesis.internal.conjecture.choice import ChoiceTemplate, ValueHole, choice_constraints_key, choice_permitted
from hypothesis.internal.conjecture.data import MAX_DEPTH, ConjectureData
from hypothesis.internal.conjecture.engine import ConjectureRunner
from hypothesis.internal.conjecture.providers import GLOBAL_CONSTANTS, HypothesisProvider
from hypothesis.internal.conjecture.shrinker import sort_key
from hypothesis.internal.conjecture.utils import calc_label_from_callable, calc_label_from_cls, combine_labels
from hypothesis.strategies._internal.collections import TupleStrategy
from hypothesis.strategies._internal.core import CompositeStrategy
from hypothesis.strategies._internal.deferred import DeferredStrategy
from hypothesis.strategies._internal.lazy import LazyStrategy, unwrap_strategies
from hypothesis.strategies._internal.strategies import FilteredStrategy

__all__ = [
    "GLOBAL_CONSTANTS",
    "MAX_DEPTH",
    "BuildContext",
    "ChoiceTemplate",
    "CompositeStrategy",
    "ConjectureData",
    "ConjectureRunner",
    "DeferredStrategy",
    "FilteredStrategy",
    "HypothesisProvider",
    "LazyStrategy",
    "TupleStrategy",
    "ValueHole",
    "calc_label_from_callable",
    "calc_label_from_cls",
    "choice_constraints_key",
    "choice_permitted",
    "combine_labels",
    "filtering",
    "lambda_sources",
    "providers",
    "sort_key",
    "threadlocal",
    "unwrap_strategies",
]
