"""The wire: how the harness reaches a server and speaks to it, below any judging.

- `transport`: stdio (a subprocess's stdin/stdout; stderr kept for reports), and
  `streamable_http` (POSTs, JSON or SSE answers, the revision's headers);
- `jsonrpc`: messages, ids, parsing a line that may be garbage;
- `session`: requests in flight matched by id, timeouts, "no answer" as an outcome;
- the two lifecycles: `handshake` (`initialize`, revisions 2024-11-05 to 2025-11-25) and
  `stateless` (`server/discover` and the per-request `_meta` envelope, 2026-07-28), with
  `lifecycle` choosing between them (era detection) and listing the tools;
- `shapes`: each revision's wire types, checked strictly.

Nothing here imports the oracle, the engine or a report.
"""
