"""The phases of a run, each a kind of search judged by the same oracle.

- `canonical`: the boundary phase. Each tool's boundary values, keyword by keyword, sent before
  any random search.
- `random_search`: one Hypothesis run per tool and case kind, in batches; findings shrunk.
- `sequences`: call sequences over the tools, as a Hypothesis state machine. Its helpers:
  `state_probe`, `sequence_machine`, `sequence_shrink`, `sequence_blame`, `phase_targets`,
  `fresh_targets`.
- `trials` and `violations`: sending a batch and judging it, and the violations a failing
  example raises, shared by the phases.
"""
