"""What changed in a server's tool list from one run to the next, and whether it breaks clients.

`diff` compares two `tools/list` listings (the dicts the server sent) and gives one `ToolChange` per
difference. A change is breaking when a client written against the old list may now fail: a call
it made is refused, or an answer it read no longer reads as it did. So, in an `inputSchema`, what
narrows the values accepted is breaking and what widens them is not; every change of an
`outputSchema` is breaking (a client reads it, in whichever direction it changed).

Local references (`#/$defs/...`, `#/definitions/...`) are followed, on each side in its own
schema; a reference that cannot be followed (another document, a broken pointer) is compared as
written, and a changed one counts as breaking since it cannot be judged. So does a change of any
keyword this module does not judge (`oneOf`, `allOf`, `not`, `if`, `prefixItems`,
`patternProperties`, ...). `$defs` themselves are not compared: what matters is reached through
the references. Titles, descriptions, defaults and examples are reported, never breaking.

A tool that is gone while one with the same `inputSchema` appeared is reported as renamed (one
breaking change) when that schema matches exactly one removed and one added tool.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any


class ChangeKind(Enum):
    TOOL_ADDED = "tool-added"
    TOOL_REMOVED = "tool-removed"
    TOOL_RENAMED = "tool-renamed"
    REQUIRED_PARAMETER_ADDED = "required-parameter-added"
    PARAMETER_ADDED = "parameter-added"
    PARAMETER_REMOVED = "parameter-removed"
    BECAME_REQUIRED = "became-required"
    BECAME_OPTIONAL = "became-optional"
    TYPE_NARROWED = "type-narrowed"
    TYPE_WIDENED = "type-widened"
    TYPE_CHANGED = "type-changed"
    RANGE_NARROWED = "range-narrowed"
    RANGE_WIDENED = "range-widened"
    PATTERN_ADDED = "pattern-added"
    PATTERN_CHANGED = "pattern-changed"
    PATTERN_REMOVED = "pattern-removed"
    FORMAT_ADDED = "format-added"
    FORMAT_CHANGED = "format-changed"
    FORMAT_REMOVED = "format-removed"
    ENUM_ADDED = "enum-added"
    ENUM_REMOVED = "enum-removed"
    ENUM_VALUE_ADDED = "enum-value-added"
    ENUM_VALUE_REMOVED = "enum-value-removed"
    CONST_ADDED = "const-added"
    CONST_CHANGED = "const-changed"
    CONST_REMOVED = "const-removed"
    ADDITIONAL_PROPERTIES_CLOSED = "additional-properties-closed"
    ADDITIONAL_PROPERTIES_OPENED = "additional-properties-opened"
    CHOICE_ADDED = "choice-added"
    """A branch of `anyOf` added."""
    CHOICE_REMOVED = "choice-removed"
    SCHEMA_CHANGED = "schema-changed"
    """A change this module cannot judge (a keyword it does not compare, a reference it cannot follow)."""
    OUTPUT_SCHEMA_ADDED = "output-schema-added"
    OUTPUT_SCHEMA_REMOVED = "output-schema-removed"
    OUTPUT_SCHEMA_CHANGED = "output-schema-changed"
    ANNOTATION_CHANGED = "annotation-changed"
    TASK_SUPPORT_CHANGED = "task-support-changed"
    DESCRIPTION_CHANGED = "description-changed"
    """A title or description, of the tool or of a part of its schemas."""
    METADATA_CHANGED = "metadata-changed"
    """Another field of the tool, or a schema's default, examples, deprecated, `$comment`."""


