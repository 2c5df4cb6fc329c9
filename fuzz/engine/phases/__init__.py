"""The phases of a run, each wiring one kind of search to Hypothesis and judging what it sends
with the same oracle: `random_search` (one Hypothesis run per tool and case kind)."""
