"""The phases of a run, each a kind of search judged by the same oracle.

`canonical` is the boundary phase. It sends each exploration's canonical cases, and each tool's
boundary values keyword by keyword, before any random search.

`random_search` makes one Hypothesis run per tool and case kind, in batches. Its findings are
shrunk.

`sequences` runs call sequences over the tools, as a Hypothesis state machine. Its helpers are
`state_probe`, `sequence_machine`, `sequence_shrink`, `sequence_blame`, `phase_targets` and
`spare_targets`.

`trials` sends a batch and judges it. `violations` holds the violations a failing example raises.
The phases share both.
"""
