"""The pytest plugin: a server's invariants checked in the test suite its authors already run.

    from fuzz.pytest_plugin import invariants

    test_my_server = invariants("python", "server.py", unavailable=["maintenance"])

Installing mcp-toolfuzz is enough (entry point `pytest11`). `invariants(...)` takes the target
(a stdio command; `url=` with `headers=`; `config=` with `server=`; or `fixture=`, the name of a
fixture that starts a server and returns its URL, its command or a `fuzz.target` spec) and any
`mcp-toolfuzz run` option by its long name (`tools=`, `rules=`, `profile=`, `mirror_tool=`,
`arguments={"tool.field": value}`, ...): the options become a `run` command line, parsed and
built into a run exactly as the CLI does (`cli.run_options_from`), so both faces judge alike.

**One test per (tool, rule)**, collected as `test_my_server::TOOL::RULE`: tool names are known
at collection, because the target is started then (once per session, or per module with
`scope="module"`) and lists its tools; a test per pair is what `-k add`, `-k unknown-tool`,
`-x`, xdist and `--junitxml` (a testcase per rule, classname per tool, like `--report junit`)
work on, and what a failure names. A pair passes when its rule was judged on the tool and found
nothing, fails with the rule, the minimal request, the answer and the replay command, and is
skipped with the reason the CLI gives (a destructive tool's cases, a rule that was not
exercised). A tool is fuzzed when its first selected test runs, all its case kinds in one run
(`engine.run_on` with `only`), by the rules of its selected tests: so `-k` fuzzes less, and `-x`
stops after the first tool with a failure. With `fixture=` the tools are known only once the
fixture has run, after collection: that declaration is one test, with a subtest per (tool,
rule) (pytest's `subtests`), failing on any.

Seed: `--hypothesis-seed`, else `seed=`, else 0 under a derandomized Hypothesis profile, else
random (each failure says how to repeat it). Examples per tool and case kind: `max_examples=`,
else the loaded Hypothesis profile's `max_examples` (`--hypothesis-profile`). Reproductions and
Hypothesis's example database go to `corpus=` when given (none by default). One process per
target: with xdist each worker starts its own target; `processes` is not used.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import pytest

from fuzz import engine
from fuzz.coverage import tool_exercise
from fuzz.errors import HarnessError
from fuzz.findings import RunResult, ToolSummary
from fuzz.hosted import HostedTarget
from fuzz.options import RunOptions
from fuzz.plan import ToolPlan, plan
from fuzz.reports.problems import ENVELOPE_DISPLAY, display, findings_text
from fuzz.target import HttpTarget, StdioTarget, TargetSpec
from strategies import CaseKind
from strategies.cases import ENVELOPE

_LISTS = {"tools", "exclude_tools", "rules", "exclude_rules"}
"""Options the CLI takes as one comma-separated value."""

_TARGET_KEYS = {"url", "headers", "config", "server", "fixture", "scope"}


@dataclass(frozen=True)
class Invariants:
    """A declaration: what `invariants(...)` returns for a target known at collection."""

    command: tuple[str, ...]
    arguments: tuple[str, ...]
    """The `run` command line its options make (the target included, but a command)."""
    scope: str
    seed: int | None
    max_examples: int | None
    line: int = 0
    """The line (0-based) of the `invariants(...)` call: where its tests are reported."""

    def where(self, name: str) -> str:
        return f"invariants() of {name}"


def invariants(
    *command: str,
    url: str | None = None,
    headers: dict[str, str] | None = None,
    config: str | Path | None = None,
    server: str | None = None,
    fixture: str | None = None,
    scope: str = "session",
    seed: int | None = None,
    max_examples: int | None = None,
    **options: Any,
) -> Any:
    """Declare a server's invariants as tests; assign the result to a name starting with `test`."""
    arguments = _arguments(options)
    if headers:
        arguments += [part for name, value in headers.items() for part in ("--header", f"{name}: {value}")]
    if url is not None:
        arguments += ["--url", url]
    if config is not None:
        arguments += ["--config", str(config)] + (["--server", server] if server else [])
    given = [name for name, present in (("a command", command), ("url=", url), ("config=", config), ("fixture=", fixture)) if present]
    if len(given) != 1:
        raise TypeError(f"invariants() takes one target: a command, url=, config= or fixture= (got {', '.join(given) or 'none'})")
    if scope not in ("session", "module"):
        raise TypeError(f"invariants(scope={scope!r}): scope is 'session' or 'module'")
    if fixture is not None:
        return _fixture_test(fixture, tuple(arguments), seed, max_examples)
    import sys

    caller = sys._getframe(1)
    return Invariants(tuple(command), tuple(arguments), scope, seed, max_examples, max(0, caller.f_lineno - 1))


