"""The engine: what runs when, and each phase's search.

`run` takes a run from its options (`options`) to its result. It opens the target, replays the
corpus and plans the tools (`plan`). Then it runs the phases, until --max-time, Ctrl-C or SIGTERM
stops it. It keeps what was found, and `_keeping` holds what it keeps as it goes.

`_scheduler` runs explorations `--workers` at a time, in rounds that spread --max-time. It starts
extra workers while explorations wait on the target.

`dispatch` sends every case of a run through one dispatcher. It keeps batches in flight. It re-sends
a case alone when concurrency could explain what came of it. It makes one restart at a time.

`_processes` splits a run's tools between worker processes; `_process_events` merges their events and results.

`revisions` makes a run per revision the target speaks (`--protocol-version all`).

`events` is what the engine tells its listeners: reports, the pytest plugin. The engine knows none
of them.

`known_arguments` resolves known-good values against the listing.

`novelty` says whether an exploration still sends new cases. `finished_runs` frees finished
Hypothesis runs when they end.

`phases/` wires each kind of search to Hypothesis: the boundary phase, the random search, and call
sequences.
"""

__all__ = [
    "context",
    "dispatch",
    "events",
    "examples",
    "finished_runs",
    "jobs",
    "known_arguments",
    "novelty",
    "options",
    "phases",
    "plan",
    "revisions",
    "run",
    "schema_reach",
    "sharding",
    "stops",
]
