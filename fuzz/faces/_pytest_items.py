"""The pytest plugin's collectors, tests and verdicts.

`fuzz.faces.pytest_hooks` is what pytest loads. This module, with the engine, is imported only by a
test module that declares invariants.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from fuzz.engine.options import RunOptions, RunPhase
from fuzz.engine.plan import ToolPlan, plan, revision_kinds_for, with_envelope
from fuzz.engine.run import run_on
from fuzz.errors import ConfigurationError, HarnessError
from fuzz.faces._hosted import HostedTarget
from fuzz.faces._pytest_invariants import Invariants
from fuzz.judging.coverage import EXITED, NO_ANSWER, kinds_judging, rules_judged, tool_exercise
from fuzz.judging.findings import RunResult, ToolSummary
from fuzz.judging.rules import RULES
from fuzz.reports.problems import findings_text, shown
from fuzz.text import printable
from fuzz.wire.lifecycle import ALL_VERSIONS
from fuzz.wire.target import HttpTarget, StdioTarget, TargetSpec
from fuzz.wire.tasks import task_era
from strategies import CaseKind
from strategies.cases import ENVELOPE, SEQUENCES

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr

# ------------------------------------------------------------------ building a run


def _run_options(
    arguments: Sequence[str],
    command: Sequence[str],
    where: str,
    config: pytest.Config,
    *,
    seed: int | None,
    max_examples: int | None,
    spec: TargetSpec | None = None,
) -> RunOptions:
    from fuzz.faces._cli import parsed_run, run_options_from

    given = list(arguments)
    if max_examples is None and "--max-examples" not in given:
        given += ["--max-examples", str(_profile_examples())]
    parsed = parsed_run([*given, "--processes", "1", "--no-progress"] + ([] if "--corpus" in given else ["--no-corpus"]), where=where)
    if parsed.protocol_version == ALL_VERSIONS:
        raise ConfigurationError(f"{where}: protocol_version={ALL_VERSIONS!r} is the CLI's; declare one invariants() per revision")
    options, _ = run_options_from(parsed, list(command) or ["(the fixture's server)"] if spec else list(command))
    if max_examples is not None:
        options = replace(options, max_examples=max_examples)
    options = replace(options, seed=_seed(config, seed), replay_corpus=False)
    return replace(options, target=spec) if spec else options


def _hypothesis_profile() -> Any:
    """The loaded Hypothesis profile (`--hypothesis-profile`).

    `settings.default` is None only before Hypothesis has loaded one. Its pytest plugin loads one
    before any test is collected.
    """
    from hypothesis import settings

    loaded = settings.default
    assert loaded is not None, "Hypothesis loads a settings profile before pytest collects"
    return loaded


def _profile_examples() -> int:

    examples: int = _hypothesis_profile().max_examples
    return examples


def _seed(config: pytest.Config, given: int | None) -> int:
    forced = config.getoption("hypothesis_seed", None)
    if forced is not None:
        try:
            return int(forced)
        except ValueError:
            return int.from_bytes(str(forced).encode()[:8], "big")
    if given is not None:
        return given
    if _hypothesis_profile().derandomize:
        return 0
    return config.stash.setdefault(_RANDOM_SEED, random.SystemRandom().randrange(2**32))


_RANDOM_SEED = pytest.StashKey[int]()
_HOSTS = pytest.StashKey["_Hosts"]()


def _applicable(tool_plan: ToolPlan, rules: Sequence[str], plans: Sequence[ToolPlan]) -> list[str]:
    """The rules that apply to a planned tool before it is fuzzed, as the reports decide it.

    For the sequences, they are the rules their calls are judged by (`_SEQUENCE_KINDS`), over the
    tools that take part. Those are the tools of `plans` that get valid arguments. The one-call
    rules (`_NOT_IN_SEQUENCES`) are left out.
    """
    if tool_plan.name == SEQUENCES:
        taking_part = [plan.tool for plan in plans if plan.tool is not None and CaseKind.VALID_ARGUMENTS in plan.kinds]
        planned = ToolSummary(SEQUENCES, dict.fromkeys(_SEQUENCE_KINDS, 0), (), tool_plan.skips)
        has_output = any(tool.output_schema is not None for tool in taking_part)
        return [rule for rule in tool_exercise(planned, rules, has_output_schema=has_output) if rule not in _NOT_IN_SEQUENCES]
    planned = ToolSummary(tool_plan.name, {kind: 0 for kind in tool_plan.kinds}, (), tool_plan.skips)
    has_output = tool_plan.tool is not None and tool_plan.tool.output_schema is not None
    return list(tool_exercise(planned, rules, has_output_schema=has_output))


_SEQUENCE_KINDS = (CaseKind.VALID_ARGUMENTS, CaseKind.INVALID_ARGUMENTS, CaseKind.UNKNOWN_TOOL)
"""The kinds a sequence's calls are judged as (`Finding.judged_as`).

