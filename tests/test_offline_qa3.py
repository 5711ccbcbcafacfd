"""Offline answers for QA round 3 (findings A, C, D, E, F, J). Expected figures are hand
arithmetic over published configs, written in each test: Llama 3.1 8B (config.json: 32 layers,
8 KV heads × 128 dims) keeps 2 × 32 × 8 × 128 × 2 B = 131,072 B of bf16 KV per token; Llama 3.1
70B, Qwen2.5 72B and the generic 70B shape (80 layers, 8 KV heads × 128) keep 2 × 80 × 8 × 128 × 2
B = 327,680 B per token."""

from __future__ import annotations

import asyncio
import math
import re

import pytest

from assistant.conversation import Conversation
from assistant.offline.parser import parse_workload
from assistant.offline.planner import plan_tool_calls
from tests.offline_turns import after_reading, answer, last_answer, recommendation, sizing
from tools.memory import MemoryEstimate, MemoryRequest, estimate_memory
from tools.sizing import SizedConfiguration, SizingRequest
from tools.sizing.plan import search_workload
from tools.units import GiB

LLAMA_8B_KV_PER_TOKEN = 2 * 32 * 8 * 128 * 2  # 131,072 B
KV_PER_TOKEN_80_LAYERS = 2 * 80 * 8 * 128 * 2  # 327,680 B


def _ask(text: str) -> tuple[str, Conversation]:
    return asyncio.run(answer(text))


def _estimate(sized: SizedConfiguration | None) -> MemoryEstimate:
    assert sized is not None and sized.estimate is not None
    return sized.estimate


def _search(text: str) -> SizingRequest:
    (planned,) = plan_tool_calls(parse_workload(text))
    return SizingRequest.model_validate(planned.arguments)


def test_a_eight_k_chats_is_a_context_and_the_answer_leads_with_the_count() -> None:
    text = "how many concurrent 8k chats fit on one H100 with Llama 3.1 8B fp8?"
    parsed = parse_workload(text)
    assert (parsed.context, parsed.users, parsed.capacity, parsed.weights) == (
        8192,
        None,
        True,
        "fp8",
    )
    assert parsed.kv_dtype is None and "concurrent" not in " ".join(parsed.unplaced)
    reply, conversation = _ask(text)
    # One 8,192-token chat holds 8,192 × 131,072 B = 1 GiB of bf16 KV (fp8 weights leave the
    # KV cache in bf16), so the count is the whole GiB of KV room on the GPU: QA's hand room
    # 71.7 − 8.46 weights − 0.78 activations − 1.84 runtime, less vLLM's sampler reserve for
    # max_num_seqs = 1,024 requests (H100: ≥ 70 GiB), 1,024 × 128,256 × 16 B = 1.96 GiB:
    # 58.66 GiB → 58 chats.
    assert GiB == 8192 * LLAMA_8B_KV_PER_TOKEN
    chats = int(71.7 - 8.46 - 0.78 - 1.84 - 1024 * 128_256 * 16 / GiB)
    assert chats == 58
    option = recommendation(conversation).options[0]
    assert (option.gpu, option.count) == ("h100-sxm", 1)
    assert option.max_concurrent_sequences == chats
    assert option.max_concurrent_sequences == math.floor(option.kv_cache_capacity_bytes / GiB)
    first = after_reading(reply).splitlines()[0]
    assert first.startswith(f"**{chats} concurrent sequences of 8,192 tokens fit on 1× H100 SXM5**")
    assert "KV cache is sized in bf16" in reply
    assert "How many users generate at the same time?" not in reply


def test_a_users_at_8k_on_one_h100_is_a_capacity_question() -> None:
    reply, conversation = _ask(
        "how many users can one H100 serve at 8k context with Llama 3.1 8B fp8?"
    )
    # The same workload as the 8k-chats question above: 58 chats of 1 GiB of KV each.
    assert recommendation(conversation).options[0].max_concurrent_sequences == 58
    assert after_reading(reply).startswith("**58 concurrent sequences of 8,192 tokens")
    assert "How many users" not in reply


def test_c_a_named_count_bounds_the_recommender_and_the_deadline_is_checked() -> None:
    text = (
        "full fine-tune of Llama 3.1 70B with ZeRO-3 on 32 H100s, 2B tokens, 4k sequences, "
        "deadline 24 hours"
    )
    _reply, conversation = _ask(text)
    search = sizing(conversation).search
    assert search is not None and search.constraints.only_gpus == ["h100-sxm"]
    assert search.constraints.max_gpus == 32 and search.objective == "cheapest"
    # QA hand: 1.172e21 FLOPs / (32 × 989e12 FLOP/s × 0.4 MFU) / 3600 = 25.7 h > 24 h.
    hours = 1.172e21 / (32 * 989e12 * 0.4) / 3600
    assert round(hours, 1) == 25.7
    rec = sizing(conversation).recommendation
    assert rec is not None
    (option,) = [o for o in rec.options if o.count == 32]
    # The QA figure rounds the FLOPs to 4 digits: the tool's hours agree within 0.2 %.
    assert option.training_hours == pytest.approx(hours, rel=2e-3)
    assert not option.meets_targets
    verdict = last_answer(conversation).sections[0].markdown  # the lead
    missed = f"{hours:.1f} h on 32 GPUs > deadline 24.0 h"
    assert f"**32× H100 SXM5 misses a target**: {missed}" in verdict
    assert "64" not in verdict


