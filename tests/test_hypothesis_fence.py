"""Hypothesis's private API, fenced: imported in one module, patched only by `install()`, and
each patch checked against the source it was written for."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import hypothesis

from strategies._hypothesis import REVIEWED, WRITTEN_FOR

ROOT = Path(__file__).resolve().parent.parent
PRIVATE = ("hypothesis.internal", "hypothesis.strategies._internal", "hypothesis.core", "hypothesis.control")
FENCE = ROOT / "strategies" / "_hypothesis"


def _in_a_fresh_interpreter(code: str, *arguments: str) -> str:
    run = subprocess.run([sys.executable, "-c", code, *arguments], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_only_the_fence_imports_hypothesis_s_private_modules_or_sets_its_private_attributes() -> None:
    found = []
    for path in sorted([*ROOT.glob("fuzz/**/*.py"), *ROOT.glob("strategies/**/*.py")]):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if any(name.startswith(PRIVATE) for name in names) and path != FENCE / "private.py":
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} imports {names}")
            if isinstance(node, ast.Attribute) and node.attr.startswith("_hypothesis_internal") and path.parent != FENCE:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} uses {node.attr}")
    assert not found, "\n".join(found)


_PATCHED = """
import json
from hypothesis.internal import filtering, lambda_sources
from hypothesis.internal.conjecture.engine import ConjectureRunner
from hypothesis.internal.conjecture.providers import HypothesisProvider
from hypothesis.strategies._internal.strategies import FilteredStrategy
import fuzz.faces._cli, fuzz.engine.run, fuzz.engine._scheduler, fuzz.faces.pytest_hooks, strategies

def patched():
    return {
        "filtered": getattr(FilteredStrategy.do_validate, "keeps_validation", False),
        "fresh": getattr(ConjectureRunner.generate_new_test_cases, "_toolfuzz_fresh_batches", False),
        "no local constants": getattr(HypothesisProvider._maybe_draw_constant, "_toolfuzz_no_local_constants", False),
        "described": lambda_sources.lambda_description.__module__ != "hypothesis.internal.lambda_sources",
        "bounds": filtering.get_numeric_predicate_bounds.__module__ != "hypothesis.internal.filtering",
    }

before = patched()
from strategies._hypothesis import install
install()
install()
print(json.dumps([before, patched()]))
"""


def test_importing_the_harness_patches_nothing_and_install_patches_everything() -> None:
    before, after = json.loads(_in_a_fresh_interpreter(_PATCHED))
    assert not any(before.values()), before
    assert all(after.values()), after


_FINGERPRINTS = """
import hashlib, importlib, inspect, json, sys
found = {}
for path in json.loads(sys.argv[1]):
    module, _, attribute = path.partition(":")
    try:
        target = importlib.import_module(module)
        for part in attribute.split("."):
            target = getattr(target, part)
        found[path] = hashlib.sha256(inspect.getsource(target).encode()).hexdigest()[:16]
    except (ImportError, AttributeError) as error:
        found[path] = f"gone: {error}"
print(json.dumps(found))
"""


def test_each_patch_was_reviewed_against_the_hypothesis_installed() -> None:
    """A patch replaces or re-implements private code: when a release changes that code, the
    patch may now do the wrong thing silently. Review it against the new source, then record
    the new fingerprint (and the release) in `strategies._hypothesis`."""
    found = json.loads(_in_a_fresh_interpreter(_FINGERPRINTS, json.dumps(list(REVIEWED))))
    changed = [
        f"{path} (patch: strategies._hypothesis.{patch}): reviewed {fingerprint}, found {found[path]}"
        for path, (fingerprint, patch) in REVIEWED.items()
        if found[path] != fingerprint
    ]
    assert not changed, f"Hypothesis {hypothesis.__version__} changed private code that the patches were written against (in {WRITTEN_FOR}):\n" + "\n".join(
        changed
    )