def _arguments(options: dict[str, Any]) -> list[str]:
    """`run` options as its command line: `mirror_tool="m"` is `--mirror-tool m`, True a flag,
    a list repeats the option (or joins with commas where the CLI takes NAME,...), `arguments`
    a mapping of TOOL.FIELD to values."""
    arguments: list[str] = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if key == "arguments":
            for name, known in dict(value).items():
                for one in known if isinstance(known, list) else [known]:
                    arguments += ["--argument", f"{name}={one if isinstance(one, str) else json.dumps(one)}"]
        elif value is True:
            arguments.append(flag)
        elif value is False or value is None:
            continue
        elif isinstance(value, (list, tuple, set, frozenset)):
            if key in _LISTS:
                arguments += [flag, ",".join(map(str, value))]
            else:
                for one in value:
                    arguments += [flag, str(one)]
        else:
            arguments += [flag, str(value)]
    return arguments


# ------------------------------------------------------------------ building a run


def _run_options(arguments: Sequence[str], command: Sequence[str], where: str, config: pytest.Config, *,
                 seed: int | None, max_examples: int | None, spec: TargetSpec | None = None) -> RunOptions:
    from fuzz.cli import parsed_run, run_options_from

    given = list(arguments)
    if max_examples is None and "--max-examples" not in given:
        given += ["--max-examples", str(_profile_examples())]
    parsed = parsed_run([*given, "--processes", "1", "--no-progress"]
                        + ([] if "--corpus" in given else ["--no-corpus"]), where=where)
    options, _ = run_options_from(parsed, list(command) or ["(the fixture's server)"] if spec else list(command))
    if max_examples is not None:
        options = replace(options, max_examples=max_examples)
    return replace(options, seed=_seed(config, seed), replay_corpus=False, **({"target": spec} if spec else {}))


def _profile_examples() -> int:
    from hypothesis import settings

    return settings.default.max_examples


def _seed(config: pytest.Config, given: int | None) -> int:
    forced = config.getoption("hypothesis_seed", None)
    if forced is not None:
        try:
            return int(forced)
        except ValueError:
            return int.from_bytes(str(forced).encode()[:8], "big")
    if given is not None:
        return given
    from hypothesis import settings

    if settings.default.derandomize:
        return 0
    return config.stash.setdefault(_RANDOM_SEED, random.SystemRandom().randrange(2**32))


_RANDOM_SEED = pytest.StashKey[int]()


def _applicable(tool_plan: ToolPlan, rules: Sequence[str]) -> list[str]:
    """The rules that apply to a planned tool, before it is fuzzed (as the reports decide it)."""
    planned = ToolSummary(tool_plan.tool.name if tool_plan.tool else ENVELOPE, {kind: 0 for kind in tool_plan.kinds}, (),
                          tool_plan.skips)
    has_output = tool_plan.tool is not None and tool_plan.tool.output_schema is not None
    return list(tool_exercise(planned, rules, has_output_schema=has_output))


def _judged_rules(options: RunOptions) -> list[str]:
    from fuzz.profiles import PROFILES

    return [rule for rule in PROFILES[options.profile].rules if options.rules is None or rule in options.rules]


