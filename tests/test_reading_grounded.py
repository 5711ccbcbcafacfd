"""A model's call is grounded in the conversation (issue 28, point 1): every number one the user
wrote in any usual spelling, a simple derivation of those, or a stated default; every model or
GPU one the conversation named. And two calls compare by typed slots, never by their words."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from assistant.reading.grounded import Conversed, ground_call, refusal
from assistant.reading.numbers import written_numbers
from assistant.reading.of_call import call_slots
from assistant.reading.reconcile import differences
from tools.memory import MemoryRequest
from tools.sizing import SizingRequest


def _ground(question: str, arguments: dict[str, Any], model: type[BaseModel] = SizingRequest,
            **conv: Any) -> list[str]:  # fmt: skip
    tool = "size" if model is SizingRequest else "estimate_memory"
    grounding = ground_call(tool, arguments, model, Conversed(question, **conv))
    return [u.field for u in grounding.ungrounded]


def _w(**workload: Any) -> dict[str, Any]:
    return {"workload": {"model": "llama-3.1-8b", **workload}}


@pytest.mark.parametrize(
    "question,workload",
    [
        ("Llama 3.1 8B with 16k context", {"context": 16_384}),
        ("Llama 3.1 8B with 16k context", {"context": 16_000}),
        ("Llama 3.1 8B with 16,384 tokens of context", {"context": 16_384}),
        ("Llama 3.1 8B with 16384 tokens of context", {"context": 16_384}),
        ("Llama 3.1 8B with 16K context", {"context": 16_384}),
        ("Llama 3.1 8B for forty users", {"users": 40}),
        ("Llama 3.1 8B for a dozen users", {"users": 12}),
        ("Llama 3.1 8B, first token within 500ms", {"ttft_s": 0.5}),
        ("Llama 3.1 8B, first token within 500 ms", {"ttft_s": 0.5}),
        ("Llama 3.1 8B, 2k-token prompts and 500-token answers", {"context": 2_500}),
        ("Llama 3.1 8B, 2k-token prompts and 500-token answers", {"prompt_tokens": 2_000}),
        ("Llama 3.1 8B at 3,000 tokens/s overall", {"tokens_per_s": 3_000}),
        ("Llama 3.1 8B at 1.5k tok/s", {"tokens_per_s": 1_500}),
        ("a 13B model for 8 users", {"model": None, "params": "13B", "users": 8}),
        ("a 13 billion parameter model", {"model": None, "params": 13e9}),
        ("Llama 3.1 8B, 8 GPUs with 4 users each", {"users": 32}),
    ],
)
def test_numbers_the_user_wrote_in_any_spelling_are_grounded(
    question: str, workload: dict[str, Any]
) -> None:
    arguments = _w(**workload)
    if workload.get("model", "") is None:
        del arguments["workload"]["model"]
    assert _ground(question, arguments) == []


def test_budgets_per_period_and_multiples_of_earlier_readings_are_grounded() -> None:
    # 50,000 USD a year is 4,166.67 a month (÷ 12); 'twice the users' of an earlier 40 is 80.
    budget = {**_w(), "budget": {"amount": 4166.67, "currency": "USD", "period": "month"}}
    assert _ground("Llama 3.1 8B on a budget of $50k a year", budget) == []
    assert (
        _ground(
            "and twice the users?",
            _w(users=80),
            earlier_user_text=["Llama 3.1 8B for 40 users"],
            earlier_arguments=[_w(users=40)],
        )
        == []
    )


@pytest.mark.parametrize(
    "arguments,field",
    [
        (_w(users=1000), "workload.users"),
        (_w(context=8192), "workload.context"),
        (_w(tokens_per_s=250.0), "workload.tokens_per_s"),
        ({**_w(), "configurations": [{"gpu": "h100", "count": 8}]}, "configurations[0].count"),
        ({**_w(), "budget": {"amount": 5000, "period": "month"}}, "budget.amount"),
    ],
)
def test_invented_numbers_are_not_grounded(arguments: dict[str, Any], field: str) -> None:
    question = "Llama 3.1 8B on an H100 for 40 users, first token in 2 s"
    assert _ground(question, arguments) == [field]


def test_stated_defaults_are_grounded() -> None:
    # The tools' defaults: 3,072 + 1,024 tokens (4,096), one user, vLLM's 0.9 utilisation.
    defaults = _w(prompt_tokens=3072, output_tokens=1024, context=4096, users=1)
    assert _ground("Llama 3.1 8B?", defaults) == []
    memory = {"model": "llama-3.1-8b", "gpu_memory_utilization": 0.9, "batch": 1}
    assert _ground("Llama 3.1 8B?", memory, MemoryRequest) == []


def test_names_the_conversation_did_not_say_are_not_grounded() -> None:
    question = "What do I need for Llama 3.1 70B and 40 users?"
    other_model = {"workload": {"model": "qwen2.5-72b", "users": 40}}
    assert _ground(question, other_model) == ["workload.model"]
    invented_gpu = {
        "workload": {"model": "llama-3.1-70b", "users": 40},
        "configurations": [{"gpu": "h100-sxm"}],
    }
    assert _ground(question, invented_gpu) == ["configurations[0].gpu"]
    # A GPU and a count a tool result showed the model are grounded (it sizes that option).
    shown = '{"best_options":[{"gpu":"mi300x","count":2}]}'
    option = {**invented_gpu, "configurations": [{"gpu": "MI300X", "count": 2}]}
    assert _ground(question, option, results_text=[shown], gpu_counts={("mi300x", 2)}) == []
    # A loose spelling of the model the user named: its size is what they wrote.
    assert (
        _ground("a 70B for 40 users", {"workload": {"model": "llama-3.1-70b", "users": 40}}) == []
    )


def test_the_refusal_names_the_field_and_the_users_figures() -> None:
    question = "We expect 1,000 users a day, 40 at once; Llama 3.1 70B"
    conv = Conversed(question)
    arguments = {"workload": {"model": "llama-3.1-70b", "users": 400}}
    error = refusal(ground_call("size", arguments, SizingRequest, conv), conv)
    assert error.field == "workload.users"
    assert (
        "400" in error.error and "1,000" in (error.allowed or "") and "40" in (error.allowed or "")
    )


def test_spans_point_at_what_was_written() -> None:
    found = {n.span.text: n.values for n in written_numbers("16k context, 1.5 million tokens")}
    assert found["16k"] == (16_000.0, 16_384.0)
    assert found["1.5 million"] == (1_500_000.0,)


# --- comparing readings by slots ----------------------------------------------------------


def _slots(arguments: dict[str, Any]) -> dict[str, Any]:
    return call_slots("size", SizingRequest.model_validate(arguments), arguments)


def test_readings_compare_by_typed_slots_not_by_words() -> None:
    parser = _slots(
        {
            "workload": {"model": "llama-3.1-70b", "weights": "int4-awq", "users": 40},
            "configurations": [{"gpu": "h100-sxm", "count": 2, "words": "two H100s"}],
        }
    )
    same = _slots(
        {
            "workload": {"model": "Llama 3.1 70B", "weights": "int4", "users": 40, "context": 4096},
            "configurations": [{"gpu": "H100", "count": 2}],
        }
    )
    assert differences(same, parser) == []
    other = _slots(
        {
            "workload": {"model": "llama-3.1-70b", "weights": "int4-awq", "users": 1000},
            "configurations": [{"gpu": "h100-sxm", "count": 2}],
        }
    )
    diffs = differences(other, parser)
    assert [(d.slot, d.model, d.parser) for d in diffs] == [
        ("users", "1,000 concurrent users", "40 concurrent users")
    ]
