"""Valid and invalid JSON values from a schema: the machinery behind arguments and outputs."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, TypeGuard

from hypothesis import strategies as st

from strategies._mutators import mutate
from strategies.drawing import drawn, mapped, pick, tupled
from strategies.generation import from_schema
from strategies.labelled import Labelled
from strategies.mutations import Mutation, Site, absent_property_sites, format_path, sites
from strategies.schemas import SchemaCheck, every_object


def valid_values(check: SchemaCheck) -> st.SearchStrategy[Any]:
    """Values the schema accepts, formats asserted too, that encode as JSON.

    The generator aims; the dialect's validator decides. Shrinks towards the required
    properties at their simplest.
    """
    return from_schema(check.schema, check.subschema_accepts).filter(check.accepts_strictly).filter(encodes_as_json)


Known = Mapping[str, Sequence[Any]]
"""Known-good values by top-level property.

Every valid object holds one of each, drawn from the choices given. It holds them whatever else
is generated around them.
"""


def valid_objects(check: SchemaCheck, *, known: Known | None = None) -> st.SearchStrategy[dict[str, Any]]:
    """Valid values that are objects, holding the `known` values.

    `arguments` and `structuredContent` must be objects.
    """
    values = from_schema(check.schema, check.subschema_accepts)
    if known:
        chosen = st.fixed_dictionaries({name: st.sampled_from(list(choices)) for name, choices in known.items()})
        values = mapped(tupled(values, chosen), _with_known)
    return values.filter(_is_object).filter(check.accepts_strictly).filter(encodes_as_json)


def _with_known(generated_and_known: tuple[Any, dict[str, Any]]) -> Any:
    generated, known = generated_and_known
    return {**generated, **known} if isinstance(generated, dict) else generated


def _is_object(value: Any) -> bool:
    return isinstance(value, dict)


_MOSTLY = mapped(st.integers(0, 3), lambda n: n < 3)
"""True three times in four, shrinking to True."""


def mutated_objects(
    check: SchemaCheck, *, label_prefix: str, accepted: Sequence[dict[str, Any]] = (), known: Known | None = None
) -> st.SearchStrategy[Labelled[dict[str, Any]]]:
    """Objects the schema rejects: a valid object with one mutation at one of its nodes.

    The mutation never changes the root's type, so the value stays an object. The validator
    must reject the result at the mutated node, for the mutated keyword. The label says which,
    e.g. `arguments.address.zip: pattern '^[0-9]{5}$' violated by ""`. Shrinks towards the
    valid object at its simplest with one mutation, at the root first.

    `accepted` holds valid objects the target took, answering with a success. Three bases in
    four are one of them. So the one mutation is what a refusal could be for. A server that
    refuses most valid values refuses their mutants for the same reason, and hides the
    mutation's fate. And a shrunk case is still one mutation from an accepted value, the first.

    `known` holds the known-good values every fresh base holds. A mutation that lands on one
    says so.
    """
    if not can_reject_an_object(check.schema):
        return st.nothing()
    valid_bases = valid_objects(check, known=known)
    accepted_bases = st.sampled_from(list(accepted)) if accepted else None
    known_names = frozenset(known or ())
    kinds = _kinds_in(check.schema)
    wanted_kinds = st.sampled_from(kinds) if kinds else st.none()

    def invalid(draw: st.DrawFn) -> Labelled[dict[str, Any]] | None:
        # The kind is drawn first, from the kinds the schema's keywords make possible, then the
        # valid base, then the place: a schema with forty typed properties and one pattern still
        # gets its pattern broken often, and a base shrinks without changing the kind.
        wanted = draw(wanted_kinds)
        on_accepted = accepted_bases is not None and draw(_MOSTLY)
        base = draw(accepted_bases) if on_accepted and accepted_bases is not None else draw(valid_bases)
        found = list(sites(check.schema, base))
        offers = _offers(found)
        alone = not offers
        if alone:
            offers = _offers([absent for at in found for absent in absent_property_sites(at, root=check.schema)])
        if not offers:
            return None
        mutation = wanted if wanted in offers else min(offers, key=lambda kind: list(Mutation).index(kind))
        site = pick(draw, offers[mutation])
        mutant = mutate(draw, mutation, site)
        value = _replace(base, site.path, mutant.value)
        via = _rejection(check, value, site.path, mutation) if isinstance(value, dict) else None
        if via is None or (alone and not _rejected_only_there(check, value, site.path)):
            return None
        where = f" (so no branch of {via} accepts it)" if via else ""
        if site.path and site.path[0] in known_names:
            where += " (the field of a known-good value)"
        if on_accepted:
            where += ", in arguments the server accepted"
        return Labelled(value, f"{format_path(site.path, prefix=label_prefix)}: {mutant.description}{where}")

    # A base whose nodes offer no mutation (its optional properties absent, any other property
    # allowed) gets one of the absent properties added with a value refused where it is, and
    # nothing else refused (`_rejected_only_there`). A mutant the validator still accepts is
    # drawn again, up to Hypothesis's three tries, rather than discarding the whole example: a
    # batch of eight cases each failing one time in three survived one time in twenty (a schema
    # with one optional property: 6.4 ms a case, 1.5 ms with the retries; with the absent
    # properties: the demo's `maintenance`, whose one property is optional, lost one batch in five
    # to the retries, now one in thirty, 1.1 -> 1.45 thousand cases a second to draw).
    return drawn(invalid).filter(_is_drawn)


def _offers(found: Sequence[Site]) -> dict[Mutation, list[Site]]:
    """The sites that offer each mutation.

    The root keeps its type (`Site.mutations`).
    """
    offers: dict[Mutation, list[Site]] = {}
    for site in found:
        for offered in site.mutations(is_root=site.path == ()):
            offers.setdefault(offered, []).append(site)
    return offers


def _rejected_only_there(check: SchemaCheck, value: Any, path: tuple[str | int, ...]) -> bool:
    """Whether every error of `value` is at `path`.

    A property added to an object may break what the object's own keywords say of its
    properties: `maxProperties`, `propertyNames`, or a dependency. The case must stay one
    mutation from a valid value.
    """
    return all(at == path for _, at in check.failures(value))


def _is_drawn(value: Labelled[dict[str, Any]] | None) -> TypeGuard[Labelled[dict[str, Any]]]:
    return value is not None


def coerced_variants(check: SchemaCheck, base: dict[str, Any], *, label_prefix: str) -> list[Labelled[dict[str, Any]]]:
    """`base` with one number or boolean replaced by the string a lax server coerces back.

    `base` is a value the target accepted. `3` becomes `"3"`, and `true` becomes `"true"`. There
    is one variant per such node, each rejected by the schema for its type. This is the most
    common way a server takes what its schema refuses. It is probed before the search. Each
    variant is one mutation from an accepted value, so each is already minimal.
    """
    variants: list[Labelled[dict[str, Any]]] = []
    for site in sites(check.schema, base):
        value = site.value
        if not site.path or isinstance(value, (dict, list, str)) or value is None:
            continue
        text = json.dumps(value)
        mutated = _replace(base, site.path, text)
        if _rejection(check, mutated, site.path, Mutation.WRONG_TYPE) is None:
            continue
        label = (
            f"{format_path(site.path, prefix=label_prefix)}: wrong type: got string {json.dumps(text)} for "
            f"{text} (one a lax server coerces), in arguments the server accepted"
        )
        if all(variant.value != mutated for variant in variants):
            variants.append(Labelled(mutated, label))
    return variants


_CONSTRAINING = frozenset(
    {
        "type",
        "enum",
        "const",
        "required",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "pattern",
        "minLength",
        "maxLength",
        "$ref",
        "anyOf",
        "oneOf",
        "allOf",
        "not",
        "if",
        "multipleOf",
        "minItems",
        "maxItems",
        "uniqueItems",
        "items",
        "prefixItems",
        "contains",
        "minProperties",
        "maxProperties",
        "dependentRequired",
        "dependentSchemas",
        "dependencies",
        "propertyNames",
        "format",
    }
)


def _kinds_in(schema: Any) -> list[Mutation]:
    """The mutation kinds whose keyword the schema uses somewhere, in a fixed order."""
    used: set[str] = set()
    for node in every_object(schema):
        used.update(node)
    return [kind for kind in Mutation if kind.value in used]


def can_reject_an_object(schema: Any) -> bool:
    """Whether the schema may reject some object; True whenever in doubt.

    It is False only when the schema certainly accepts every object: `{"type": "object"}`,
    maybe with unconstrained properties. Then no invalid arguments exist. Searching for them
    would spend Hypothesis's whole budget on rejections.
    """
    if not isinstance(schema, dict):
        return schema is False
    if any(keyword in schema for keyword in _CONSTRAINING - {"type", "required"}) or schema.get("required"):
        return True
    if schema.get("type") not in (None, "object"):
        return True
    if schema.get("additionalProperties") is False or schema.get("unevaluatedProperties") is False:
        return True
    properties = schema.get("properties", {})
    patterns = schema.get("patternProperties", {})
    extra = schema.get("additionalProperties", {})
    children = [*(properties.values() if isinstance(properties, dict) else []), *(patterns.values() if isinstance(patterns, dict) else []), extra]
    return any(_constrains_a_value(child) for child in children)


def _constrains_a_value(schema: Any) -> bool:
    if schema is True or schema == {}:
        return False
    if not isinstance(schema, dict):
        return True
    if any(keyword in schema for keyword in _CONSTRAINING) or schema.get("additionalProperties") is False:
        return True
    properties = schema.get("properties")
    extra = schema.get("additionalProperties")
    return (isinstance(properties, dict) and any(_constrains_a_value(child) for child in properties.values())) or (
        isinstance(extra, dict) and _constrains_a_value(extra)
    )


def _rejection(check: SchemaCheck, value: Any, path: tuple[str | int, ...], mutation: Mutation) -> str | None:
    """How the validator rejects `value` for `mutation`'s keyword at `path`.

    It returns "" when the validator says so directly. It returns the combinator's keyword,
    "anyOf" or "oneOf", when it says so inside the errors of a combinator that failed because of
    it. It returns None when it does not, or when it accepts the value.

    It takes one pass of the validator. `check.errors` yields nothing exactly when
    `check.accepts` is true: no error, or no verdict before the first. A plain schema has no
    combinator. Its compiled failures say it without building an error.
    """
    if check.plain is not None:
        return "" if (mutation.value, path) in check.failures(value) else None

    def explained(errors: Any, via: str) -> str | None:
        for error in errors:
            if error.validator == mutation.value and tuple(error.absolute_path) == path:
                return via
            inner = explained(error.context or (), via or str(error.validator))
            if inner is not None:
                return inner
        return None

    return explained(check.errors(value), "")


def _replace(value: Any, path: tuple[str | int, ...], replacement: Any) -> Any:
    """`value` with the node at `path` replaced or added, copied along the path.

    `path` is as `sites` finds it, or an absent property's place (`absent_property_sites`).
    """
    if not path:
        return replacement
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _replace(value[head], rest, replacement) if rest else replacement}
    assert isinstance(head, int), "sites() steps into an array by index"
    copy = list(value)
    copy[head] = _replace(value[head], rest, replacement)
    return copy


_STRICT_JSON = json.JSONEncoder(allow_nan=False)
"""Made once: `json.dumps(value, allow_nan=False)` makes an encoder at every call."""


def encodes_as_json(value: Any) -> bool:
    """Whether `value` is JSON: no NaN or infinity, no object JSON cannot hold."""
    try:
        _STRICT_JSON.encode(value)
    except (ValueError, TypeError):
        return False
    return True
