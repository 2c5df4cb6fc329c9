"""The phases of a run, each a kind of search judged by the same oracle.

Each phase is a class of one interface (`phase.Phase`), listed in order in `registry`. The
scheduler runs them without naming any.

`boundary` is the boundary phase. It sends each exploration's deterministic cases (`deterministic`:
canonical cases, and each tool's boundary values keyword by keyword) before any random search.

`random_search` makes one Hypothesis run per tool and case kind, in batches. Its findings are
shrunk.

`sequences` runs call sequences over the tools, as a Hypothesis state machine. Its helpers are
`state_probe`, `sequence_machine`, `sequence_shrink`, `sequence_blame`, `phase_targets`,
`spare_targets` and `state_recheck`.

The phases share `trials` (send a batch, judge each answer), `hypothesis_runs` (settings, a search
in parts, why a run stopped), `batches` (how many cases go at once) and `violations` (what a
failing example raises).
"""
