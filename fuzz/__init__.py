"""mcp-toolfuzz: the harness. Layers import downward only:

- `wire` reaches a server and speaks to it: transports (stdio, Streamable HTTP), the JSON-RPC
  `session` (ids, answers matched by id while several requests are in flight, timeouts, "no
  answer" and "target exited" as outcomes), and the two lifecycles (the `initialize` handshake,
  the stateless `server/discover` revision); `target` owns a started server, knows the revision
  it speaks, and restarts it when it dies.
- `rules` names what is checked (stable ids, levels, the spec sentence); `oracle` classifies an
  answer and judges it against a case.
- `dispatch` sends every case of a run: batches in flight together, a request re-sent alone
  when concurrency could explain what came of it, one restart at a time.
- `exploration` is one Hypothesis run over one tool x case kind, its examples batches of cases,
  its violations shrunk into `findings`; `engine` runs `--workers` explorations at once
  (`options` holds what it is asked), spreads `--max-time`, writes reproductions, emits events
  and knows no reporter; `hypothesis_threads` makes what Hypothesis shares between those
  threads (reading lambda sources, local constants) safe to share, so that no draw depends on
  which thread ran when.
- `shards` splits a run's tools between `--processes` forked worker processes, each with its
  own target, and merges their events and results into one run.
- `revisions` makes a run per revision the target speaks (`--protocol-version all`) and finds
  what they classified differently.
- `reports` render a run (terminal, JSON, JUnit, SARIF, Markdown), or a run per revision
  (`by_revision`); `cli` parses arguments and
  calls the engine; `pytest_plugin` (what pytest loads) and `pytest_items` (its tests, on a
  target kept open by `hosted`) are the other face, building runs with the CLI's code.

`strategies` (the package beside this one) knows nothing of any of it.
"""

from __future__ import annotations

__version__ = "0.1.0"
