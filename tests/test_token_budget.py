"""Token budget (issue 6 §5-6): compact schemas that agree with validation, the prompt+schema
budget, model-facing summaries copied from the full results, and the cost tool's registration."""

from __future__ import annotations

import json
import math
from typing import Any

import httpx
import pytest
import respx
from pydantic import BaseModel, Field

from assistant.config import Settings
from assistant.conversation import Conversation
from assistant.cost_tool import CostRequest, run_cost_request
from assistant.llm import LlmEngine
from assistant.llm.profile import (
    LEAN_BUDGET_TOKENS,
    choose_profile,
    system_prompt,
    tool_schemas,
    workload_offers,
)
from assistant.offline.parser import parse_workload
from assistant.prompts import load_prompt
from assistant.registry import default_registry
from assistant.results import load_result
from assistant.schemas import compact_schema, first_sentence
from assistant.tokens import count_text, count_tools
from assistant.wire import compact_json, lean, model_content
from tools.deployment.speedups import SpeedupOptions
from tools.errors import ToolInputError
from tools.memory import MemoryEstimate
from tools.pricing import builtin_price_book
from tools.sizing import SizingRequest

REGISTRY = default_registry()
BUDGET_TOKENS = 2_500  # issue 6, scope 5: prompt + tool schemas <= 2,500 tokens (o200k_base)


def test_prompt_plus_schemas_within_budget() -> None:
    total = count_text(load_prompt()) + count_tools(REGISTRY.schemas())
    assert total <= BUDGET_TOKENS, total
    assert tool_schemas(REGISTRY, "full") == REGISTRY.schemas()


READINGS = [
    ("Does Llama 3.1 70B fit on one H100?", set()),
    ("Give me the SGLang launch command for Llama 3.1 8B on one H100", {"deployment"}),
    ("Buy or rent 8 H100s for Llama 3.1 70B at 0.10 USD per kWh?", {"deployment"}),
    ("Llama 3.1 70B on 4 H100, speculative decoding, Llama 3.2 1B as draft", {"deployment"}),
    ("How long to embed 10 million documents with bge-m3 on an L4?", {"embedding"}),
]  # fmt: skip


@pytest.mark.parametrize(("question", "offers"), READINGS)
def test_every_readings_offer_is_within_the_budget(question: str, offers: set[str]) -> None:
    """Issue 30: the workload tools are offered when the reading shows the workload, and every
    turn's prompt + schemas stays within the 2,500 tokens."""
    reading = parse_workload(question)
    assert workload_offers(reading) == offers
    tools = tool_schemas(REGISTRY, "full", reading=reading)
    total = count_text(load_prompt()) + count_tools(tools)
    assert total <= BUDGET_TOKENS, total
    names = [t["function"]["name"] for t in tools]
    size = next(t for t in tools if t["function"]["name"] == "size")
    parts = set(size["function"]["parameters"]["properties"])
    assert ("embed_corpus" in names) == ("embedding" in offers)
    assert {"serve_engine", "buy", "speedups"} <= parts or "deployment" not in offers
    assert ("estimate_memory" in names) == (not offers)
    # Every field offered is one validation takes (the expert ones stay hidden, not lost).
    if "deployment" in offers:
        fields = SizingRequest.model_fields
        assert parts <= set(fields)
        assert set(parts_of(size, "speedups")) <= set(SpeedupOptions.model_fields)


def parts_of(tool: dict[str, Any], part: str) -> dict[str, Any]:
    props: dict[str, Any] = tool["function"]["parameters"]["properties"][part]["properties"]
    return props