@dataclass(frozen=True, slots=True)
class ToolChange:
    """One difference between the stored tool list and this run's."""

    tool: str
    kind: ChangeKind
    detail: str
    """A sentence for people: `parameter 'limit': maximum 100 -> 50`. It quotes the server."""
    breaking: bool
    path: str = ""
    """Where in the tool's definition, as a JSON pointer (`/inputSchema/properties/limit`); "" for
    the tool itself."""

    def as_json(self) -> dict[str, Any]:
        return {"tool": self.tool, "kind": self.kind.value, "detail": self.detail, "breaking": self.breaking, "path": self.path}

    @classmethod
    def from_json(cls, document: Mapping[str, Any]) -> ToolChange:
        """The change `as_json` wrote. Raises ValueError (KeyError, TypeError) when it is not one."""
        tool, detail, breaking, path = document["tool"], document["detail"], document["breaking"], document["path"]
        if not (isinstance(tool, str) and isinstance(detail, str) and isinstance(breaking, bool) and isinstance(path, str)):
            raise ValueError(f"not a tool change: {json.dumps(document)[:200]}")
        return cls(tool, ChangeKind(document["kind"]), detail, breaking, path)


_ORDER = {kind: place for place, kind in enumerate(ChangeKind)}


def diff(before: Sequence[Mapping[str, Any]], after: Sequence[Mapping[str, Any]]) -> tuple[ToolChange, ...]:
    """Every difference between two tool listings, sorted by tool, then place, then kind."""
    old, new = _by_name(before), _by_name(after)
    removed = [name for name in old if name not in new]
    added = [name for name in new if name not in old]
    changes: list[ToolChange] = []
    for old_name, new_name in _renames(old, new, removed, added):
        removed.remove(old_name)
        added.remove(new_name)
        changes.append(ToolChange(old_name, ChangeKind.TOOL_RENAMED, f"renamed to {_name(new_name)} (the same inputSchema)", True))
        changes += _tool(new_name, old[old_name], new[new_name])
    changes += [ToolChange(name, ChangeKind.TOOL_REMOVED, "tool removed", True) for name in removed]
    changes += [ToolChange(name, ChangeKind.TOOL_ADDED, "tool added", False) for name in added]
    for name in old.keys() & new.keys():
        changes += _tool(name, old[name], new[name])
    return tuple(sorted(changes, key=lambda change: (change.tool, change.path, _ORDER[change.kind], change.detail)))


