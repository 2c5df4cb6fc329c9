"""The corpus: findings kept on disk and brought back.

`reproductions` writes a finding as a self-contained, versioned, content-addressed JSON file. The
file holds the target, the handshake, the exact request and answer, the rule, and the tool's schema.

`targets` says what identifies a target from one night to the next, and names its subdirectory.
`ownership` says which of a shared corpus's files are a target's. Those are the files in its
subdirectory. They are also the files that name its command and were written before targets were
recorded.

`replay` sends a reproduction again and says FIXED or STILL FAILING. It says ERROR when the
reproduction cannot be run, and TOOL GONE when the target no longer lists its tool. `sequence_replay` sends a sequence's steps again. It takes each reused
value from this replay's answers. `export` writes a reproduction as a standalone pytest file.
`baseline` holds the findings a project has accepted, so that only new ones fail a run.
`history` keeps one record a run (`nights.jsonl`), read back for the trend and the delta since the
night before.
`tool_lists` keeps each target's last tool list, so that the next run can say what changed.

`database` says where Hypothesis keeps its examples. It may be beside the corpus, in another
directory, on a Redis server shared between machines, or nowhere. Each part is guarded. So a
missing, read-only or corrupt directory never stops a run once it has begun. Nor does a Redis server
that goes away.

The corpus reads the wire, to replay. It reads judging, to judge a replay again. The engine writes
into it as findings are made.
"""

__all__ = [
    "baseline",
    "database",
    "export",
    "history",
    "ownership",
    "replay",
    "reproductions",
    "sequence_replay",
    "targets",
    "tool_lists",
]
