"""Each exploration's canonical cases: the simplest form of every shape it will search (malformed
envelopes, empty and near-miss names, non-object outputs), all sent at once before the search
takes a worker, so that what the search leaves out (a shape the server never answers) is known
before it starts and does not depend on timing."""

from __future__ import annotations

from fuzz.engine.dispatch import Dispatcher, Sent
from strategies import Case, CaseKind, Tool
from strategies.cases import canonical_cases, canonical_envelope_cases
from strategies.meta import Stateless

Canonical = tuple[list[Case], list[Sent]]
"""An exploration's canonical cases and what came of them."""

def canonical_for(tool: Tool | None, kind: CaseKind, listed: tuple[str, ...], stateless: Stateless | None = None) -> list[Case]:
    """The canonical cases of one exploration (of its first round)."""
    return canonical_envelope_cases() if tool is None else canonical_cases(tool, kind, listed, stateless)


async def send_canonical(dispatcher: Dispatcher, cases: list[Case], *, timeout: float) -> Canonical:
    """Send an exploration's canonical cases all at once, in trio, before the exploration takes a
    worker: a shape the server drops costs its timeout in the background, while the workers
    search. What the search leaves out (shapes never answered) is known before it starts, so it
    does not depend on timing."""
    return cases, await dispatcher.send(cases, timeout=timeout, watched=False)
