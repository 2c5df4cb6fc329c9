"""The wire: how the harness reaches a server and speaks to it.

This layer sits below any judging. Its modules:

`_transport` speaks stdio: a subprocess's stdin and stdout, with stderr kept for reports.
`_streamable_http` speaks HTTP: POSTs, JSON or SSE answers, and the revision's headers.
`jsonrpc` holds messages and ids, and parses a line that may be garbage.
`_session` matches requests in flight by id and handles timeouts.
To it, "no answer" is an outcome, not an error.

There are two lifecycles.
`handshake` opens with `initialize`, for revisions 2024-11-05 to 2025-11-25.
`stateless` uses `server/discover` and the per-request `_meta` envelope, for 2026-07-28.
`lifecycle` chooses between them (era detection) and lists the tools.
`shapes` checks each revision's wire types, strictly.
`tasks` follows a call's task to its end, `rounds` a 2026-07-28 call's `input_required` answers, and
`state_trials` retries a call with its `requestState` tampered with.

Nothing here imports the oracle, the engine or a report.
"""

__all__ = [
    "framing",
    "handshake",
    "jsonrpc",
    "lifecycle",
    "opening",
    "replies",
    "rounds",
    "shapes",
    "state_trials",
    "stateless",
    "target",
    "tasks",
]