def _by_name(listing: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    """The tools by name; of a name listed twice, the first (as the run fuzzes it)."""
    tools: dict[str, Mapping[str, Any]] = {}
    for entry in listing:
        name = entry.get("name") if isinstance(entry, Mapping) else None
        if isinstance(name, str) and name not in tools:
            tools[name] = entry
    return tools


def _renames(old: Mapping[str, Mapping[str, Any]], new: Mapping[str, Mapping[str, Any]], removed: list[str], added: list[str]) -> list[tuple[str, str]]:
    """The removed and added tools paired by an `inputSchema` that only they two have."""
    by_schema: dict[str, tuple[list[str], list[str]]] = {}
    for name in removed:
        by_schema.setdefault(_canonical(old[name].get("inputSchema")), ([], []))[0].append(name)
    for name in added:
        by_schema.setdefault(_canonical(new[name].get("inputSchema")), ([], []))[1].append(name)
    return sorted((gone[0], came[0]) for gone, came in by_schema.values() if len(gone) == 1 and len(came) == 1)


_TOOL_FIELDS = frozenset({"name", "title", "description", "inputSchema", "outputSchema", "annotations", "execution"})
_TASK_MODES = {"forbidden": frozenset({"plain"}), "optional": frozenset({"plain", "task"}), "required": frozenset({"task"})}
"""The ways a client may call a tool under each `execution.taskSupport`: plainly, as a task."""


def _tool(name: str, before: Mapping[str, Any], after: Mapping[str, Any]) -> list[ToolChange]:
    """The differences of one tool's definition (its name aside)."""
    changes = list(_Walk(name, "parameter", before.get("inputSchema"), after.get("inputSchema")).changes("/inputSchema"))
    changes += _output(name, before.get("outputSchema"), after.get("outputSchema"))
    for field in ("title", "description"):
        if before.get(field) != after.get(field):
            changes.append(ToolChange(name, ChangeKind.DESCRIPTION_CHANGED, f"{field} {_changed(before.get(field), after.get(field))}", False, f"/{field}"))
    old_notes, new_notes = _object(before.get("annotations")), _object(after.get("annotations"))
    for key in sorted(old_notes.keys() | new_notes.keys()):
        if _canonical(old_notes.get(key, _UNSET)) != _canonical(new_notes.get(key, _UNSET)):
            detail = f"annotation {_name(key)}: {_value(old_notes.get(key, _UNSET))} -> {_value(new_notes.get(key, _UNSET))}"
            changes.append(ToolChange(name, ChangeKind.ANNOTATION_CHANGED, detail, False, _pointer("/annotations", key)))
    changes += _execution(name, _object(before.get("execution")), _object(after.get("execution")))
    for key in sorted((before.keys() | after.keys()) - _TOOL_FIELDS):
        if _canonical(before.get(key, _UNSET)) != _canonical(after.get(key, _UNSET)):
            detail = f"field {_name(key)} {_changed(before.get(key), after.get(key))}"
            changes.append(ToolChange(name, ChangeKind.METADATA_CHANGED, detail, False, _pointer("", key)))
    return changes


def _output(name: str, before: Any, after: Any) -> list[ToolChange]:
    """An `outputSchema`'s changes: each one breaking, whichever way it goes."""
    if before is None and after is None:
        return []
    if before is None:
        return [ToolChange(name, ChangeKind.OUTPUT_SCHEMA_ADDED, "outputSchema added: results now promise structuredContent", True, "/outputSchema")]
    if after is None:
        return [ToolChange(name, ChangeKind.OUTPUT_SCHEMA_REMOVED, "outputSchema removed: results no longer promise structuredContent", True, "/outputSchema")]
    return [
        ToolChange(name, ChangeKind.OUTPUT_SCHEMA_CHANGED, f"outputSchema: {change.detail}", True, change.path)
        for change in _Walk(name, "property", before, after).changes("/outputSchema")
    ]


def _execution(name: str, before: Mapping[str, Any], after: Mapping[str, Any]) -> list[ToolChange]:
    """`execution.taskSupport`: breaking when a way of calling the tool that worked is gone."""
    old, new = before.get("taskSupport", "forbidden"), after.get("taskSupport", "forbidden")
    changes = []
    if old != new:
        old_modes, new_modes = _TASK_MODES.get(str(old)), _TASK_MODES.get(str(new))
        breaking = old_modes is None or new_modes is None or not old_modes <= new_modes
        detail = f"taskSupport {_value(old)} -> {_value(new)}"
        changes.append(ToolChange(name, ChangeKind.TASK_SUPPORT_CHANGED, detail, breaking, "/execution/taskSupport"))
    for key in sorted((before.keys() | after.keys()) - {"taskSupport"}):
        if _canonical(before.get(key, _UNSET)) != _canonical(after.get(key, _UNSET)):
            detail = f"execution field {_name(key)} {_changed(before.get(key), after.get(key))}"
            changes.append(ToolChange(name, ChangeKind.METADATA_CHANGED, detail, False, _pointer("/execution", key)))
    return changes


_LOWER = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains")
_UPPER = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains")
_DESCRIBING = frozenset({"title", "description"})
_METADATA = frozenset({"default", "examples", "deprecated", "readOnly", "writeOnly", "$comment", "$schema", "$id", "contentMediaType", "contentEncoding"})
_JUDGED = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "enum",
        "const",
        "multipleOf",
        "pattern",
        "format",
        "uniqueItems",
        "anyOf",
        "$ref",
        "$defs",
        "definitions",
        *_LOWER,
        *_UPPER,
        *_DESCRIBING,
        *_METADATA,
    }
)
_TYPES_ALL = None
"""No `type`: every type."""


