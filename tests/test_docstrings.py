"""Docstrings that teach: short sentences, measured over the whole tree.

A sentence is what ends with `.`, `!` or `?` before a capital, a backtick, a parenthesis or a
quote. Module, class, function and attribute docstrings count.
"""

from __future__ import annotations

import ast
import itertools
import re
import statistics
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MEDIAN_AT_MOST = 14
"""Words a docstring sentence has at the median (Trio 14, Hypothesis 16, Schemathesis 9)."""
LONG = 40
LONG_SHARE_AT_MOST = 0.05

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`(\"'])")


def _docstrings(tree: ast.AST) -> Iterator[str]:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and (docstring := ast.get_docstring(node, clean=False)):
            yield docstring
        for before, after in itertools.pairwise(body):
            if isinstance(before, (ast.Assign, ast.AnnAssign)) and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant):
                yield from (after.value.value,) if isinstance(after.value.value, str) else ()


def _sentence_lengths() -> list[int]:
    lengths = []
    for path in sorted([*ROOT.glob("fuzz/**/*.py"), *ROOT.glob("strategies/**/*.py")]):
        for docstring in _docstrings(ast.parse(path.read_text(encoding="utf-8"))):
            lengths += [len(sentence.split()) for sentence in _SENTENCE_END.split(" ".join(docstring.split())) if sentence]
    return lengths


def test_docstring_sentences_are_short() -> None:
    lengths = _sentence_lengths()
    long_share = sum(length > LONG for length in lengths) / len(lengths)
    assert statistics.median(lengths) <= MEDIAN_AT_MOST, f"median {statistics.median(lengths)} words a sentence"
    assert long_share <= LONG_SHARE_AT_MOST, f"{long_share:.1%} of {len(lengths)} sentences are over {LONG} words"
