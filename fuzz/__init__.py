"""mcp-toolfuzz: the harness, with a package per layer.

Imports go down the list below only, and `tests/test_layers.py` checks it.
A module no other package imports is private, its name starting with `_`; each package's `__all__`
names its public modules, and `tests/test_exports.py` checks both.

`faces/` is how a run is asked for.
It holds the CLI (`_cli`, with its grammar in `_arguments`), the settings file, and MCP client configs.
It also holds the pytest plugin, whose public import is `from fuzz.pytest_plugin import invariants`.
All of them build the same `RunOptions`.

`reports/` has one module per format.
The formats are terminal, JSON, JUnit, SARIF, Markdown, and a run per revision.
All read the same `RunResult` and the engine's events.

`engine/` is what runs when.
`run` takes a run from its options to its result.
`_scheduler` runs explorations `--workers` at a time, in rounds that spread `--max-time`.
`dispatch` sends every case.
`_processes` splits the tools between worker processes.
`revisions` makes a run per revision.
`engine/phases/` holds each kind of search, and a new phase goes there.
`_random_search`, for one, is a Hypothesis run per tool and case kind.
The engine emits events and knows no reporter.

`corpus/` keeps findings on disk (`reproductions`).
It also holds `replay`, `export` to pytest, `baseline`, and Hypothesis's example `database`.

`judging/` holds `rules`: stable ids, levels, and the spec sentence.
It holds `profiles`, and `answers`, which says what kind of answer came.
The `oracle` says which rule an exchange violates.
Then come `tool_names`, `coverage`, and `findings`, the records every layer above reads.
A new rule goes here.

`wire/` reaches a server and speaks to it, trusting nothing it reads.
Its transports are stdio and Streamable HTTP, read through bounded `framing`.
Its JSON-RPC `_session` matches answers by id, with several requests in flight.
No answer, an unreadable answer and a target gone are outcomes there, never exceptions.
It also holds the two lifecycles and the wire `shapes`.
The `target` is started, opened and restarted there.

The base modules sit here.
`errors` holds one root error, with exit code 2.
`text` escapes server text wherever a person or a CI system reads it.
`files` writes files atomically.
`redaction` keeps secrets out of what is printed and written.

`strategies`, the package beside this one, is pure Hypothesis.
It knows nothing of any of this.
"""

from __future__ import annotations

# The one place the version is written: pyproject.toml reads it from here without importing
# the package ([tool.setuptools.dynamic]); CHANGELOG.md says what each version holds.
__version__ = "0.1.0"

__all__ = [
    "__version__",
    "corpus",
    "demo_server",
    "engine",
    "errors",
    "faces",
    "files",
    "judging",
    "pytest_plugin",
    "redaction",
    "reports",
    "text",
    "wire",
]
