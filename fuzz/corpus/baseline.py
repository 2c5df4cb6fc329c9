"""Baselines: findings already known, so that a nightly job fails only on new ones.

A baseline file lists findings by rule, tool and case kind. `--baseline FILE` reports matching
findings as known, and they fail no run. It reports entries this run did not reproduce as stale.
`--baseline-update` writes the run's findings to FILE.
"""

from __future__ import annotations

import json
from pathlib import Path

from fuzz.errors import ConfigurationError
from fuzz.files import write_json_atomically
from fuzz.judging.findings import FindingKey, RunResult

FORMAT = "mcp-toolfuzz/baseline"
VERSION = 1


def load(path: Path) -> frozenset[FindingKey]:
    """Raises ConfigurationError, naming the file and the problem, when it cannot be used."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigurationError(f"--baseline {path}: no such file (create it with --baseline-update)") from None
    except (OSError, ValueError, UnicodeDecodeError) as error:
        raise ConfigurationError(f"--baseline {path}: not a readable JSON file ({error})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("findings"), list):
        raise ConfigurationError(f'--baseline {path}: not an mcp-toolfuzz baseline (expected "format": "{FORMAT}" and a "findings" list)')
    keys: set[FindingKey] = set()
    for entry in data["findings"]:
        if not isinstance(entry, dict) or not isinstance(entry.get("rule"), str) or not isinstance(entry.get("case"), str):
            raise ConfigurationError(f"--baseline {path}: an entry is not {{rule, tool, case}}: {entry!r:.120}")
        keys.add(FindingKey(entry["rule"], entry.get("tool") or "", entry["case"]))
    return frozenset(keys)


def write(result: RunResult, path: Path) -> None:
    keys = sorted({finding.key for finding in result.findings} | {r.key for r in result.replayed if r.key and r.status == "STILL FAILING"})
    write_json_atomically({"format": FORMAT, "version": VERSION, "findings": [key.as_json() for key in keys]}, path)
