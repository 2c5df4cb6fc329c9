"""The phases of a run, each a kind of search judged by the same oracle.

Each phase is a class of one interface (`_phase.Phase`), listed in order in `registry`. The
scheduler runs them without naming any.

`_boundary` is the boundary phase. It sends each exploration's deterministic cases (`deterministic`:
canonical cases, and each tool's boundary values keyword by keyword) before any random search.

`_random_search` makes one Hypothesis run per tool and case kind, in batches. Its findings are
shrunk.

`_sequences` runs call sequences over the tools, as a Hypothesis state machine. Its helpers are
`_state_probe`, `_sequence_machine`, `_sequence_shrink`, `_sequence_blame`, `_phase_targets`,
`_spare_targets` and `_state_recheck`.

`_task_methods` is the task phase: the task methods' own rules, where the server declares tasks.

The phases share `trials` (send a batch, judge each answer), `_hypothesis_runs` (settings, a search
in parts, why a run stopped), `_batches` (how many cases go at once) and `_violations` (what a
failing example raises).
"""

__all__ = [
    "deterministic",
    "registry",
    "trials",
]
