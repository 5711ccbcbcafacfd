"""LLM token cost and round trips (issue 6): prompt + tool schemas tokens (target ≤ 2,500,
o200k_base), tokens per tool result — full (kept in the conversation) and as sent to the model
(the per-tool summary, targets: typical ≤ ~600, max ≤ ~1,500) — and model round trips per
scenario against a scripted respx model (no network): the model calls a tool only when the turn
has no tool result yet. The cost tool, which the engine does not pre-compute, is measured on the
call the offline planner makes from each scenario's recommendation."""

from __future__ import annotations

import asyncio
import importlib
import json
from typing import Any

import httpx2

httpx2.alias_httpx()  # openai>=3 sends through httpx2; respx patches httpx (see tests/conftest.py)

import httpx  # noqa: E402
import respx  # noqa: E402

from assistant.config import Settings  # noqa: E402
from assistant.conversation import Conversation  # noqa: E402
from assistant.llm import LlmEngine  # noqa: E402
from assistant.prompts import load_prompt  # noqa: E402
from assistant.registry import Registry, compact_json, default_registry  # noqa: E402
from assistant.results import load_result  # noqa: E402
from assistant.tokens import count_text, count_tools  # noqa: E402
from assistant.wire import lean_result, model_view  # noqa: E402
from bench.harness import write_result  # noqa: E402

BASE = "http://127.0.0.1:9/v1"
SCENARIOS = (
    "Can I serve Llama 3.1 70B on 4x H100 for 32 users with 8k context?",
    "How much memory does Llama 3.1 8B need in bf16 with 4k context?",
    "Which GPUs can run Mixtral 8x7B for 16 users?",
    "Fine-tune Llama 3.1 8B with LoRA on one A100 80GB?",
    "QLoRA Llama 3.1 70B on a single H100?",
    "Serve Qwen2.5 72B in int4 AWQ for 64 users at 20 tokens/s each",
    "How many H200 for DeepSeek V3 in fp8?",
    "Full fine-tune of Llama 3.1 8B, 2k sequences, batch 64",
    "What is the memory bandwidth of an MI300X?",
    "Llama 3.1 405B in fp8 with 128k context for 8 users",
    "Is an L40S enough for Llama 3.1 8B at 32k context?",
)


def _script(request: httpx.Request) -> httpx.Response:
    body = json.loads(request.content)
    msgs = body["messages"]
    last_user = max(i for i, m in enumerate(msgs) if m["role"] == "user")
    has_result = any(m["role"] == "tool" for m in msgs[last_user:])
    if body.get("tools") and not has_result:
        delta: dict[str, Any] = {
            "tool_calls": [
                {
                    "index": 0,
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "list_gpus", "arguments": "{}"},
                }
            ]
        }
        finish = "tool_calls"
    else:
        delta, finish = {"content": "Answer from the tool results."}, "stop"
    chunk = {
        "id": "x",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    text = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n"
    return httpx.Response(200, text=text, headers={"content-type": "text/event-stream"})


async def _round_trips(precompute: bool) -> dict[str, Any]:
    per: list[int] = []
    result_tokens: list[int] = []
    sent_tokens: list[int] = []
    engine = LlmEngine(Settings(base_url=BASE, model="m"), env={}, precompute=precompute)
    for question in SCENARIOS:
        with respx.mock:
            route = respx.post(f"{BASE}/chat/completions").mock(side_effect=_script)
            conv = Conversation()
            async for _ in engine.run_turn(conv, question):
                pass
            per.append(route.call_count)
        result_tokens += [
            count_text(compact_json(lean_result(load_result(m)))) for m in conv.tool_results()
        ]
        sent = [m for m in model_view(conv.messages) if m.get("role") == "tool"]
        sent_tokens += [count_text(m["content"]) for m in sent]
    return {
        "round_trips": per,
        "mean_round_trips": sum(per) / len(per),
        "max_round_trips": max(per),
        "tool_result_tokens_mean": sum(result_tokens) / max(1, len(result_tokens)),
        "tool_result_tokens_max": max(result_tokens, default=0),
        "sent_result_tokens_mean": sum(sent_tokens) / max(1, len(sent_tokens)),
        "sent_result_tokens_max": max(sent_tokens, default=0),
    }


def _size_results(registry: Registry) -> dict[str, Any]:
    """Full and sent tokens of the `size` call planned for each question (its report holds
    the costs the engine used to price in a separate call)."""
    offline = importlib.import_module("assistant.offline")
    full: list[int] = []
    sent: list[int] = []
    for question in SCENARIOS:
        for call in offline.plan_tool_calls(offline.parse_workload(question)):
            if call.name != "size":
                continue
            out = registry.call(call.name, call.arguments)
            full.append(count_text(compact_json(out.result)))
            sent.append(count_text(out.content))
    return {
        "calls": len(full),
        "full_tokens_mean": sum(full) / max(1, len(full)),
        "full_tokens_max": max(full, default=0),
        "sent_tokens_mean": sum(sent) / max(1, len(sent)),
        "sent_tokens_max": max(sent, default=0),
    }


def run() -> dict[str, Any]:
    """Measure and return the LLM bench figures (JSON-ready)."""
    registry = default_registry()
    prompt_tokens = count_text(load_prompt())
    schema_tokens = count_tools(registry.schemas())
    out: dict[str, Any] = {
        "system_prompt_tokens": prompt_tokens,
        "tool_schema_tokens": schema_tokens,
        "prompt_plus_schemas_tokens": prompt_tokens + schema_tokens,
        "target_prompt_plus_schemas_tokens": 2500,
        "tools": registry.names,
        "tools_unavailable": sorted(registry.unavailable),
        "scenarios": len(SCENARIOS),
        "with_precompute": asyncio.run(_round_trips(True)),
        "without_precompute": asyncio.run(_round_trips(False)),
        "size_results": _size_results(registry),
        "schema_json_chars": len(compact_json(registry.schemas())),
    }
    with_pre, without_pre = out["with_precompute"], out["without_precompute"]
    out["llm"] = {
        "system prompt + tool schemas, tokens (o200k_base; target 2,500)": (
            prompt_tokens + schema_tokens
        ),
        "tool result tokens sent to the model, mean": with_pre["sent_result_tokens_mean"],
        "tool result tokens sent to the model, max": with_pre["sent_result_tokens_max"],
        "full tool result tokens (kept in the session), mean": with_pre["tool_result_tokens_mean"],
        "size result tokens sent, mean": out["size_results"]["sent_tokens_mean"],
        f"model round trips per question, tools pre-computed ({len(SCENARIOS)} scenarios)": (
            with_pre["mean_round_trips"]
        ),
        "model round trips per question, without pre-computing": without_pre["mean_round_trips"],
    }
    return out


if __name__ == "__main__":
    result = run()
    write_result("llm", result)
    print(json.dumps(result, indent=2))