def _tool_plans(options: RunOptions, host: HostedTarget) -> list[ToolPlan]:
    plans = list(plan(host.target.tools, options.selection))
    return ([ToolPlan(None, (CaseKind.MALFORMED_REQUEST,))] if options.envelope else []) + plans


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
        return Verdict("failed", f"{display(tool)} was not fuzzed: {result.stopped_early or 'the run ended first'}")
    findings = [finding for finding in summary.findings if finding.rule.id == rule]
    if findings:
        return Verdict("failed", findings_text(findings) + f"\n\nrepeat: {repeat}")
    exercise = tool_exercise(summary, [rule], has_output_schema=summary.has_output_schema).get(rule)
    skipped = [skip for skip in summary.skips if exercise is not None and not exercise.exercised and skip.case.value in exercise.reason]
    if skipped:
        return Verdict("skipped", f"{display(tool)}: {skipped[0].reason}")
    if exercise is None or not exercise.exercised:
        reason = exercise.reason if exercise is not None else "it does not apply to this tool"
        if result.stopped_early:
            reason += f" (the run stopped early: {result.stopped_early})"
        return Verdict("skipped", f"{rule} not exercised on {display(tool)}: {reason}")
    return Verdict("passed")


# ------------------------------------------------------------------ collection


class _Hosts:
    """The session's open targets, by spec and scope key; all closed at the end of the session."""

    def __init__(self) -> None:
        self.open: dict[tuple[TargetSpec, str], HostedTarget] = {}

    def get(self, spec: TargetSpec, key: str, startup_timeout: float) -> HostedTarget:
        if (spec, key) not in self.open:
            self.open[(spec, key)] = HostedTarget(spec, startup_timeout=startup_timeout)
        return self.open[(spec, key)]

    def close(self, key: str | None = None) -> None:
        for (spec, scope_key), host in list(self.open.items()):
            if key is None or scope_key == key:
                host.close()
                del self.open[(spec, scope_key)]


_HOSTS = pytest.StashKey[_Hosts]()


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
            self.options = _run_options(declaration.arguments, declaration.command, where, self.config,
                                        seed=declaration.seed, max_examples=declaration.max_examples)
            self.scope_key = self.module_key if declaration.scope == "module" else "session"
            host = self.config.stash[_HOSTS].get(self.options.target, self.scope_key, self.options.startup_timeout)
            plans = _tool_plans(self.options, host)
        except HarnessError as error:
            raise self.CollectError(f"mcp-toolfuzz: {error}") from None
        rules = _judged_rules(self.options)
        for tool_plan in plans:
            name = tool_plan.tool.name if tool_plan.tool else ENVELOPE
            yield ToolCollector.from_parent(self, name=display(name), tool=name, rules=_applicable(tool_plan, rules))

    @property
    def module_key(self) -> str:
        module = self.getparent(pytest.Module)
        return module.nodeid if module is not None else self.nodeid

    def host(self) -> HostedTarget:
        return self.config.stash[_HOSTS].get(self.options.target, self.scope_key, self.options.startup_timeout)

    def result_for(self, tool: str, rules: Sequence[str]) -> RunResult:
        """The run of `tool` (made on first use, by `rules`)."""
        if tool not in self.results:
            options = replace(self.options, only=frozenset({tool}), envelope=tool == ENVELOPE,
                              rules=frozenset(rules))
            self.results[tool] = self.host().run(engine.run_on, options)
        return self.results[tool]

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
        selected = [item.rule for item in self.session.items if isinstance(item, RuleItem) and item.parent is tool_collector]
        declaration = self.declaration
        try:
            result = declaration.result_for(tool_collector.tool, selected or [self.rule])
        except HarnessError as error:
            pytest.fail(f"mcp-toolfuzz: {error}", pytrace=False)
        outcome = verdict(result, tool_collector.tool, self.rule, repeat=declaration.repeat(self.nodeid))
        if outcome.outcome == "failed":
            raise RuleFailed(outcome.text)
        if outcome.outcome == "skipped":
            raise pytest.skip.Exception(outcome.text, _use_item_location=True)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:  # type: ignore[override]
        if isinstance(excinfo.value, RuleFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path | str, int | None, str]:
        return self.path, self.declaration.declaration.line, f"{self.parent.name}::{self.rule}" if self.parent else self.rule


class RuleFailed(Exception):
    """A (tool, rule) test's failure: the findings, shown without a traceback."""


