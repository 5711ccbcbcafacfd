"""The chosen reading carried forward (issue 28): when an LLM-mode verdict follows the model's
reading (`reconcile.chosen_reading`), the workload stored for the turn — what follow-ups refine
("what about 8-bit?", "double the cards") — becomes the parser's workload with the model's
value in every slot the two readings differ on, so the next turn starts from the reading the
answer used, not the one it set aside.

Slots map to `ParsedWorkload` fields by name (`users`, `context`, `weights` …); `gpus` becomes
the GPU mentions, `budget` the amount, currency and period. A slot the model left to the tool's
default is cleared. A value the workload does not accept is left as the parser read it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import JsonValue, ValidationError

from assistant.reading.model import Reading
from assistant.reading.of_call import CallSlot
from assistant.reading.parsed import ParsedWorkload
from assistant.reading.reconcile import Difference


def _fields(slot: str, value: JsonValue | None, shown: str | None) -> dict[str, Any] | None:
    """The workload fields a slot's value sets (None: a slot the workload has no field for)."""
    if slot == "gpus":
        entries = [g for g in (value if isinstance(value, list) else []) if isinstance(g, dict)]
        named = [g for g in entries if g.get("gpu")]
        words = (shown or "").split(" or ")
        texts = words if len(words) == len(entries) else [str(g["gpu"]) for g in named]
        mentions = [
            {"gpu": g["gpu"], "count": g.get("count"), "text": text}
            for g, text in zip(named, texts, strict=False)
        ]
        unnamed = [g.get("count") for g in entries if not g.get("gpu")]
        return {"gpus": mentions, "gpu_count": unnamed[0] if unnamed else None}
    if slot == "budget":
        budget = value if isinstance(value, dict) else {}
        return {
            "budget_amount": budget.get("amount"),
            "budget_currency": budget.get("currency"),
            "budget_period": budget.get("period"),
        }
    if slot == "model":
        # The catalog id the model sized, named as it named it; a bare size no longer applies.
        return {"model": value, "model_text": shown, "params": None}
    if slot in ParsedWorkload.model_fields and slot not in ("text", "sources"):
        return {slot: value}
    return None


def adopted(
    parsed: ParsedWorkload,
    model_slots: Mapping[str, CallSlot],
    diffs: Sequence[Difference],
    reading: Reading | None = None,
) -> ParsedWorkload:
    """`parsed` with the model's value in each differing slot (see the module docstring); each
    slot taken from `reading` gets the model's provenance."""
    current = parsed
    for diff in diffs:
        slot = model_slots.get(diff.slot)
        stated = slot if slot is not None and slot.stated else None
        fields = _fields(
            diff.slot,
            None if stated is None else stated.value,
            None if stated is None else diff.model,
        )
        if fields is None:
            continue
        data = current.model_dump(mode="json")
        data.update(fields)
        sources = dict(data.get("sources") or {})
        read = reading.slot(diff.slot) if reading is not None else None
        if read is not None:
            sources[diff.slot] = read.source.model_dump(mode="json")
        else:
            sources.pop(diff.slot, None)
        data["sources"] = sources
        try:
            current = ParsedWorkload.model_validate(data)
        except ValidationError:
            continue  # the parser's value stays: the workload cannot hold the model's
    return current
