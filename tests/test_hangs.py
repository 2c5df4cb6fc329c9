"""A target that hangs on some inputs is fuzzed in bounded time, its hangs are reported with a
minimal request, and a tool that is merely slow is not taken for one that hangs."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SERVERS, mcp_toolfuzz
from tests.servers.emoji_hang_server import HANGING_TOOLS, TOOLS, is_emoji

pytestmark = pytest.mark.slow
"""Every test here starts real servers or whole runs (the fast tier, `-m "not slow"`, leaves them out)."""

EMOJI_HANG = (sys.executable, str(SERVERS / "emoji_hang_server.py"))


def _show(finding: dict[str, Any]) -> str:
    return f"{finding['tool']} {finding.get('case')} {finding.get('label')}: request {json.dumps(finding['request'], ensure_ascii=False)}"


def _strings(value: Any) -> list[str]:
    """Every string value in `value`, at any depth (keys not included)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [string for item in value.values() for string in _strings(item)]
    if isinstance(value, list):
        return [string for item in value for string in _strings(item)]
    return []


def assert_minimal_hang(finding: dict[str, Any]) -> None:
    """The request of a hang finding is the simplest that hangs: one string (a value, or the key
    of an added property) is a single emoji, every other string is empty, integers at their simplest, optional arguments left out."""
    arguments = finding["request"]["params"].get("arguments")
    assert isinstance(arguments, dict), f"the arguments are not an object: {_show(finding)}"
    schema = TOOLS[finding["tool"]][1]
    properties = schema["properties"]
    # Invalid arguments keep their one mutation (an extra property, say) beside the emoji.
    mutated = finding["case"] == "invalid-arguments"
    assert set(schema["required"]) <= set(arguments) and (mutated or set(arguments) == set(schema["required"])), (
        f"the arguments should be exactly the required {sorted(schema['required'])}: {_show(finding)}"
    )
    assert len(set(arguments) - set(schema["required"])) <= int(mutated), f"more than the one mutation: {_show(finding)}"
    # The emoji may be the key of the one added property (the server hangs on keys too).
    strings = _strings(arguments) + [key for key in arguments if key not in properties]
    emoji = [string for string in strings if string != ""]
    assert len(emoji) == 1, f"exactly one string should be non-empty, not {len(emoji)}: {_show(finding)}"
    (single,) = emoji
    assert len(single) == 1 and is_emoji(single), (
        f"the non-empty string should be one emoji character, not {single!r} (code points {[f'U+{ord(c):04X}' for c in single]}): {_show(finding)}"
    )
    # The one mutation may be an integer's (`arguments.limit: above maximum 50` keeps 51).
    mutated_key = finding["label"].split(":")[0].removeprefix("arguments.") if mutated else None
    for key, value in arguments.items():
        if properties.get(key, {}).get("type") == "integer" and key != mutated_key:
            simplest = properties[key].get("minimum", 0)
            assert value == simplest, f"integer argument {key!r} should be {simplest}, not {value!r}: {_show(finding)}"


def _fuzz(*options: str, timeout: float) -> tuple[list[dict[str, Any]], float, str]:
    started = time.monotonic()
    run = mcp_toolfuzz(
        "run",
        "--no-corpus",
        "--seed",
        "7",
        "--timeout",
        "5",
        "--report",
        "json:report.json",
        *options,
        "--",
        *EMOJI_HANG,
        timeout=timeout,
    )
    elapsed = time.monotonic() - started
    assert "Traceback" not in run.stderr, run.stderr
    findings = json.loads(Path("report.json").read_text())["findings"]
    return findings, elapsed, "\n".join(_show(finding) + f" [{finding['rule']}]" for finding in findings)


def test_hangs_are_found_and_shrunk_to_one_emoji() -> None:
    """Every tool of the server, at defaults but --max-examples 50: each tool that takes a string
    hangs and is reported with one emoji in the one string that needs it (the rest at its
    simplest); `slow`, answering after 2 s while the others hang, is not. (How long it takes is
    measured outside the suite, on an idle machine: docs/throughput.md; ~47 s.)"""
    findings, _, summary = _fuzz("--max-examples", "50", timeout=600)
    hangs = [finding for finding in findings if finding["rule"] == "request-answered"]
    assert {finding["tool"] for finding in hangs} == set(HANGING_TOOLS), f"request-answered findings:\n{summary}"
    assert not [finding for finding in findings if finding["tool"] in ("slow", "count")], summary
    for finding in hangs:
        assert_minimal_hang(finding)


def test_a_slow_tool_is_not_taken_for_a_hanging_one() -> None:
    """`slow` answers every call after 2 s, within --timeout 5: no finding."""
    findings, _, summary = _fuzz("--max-examples", "5", "--tools", "slow", timeout=170)
    assert [finding for finding in findings if finding["tool"] == "slow"] == [], f"slow is slow, not broken:\n{summary}"
