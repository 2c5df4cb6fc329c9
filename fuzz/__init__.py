"""mcp-toolfuzz: the harness. Layers import downward only:

- `transport` moves bytes: a stdio subprocess (stdout is the channel, stderr is kept for
  reports), newline-delimited.
- `jsonrpc` parses what comes back into responses, server requests, notifications, or garbage.
- `session` is the JSON-RPC client over a transport: ids, answers matched by id while several
  requests are in flight, per-request timeouts, "no answer" and "target exited" as outcomes.
- `lifecycle` speaks MCP: `initialize`, `notifications/initialized`, paginated `tools/list`;
  `target` owns a started, initialized server and restarts it when it dies.
- `rules` names what is checked (stable ids, levels, the spec sentence); `oracle` classifies an
  answer and judges it against a case.
- `engine` runs Hypothesis over (tool x case kind) and turns violations into shrunk `findings`;
  it emits events and knows no reporter.
- `reports` render a run (terminal, JSON); `cli` parses arguments and calls the engine.

`strategies` (the package beside this one) knows nothing of any of it.
"""

from __future__ import annotations

__version__ = "0.1.0"
