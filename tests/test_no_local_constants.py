"""The harness's runs draw no "local constant" (`strategies._hypothesis.no_local_constants`): the
literals of the modules a process has loaded (a console script's, a pytest user's test modules, a
checkout's) never change what a seed draws, while a user's own Hypothesis test still draws them."""

from __future__ import annotations

import contextlib
import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from hypothesis.internal.conjecture import providers

from fuzz.engine.phases import _hypothesis_runs
from fuzz.judging.findings import RunResult
from fuzz.wire.target import StdioTarget
from strategies._hypothesis import install
from strategies._hypothesis.no_local_constants import without_local_constants
from tests.conftest import SERVERS, fuzz

DISTINCT = [f"qz{number}" for number in range(20)]
"""Strings no strategy would draw by chance."""
LITERALS = [f"{number}" for number in range(40)] + ["true", "false", "/srv/data", *DISTINCT]
"""Strings the lax server takes for an integer (`first`) or a boolean, its root, and `DISTINCT`."""


@pytest.fixture
def module_of_literals(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A module of the user's, outside site-packages, loaded and read for Hypothesis's local
    constants as Hypothesis reads it. Its literals are the only local constants meanwhile (the
    modules loaded before are marked read); Hypothesis's state is put back afterwards."""
    saved = providers._local_constants
    monkeypatch.setattr(
        providers,
        "_local_constants",
        type(saved)(
            integers=providers.SortedSet(), floats=providers.SortedSet(key=providers.float_to_int), bytes=providers.SortedSet(), strings=providers.SortedSet()
        ),
    )
    monkeypatch.setattr(providers, "_seen_modules", {id(module) for module in list(sys.modules.values())})
    monkeypatch.setattr(providers, "_sys_modules_len", None)
    (tmp_path / "users_module_of_literals.py").write_text("VALUES = [" + ", ".join(repr(value) for value in LITERALS) + "]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module("users_module_of_literals")
    providers.CONSTANTS_CACHE.cache.clear()
    try:
        assert set(providers._get_local_constants().strings) == set(LITERALS)
        yield
    finally:
        del sys.modules["users_module_of_literals"]
        providers.CONSTANTS_CACHE.cache.clear()


def _lax_run() -> RunResult:
    return fuzz(StdioTarget((sys.executable, str(SERVERS / "lax_server.py"))), seed=9, max_examples=40, timeout=5.0)


def _answers(result: RunResult) -> dict[str, dict[str, dict[str, int]]]:
    return {summary.tool: {kind.value: dict(counts) for kind, counts in summary.answers.items()} for summary in result.tools}


@pytest.mark.slow
def test_a_module_of_literals_loaded_changes_nothing_a_run_sends(request: pytest.FixtureRequest) -> None:
    before = _answers(_lax_run())
    request.getfixturevalue("module_of_literals")
    assert _answers(_lax_run()) == before


@pytest.mark.slow
def test_without_the_patch_the_same_module_changes_the_cases(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the patch prevents (so the test above can fail): the module's digit strings are drawn
    as the lax server's `first`, which it takes, and the answers change."""
    monkeypatch.setattr(_hypothesis_runs, "without_local_constants", contextlib.nullcontext)
    before = _answers(_lax_run())
    request.getfixturevalue("module_of_literals")
    assert _answers(_lax_run()) != before


def _draws_a_literal() -> bool:
    """Whether a plain Hypothesis test draws one of `DISTINCT` among 600 strings."""
    drawn: set[str] = set()

    @settings(max_examples=600, database=None, phases=[Phase.generate], derandomize=True)
    @given(st.text(max_size=10))
    def test(text: str) -> None:
        drawn.add(text)

    test()
    return bool(drawn & set(DISTINCT))


def test_a_users_own_hypothesis_test_still_draws_the_modules_literals(module_of_literals: None) -> None:
    install()
    assert _draws_a_literal(), "outside the harness's runs, Hypothesis's local constants are drawn"
    with without_local_constants():
        assert not _draws_a_literal(), "inside the block, they are not"
