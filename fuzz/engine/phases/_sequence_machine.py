"""The state machine of the sequence phase (`fuzz.engine.phases._sequences`).

It has one rule per tool that takes part. One more rule calls the tools that appear during a
sequence.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, precondition, rule

from fuzz.judging.findings import Use
from strategies import Tool


class SequenceExploration(Protocol):
    """What the machine needs of `fuzz.engine.phases._sequences.SequenceExploration`."""

    @property
    def tools(self) -> Sequence[Tool]: ...

    @property
    def _strategies(self) -> Mapping[str, st.SearchStrategy[Any]]: ...

    def begin(self) -> Any: ...

    def call(self, tool: Tool, arguments: dict[str, Any], uses: tuple[Use, ...] = ()) -> None: ...

    def reuse(self, tool: Tool, arguments: dict[str, Any], fresh: bool, pick: int) -> tuple[dict[str, Any], tuple[Use, ...]]: ...


_PICKS = st.integers(0, 255)


def machine_class(exploration: SequenceExploration) -> type[RuleBasedStateMachine]:
    """A state machine class for this run's tools.

    It is built once per phase, and its strategies once per tool.
    """

    def __init__(self: Any) -> None:
        RuleBasedStateMachine.__init__(self)
        self.sequence = exploration.begin()

    namespace: dict[str, Any] = {"__init__": __init__}
    for index, tool in enumerate(exploration.tools):
        namespace[f"call_{index}_{_identifier(tool.name)}"] = rule(
            arguments=exploration._strategies[tool.name],
            fresh=st.booleans(),
            pick=_PICKS,
        )(_caller(exploration, tool))

    def has_appeared(self: Any) -> bool:
        return bool(self.sequence.appeared)

    def call_appeared(self: Any, pick: int, data: st.DataObject) -> None:
        name = self.sequence.appeared[pick % len(self.sequence.appeared)]
        tool = self.sequence.listed[name]
        labelled = data.draw(exploration._strategies[name])
        arguments, uses = exploration.reuse(tool, labelled.value, False, pick)
        exploration.call(tool, arguments, uses)

    namespace["call_a_tool_that_appeared"] = precondition(has_appeared)(rule(pick=_PICKS, data=st.data())(call_appeared))
    return type("ToolSequences", (RuleBasedStateMachine,), namespace)


def _caller(exploration: SequenceExploration, tool: Tool) -> Callable[..., None]:
    def call(self: Any, arguments: Any, fresh: bool, pick: int) -> None:
        if tool.name not in self.sequence.listed:
            return  # gone from the list: it was called once more when it went
        reused, uses = exploration.reuse(tool, arguments.value, fresh, pick)
        exploration.call(tool, reused, uses)

    return call


def _identifier(name: str) -> str:
    return "".join(character if character.isalnum() else "_" for character in name)[:40]
