"""Judging: what an answer is, and whether it is what the case deserved.

`rules` says what is checked.
Each rule has a stable id (a public interface), a level, and the sentence it comes from.
`profiles` says which rules judge a run, and what each case kind must get.
`sep-2145` is the default profile; `published` follows each revision's own text.
`answers` gives the class of an answer, read from the envelope alone.
An answer is a success, a tool execution error, a protocol error, or malformed or unreadable.
It may also be no answer at all, or the target gone.
`oracle` finds the first violated rule for a case and its exchange, and words the finding.
`tool_names` judges the listed names against the revision's Tool Names section.
`listing_checks` judges the 2026-07-28 listing asked again (caching hints, order, resultType), and
`request_state` a tampered `requestState`: both for the rounds phase and its replay.
`coverage` says which rules a run exercised on which tool, and why not where it did not.
`findings` holds the records of a judged violation, a tool's summary and a whole run's result.
`tool_changes` compares two tool lists, and says which changes break clients.
The corpus, the engine and every report read them.
`nights` makes a run into the small record a history keeps. It says what changed since the night
before, and the day each problem first appeared.

A new rule goes in `rules`, with its id, level and source.
It also goes in the profiles that judge it, and in the oracle check that finds it.
A rule about the listing is checked beside `tool_names` instead.

Judging reads what the wire hands up.
It knows nothing of the engine, the corpus or the reports.
"""

__all__ = [
    "answers",
    "coverage",
    "findings",
    "listing_checks",
    "nights",
    "oracle",
    "profiles",
    "request_state",
    "rules",
    "schema_coverage",
    "task_methods",
    "tool_changes",
    "tool_names",
]
