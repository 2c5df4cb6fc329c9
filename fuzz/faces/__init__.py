"""The faces: how a person or a test suite asks for a run.

Every face builds the same `RunOptions`. `_cli` holds the `run`, `replay` and `export` commands.
`console` is its entry point, which keeps plugin imports out of worker processes. `_settings_file`
reads `mcp-toolfuzz.toml` or `[tool.mcp-toolfuzz]` as command-line options. `_client_config` takes a
server from an MCP client's `mcpServers` configuration.

The pytest plugin is four modules. `pytest_hooks` is what pytest loads. `_pytest_invariants` is what
`invariants(...)` declares. `_pytest_items` holds its collectors and tests. `_hosted` keeps a target
open for them, in a thread of its own. The public import is `from fuzz.pytest_plugin import
invariants`.
"""

__all__ = [
    "console",
    "pytest_hooks",
]
