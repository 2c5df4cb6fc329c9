"""Judging: what an answer is, and whether it is what the case deserved.

- `rules`: what is checked, each rule with a stable id (public interface), a level and the
  sentence it comes from;
- `profiles`: which rules judge a run and what each case kind must get (`sep-2145`, the
  default; `published`, each revision's own text);
- `answers`: the class of an answer (a success, a tool execution error, a protocol error, a
  malformed or unreadable answer, none, the target gone), read from the envelope alone;
- `oracle`: the first violated rule for a case and its exchange, and the finding's message;
- `tool_names`: the listed names judged against the revision's Tool Names section;
- `coverage`: which rules a run exercised on which tool, and why not where it did not;
- `findings`: the records of a judged violation, a tool's summary and a whole run's result,
  which the corpus, the engine and every report read.

A new rule goes in `rules` (its id, level, source), in the profiles that judge it, and in the
oracle check (or, for a rule about the listing, beside `tool_names`) that finds it. Judging
reads what the wire hands up and knows nothing of the engine, the corpus or the reports.
"""