def test_c_alternatives_lift_the_named_count() -> None:
    parsed = parse_workload("Llama 3.1 70B on 2 H100s, or alternatives?")
    assert parsed.alternatives
    request = _search("Llama 3.1 70B on 2 H100s, or alternatives?")
    assert not request.named_count_is_limit
    search = search_workload(request, request.configurations, None)
    assert "max_gpus" not in search.constraints.model_fields_set


def test_d_max_context_on_2x4090_is_the_longest_fitting_context() -> None:
    text = "what's the max context for 70B AWQ on 2x4090?"
    parsed = parse_workload(text)
    assert [(g.gpu, g.count) for g in parsed.gpus] == [("rtx-4090", 2)]
    assert parsed.max_context and not parsed.unplaced
    reply, conversation = _ask(text)
    match = re.match(
        r"\*\*Longest context that fits 2× GeForce RTX 4090: ([\d,]+) tokens\*\*",
        after_reading(reply),
    )
    assert match is not None
    tokens = int(match.group(1).replace(",", ""))
    assert "gpu_memory_utilization 0.90" in after_reading(reply).splitlines()[0]
    report = sizing(conversation)
    (fit,) = report.longest_context
    result = _estimate(report.memory[0])
    assert (fit.context_tokens, result.context, result.batch, result.fits) == (
        tokens,
        tokens,
        1,
        True,
    )
    # TP 2 splits the 8 KV heads: 327,680 / 2 = 163,840 B per token per GPU.
    assert result.breakdown["kv_cache"] == tokens * KV_PER_TOKEN_80_LAYERS // 2
    request = MemoryRequest(
        params=70e9, weights="int4-awq", gpu="rtx-4090", gpus=2, tp=2, batch=1, context=tokens + 1
    )
    assert estimate_memory(request).fits is False  # the boundary: one more token does not fit
    assert "Context not stated" not in reply


def test_e_needs_line_and_layout_are_at_the_load_served() -> None:
    reply, conversation = _ask("cheapest EU option for 1,000 tok/s of Llama 3.1 8B output")
    report = sizing(conversation)
    sized = report.layout_breakdown
    layout = _estimate(sized)
    per_replica = layout.batch
    # The layout shown is the headline's (EUR offers ranked at the ECB reference rate since
    # issue 18: OVH's A100 in EUR, no longer the L40S of the USD rows only).
    assert report.headline is not None and sized is not None and per_replica > 1
    assert (sized.gpu, sized.count) == (report.headline.option.gpu, report.headline.option.count)
    # Each sequence of the default 4,096 tokens holds 4,096 × 131,072 B = 0.5 GiB of KV.
    assert layout.breakdown["kv_cache"] == per_replica * 4096 * LLAMA_8B_KV_PER_TOKEN
    per_gpu = f"{layout.per_gpu_bytes / GiB:,.1f} GiB"
    assert f"Needs {per_gpu} per GPU for this load on the recommended layout" in reply
    assert f"| KV cache | {per_replica * 0.5:,.2f} |" in reply
    # A recommender note about another configuration says which it is about.
    assert "not the 1× A100 80GB SXM4 recommended above" in reply


def test_f_gpu_without_count_shows_the_recommended_layout() -> None:
    reply, conversation = _ask("serve Qwen2.5 72B in fp8 to 32 users at 32k context on H200s")
    report = sizing(conversation)
    assert report.headline is not None
    lead = report.headline.option
    assert (lead.gpu, lead.count, lead.tp, lead.pp, lead.dp) == ("h200-sxm", 4, 2, 1, 2)
    assert after_reading(reply).startswith("**Needs 4× H200 SXM** (TP 2 × PP 1 × 2 replica(s))")
    assert (
        "**Memory per GPU (2× H200 SXM, TP 2 × PP 1, one replica — the recommended layout)**"
        in reply
    )
    # 32 users over 2 replicas = 16 sequences × 32,768 tokens × 327,680 B / TP 2 = 80 GiB.
    kv_per_gpu = 16 * 32768 * KV_PER_TOKEN_80_LAYERS // 2
    assert kv_per_gpu == 80 * GiB
    layout = _estimate(report.layout_breakdown)
    assert (layout.batch, layout.tp, layout.breakdown["kv_cache"]) == (16, 2, kv_per_gpu)
    assert f"| KV cache | {kv_per_gpu / GiB:,.2f} |" in reply
    assert "| KV cache | 320.00 |" not in reply


def test_j_qlora_weights_row_says_it_includes_the_adapters() -> None:
    reply, conversation = _ask("QLoRA fine-tune of Llama 3.1 70B on one H100")
    (sized,) = sizing(conversation).memory
    # LoRA r=64 on q,k,v,o,gate,up,down of a 8192-wide, 28672-FFN, 1024-KV layer:
    # 64 × ((8192+8192)·2 + (8192+1024)·2 + (8192+28672)·3) × 80 layers.
    trainable = _estimate(sized).trainable_params
    assert trainable == 64 * ((16384 * 2) + (9216 * 2) + (36864 * 3)) * 80
    assert "| weights (base + adapters) |" in reply
    assert "| weights |" not in reply
