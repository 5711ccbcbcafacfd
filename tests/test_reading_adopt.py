"""The chosen reading carried into the stored workload (`assistant.reading.adopt`): each slot
the model read otherwise maps onto the parser's workload fields, typed."""

from __future__ import annotations

from typing import Any

from assistant.reading.adopt import adopted
from assistant.reading.of_call import call_slots
from assistant.reading.parsed import ParsedWorkload
from assistant.reading.reconcile import differences
from tools.sizing import SizingRequest


def _slots(arguments: dict[str, Any]) -> dict[str, Any]:
    return call_slots("size", SizingRequest.model_validate(arguments), arguments)


def test_gpus_budget_and_lengths_map_onto_the_workload() -> None:
    parser_args = {"workload": {"model": "llama-3.1-8b", "users": 10}}
    model_args = {
        "workload": {"model": "llama-3.1-8b", "users": 10, "context": 16384},
        "configurations": [{"gpu": "l40s", "count": 2}],
        "budget": {"amount": 3000, "currency": "EUR", "period": "month"},
    }
    model, parser = _slots(model_args), _slots(parser_args)
    diffs = differences(model, parser)
    assert {d.slot for d in diffs} >= {"gpus", "budget", "context"}
    parsed = ParsedWorkload(text="q", model="llama-3.1-8b", users=10)
    carried = adopted(parsed, SizingRequest.model_validate(model_args), model, diffs)
    assert carried.context == 16384
    assert [(g.gpu, g.count) for g in carried.gpus] == [("l40s", 2)]
    assert (carried.budget_amount, carried.budget_currency, carried.budget_period) == (
        3000,
        "EUR",
        "month",
    )
    assert carried.users == 10 and carried.model == "llama-3.1-8b"


def test_a_slot_the_model_left_to_the_default_is_cleared_and_agreeing_slots_stay() -> None:
    parser_args = {"workload": {"model": "llama-3.1-8b", "users": 10, "context": 8192}}
    model_args = {"workload": {"model": "llama-3.1-8b", "users": 10}}
    model, parser = _slots(model_args), _slots(parser_args)
    diffs = differences(model, parser)
    parsed = ParsedWorkload(text="q", model="llama-3.1-8b", users=10, context=8192)
    carried = adopted(parsed, SizingRequest.model_validate(model_args), model, diffs)
    if any(d.slot == "context" for d in diffs):
        assert carried.context is None
    assert carried.users == 10
    # No difference: the very same workload.
    assert adopted(parsed, SizingRequest.model_validate(parser_args), parser, []) == parsed