def test_lean_profile_within_its_budget_and_still_validated() -> None:
    # Issue 17: prompt + schemas <= 1,200 tokens for small windows (o200k_base).
    lean = tool_schemas(REGISTRY, "lean")
    total = count_text(system_prompt("lean", load_prompt())) + count_tools(lean)
    assert total <= LEAN_BUDGET_TOKENS, total
    # One tool, the sizing report's: the model's reading is compared from its `size` call.
    assert [t["function"]["name"] for t in lean] == ["size"]
    workload = lean[0]["function"]["parameters"]["properties"]["workload"]["properties"]
    assert {"model", "users", "context", "weights"} <= set(workload)
    # Every lean field is a field of the full schema, with the same required list...
    for tool in lean:
        name = tool["function"]["name"]
        full = REGISTRY.specs[name].schema()["function"]["parameters"]
        params = tool["function"]["parameters"]
        assert set(params["properties"]) <= set(full["properties"])
        assert params.get("required", []) == full.get("required", [])
    # ...and a call with a field only the full profile offers is still accepted.
    out = REGISTRY.call("size", {"workload": {"model": "llama-3.1-8b", "ttft_s": 2.0}})
    assert not out.is_error, out.result
    # The strict form requires only properties it offers, at every level.
    (strict,) = tool_schemas(REGISTRY, "lean", strict=True)
    params = strict["function"]["parameters"]
    inner = params["properties"]["workload"]
    for node in (params, inner):
        assert set(node.get("required", [])) <= set(node["properties"])


def test_profile_follows_the_window() -> None:
    assert choose_profile("auto", 4096) == "lean"
    assert choose_profile("auto", 8192) == "lean"
    assert choose_profile("auto", 32768) == "full"
    assert choose_profile("full", 2048) == "full" and choose_profile("lean", 128_000) == "lean"


def test_every_tool_is_registered() -> None:
    expected = {
        "estimate_memory",
        "recommend",
        "compare_costs",
        "find_model",
        "find_gpu",
        "list_models",
        "list_gpus",
    }
    assert expected <= set(REGISTRY.names)


def _leaf_enums(schema: dict[str, Any]) -> list[Any] | None:
    if "enum" in schema:
        return list(schema["enum"])
    items = schema.get("items")
    return _leaf_enums(items) if isinstance(items, dict) else None


@pytest.mark.parametrize("name", sorted(REGISTRY.names))
def test_schema_agrees_with_validation(name: str) -> None:
    spec = REGISTRY.specs[name]
    params = spec.schema()["function"]["parameters"]
    fields = spec.input_model.model_fields
    full = spec.input_model.model_json_schema()
    # Every offered field exists, required fields are all offered and still required.
    assert set(params["properties"]) <= set(fields)
    assert params.get("required", []) == full.get("required", [])
    for field, prop in params["properties"].items():
        enum = _leaf_enums(prop)
        if enum is not None:  # the same values validation accepts
            raw = full["properties"][field]
            options = raw.get("anyOf", [raw])
            raw_enum = next(e for e in (_leaf_enums(o) for o in options) if e is not None)
            assert enum == raw_enum
        assert "title" not in prop and "$ref" not in json.dumps(prop)


def test_compact_schema_by_hand() -> None:
    class Example(BaseModel):
        """Docstring the model never needs."""

        name: str = Field(description="A name. Second sentence is dropped.")
        size: int | None = Field(default=None, ge=1, le=10_000, description="Size, count.")
        ratio: float = Field(default=0.5, gt=0, le=1, description="A fraction.")

    assert compact_schema(Example) == {
        "properties": {
            "name": {"description": "A name.", "type": "string"},
            # anyOf [integer, null] -> integer; the 1..10,000 sanity bounds are dropped.
            "size": {"type": "integer", "description": "Size, count."},
            # A fraction's upper bound is meaningful and kept.
            "ratio": {"default": 0.5, "description": "A fraction.", "maximum": 1, "type": "number"},
        },
        "required": ["name"],
        "type": "object",
    }
    assert "size" not in compact_schema(Example, hidden=("size",))["properties"]
    with pytest.raises(ValueError, match="required"):
        compact_schema(Example, hidden=("name",))
    with pytest.raises(ValueError, match="not a field"):
        compact_schema(Example, hidden=("nope",))


def test_first_sentence_cuts_asides_then_words() -> None:
    assert first_sentence("Short one. Then more.") == "Short one."
    assert first_sentence("e.g. 'x' stays together.") == "e.g. 'x' stays together."
    text = "Tokens per sequence (a long aside about what it means here) for the KV cache."
    assert first_sentence(text, 50) == "Tokens per sequence for the KV cache."
    # 19 characters kept, then the last (possibly partial) word dropped, then "…".
    assert first_sentence("word " * 30, 20) == "word word word…"


