"""mcp-toolfuzz: the harness, a package per layer. Imports go down this list only
(`tests/test_layers.py` checks it):

- `faces/`: how a run is asked for: the CLI (`cli`, its grammar in `arguments`), the settings
  file, MCP client configs, and the pytest plugin (`from fuzz.pytest_plugin import
  invariants` is its public import). All build the same `RunOptions`.
- `reports/`: one module per format (terminal, JSON, JUnit, SARIF, Markdown, a run per
  revision), all reading the same `RunResult` and the engine's events.
- `engine/`: what runs when. `run` takes a run from its options to its result; `scheduler`
  runs explorations `--workers` at a time in rounds that spread `--max-time`; `dispatch` sends
  every case; `shards` splits the tools between worker processes; `revisions` makes a run per
  revision. `engine/phases/` holds each kind of search (today `random_search`, one Hypothesis
  run per tool and case kind): a new phase goes there. The engine emits events and knows no
  reporter.
- `corpus/`: findings on disk (`reproductions`), `replay`, `export` to pytest, `baseline`, and
  Hypothesis's example `database`.
- `judging/`: `rules` (stable ids, levels, the spec sentence), `profiles`, `answers` (what
  kind of answer came), the `oracle` (which rule an exchange violates), `tool_names`,
  `coverage`, and `findings` (the records every layer above reads). A new rule goes here.
- `wire/`: reaching a server and speaking to it, trusting nothing it reads: transports (stdio,
  Streamable HTTP) through bounded `framing`, the JSON-RPC `session` (answers matched by id with
  several requests in flight; no answer, an unreadable answer, a target gone: outcomes, never
  exceptions), the two lifecycles, the wire `shapes`, and the `target` (started, opened,
  restarted).
- the base modules here: `errors` (one root, exit 2), `text` (server text escaped wherever a
  person or a CI system reads it), `files` (atomic writes), `redaction`.

`strategies` (the package beside this one) is pure Hypothesis and knows nothing of any of it.
"""

from __future__ import annotations

# The one place the version is written: pyproject.toml reads it from here without importing
# the package ([tool.setuptools.dynamic]); CHANGELOG.md says what each version holds.
__version__ = "0.1.0"
