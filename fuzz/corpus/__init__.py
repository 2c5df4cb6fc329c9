"""The corpus: findings kept on disk and brought back.

- `reproductions`: a finding as a self-contained, versioned, content-addressed JSON file (the
  target, the handshake, the exact request and answer, the rule, the tool's schema);
- `targets`: what identifies a target from one night to the next, and names its subdirectory;
- `ownership`: which of a shared corpus's files are a target's (its subdirectory, and the files
  written before targets were recorded that name its command);
- `replay`: a reproduction sent again, FIXED or STILL FAILING (or ERROR when it cannot be run);
- `sequence_replay`: a sequence's steps sent again, each reused value taken from this replay's
  answers;
- `export`: a reproduction as a standalone pytest file;
- `baseline`: the findings a project has accepted, so that only new ones fail a run;
- `database`: where Hypothesis keeps its examples (beside the corpus, another directory, a Redis
  server shared between machines, or none), each part guarded so that a missing, read-only or
  corrupt directory, or a Redis server that goes away, never stops a run once it has begun.

The corpus reads the wire (to replay) and judging (to judge a replay again); the engine writes
into it as findings are made.
"""
