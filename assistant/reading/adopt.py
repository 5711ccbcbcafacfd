"""The chosen reading carried forward (issue 28): when an LLM-mode verdict follows the model's
reading (`reconcile.chosen_reading`), the workload stored for the turn — what follow-ups refine
("what about 8-bit?", "double the cards") — becomes the parser's workload with the model's
value in every slot the two readings differ on, so the next turn starts from the reading the
answer used, not the one it set aside.

Slots map to `ParsedWorkload` fields by name (`users`, `context`, `weights` …); `gpus` becomes
the GPU mentions of the request's typed configurations, `budget` its typed budget's amount,
currency and period. A slot the model left to the tool's
default is cleared. A value the workload does not accept is left as the parser read it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from assistant.reading.model import Reading
from assistant.reading.of_call import CallSlot
from assistant.reading.parsed import GpuMention, ParsedWorkload
from assistant.reading.reconcile import Difference
from tools.sizing import SizingRequest


def _gpu_fields(request: SizingRequest, shown: str | None) -> dict[str, Any]:
    """The GPU mentions of the configurations the model sized (typed, from its request), each
    named as the reading shows it; a count said without a GPU is the workload's GPU count."""
    configs = list(request.configurations)
    named = [c for c in configs if c.gpu]
    words = (shown or "").split(" or ")
    texts = words if len(words) == len(configs) else [str(c.gpu) for c in named]
    mentions = [
        GpuMention(gpu=c.gpu, count=c.count, text=text)
        for c, text in zip(named, texts, strict=False)
    ]
    unnamed = [c.count for c in configs if not c.gpu]
    return {"gpus": mentions, "gpu_count": unnamed[0] if unnamed else None}


def _fields(
    slot: str, stated: CallSlot | None, shown: str | None, request: SizingRequest
) -> dict[str, Any] | None:
    """The workload fields a slot sets from the model's reading (None: a slot the workload
    has no field for); `stated` None: the model left it to the tool's default."""
    if slot == "gpus":
        return _gpu_fields(request, shown) if stated is not None else {"gpus": []}
    if slot == "budget":
        budget = request.budget if stated is not None else None
        return {
            "budget_amount": None if budget is None else budget.amount,
            "budget_currency": None if budget is None else budget.currency,
            "budget_period": None if budget is None else budget.period,
        }
    value = None if stated is None else stated.value
    if slot == "model":
        # The catalog id the model sized, named as it named it; a bare size no longer applies.
        return {"model": value, "model_text": shown if stated else None, "params": None}
    if slot in ParsedWorkload.model_fields and slot not in ("text", "sources"):
        return {slot: value}
    return None


def adopted(
    parsed: ParsedWorkload,
    request: SizingRequest,
    model_slots: Mapping[str, CallSlot],
    diffs: Sequence[Difference],
    reading: Reading | None = None,
) -> ParsedWorkload:
    """`parsed` with the model's value in each differing slot (see the module docstring):
    scalars from the call's typed slots, GPUs and budget from its validated `request`; each
    slot taken from `reading` gets the model's provenance."""
    current = parsed
    for diff in diffs:
        slot = model_slots.get(diff.slot)
        stated = slot if slot is not None and slot.stated else None
        fields = _fields(diff.slot, stated, diff.model, request)
        if fields is None:
            continue
        sources = dict(current.sources)
        read = reading.slot(diff.slot) if reading is not None else None
        if read is not None:
            sources[diff.slot] = read.source
        else:
            sources.pop(diff.slot, None)
        try:
            current = ParsedWorkload.model_validate(
                {**current.model_dump(), **fields, "sources": sources}
            )
        except ValidationError:
            continue  # the parser's value stays: the workload cannot hold the model's
    return current
