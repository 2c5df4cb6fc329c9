"""The engine: what runs when, and each phase's search.

- `run`: a run from its options (`options`) to its result: the target opened, the corpus
  replayed, the tools planned (`plan`), the phases run, stopped by --max-time, Ctrl-C or SIGTERM
  keeping what was found; `keeping` holds what it keeps as it goes;
- `scheduler`: explorations run `--workers` at a time, in rounds that spread --max-time, extra
  workers while explorations wait on the target;
- `dispatch`: every case of a run sent through one dispatcher (batches in flight, re-sent alone
  when concurrency could explain what came of it, restarts one at a time);
- `shards`: a run's tools split between worker processes, their events and results merged;
- `revisions`: a run per revision the target speaks (`--protocol-version all`);
- `events`: what the engine tells its listeners (reports, the pytest plugin) — it knows none;
- `known_arguments`: known-good values resolved against the listing;
- `novelty`, `finished_runs`: whether an exploration still sends new cases; finished
  Hypothesis runs freed when they end;
- `phases/`: each phase wires one kind of search to Hypothesis: the boundary phase, the random
  search, call sequences.
"""
