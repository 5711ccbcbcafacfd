"""Compact function-calling schemas generated from the tools' pydantic input models.

pydantic's `model_json_schema()` is the source of truth for field names, types and enums; this
module only removes what costs tokens without telling the model anything it acts on:

- titles, the model's own docstring (the tool has a description) and `$defs`/`$ref` (inlined);
- `anyOf: [X, null]` collapses to X: the field is optional (not in `required`), and sending
  null is never needed;
- `type` beside an `enum` (the values carry it); defaults of null, false or empty (what an
  absent optional field means anyway);
- sanity bounds that only guard against absurd input (an upper limit of
  thousands or more, a lower limit of 0, 1 or a tiny positive rate, a string or list length of
  a hundred or more; `tools.limits`) — validation still enforces them and answers with an error
  result naming the field;
- field descriptions shortened to their first sentence, at most `MAX_DESCRIPTION_CHARS`;
- `additionalProperties: false` unless strict mode needs it (unknown fields are still rejected
  by validation, with the allowed field names in the error result);
- expert fields a tool lists as `hidden` (optional overrides such as CUDA-graph bytes or the
  quantization group size): validation still accepts them — the CLI offers them — but the model
  is not offered them, so they cost no tokens in every request.

Names, types, enums, `required` and meaningful bounds (e.g. a fraction's `maximum: 1`) stay, so a
schema can never offer a field or value that validation rejects for its name or type.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel

MAX_DESCRIPTION_CHARS = 90
"""Longer first sentences are cut at a word boundary (they are examples and provenance)."""

SANITY_MAXIMUM = 1000
"""Upper bounds at or above this only guard against absurd input; the model needs none."""
SANITY_MINIMUM = 1e-3
"""Positive lower bounds at or below this (tools.limits.MIN_RATE) only refuse zero in practice."""
SANITY_MAX_LENGTH = 100
"""String lengths and list sizes at or above this only guard against absurd input."""

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])")
_PARENTHETICAL = re.compile(r"\s*\([^()]*\)")
_DROP_KEYS = frozenset({"title", "$defs"})


def first_sentence(text: str, limit: int = MAX_DESCRIPTION_CHARS) -> str:
    """The first sentence of `text` (whitespace collapsed), at most `limit` characters: an
    over-long sentence loses its parenthetical asides first, then is cut at a word."""
    flat = " ".join(text.split())
    head = _SENTENCE_END.split(flat, maxsplit=1)[0]
    if len(head) > limit:
        head = _PARENTHETICAL.sub("", head)
    if len(head) <= limit:
        return head
    cut = head[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:(")
    return cut + "…"


def compact_schema(
    model: type[BaseModel], strict: bool = False, hidden: Iterable[str] = ()
) -> dict[str, Any]:
    """The `parameters` object for `model`: pydantic's schema made token-lean (see module).

    `hidden` names optional fields not offered to the model, dotted for nested objects
    (`"constraints.single_node"`). A hidden field that is required or does not exist raises
    ValueError: the schema must never lose a field validation needs, nor hide a typo.
    """
    raw = _json_schema(model)
    defs: dict[str, Any] = raw.get("$defs", {})
    out = _compact(raw, defs, strict, top=True)
    assert isinstance(out, dict)
    for path in hidden:
        _hide(out, path.split("."), path)
    return out


@functools.cache
def _json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """pydantic's schema of `model`, built once per class (a model class does not change once
    defined; building it is most of a turn's tool-list cost, every engine asks for it).
    Read-only: `_compact` builds new containers from it and never changes it."""
    return model.model_json_schema()


def _hide(node: dict[str, Any], parts: list[str], path: str) -> None:
    if node.get("type") == "array" and isinstance(node.get("items"), dict):
        node = node["items"]  # a field of the objects in a list ("configurations.gpu")
    props = node.get("properties", {})
    if parts[0] not in props:
        raise ValueError(f"hidden field {path!r} is not a field of the input model")
    if len(parts) > 1:
        _hide(props[parts[0]], parts[1:], path)
        return
    if parts[0] in node.get("required", ()):
        raise ValueError(f"hidden field {path!r} is required; only optional fields can be hidden")
    del props[parts[0]]


def _resolve(node: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        target = dict(defs[ref.removeprefix("#/$defs/")])
        extra = {k: v for k, v in node.items() if k != "$ref"}
        target.pop("description", None)  # the field's own description says it better
        return {**target, **extra}
    return node


def _collapse_optional(node: dict[str, Any]) -> dict[str, Any]:
    options = node.get("anyOf")
    if not isinstance(options, list):
        return node
    kept = [o for o in options if o != {"type": "null"}]
    if len(kept) == len(options):
        return node
    rest = {k: v for k, v in node.items() if k != "anyOf"}
    if len(kept) == 1:
        return {**kept[0], **rest}
    return {**rest, "anyOf": kept}


def _is_sanity_bound(key: str, value: Any) -> bool:
    if not isinstance(value, int | float) or isinstance(value, bool):
        return False
    if key == "maximum":
        return value >= SANITY_MAXIMUM
    if key == "minimum":
        return value in (0, 1) or 0 < value <= SANITY_MINIMUM
    if key == "exclusiveMinimum":
        return value == 0
    if key in ("maxLength", "maxItems"):
        return value >= SANITY_MAX_LENGTH
    return False


def _compact(node: Any, defs: dict[str, Any], strict: bool, top: bool = False) -> Any:
    if isinstance(node, list):
        return [_compact(v, defs, strict) for v in node]
    if not isinstance(node, dict):
        return node
    # An optional nested model is anyOf [$ref, null]: resolved again once collapsed.
    node = _resolve(_collapse_optional(_resolve(node, defs)), defs)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _DROP_KEYS or _is_sanity_bound(key, value):
            continue
        if key == "default" and (value is None or value is False or value in ([], {})):
            continue  # null / off / empty is what an absent optional field means
        if key == "type" and "enum" in node:
            continue  # the enum's values carry their type
        if key == "description":
            if top:
                continue  # the model docstring; the tool description is sent instead
            out[key] = first_sentence(str(value))
        elif key == "additionalProperties" and value is False:
            if strict:
                out[key] = False
        elif key == "properties" and isinstance(value, dict):
            out[key] = {name: _compact(prop, defs, strict) for name, prop in value.items()}
        else:
            out[key] = _compact(value, defs, strict)
    return out
