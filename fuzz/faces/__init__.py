"""The faces: how a person or a test suite asks for a run.

Every face builds the same `RunOptions`. `cli` holds the `run`, `replay` and `export` commands.
`console` is its entry point, which keeps plugin imports out of worker processes. `settings_file`
reads `mcp-toolfuzz.toml` or `[tool.mcp-toolfuzz]` as command-line options. `client_config` takes a
server from an MCP client's `mcpServers` configuration.

The pytest plugin is four modules. `pytest_plugin` is what pytest loads. `pytest_invariants` is what
`invariants(...)` declares. `pytest_items` holds its collectors and tests. `hosted` keeps a target
open for them, in a thread of its own. The public import is `from fuzz.pytest_plugin import
invariants`.
"""
