"""A rule's facts live with the rule: nothing else in the harness names a rule by its id."""

from __future__ import annotations

import ast
from pathlib import Path

from fuzz.judging.rules import RULES, RULES_BY_ID, Evidence, Revisions

ROOT = Path(__file__).resolve().parent.parent


def test_no_module_but_the_rules_names_a_rule_by_its_id() -> None:
    """A string equal to a rule id in the harness's code means a fact kept away from its rule
    (a set of ids, a `yield "tool-failure"`). Docstrings and messages that mention an id are
    longer strings and do not count."""
    named = []
    for path in sorted(ROOT.glob("fuzz/**/*.py")):
        if path.name == "rules.py" and path.parent.name == "judging":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in RULES_BY_ID:
                named.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}")
    assert not named, "rule ids outside fuzz/judging/rules.py:\n" + "\n".join(named)


def test_each_rule_judged_on_its_kind_names_the_kind() -> None:
    for rule in RULES:
        if rule.evidence is Evidence.AN_ANSWER_OF_ITS_KIND:
            assert rule.judged_on is not None, rule.id
        if rule.revisions in (Revisions.STATELESS, Revisions.STATELESS_OVER_HTTP):
            assert "2026-07-28" in rule.unjudged, rule.id
        if rule.revisions in (Revisions.TASKS, Revisions.TASKS_AUGMENTED, Revisions.TASKS_EXTENSION):
            assert "tasks" in rule.unjudged, rule.id


def test_a_profile_s_restatement_of_a_rule_is_the_same_rule() -> None:
    from fuzz.judging.profiles import SEP_2145, published

    old = published("2025-06-18")
    assert old.rule("unknown-tool") == SEP_2145.rule("unknown-tool")
    assert old.rule("unknown-tool").source != SEP_2145.rule("unknown-tool").source
    assert len({old.rule("unknown-tool"), SEP_2145.rule("unknown-tool")}) == 1
    assert old.rule("unknown-tool") != SEP_2145.rule("tool-failure")