# ------------------------------------------------------------------ the fixture form


def _fixture_test(fixture: str, arguments: tuple[str, ...], seed: int | None, max_examples: int | None) -> Callable[..., None]:
    """One test that starts the server through `fixture` and reports a subtest per (tool, rule)."""

    def test_invariants(request: pytest.FixtureRequest) -> None:
        value = request.getfixturevalue(fixture)
        spec = _spec_of(value, fixture)
        where = f"{request.node.nodeid}: invariants(fixture={fixture!r})"
        try:
            options = _run_options(arguments, (), where, request.config, seed=seed, max_examples=max_examples, spec=spec)
            host = HostedTarget(spec, startup_timeout=options.startup_timeout)
        except HarnessError as error:
            pytest.fail(f"mcp-toolfuzz: {error}", pytrace=False)
        try:
            result = host.run(engine.run_on, options)
            pairs = [(tool_plan.tool.name if tool_plan.tool else ENVELOPE, rule)
                     for tool_plan in _tool_plans(options, host) for rule in _applicable(tool_plan, _judged_rules(options))]
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
        "its command (a list of strings), or a fuzz.target.StdioTarget / HttpTarget"
    )


def _report_subtests(request: pytest.FixtureRequest, verdicts: list[tuple[str, str, Verdict]]) -> None:
    try:
        subtests = request.getfixturevalue("subtests")
    except pytest.FixtureLookupError:
        subtests = None
    failed = [(tool, rule, v) for tool, rule, v in verdicts if v.outcome == "failed"]
    if subtests is not None:
        for tool, rule, outcome in verdicts:
            with subtests.test(msg=f"{display(tool)}::{rule}"):
                if outcome.outcome == "failed":
                    pytest.fail(outcome.text, pytrace=False)
                if outcome.outcome == "skipped":
                    pytest.skip(outcome.text)
        return
    if failed:
        pytest.fail("\n\n".join(f"{display(tool)}::{rule}\n{v.text}" for tool, rule, v in failed), pytrace=False)


# ------------------------------------------------------------------ hooks


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_HOSTS] = _Hosts()


def pytest_unconfigure(config: pytest.Config) -> None:
    hosts = config.stash.get(_HOSTS, None)
    if hosts is not None:
        hosts.close()


def pytest_pycollect_makeitem(collector: pytest.Collector, name: str, obj: object) -> pytest.Collector | None:
    if isinstance(obj, Invariants) and collector.funcnamefilter(name):  # type: ignore[attr-defined]
        return InvariantsCollector.from_parent(collector, name=name, declaration=obj)
    return None


def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """Close a module-scoped target after the module's last test."""
    if not isinstance(item, RuleItem) or item.declaration.declaration.scope != "module":
        return
    module = item.getparent(pytest.Module)
    following = nextitem.getparent(pytest.Module) if nextitem is not None else None
    if module is not None and following is not module:
        item.config.stash[_HOSTS].close(module.nodeid)


@pytest.fixture
def mcp_toolfuzz_command(request: pytest.FixtureRequest) -> list[str] | None:
    """The stdio command of the server under test, for exported regression files
    (`mcp-toolfuzz export --pytest`): the `mcp_toolfuzz_command` ini option, else the `command`
    of the mcp-toolfuzz settings file found from the rootdir, else None (the file's own
    SERVER_COMMAND). Override it in a conftest.py for a command computed at run time."""
    import shlex

    from fuzz import settings_file

    configured = request.config.getini("mcp_toolfuzz_command")
    if configured:
        return shlex.split(configured) if isinstance(configured, str) else list(configured)
    path = settings_file.find(Path(str(request.config.rootpath)))
    if path is not None:
        from fuzz.cli import _run_parser, build_parser

        settings = settings_file.load(path, _run_parser(build_parser()))
        if settings.command:
            return list(settings.command)
    return None


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini("mcp_toolfuzz_command", "the stdio command of the server under test, for exported regression files",
                  default="")


__all__ = ["Invariants", "invariants", "verdict", "ENVELOPE_DISPLAY"]
