"""What a strategy needs to know of a tool: the record built from one `tools/list` entry."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from strategies.schemas import InvalidSchema, SchemaCheck


class TaskSupport(Enum):
    """How a tool takes task-augmented calls: its `execution.taskSupport` (2025-11-25).

    Absent, or a value the revision does not define, is `forbidden`, the revision's default.
    """

    FORBIDDEN = "forbidden"
    OPTIONAL = "optional"
    REQUIRED = "required"


@dataclass(frozen=True, slots=True)
class Tool:
    """A listed tool: its name, its schemas and its annotations.

    The schemas are checked to be JSON Schema when the record is made. Otherwise it raises
    InvalidSchema, a ValueError. So every strategy can rely on `input_check`. `listing` is the
    entry exactly as the server sent it.
    """

    name: str
    input_schema: Mapping[str, Any]
    output_schema: Mapping[str, Any] | None = None
    annotations: Mapping[str, Any] = field(default_factory=dict)
    listing: Mapping[str, Any] = field(default_factory=dict)
    input_check: SchemaCheck = field(init=False, repr=False, compare=False)
    output_check: SchemaCheck | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        check = SchemaCheck.for_schema(self.input_schema, where=f"tool {self.name!r} inputSchema")
        object.__setattr__(self, "input_check", check)
        output_check = None
        if self.output_schema is not None:
            output_check = SchemaCheck.for_schema(self.output_schema, where=f"tool {self.name!r} outputSchema")
        object.__setattr__(self, "output_check", output_check)

    @property
    def takes_arguments(self) -> bool:
        """Whether its inputSchema names any argument.

        Arguments are named by `properties`, `patternProperties`, `required`, or an
        `additionalProperties` schema. A tool that takes none has no field a known-good value
        could fill.
        """
        schema = self.input_schema
        return bool(schema.get("properties") or schema.get("patternProperties") or schema.get("required")) or isinstance(
            schema.get("additionalProperties"), dict
        )

    @property
    def task_support(self) -> TaskSupport:
        """What its listing declares in `execution.taskSupport`; `forbidden` when nothing is."""
        execution = self.listing.get("execution")
        declared = execution.get("taskSupport") if isinstance(execution, Mapping) else None
        return next((support for support in TaskSupport if support.value == declared), TaskSupport.FORBIDDEN)

    @classmethod
    def from_listing(cls, entry: Any) -> Tool:
        """Build a Tool from one element of a `tools/list` result's `tools` array.

        Raises InvalidSchema when the entry is not a tool definition. That is an entry that is
        not an object, or has no string `name`. So is an `inputSchema`/`outputSchema` that is
        not a JSON Schema object.
        """
        if not isinstance(entry, dict):
            raise InvalidSchema(f"a tools/list entry is {_json_type(entry)}, expected an object: {entry!r:.200}")
        name = entry.get("name")
        if not isinstance(name, str):
            raise InvalidSchema(f"a tools/list entry has name {name!r:.80}, expected a string")
        input_schema = entry.get("inputSchema")
        if not isinstance(input_schema, dict):
            raise InvalidSchema(f"tool {name!r} has inputSchema {input_schema!r:.120}, expected a JSON Schema object")
        output_schema = entry.get("outputSchema")
        if output_schema is not None and not isinstance(output_schema, dict):
            raise InvalidSchema(f"tool {name!r} has outputSchema {output_schema!r:.120}, expected a JSON Schema object")
        annotations = entry.get("annotations")
        return cls(
            name=name,
            input_schema=input_schema,
            output_schema=output_schema,
            annotations=annotations if isinstance(annotations, dict) else {},
            listing=entry,
        )


def _json_type(value: Any) -> str:
    return {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(type(value), type(value).__name__)