def test_hidden_fields_are_still_accepted() -> None:
    # cuda_graph_bytes is hidden from the model but validation still accepts it.
    schema = REGISTRY.specs["estimate_memory"].schema()["function"]["parameters"]
    assert "cuda_graph_bytes" not in schema["properties"]
    out = REGISTRY.call("estimate_memory", {"model": "llama-3.1-8b", "cuda_graph_bytes": 0})
    assert not out.is_error


def _numbers(value: Any) -> list[float]:
    if isinstance(value, bool):
        return []
    if isinstance(value, int | float):
        return [float(value)]
    if isinstance(value, dict):
        return [n for v in value.values() for n in _numbers(v)]
    if isinstance(value, list):
        return [n for v in value for n in _numbers(v)]
    return []


MEMORY_70B = {"model": "llama-3.1-70b", "gpus": 4, "gpu": "h100-sxm", "batch": 32, "context": 8192}
RECOMMEND_70B = {"model": "llama-3.1-70b", "users": 32, "context": 8192}


@pytest.fixture(scope="module")
def results() -> dict[str, Any]:
    memory = REGISTRY.call("estimate_memory", MEMORY_70B)
    recommend = REGISTRY.call("recommend", RECOMMEND_70B)
    fitting = [o for o in recommend.result["options"] if o["fits"]][:3]
    cost_args = {
        "options": [
            {
                "gpu": o["gpu"],
                "count": o["count"],
                "aggregate_tokens_per_s": o["aggregate_tokens_per_s"],
            }
            for o in fitting
        ],
        "model_id": "llama-3.1-70b",
    }
    cost = REGISTRY.call("compare_costs", cost_args)
    return {"estimate_memory": memory, "recommend": recommend, "compare_costs": cost}


@pytest.mark.parametrize("name", ["estimate_memory", "recommend", "compare_costs"])
def test_summary_figures_are_copied_from_the_full_result(name: str, results: Any) -> None:
    outcome = results[name]
    assert not outcome.is_error, outcome.result
    sent = outcome.content  # what the model reads: derived from the typed result (wire.py)
    full = set(_numbers(outcome.result))
    # No figure is recomputed or converted: each number sent is a number of the full result.
    missing = [n for n in _numbers(json.loads(sent)) if n not in full]
    assert missing == []
    # Issue 6 token targets for what the model reads: max about 1,500 tokens per result.
    assert count_text(sent) <= 1_500
    assert count_text(sent) < count_text(compact_json(outcome.result))


def test_memory_summary_keeps_the_verdict(results: Any) -> None:
    summary = json.loads(results["estimate_memory"].content)
    # Llama 3.1 70B config.json: 80 layers, 8 KV heads, head_dim 128; bf16 K and V:
    # 80 × 8 × 128 × 2 (K, V) × 2 bytes = 327,680 bytes per token; / tp 4 = 81,920.
    assert summary["kv_cache_bytes_per_token"] == 80 * 8 * 128 * 2 * 2
    assert summary["kv_cache_bytes_per_token_per_gpu"] == 80 * 8 * 128 * 2 * 2 // 4
    assert {"fits", "headroom_GB", "per_gpu_GB", "budget_bytes_per_gpu"} <= set(summary)
    assert {"weights", "kv_cache"} <= set(summary["breakdown_bytes_per_gpu"])
    assert summary["assumptions"]


def test_recommend_summary_has_best_options_and_reasons(results: Any) -> None:
    full = results["recommend"].result
    summary = json.loads(results["recommend"].content)
    feasible = [o for o in full["options"] if o["fits"] and o["meets_targets"]]
    assert [o["gpu"] for o in summary["best_options"]] == [o["gpu"] for o in feasible[:3]]
    # Limited to one GPU, Llama 3.1 70B cannot run on an A10G: its bf16 weights alone are
    # 2 × 70,553,706,496 B = 131.4 GiB, over the budget 0.9 × 22 GiB (AWS's usable A10G
    # memory) = 19.8 GiB. The A10G must be among the GPUs with a stated reason, quoting it.
    one_gpu = REGISTRY.call("recommend", {**RECOMMEND_70B, "constraints": {"max_gpus": 1}})
    assert not one_gpu.is_error, one_gpu.result
    rejected = json.loads(one_gpu.content)["not_feasible"]
    assert rejected["a10g"]["count"] == 1
    assert "budget 19.8 GiB" in rejected["a10g"]["reason"]