class _Walk:
    """Two versions of one schema compared, from their roots down, each `$ref` followed in its own."""

    def __init__(self, tool: str, noun: str, before: Any, after: Any) -> None:
        self.tool, self.noun = tool, noun
        self.roots = (before, after)
        self.followed: set[tuple[str | None, str | None]] = set()

    def changes(self, pointer: str) -> Iterator[ToolChange]:
        yield from self._schema(self.roots[0], self.roots[1], pointer, ())

    def _change(self, kind: ChangeKind, place: tuple[str, ...], pointer: str, text: str, breaking: bool) -> ToolChange:
        where = f"{self.noun} {_name('.'.join(place).replace('.[]', '[]'))}" if place else ("the arguments" if self.noun == "parameter" else "the result")
        return ToolChange(self.tool, kind, f"{where}: {text}", breaking, pointer)

    def _schema(self, before: Any, after: Any, pointer: str, place: tuple[str, ...]) -> Iterator[ToolChange]:
        same = _canonical(before)
        if same == _canonical(after) and '"$ref"' not in same:
            return  # the same, and no reference in it that could point elsewhere on each side
        before, old_ref = self._followed(before, 0)
        after, new_ref = self._followed(after, 1)
        if old_ref is not None or new_ref is not None:
            if (old_ref, new_ref) in self.followed:
                return  # a recursive schema: this pair is being compared already
            self.followed.add((old_ref, new_ref))
        if before is False or after is False:
            if before is not after:
                kind, text = (ChangeKind.TYPE_NARROWED, "no value accepted any more") if after is False else (ChangeKind.TYPE_WIDENED, "values accepted again")
                yield self._change(kind, place, pointer, text, after is False)
            return
        old, new = _object(before), _object(after)
        if not isinstance(before, Mapping | bool) or not isinstance(after, Mapping | bool):
            if _canonical(before) != _canonical(after):
                yield self._change(ChangeKind.SCHEMA_CHANGED, place, pointer, f"schema {_changed(before, after)}; not judged, so counted as breaking", True)
            return
        yield from self._types(old, new, pointer, place)
        yield from self._properties(old, new, pointer, place)
        yield from self._additional(old, new, pointer, place)
        if isinstance(old.get("items", True), Mapping | bool) and isinstance(new.get("items", True), Mapping | bool):
            yield from self._schema(old.get("items", True), new.get("items", True), f"{pointer}/items", (*place, "[]"))
        else:
            yield from self._unjudged("items", old, new, pointer, place)
        yield from self._bounds(old, new, pointer, place)
        yield from self._multiple(old, new, pointer, place)
        yield from self._texts(old, new, pointer, place)
        yield from self._values(old, new, pointer, place)
        yield from self._choices(old, new, pointer, place)
        for key in sorted((old.keys() | new.keys()) - _JUDGED):
            yield from self._unjudged(key, old, new, pointer, place)
        for key in sorted((old.keys() | new.keys()) & (_DESCRIBING | _METADATA)):
            if _canonical(old.get(key, _UNSET)) != _canonical(new.get(key, _UNSET)):
                kind = ChangeKind.DESCRIPTION_CHANGED if key in _DESCRIBING else ChangeKind.METADATA_CHANGED
                yield self._change(kind, place, _pointer(pointer, key), f"{key} {_changed(old.get(key), new.get(key))}", False)
        if _canonical(old.get("$ref")) != _canonical(new.get("$ref")) and ("$ref" in old or "$ref" in new):
            text = f"$ref {_changed(old.get('$ref'), new.get('$ref'))}, which mcp-toolfuzz cannot follow; not judged, so counted as breaking"
            yield self._change(ChangeKind.SCHEMA_CHANGED, place, _pointer(pointer, "$ref"), text, True)

    def _followed(self, schema: Any, side: int) -> tuple[Any, str | None]:
        """`schema` with its local `$ref` replaced by what it points to (its other keywords kept),
        and the reference; a reference that cannot be followed stays."""
        reference = schema.get("$ref") if isinstance(schema, Mapping) else None
        if not isinstance(reference, str) or not reference.startswith("#"):
            return schema, None
        target: Any = self.roots[side]
        for part in (part.replace("~1", "/").replace("~0", "~") for part in reference[1:].split("/")[1:]):
            if not isinstance(target, Mapping) or part not in target:
                return schema, None
            target = target[part]
        if not isinstance(target, Mapping | bool):
            return schema, None
        siblings = {key: value for key, value in schema.items() if key != "$ref"}
        if not siblings:
            return target, reference
        return ({**target, **siblings} if isinstance(target, Mapping) else (siblings if target else False)), reference

    def _unjudged(self, key: str, old: Mapping[str, Any], new: Mapping[str, Any], pointer: str, place: tuple[str, ...]) -> Iterator[ToolChange]:
        if _canonical(old.get(key, _UNSET)) != _canonical(new.get(key, _UNSET)):
            text = f"{key} {_changed(old.get(key), new.get(key))}; not judged, so counted as breaking"
            yield self._change(ChangeKind.SCHEMA_CHANGED, place, _pointer(pointer, key), text, True)

    def _types(self, old: Mapping[str, Any], new: Mapping[str, Any], pointer: str, place: tuple[str, ...]) -> Iterator[ToolChange]:
        before, after = _types(old.get("type")), _types(new.get("type"))
        if before == after:
            return
        if isinstance(before, str) or isinstance(after, str):
            yield from self._unjudged("type", old, new, pointer, place)
            return
        widened = after is None or (before is not None and all(_covers(after, kind) for kind in before))
        narrowed = before is None or (after is not None and all(_covers(before, kind) for kind in after))
        text = f"type {_type_text(before)} -> {_type_text(after)}"
        where = _pointer(pointer, "type")
        if widened:
            yield self._change(ChangeKind.TYPE_WIDENED, place, where, text, False)
        elif narrowed:
            yield self._change(ChangeKind.TYPE_NARROWED, place, where, text, True)
        else:
            yield self._change(ChangeKind.TYPE_CHANGED, place, where, text, True)

    def _properties(self, old: Mapping[str, Any], new: Mapping[str, Any], pointer: str, place: tuple[str, ...]) -> Iterator[ToolChange]:
        before, after = _object(old.get("properties")), _object(new.get("properties"))
        was, now = _names(old.get("required")), _names(new.get("required"))
        for name in sorted(before.keys() | after.keys() | was | now):
            where, inner = _pointer(f"{pointer}/properties", name), (*place, name)
            known = f"{self.noun} {_name('.'.join(inner).replace('.[]', '[]'))}"
            if name in after and name not in before:
                required = name in now
                kind = ChangeKind.REQUIRED_PARAMETER_ADDED if required else ChangeKind.PARAMETER_ADDED
                yield ToolChange(self.tool, kind, f"{known} added{', required' if required else ', optional'}", required, where)
                continue
            if name in before and name not in after:
                yield ToolChange(self.tool, ChangeKind.PARAMETER_REMOVED, f"{known} removed", True, where)
                continue
            if name in now and name not in was:
                yield ToolChange(self.tool, ChangeKind.BECAME_REQUIRED, f"{known} is now required", True, where)
            elif name in was and name not in now:
                yield ToolChange(self.tool, ChangeKind.BECAME_OPTIONAL, f"{known} is no longer required", False, where)
            if name in before:
                yield from self._schema(before[name], after[name], where, inner)
        for key in ("properties", "required"):
            if key in old and key in new and not isinstance(old[key], Mapping | list) and _canonical(old[key]) != _canonical(new[key]):
                yield from self._unjudged(key, old, new, pointer, place)

    def _additional(self, old: Mapping[str, Any], new: Mapping[str, Any], pointer: str, place: tuple[str, ...]) -> Iterator[ToolChange]:
        before, after = old.get("additionalProperties", True), new.get("additionalProperties", True)
        where = f"{pointer}/additionalProperties"
        if after is False and before is not False:
            yield self._change(ChangeKind.ADDITIONAL_PROPERTIES_CLOSED, place, where, "additionalProperties now false: no other property is accepted", True)
        elif before is False and after is not False:
            yield self._change(ChangeKind.ADDITIONAL_PROPERTIES_OPENED, place, where, f"additionalProperties false -> {_value(after)}", False)
        elif before is not False:
            yield from self._schema(before, after, where, (*place, "*"))

    def _bounds(self, old: Mapping[str, Any], new: Mapping[str, Any], pointer: str, place: tuple[str, ...]) -> Iterator[ToolChange]:
        for key, lower in [*((key, True) for key in _LOWER), *((key, False) for key in _UPPER)]:
            before, after = old.get(key), new.get(key)
            if before == after:
                continue
            if not all(value is None or (_number(value)) for value in (before, after)):
                yield from self._unjudged(key, old, new, pointer, place)
                continue
            if before is None:
                narrowed, text = True, f"{key} {_value(after)} added"
            elif after is None:
                narrowed, text = False, f"{key} {_value(before)} removed"
            else:
                narrowed, text = (after > before) == lower, f"{key} {_value(before)} -> {_value(after)}"
            kind = ChangeKind.RANGE_NARROWED if narrowed else ChangeKind.RANGE_WIDENED
            yield self._change(kind, place, _pointer(pointer, key), text, narrowed)
        before, after = bool(old.get("uniqueItems")), bool(new.get("uniqueItems"))
        if before != after:
            kind = ChangeKind.RANGE_NARROWED if after else ChangeKind.RANGE_WIDENED
            yield self._change(kind, place, f"{pointer}/uniqueItems", f"uniqueItems {_value(before)} -> {_value(after)}", after)

    def _multiple(self, old: Mapping[str, Any], new: Mapping[str, Any], pointer: str, place: tuple[str, ...]) -> Iterator[ToolChange]:
        before, after = old.get("multipleOf"), new.get("multipleOf")
        if before == after:
            return
        if not all(value is None or (_number(value) and value > 0) for value in (before, after)):
            yield from self._unjudged("multipleOf", old, new, pointer, place)
            return
        if before is None:
            narrowed, text = True, f"multipleOf {_value(after)} added"
        elif after is None:
            narrowed, text = False, f"multipleOf {_value(before)} removed"
        else:
            # Every multiple of the new is one of the old when the new is a multiple of the old.
            narrowed, text = not float(before / after).is_integer(), f"multipleOf {_value(before)} -> {_value(after)}"
        kind = ChangeKind.RANGE_NARROWED if narrowed else ChangeKind.RANGE_WIDENED
        yield self._change(kind, place, f"{pointer}/multipleOf", text, narrowed)

    def _texts(self, old: Mapping[str, Any], new: Mapping[str, Any], pointer: str, place: tuple[str, ...]) -> Iterator[ToolChange]:
        """`pattern` and `format`: added or changed is breaking (a pattern's language cannot be
        compared), removed is not."""
        kinds = {
            "pattern": (ChangeKind.PATTERN_ADDED, ChangeKind.PATTERN_CHANGED, ChangeKind.PATTERN_REMOVED),
            "format": (ChangeKind.FORMAT_ADDED, ChangeKind.FORMAT_CHANGED, ChangeKind.FORMAT_REMOVED),
        }
        for key, (added, changed, removed) in kinds.items():
            before, after = old.get(key), new.get(key)
            if before == after:
                continue
            if before is None:
                yield self._change(added, place, _pointer(pointer, key), f"{key} {_value(after)} added", True)
            elif after is None:
                yield self._change(removed, place, _pointer(pointer, key), f"{key} {_value(before)} removed", False)
            else:
                yield self._change(changed, place, _pointer(pointer, key), f"{key} {_value(before)} -> {_value(after)}", True)

    def _values(self, old: Mapping[str, Any], new: Mapping[str, Any], pointer: str, place: tuple[str, ...]) -> Iterator[ToolChange]:
        """`enum` and `const`."""
        before, after = old.get("enum"), new.get("enum")
        where = f"{pointer}/enum"
        if any(value is not None and not isinstance(value, list) for value in (before, after)):
            yield from self._unjudged("enum", old, new, pointer, place)
        elif before is None and after is not None:
            yield self._change(ChangeKind.ENUM_ADDED, place, where, f"now one of {_value(after)}", True)
        elif before is not None and after is None:
            yield self._change(ChangeKind.ENUM_REMOVED, place, where, f"no longer limited to {_value(before)}", False)
        elif before is not None and after is not None:
            was, now = {_canonical(value): value for value in before}, {_canonical(value): value for value in after}
            for key in sorted(was.keys() - now.keys()):
                yield self._change(ChangeKind.ENUM_VALUE_REMOVED, place, where, f"enum value {_value(was[key])} removed", True)
            for key in sorted(now.keys() - was.keys()):
                yield self._change(ChangeKind.ENUM_VALUE_ADDED, place, where, f"enum value {_value(now[key])} added", False)
        old_const, new_const = old.get("const", _UNSET), new.get("const", _UNSET)
        if _canonical(old_const) != _canonical(new_const):
            where = f"{pointer}/const"
            if old_const is _UNSET:
                yield self._change(ChangeKind.CONST_ADDED, place, where, f"now always {_value(new_const)}", True)
            elif new_const is _UNSET:
                yield self._change(ChangeKind.CONST_REMOVED, place, where, f"no longer always {_value(old_const)}", False)
            else:
                yield self._change(ChangeKind.CONST_CHANGED, place, where, f"const {_value(old_const)} -> {_value(new_const)}", True)

    def _choices(self, old: Mapping[str, Any], new: Mapping[str, Any], pointer: str, place: tuple[str, ...]) -> Iterator[ToolChange]:
        """`anyOf`: a branch removed is breaking, one added is not; compared as written."""
        before, after = old.get("anyOf"), new.get("anyOf")
        if not isinstance(before, list) or not isinstance(after, list):
            yield from self._unjudged("anyOf", old, new, pointer, place)
            return
        was, now = {_canonical(branch): branch for branch in before}, {_canonical(branch): branch for branch in after}
        for key in sorted(was.keys() - now.keys()):
            yield self._change(ChangeKind.CHOICE_REMOVED, place, f"{pointer}/anyOf", f"anyOf branch removed: {_value(was[key])}", True)
        for key in sorted(now.keys() - was.keys()):
            yield self._change(ChangeKind.CHOICE_ADDED, place, f"{pointer}/anyOf", f"anyOf branch added: {_value(now[key])}", False)


