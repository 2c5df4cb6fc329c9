"""The faces: how a person or a test suite asks for a run, all building the same `RunOptions`.

- `cli` (with `console`, the entry point that keeps plugin imports out of worker processes):
  the `run`, `replay` and `export` commands;
- `settings_file`: `mcp-toolfuzz.toml` or `[tool.mcp-toolfuzz]`, read as command-line options;
- `client_config`: a server taken from an MCP client's `mcpServers` configuration;
- `pytest_plugin` (what pytest loads), `pytest_invariants` (what `invariants(...)` declares),
  `pytest_items` (its collectors and tests) and `hosted` (a target kept open in a thread of its
  own for them). The public import is `from fuzz.pytest_plugin import invariants`.
"""