One is a call with the arguments drawn: valid, or not after a reused value. The other is a call of a
tool that left the list.
"""
_ENDING = frozenset(rule.id for rule in RULES if rule.about_the_request)
_NOT_IN_SEQUENCES = _ENDING | {rule.id for rule in RULES if not rule.in_sequences}
"""Rules no sequence finding is of.

A call left unanswered, or a target that died, ends a sequence; the single cases report them. Tool
names are judged on the listing.
"""


def _judged_rules(options: RunOptions, host: HostedTarget) -> list[str]:
    """The rules judged, as the reports decide it.

    Rules the target's revision does not state are left out. Otherwise tool-name, under the
    published profile before 2025-11-25, would pass unjudged.
    """
    target = host.target
    description = target.description
    return rules_judged(
        options.profile, options.rules, description.protocol_version, over_http=isinstance(target.spec, HttpTarget), tasks=task_era(description)
    )


def _tool_plans(options: RunOptions, host: HostedTarget) -> list[ToolPlan]:
    kinds = revision_kinds_for(host.target.stateless)
    return list(with_envelope(plan(host.target.tools, options.selection, kinds), options.envelope, sequences=RunPhase.SEQUENCE in options.phases))


# ------------------------------------------------------------------ verdicts


@dataclass(frozen=True)
class Verdict:
    outcome: str
    """"passed", "failed" or "skipped"."""
    text: str = ""


def verdict(result: RunResult, tool: str, rule: str, *, repeat: str) -> Verdict:
    """What the run says of `rule` on `tool`."""
    summary = next((summary for summary in result.tools if summary.tool == tool), None)
    if summary is None:
        return Verdict("failed", f"{shown(tool)} was not fuzzed: {result.stopped_early or 'the run ended first'}")
    findings = [finding for finding in summary.findings if finding.rule.id == rule]
    if findings:
        return Verdict("failed", findings_text(findings) + f"\n\nrepeat: {repeat}")
    if tool == SEQUENCES:
        return _sequence_verdict(summary, rule)
    exercise = tool_exercise(summary, [rule], has_output_schema=summary.has_output_schema).get(rule)
    judging = kinds_judging([rule]) or frozenset()
    skipped = [skip for skip in summary.skips if skip.case in judging and exercise is not None and not exercise.exercised]
    if skipped:
        return Verdict("skipped", f"{shown(tool)}: {printable(skipped[0].reason)}")
    if exercise is None or not exercise.exercised:
        reason = exercise.reason if exercise is not None else "it does not apply to this tool"
        if result.stopped_early:
            reason += f" (the run stopped early: {result.stopped_early})"
        return Verdict("skipped", f"{rule} not exercised on {shown(tool)}: {printable(reason)}")
    return Verdict("passed")


def _sequence_verdict(summary: ToolSummary, rule: str) -> Verdict:
    """`rule` on the sequences, which found nothing of it.

    It passed when the rule was judged on their calls as on valid-arguments cases. Most rules are,
    since the run counts them together. It is skipped when the sequences were skipped, or none was
    answered. It is skipped too when the rule judges only another kind.
    """
    if summary.skips:
        return Verdict("skipped", f"{SEQUENCES}: {printable(summary.skips[0].reason)}")
    answers = summary.answers.get(CaseKind.SEQUENCE, {})
    if not any(count for name, count in answers.items() if name not in (NO_ANSWER, EXITED)):
        return Verdict("skipped", f"{rule} not exercised in the {SEQUENCES}: none of their {sum(answers.values())} calls was answered")
    sent = {CaseKind.VALID_ARGUMENTS: summary.cases_sent.get(CaseKind.SEQUENCE, 0)}
    as_valid = replace(summary, cases_sent=sent, answers={CaseKind.VALID_ARGUMENTS: answers})
    exercise = tool_exercise(as_valid, [rule], has_output_schema=False).get(rule)
    if exercise is None:
        return Verdict(
            "skipped",
            f"{rule}: no sequence violated it, but the run does not count the sequences' calls judged as the "
            "cases it judges (of a tool that left the list, with invalid arguments, with an output schema)",
        )
    if not exercise.exercised:
        return Verdict("skipped", f"{rule} not exercised in the {SEQUENCES}: {printable(exercise.reason)}")
    return Verdict("passed")


# ------------------------------------------------------------------ collection


class _Hosts:
    """The session's open targets, by spec, revision and scope key.

    All of them are closed at the end of the session.
    """

    def __init__(self) -> None:
        self.open: dict[tuple[TargetSpec, str | None, str], HostedTarget] = {}

    def get(self, options: RunOptions, key: str) -> HostedTarget:
        place = (options.target, options.protocol_version, key)
        if place not in self.open:
            self.open[place] = HostedTarget(
                options.target, startup_timeout=options.startup_timeout, protocol_version=options.protocol_version, max_message_bytes=options.max_answer_size
            )
        return self.open[place]

    def close(self, key: str | None = None) -> None:
        for place, host in list(self.open.items()):
            if key is None or place[2] == key:
                host.close()
                del self.open[place]


class InvariantsCollector(pytest.Collector):
    """A declaration's tests: a `ToolCollector` per planned tool (the envelope first)."""

    def __init__(self, *, declaration: Invariants, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.declaration = declaration
        self.results: dict[str, RunResult] = {}

    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        declaration = self.declaration
        where = f"{self.nodeid}: {declaration.where(self.name)}"
        try:
            self.options = _run_options(
                declaration.arguments, declaration.command, where, self.config, seed=declaration.seed, max_examples=declaration.max_examples
            )
            self.scope_key = self.module_key if declaration.scope == "module" else "session"
            plans = _tool_plans(self.options, self.host())
        except HarnessError as error:
            raise self.CollectError(f"mcp-toolfuzz: {error}") from None
        rules = _judged_rules(self.options, self.host())
        for tool_plan in plans:
            name = tool_plan.name
            yield ToolCollector.from_parent(self, name=shown(name), tool=name, rules=_applicable(tool_plan, rules, plans))

    @property
    def module_key(self) -> str:
        module = self.getparent(pytest.Module)
        return module.nodeid if module is not None else self.nodeid

    def host(self) -> HostedTarget:
        return hosts(self.config).get(self.options, self.scope_key)

    def result_for(self, tool: ToolCollector) -> RunResult:
        """The run of `tool` (made on first use, by the rules of its selected tests)."""
        if tool.tool not in self.results:
            rules = tool.selected_rules()
            kinds = kinds_judging(rules)
            if tool.tool == SEQUENCES:  # judged as several kinds; a call unanswered still ends its sequence
                kinds, rules = frozenset({CaseKind.SEQUENCE}), [*rules, *(set(_judged_rules(self.options, self.host())) & _ENDING)]
            options = replace(self.options, only=frozenset({tool.tool}), envelope=tool.tool == ENVELOPE, rules=frozenset(rules), kinds=kinds)
            self.results[tool.tool] = self.host().run(run_on, options)
        return self.results[tool.tool]

    def repeat(self, nodeid: str) -> str:
        return f"pytest {nodeid!r} --hypothesis-seed {self.options.seed}"


class ToolCollector(pytest.Collector):
    def __init__(self, *, tool: str, rules: list[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.tool = tool
        self.rules = rules

    def collect(self) -> Iterator[pytest.Item]:
        for rule in self.rules:
            yield RuleItem.from_parent(self, name=rule, rule=rule)

    def selected_rules(self) -> list[str]:
        """The rules of this tool's tests that the session runs (after `-k` and the like)."""
        return [item.rule for item in self.session.items if isinstance(item, RuleItem) and item.parent is self]


class RuleItem(pytest.Item):
    def __init__(self, *, rule: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rule = rule

    @property
    def declaration(self) -> InvariantsCollector:
        assert isinstance(self.parent, ToolCollector) and isinstance(self.parent.parent, InvariantsCollector)
        return self.parent.parent

    def runtest(self) -> None:
        tool_collector = self.parent
        assert isinstance(tool_collector, ToolCollector)
        declaration = self.declaration
        try:
            result = declaration.result_for(tool_collector)
        except HarnessError as error:
            pytest.fail(f"mcp-toolfuzz: {error}", pytrace=False)
        outcome = verdict(result, tool_collector.tool, self.rule, repeat=declaration.repeat(self.nodeid))
        summary = next((summary for summary in result.tools if summary.tool == tool_collector.tool), None)
        self.user_properties += [("seed", result.seed), ("casesSent", summary.total_sent if summary else 0)]
        self.user_properties += [
            ("reproduction", finding.reproduction) for finding in (summary.findings if summary else ()) if finding.rule.id == self.rule and finding.reproduction
        ]
        if outcome.outcome == "failed":
            raise RuleFailed(outcome.text)
        if outcome.outcome == "skipped":
            raise pytest.skip.Exception(outcome.text, _use_item_location=True)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str | TerminalRepr:
        if isinstance(excinfo.value, RuleFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path | str, int | None, str]:
        return self.path, self.declaration.declaration.line, f"{self.parent.name}::{self.rule}" if self.parent else self.rule


class RuleFailed(Exception):
    """A (tool, rule) test's failure: the findings, shown without a traceback."""


# ------------------------------------------------------------------ the fixture form


def fixture_test(fixture: str, arguments: tuple[str, ...], seed: int | None, max_examples: int | None) -> Callable[..., None]:
    """One test that starts the server through `fixture` and reports a subtest per (tool, rule)."""

    def test_invariants(request: pytest.FixtureRequest) -> None:
        value = request.getfixturevalue(fixture)
        spec = _spec_of(value, fixture)
        where = f"{request.node.nodeid}: invariants(fixture={fixture!r})"
        try:
            options = _run_options(arguments, (), where, request.config, seed=seed, max_examples=max_examples, spec=spec)
            host = HostedTarget(
                spec, startup_timeout=options.startup_timeout, protocol_version=options.protocol_version, max_message_bytes=options.max_answer_size
            )
        except HarnessError as error:
            pytest.fail(f"mcp-toolfuzz: {error}", pytrace=False)
        try:
            result = host.run(run_on, options)
            plans = _tool_plans(options, host)
            pairs = [(tool_plan.name, rule) for tool_plan in plans for rule in _applicable(tool_plan, _judged_rules(options, host), plans)]
        finally:
            host.close()
        repeat = f"pytest {request.node.nodeid!r} --hypothesis-seed {options.seed}"
        verdicts = [(tool, rule, verdict(result, tool, rule, repeat=repeat)) for tool, rule in pairs]
        _report_subtests(request, verdicts)

    test_invariants.__name__ = f"test_invariants_of_{fixture}"
    return test_invariants


def _spec_of(value: Any, fixture: str) -> TargetSpec:
    if isinstance(value, (StdioTarget, HttpTarget)):
        return value
    if isinstance(value, str) and value.startswith(("http://", "https://")):
        return HttpTarget(value)
    if isinstance(value, (list, tuple)) and value and all(isinstance(part, str) for part in value):
        return StdioTarget(tuple(value))
    raise pytest.UsageError(
        f"invariants(fixture={fixture!r}): the fixture returned {value!r}; expected a server's URL (http://...), "
        "its command (a list of strings), or a fuzz.wire.target.StdioTarget / HttpTarget"
    )


def _report_subtests(request: pytest.FixtureRequest, verdicts: list[tuple[str, str, Verdict]]) -> None:
    try:
        subtests = request.getfixturevalue("subtests")
    except pytest.FixtureLookupError:
        subtests = None
    failed = [(tool, rule, v) for tool, rule, v in verdicts if v.outcome == "failed"]
    if subtests is not None:
        for tool, rule, outcome in verdicts:
            with subtests.test(msg=f"{shown(tool)}::{rule}"):
                if outcome.outcome == "failed":
                    pytest.fail(outcome.text, pytrace=False)
                if outcome.outcome == "skipped":
                    pytest.skip(outcome.text)
        return
    if failed:
        pytest.fail("\n\n".join(f"{shown(tool)}::{rule}\n{v.text}" for tool, rule, v in failed), pytrace=False)


def hosts(config: pytest.Config) -> _Hosts:
    """The session's open targets (made on first use)."""
    if _HOSTS not in config.stash:
        config.stash[_HOSTS] = _Hosts()
    return config.stash[_HOSTS]


def close_hosts(config: pytest.Config, key: str | None = None) -> None:
    if _HOSTS in config.stash:
        config.stash[_HOSTS].close(key)


def collector_for(collector: pytest.Collector, name: str, declaration: Invariants) -> InvariantsCollector:
    return InvariantsCollector.from_parent(collector, name=name, declaration=declaration)


def close_module_target(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """Close a module-scoped target after the module's last test."""
    if not isinstance(item, RuleItem) or item.declaration.declaration.scope != "module":
        return
    module = item.getparent(pytest.Module)
    following = nextitem.getparent(pytest.Module) if nextitem is not None else None
    if module is not None and following is not module:
        close_hosts(item.config, module.nodeid)