class _Unset:
    def __repr__(self) -> str:
        return "unset"


_UNSET: Any = _Unset()
"""A key a definition does not have."""


def _canonical(value: Any) -> str:
    if value is _UNSET:
        return "\x00unset"
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _object(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _names(value: Any) -> frozenset[str]:
    return frozenset(name for name in value if isinstance(name, str)) if isinstance(value, list) else frozenset()


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _types(value: Any) -> frozenset[str] | str | None:
    """A `type` as a set of names, None for none (every type), or the value itself when it is neither."""
    if value is None:
        return _TYPES_ALL
    if isinstance(value, str):
        return frozenset({value})
    if isinstance(value, list) and all(isinstance(name, str) for name in value):
        return frozenset(value)
    return json.dumps(value)


def _covers(types: frozenset[str] | str | None, kind: str) -> bool:
    if types is None:
        return True
    return kind in types or (kind == "integer" and "number" in types)


def _type_text(types: frozenset[str] | str | None) -> str:
    return "any" if types is None else " or ".join(sorted(types))


def _value(value: Any) -> str:
    if value is _UNSET:
        return "unset"
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 80 else text[:77] + "..."


def _changed(before: Any, after: Any) -> str:
    if before is None or before is _UNSET:
        return "added"
    if after is None or after is _UNSET:
        return "removed"
    return "changed" if isinstance(before, str) and isinstance(after, str) and max(len(before), len(after)) > 40 else f"{_value(before)} -> {_value(after)}"


def _name(name: str) -> str:
    return "'" + name.replace("'", "\\'") + "'"


def _pointer(pointer: str, key: str) -> str:
    return f"{pointer}/{key.replace('~', '~0').replace('/', '~1')}"