def test_cost_summary_keeps_cheapest_per_tier_and_break_even(results: Any) -> None:
    full = results["compare_costs"].result
    summary = json.loads(results["compare_costs"].content)
    assert set(summary["cheapest_by_tier"]) == set(full["cheapest_by_tier"])
    by_id = {r["price_id"]: r for r in full["rows"]}
    for tier, row in summary["cheapest_by_tier"].items():
        assert row["usd_per_hour"] == by_id[full["cheapest_by_tier"][tier]]["usd_per_hour"]
    assert len(summary["break_even"]) == len(full["break_even"])


def test_cost_tool_training_by_hand() -> None:
    result = run_cost_request(
        CostRequest.model_validate({"options": [{"gpu": "H100 SXM", "count": 8, "hours": 10}]})
    )
    assert result.serving is None and result.training is not None  # only a training job
    on_demand = next(r for r in result.training.rows if r.tier == "on_demand")
    # Training cost = the catalog's hourly price for 8 GPUs × wall-clock hours (no spot
    # overhead on demand): whole instances rented × instance price, or 8 × a per-GPU rate.
    # The price comes from the cited catalog entry, not the row.
    entry = next(p for p in builtin_price_book().prices if p.id == on_demand.price_id)
    if entry.gpus_per_instance is None:
        instances, per_hour = None, entry.price_per_gpu_hour * 8
    else:
        instances = math.ceil(8 / entry.gpus_per_instance)
        assert entry.price_per_instance_hour is not None
        per_hour = entry.price_per_instance_hour * instances
    assert on_demand.instances == instances
    assert on_demand.per_hour == pytest.approx(per_hour)
    assert on_demand.cost == pytest.approx(per_hour * 10)
    assert on_demand.wall_hours == 10 and on_demand.as_of == entry.as_of


def test_cost_tool_unknown_gpu_names_the_field() -> None:
    with pytest.raises(ToolInputError) as err:
        run_cost_request(
            CostRequest.model_validate(
                {"options": [{"gpu": "h100-sxm", "count": 1}, {"gpu": "h1000", "count": 1}]}
            )
        )
    assert err.value.field == "options.1.gpu"  # which option, in the request's own terms


BASE = "http://127.0.0.1:8080/v1"


@respx.mock
async def test_engine_sends_summary_and_keeps_full_result() -> None:
    answer = {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "delta": {"content": "ok"}, "finish_reason": "stop"}],
    }
    route = respx.post(f"{BASE}/chat/completions").mock(
        return_value=httpx.Response(
            200,
            text=f"data: {json.dumps(answer)}\n\ndata: [DONE]\n\n",
            headers={"content-type": "text/event-stream"},
        )
    )

    def planner(text: str, conv: Conversation) -> list[tuple[str, dict[str, Any]]]:
        return [("estimate_memory", MEMORY_70B)]

    engine = LlmEngine(
        Settings(base_url=BASE, model="m"), planner=planner, env={}, system_prompt="SYS"
    )
    conv = Conversation()
    _ = [e async for e in engine.run_turn(conv, "70B on 4x H100?")]
    stored = conv.tool_results()[0]
    sent = json.loads(route.calls[0].request.content)["messages"]
    tool_msg = next(m for m in sent if m["role"] == "tool")
    full = load_result(stored, "estimate_memory")  # the conversation keeps the typed result
    assert isinstance(full, MemoryEstimate) and full.components
    assert tool_msg["content"] == stored["content"] == model_content("estimate_memory", full)
    assert tool_msg["content"] != compact_json(lean(full))
    assert "result" not in tool_msg  # the typed result is never sent
