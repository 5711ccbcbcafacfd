"""OfflineEngine: the Engine contract, OpenAI-format messages, clarifying questions, follow-ups.

The contract checked here is COMMON's: user message appended first, each tool call as an
assistant `tool_calls` entry plus a `tool` message with the same id, exactly one `Done` last.
"""

from __future__ import annotations

import json

import pytest

from assistant.conversation import Conversation
from assistant.engine_base import Engine
from assistant.events import Done, Event, TextDelta, ToolCallStarted, ToolResult
from assistant.offline import OfflineEngine, PlannedCall, parse_workload, plan_tool_calls
from assistant.offline.engine import previous_workload


async def _turn(engine: OfflineEngine, conversation: Conversation, text: str) -> list[Event]:
    return [event async for event in engine.run_turn(conversation, text)]


def test_offline_engine_implements_the_protocol() -> None:
    engine = OfflineEngine()
    assert isinstance(engine, Engine) and engine.mode == "offline"


async def test_missing_model_asks_one_question_and_runs_no_tool() -> None:
    conversation = Conversation()
    events = await _turn(OfflineEngine(), conversation, "100 concurrent chats on an H200")
    assert not any(isinstance(e, ToolCallStarted) for e in events)
    assert isinstance(events[-1], Done) and sum(isinstance(e, Done) for e in events) == 1
    assert "Which model" in events[-1].text
    assert conversation.messages[0] == {
        "role": "user",
        "content": "100 concurrent chats on an H200",
    }
    assert conversation.messages[-1]["role"] == "assistant"


async def test_tool_calls_are_recorded_in_openai_format() -> None:
    conversation = Conversation()
    events = await _turn(OfflineEngine(), conversation, "Llama 3.1 8B on an L4 for 10 users")
    started = [e for e in events if isinstance(e, ToolCallStarted)]
    results = [e for e in events if isinstance(e, ToolResult)]
    assert started and [e.call_id for e in started] == [e.call_id for e in results][: len(started)]
    call_message = conversation.messages[1]
    assert call_message["role"] == "assistant" and call_message["content"] is None
    ids = [c["id"] for c in call_message["tool_calls"]]
    tool_ids = [m["tool_call_id"] for m in conversation.messages if m["role"] == "tool"]
    assert tool_ids[: len(ids)] == ids
    for call in call_message["tool_calls"]:
        assert call["type"] == "function"
        json.loads(call["function"]["arguments"])  # arguments are a JSON string
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert isinstance(events[-1], Done) and events[-1].text == text
    assert conversation.messages[-1] == {"role": "assistant", "content": text}


async def test_follow_up_refines_the_workload_stored_in_the_conversation() -> None:
    engine = OfflineEngine()
    conversation = Conversation()
    await _turn(engine, conversation, "Llama 3.1 70B on one H200 for 40 users")
    first = previous_workload(conversation)
    assert first is not None and first.model == "llama-3.1-70b" and first.users == 40
    events = await _turn(engine, conversation, "what about 8-bit?")
    calls = [e for e in events if isinstance(e, ToolCallStarted)]
    memory = [c for c in calls if c.name == "estimate_memory"]
    assert memory and memory[0].arguments["model"] == "llama-3.1-70b"
    assert memory[0].arguments["weights"] == "int8" and memory[0].arguments["batch"] == 40


def test_plan_for_a_named_configuration() -> None:
    # "a 70B on 2×H100 vs 1×H200": one memory estimate per configuration, TP across the two
    # H100s (one replica), then the recommender restricted to those GPUs.
    planned = plan_tool_calls(parse_workload("a 70B on 2×H100 vs 1×H200"))
    assert planned[0] == PlannedCall(
        "estimate_memory", {"params": 70e9, "gpu": "h100-sxm", "gpus": 2, "tp": 2}
    )
    assert planned[1] == PlannedCall("estimate_memory", {"params": 70e9, "gpu": "h200-sxm"})
    assert planned[2].name == "recommend"
    assert planned[2].arguments["constraints"] == {"only_gpus": ["h100-sxm", "h200-sxm"]}


def test_plan_maps_training_fields_to_the_workload_schema() -> None:
    parsed = parse_workload("LoRA on Llama 3.1 8B with 50k examples of 1k tokens in 3 days")
    args = plan_tool_calls(parsed)[-1].arguments
    assert args["task"] == "lora" and args["sequence_length"] == 1024
    assert args["train_tokens"] == 50_000 * 1024 and args["deadline_hours"] == 72.0


def test_nothing_is_planned_while_a_question_is_open() -> None:
    assert plan_tool_calls(parse_workload("serve acme/Thing-7B")) == []


async def test_verdict_leads_with_the_gpu_count_when_one_gpu_is_not_enough() -> None:
    # "on H100s" names a GPU but no count: the verdict must say how many, not only that one
    # is too few. Hand check of the need: 40 users × 16,384 tokens = 655,360 KV tokens.
    conversation = Conversation()
    events = await _turn(
        OfflineEngine(),
        conversation,
        "serve Llama 3.1 70B in 4-bit to 40 users with 16k context on H100s",
    )
    done = next(e for e in events if isinstance(e, Done))
    first, second = done.text.splitlines()[:2]
    assert first.startswith("**Needs ") and "H100 SXM5" in first
    assert second.startswith("**Does not fit on 1× H100 SXM5**")
    recommend = next(
        json.loads(m["content"])
        for m in conversation.messages
        if m.get("role") == "tool" and m.get("name") == "recommend"
    )
    best = next(o for o in recommend["options"] if o["gpu"] == "h100-sxm" and o["fits"])
    assert f"**Needs {best['count']}× H100 SXM5**" in first
    assert best["dp"] * best["kv_cache_capacity_tokens"] >= 40 * 16_384


async def test_training_answer_prices_the_job_and_mentions_no_kv_cache() -> None:
    conversation = Conversation()
    events = await _turn(
        OfflineEngine(), conversation, "full fine-tune of Llama 3.1 8B on 2B tokens on H100s"
    )
    done = next(e for e in events if isinstance(e, Done))
    assert "KV-cache tokens" not in done.text.splitlines()[0]
    cost = next(
        json.loads(m["content"])
        for m in conversation.messages
        if m.get("role") == "tool" and m.get("name") == "compare_costs"
    )
    on_demand = [r for r in cost["training"]["rows"] if r["tier"] == "on_demand"]
    priced = [r for r in on_demand if r["gpu"] == "h100-sxm" and r.get("usd_cost") is not None]
    cheapest = min(priced, key=lambda r: r["usd_cost"])
    # A job's cost is its wall-clock hours times the hourly price of the GPUs it rents.
    expected = cheapest["wall_hours"] * cheapest["per_hour"]
    assert cheapest["usd_cost"] == pytest.approx(expected, rel=1e-4)
    assert f"{cheapest['usd_cost']:,.2f} at {cheapest['per_hour']}/h" in done.text
