"""The pytest plugin: a server's invariants checked in the test suite its authors already run.

    from fuzz.pytest_plugin import invariants

    test_my_server = invariants("python", "server.py", unavailable=["maintenance"])

Installing mcp-toolfuzz is enough (entry point `pytest11`). `invariants(...)` takes the target
and any `mcp-toolfuzz run` option by its long name. The target is a stdio command, or `url=`
with `headers=`, or `config=` with `server=`. It may also be `fixture=`: the name of a fixture
that starts a server and returns its URL, its command or a `fuzz.wire.target` spec. Options
include `tools=`, `rules=`, `profile=`, `mirror_tool=` and `arguments={"tool.field": value}`.
The options become a `run` command line. It is parsed and built into a run exactly as the CLI
does (`_cli.run_options_from`), so both faces judge alike.

**One test per (tool, rule)**, collected as `test_my_server::TOOL::RULE`. Tool names are known
at collection, because the target is started then and lists its tools. It starts once per
session, or once per module with `scope="module"`. A test per pair is what a failure names. It
is also what `-k add`, `-k unknown-tool`, `-x`, xdist and `--junitxml` work on. `--junitxml`
writes a testcase per rule and a classname per tool, like `--report junit`.

A pair passes when its rule was judged on the tool and found nothing. It fails with the rule,
the minimal request, the answer and the replay command. It is skipped with the reason the CLI
gives, such as a destructive tool's cases or a rule that was not exercised.

A tool is fuzzed when its first selected test runs, in one run (`fuzz.engine.run.run_on` with
`only`). That run uses the rules of its selected tests and the case kinds they judge. So `-k add`
fuzzes only `add`. `-k unknown-tool` only sends unknown-tool cases. `-x` stops after the first
tool with a failure.

With `fixture=`, the tools are known only once the fixture has run, after collection. That
declaration is one test, with a subtest per (tool, rule) (pytest's `subtests`). It fails on
any.

The seed is `--hypothesis-seed`, else `seed=`. Without them, it is 0 under a derandomized
Hypothesis profile, else random; each failure says how to repeat it. Examples per tool and case
kind come from `max_examples=`. Else they come from the loaded Hypothesis profile's
`max_examples` (`--hypothesis-profile`). Reproductions and Hypothesis's example database go to
`corpus=` when given, and nowhere by default. There is one process per target. With xdist, each
worker starts its own target; `processes` is not used.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from fuzz.faces._pytest_invariants import Invariants, run_arguments


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
    arguments = run_arguments(options)
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
        from fuzz.faces._pytest_items import fixture_test

        return fixture_test(fixture, tuple(arguments), seed, max_examples)
    caller = sys._getframe(1)
    return Invariants(tuple(command), tuple(arguments), scope, seed, max_examples, max(0, caller.f_lineno - 1))


# ------------------------------------------------------------------ hooks


def pytest_unconfigure(config: pytest.Config) -> None:
    """Close every target the session started (after failures, Ctrl-C and -x too)."""
    if "fuzz.faces._pytest_items" in sys.modules:
        sys.modules["fuzz.faces._pytest_items"].close_hosts(config)


def pytest_pycollect_makeitem(collector: pytest.Collector, name: str, obj: object) -> pytest.Collector | None:
    if isinstance(obj, Invariants) and collector.funcnamefilter(name):  # type: ignore[attr-defined]
        from fuzz.faces._pytest_items import collector_for

        return collector_for(collector, name, obj)
    return None


def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    if "fuzz.faces._pytest_items" in sys.modules:
        sys.modules["fuzz.faces._pytest_items"].close_module_target(item, nextitem)


@pytest.fixture
def mcp_toolfuzz_command(request: pytest.FixtureRequest) -> list[str] | None:
    """The stdio command of the server under test, for exported regression files.

    Exported files come from `mcp-toolfuzz export --pytest`. The command is the
    `mcp_toolfuzz_command` ini option. Else it is the `command` of the mcp-toolfuzz settings file
    found from the rootdir. Else it is None, and the file uses its own SERVER_COMMAND. Override it
    in a conftest.py for a command computed at run time.
    """
    import shlex

    from fuzz.faces import _settings_file

    configured = request.config.getini("mcp_toolfuzz_command")
    if configured:
        return shlex.split(configured) if isinstance(configured, str) else list(configured)
    path = _settings_file.find(Path(str(request.config.rootpath)))
    if path is not None:
        from fuzz.faces._arguments import build_parser
        from fuzz.faces._cli import _run_parser

        settings = _settings_file.load(path, _run_parser(build_parser()))
        if settings.command:
            return list(settings.command)
    return None


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini("mcp_toolfuzz_command", "the stdio command of the server under test, for exported regression files", default="")


__all__ = ["Invariants", "invariants"]
