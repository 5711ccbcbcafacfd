"""A serving load that does not fit the GPU the user has: the answer says what would, each way
out re-sized by the tools (`SizingReport.ways_out` for serving, `SizingReport.scale_out` for
the count) and presented right after the "Does not fit" verdict — the longest context at the
format asked, an 8-bit KV cache, and how many of that GPU hold the load. Figures are checked
against hand arithmetic from the published configs; a property over generated workloads checks
that every such answer gives a way out (or says none exists) that agrees with the report."""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.offline.parser import parse_workload
from assistant.offline.planner import plan_tool_calls, sizing_arguments
from assistant.render import verdict_text
from assistant.render.results import gpu_name
from tests.offline_turns import answer, sizing
from tools.sizing import SizingReport, SizingRequest, size

BLOCK = 16
"""vLLM PagedAttention block, tokens (`--block-size` default 16): each sequence is rounded up."""

# Qwen3-32B config.json (Qwen/Qwen3-32B): num_hidden_layers 64, num_key_value_heads 8,
# head_dim 128 → KV bytes per token in bf16: 2 (K, V) × 64 × 8 × 128 × 2 B = 262,144 B;
# in fp8 (1 B) half of it, 131,072 B.
QWEN3_32B_KV = 2 * 64 * 8 * 128 * 2
assert QWEN3_32B_KV == 262_144
# Llama-3.1-8B config.json: 32 layers, 8 KV heads, head_dim 4096 / 32 = 128 →
# 2 × 32 × 8 × 128 × 2 B = 131,072 B per token in bf16.
LLAMA_8B_KV = 2 * 32 * 8 * 128 * 2
assert LLAMA_8B_KV == 131_072
VLLM_UTILISATION = 0.90  # vLLM's default gpu_memory_utilization
GIB = 2**30

QWEN_ON_ONE_3090 = [
    "can my 3090 run Qwen3 32B in 4-bit with 16k context?",
    "Qwen3 32B int4 on one RTX 3090 at 16k",
    "Will Qwen3 32B in 4-bit fit on a single RTX 3090 with a 16k context?",
]


def _report(question: str) -> SizingReport:
    return size(SizingRequest.model_validate(sizing_arguments(parse_workload(question))))


def _longest(budget: int, fixed: int, kv_per_token: int) -> int:
    """Hand arithmetic: the KV room left after the parts that do not grow with the context
    (weights, activations, runtime overhead), in whole 16-token blocks of one sequence."""
    return (budget - fixed) // (kv_per_token * BLOCK) * BLOCK


def _fixed(report: SizingReport) -> tuple[int, int]:
    """The named GPU's budget and its per-GPU bytes other than the KV cache."""
    (named,) = report.memory
    est = named.estimate
    assert est is not None and est.fits is False and est.budget_bytes_per_gpu is not None
    return est.budget_bytes_per_gpu, est.per_gpu_bytes - est.breakdown["kv_cache"]


@pytest.mark.parametrize("question", QWEN_ON_ONE_3090)
async def test_qwen3_32b_on_one_3090_says_what_would_fit(question: str) -> None:
    text, conversation = await answer(question)
    report = sizing(conversation)
    (named,) = report.memory
    est = named.estimate
    assert est is not None and (named.gpu, named.count, est.context) == ("rtx-3090", 1, 16_384)
    # The RTX 3090's 24 GiB × 0.90 = 21.6 GiB budget; need 24.8 GiB.
    assert est.budget_bytes_per_gpu == int(24 * GIB * VLLM_UTILISATION)
    assert est.kv_cache_bytes_per_token == QWEN3_32B_KV
    budget, fixed = _fixed(report)
    # budget 23,192,823,398 − (weights 18.0 + activations 0.91 + overhead 1.84 GiB =
    # 22,282,807,296) = 910,016,102 B: / 262,144 = 3,471.4 tokens → 216 blocks = 3,456 tokens;
    # fp8 KV: / 131,072 = 6,942.8 tokens → 433 blocks = 6,928 tokens.
    shorter = _longest(budget, fixed, QWEN3_32B_KV)
    eight = _longest(budget, fixed, QWEN3_32B_KV // 2)
    assert (shorter, eight) == (3_456, 6_928)
    ways = {w.lever: w for w in report.ways_out}
    assert set(ways) == {"shorter_context", "fp8_kv_cache"}
    assert ways["shorter_context"].changes == {"context": shorter}
    assert ways["fp8_kv_cache"].changes == {"kv_dtype": "fp8", "context": eight}
    fp8 = ways["fp8_kv_cache"].estimate
    assert fp8 is not None and fp8.fits and fp8.breakdown["kv_cache"] == eight * QWEN3_32B_KV // 2
    # How many 3090s hold it: at least ceil(need / budget) = ceil(24.8 / 21.6) = 2.
    scale = report.scale_out
    assert scale is not None and scale.holds is not None
    assert scale.holds.gpu == "rtx-3090"
    assert scale.holds.count >= math.ceil(est.per_gpu_bytes / budget) == 2
    assert scale.holds.count == 2 and scale.holds.fits
    # Presented right after the verdict, one line per way out, the figures the report's.
    lines = text.splitlines()
    # A yes/no question's verdict line opens with its no.
    opening = ("**Does not fit on 1×", "**No.** **Does not fit on 1×")
    head = next(i for i, line in enumerate(lines) if line.startswith(opening))
    assert lines[head + 1].startswith("**Ways out on 1× GeForce RTX 3090**")
    assert (
        f"**fits at up to {shorter:,} tokens** per sequence at int4-awq weights" in lines[head + 2]
    )
    assert f"`--kv-cache-dtype fp8`): **fits at {eight:,} tokens**" in lines[head + 3]
    assert lines[head + 4].startswith(
        "**What holds one sequence of 16,384 tokens (no user count given): 2× GeForce RTX 3090**"
    )


@pytest.mark.parametrize(
    "question",
    [
        "will Llama 3.1 8B fit on my RTX 4090 at 128k context?",
        "Llama 3.1 8B with 128k context on one RTX 4090",
    ],
)
def test_llama_8b_at_128k_on_one_4090(question: str) -> None:
    report = _report(question)
    (named,) = report.memory
    est = named.estimate
    assert est is not None and est.context == 131_072
    assert est.kv_cache_bytes_per_token == LLAMA_8B_KV
    budget, fixed = _fixed(report)
    # budget 22,852,141,056 − (16,060,522,496 + 735,051,776 + 1,978,662,912) = 4,077,903,872 B:
    # / 131,072 = 31,112.3 tokens → 1,944 blocks = 31,104; / 65,536 = 62,223.9 → 62,208.
    shorter, eight = _longest(budget, fixed, LLAMA_8B_KV), _longest(budget, fixed, LLAMA_8B_KV // 2)
    assert (shorter, eight) == (31_104, 62_208)
    ways = {w.lever: w.changes for w in report.ways_out}
    assert ways == {
        "shorter_context": {"context": 31_104},
        "fp8_kv_cache": {"kv_dtype": "fp8", "context": 62_208},
    }
    scale = report.scale_out
    assert scale is not None and scale.holds is not None and scale.holds.gpu == "rtx-4090"
    assert scale.holds.count >= math.ceil(est.per_gpu_bytes / budget) == 2
    text = verdict_text(report)
    assert f"**fits at up to {shorter:,} tokens** per sequence at bf16 weights" in text
    assert f"**fits at {eight:,} tokens**" in text


def test_an_8bit_kv_cache_that_fits_at_the_context_asked_is_said_so() -> None:
    # Llama 3.1 8B bf16 on a 4090 at 48k (read as 48,000 tokens, 3,000 whole blocks): KV
    # 48,000 × 131,072 B = 6,291,456,000 B, so 18,774,237,184 + 6,291,456,000 = 25.07e9 B over
    # the 22,852,141,056 B budget; in fp8 3,145,728,000 B (2.9 GiB): 21.92e9 B, it fits.
    report = _report("will Llama 3.1 8B fit on my RTX 4090 at 48k context?")
    budget, fixed = _fixed(report)
    assert report.memory[0].estimate is not None and report.memory[0].estimate.context == 48_000
    assert fixed + 48_000 * LLAMA_8B_KV > budget >= fixed + 48_000 * LLAMA_8B_KV // 2
    ways = {w.lever: w for w in report.ways_out}
    assert ways["fp8_kv_cache"].changes == {"kv_dtype": "fp8", "context": 48_000}
    assert ways["fp8_kv_cache"].fits
    fp8_kv_gib = 48_000 * LLAMA_8B_KV // 2 / GIB  # 3,145,728,000 B = 2.93 GiB
    assert f"**fits at {48_000:,} tokens** ({fp8_kv_gib:.1f} GiB of KV cache;" in verdict_text(
        report
    )


def test_several_users_keep_their_count_in_the_shorter_context() -> None:
    report = _report("Qwen3 32B in 4-bit for 8 users at 16k on my 3090")
    (named,) = report.memory
    assert named.estimate is not None and named.estimate.batch == 8
    ways = {w.lever: w for w in report.ways_out}
    shorter = ways["shorter_context"].estimate
    assert shorter is not None and shorter.fits and shorter.batch == 8
    # Eight sequences share the KV room: each one 16-token block longer would not fit.
    room = shorter.budget_bytes_per_gpu - (shorter.per_gpu_bytes - shorter.breakdown["kv_cache"])
    assert 8 * shorter.context * QWEN3_32B_KV <= room < 8 * (shorter.context + BLOCK) * QWEN3_32B_KV
    assert f"up to {shorter.context:,} tokens** for each of 8 sequences" in verdict_text(report)
    assert report.scale_out is not None and report.users_stated


def test_weights_over_the_budget_leave_only_more_gpus() -> None:
    # Llama 3.1 70B bf16: 141.1e9 B of weights alone, over one 4090's 22.85e9 B budget, so no
    # context and no KV cache fits; 4-bit is still ~35 GB. What holds it: at least
    # ceil(141,107,412,992 / 22,852,141,056) = 7 of them (8: TP splits 64 heads evenly).
    report = _report("Llama 3.1 70B on my RTX 4090")
    assert report.ways_out == []
    assert report.scale_out is not None and report.scale_out.holds is not None
    assert report.scale_out.holds.count >= math.ceil(141_107_412_992 / 22_852_141_056) == 7
    text = verdict_text(report)
    assert f"{report.scale_out.holds.count}× GeForce RTX 4090**" in text
    assert "Ways out" not in text and "Nothing the tools try" not in text


def test_a_load_that_fits_has_no_ways_out() -> None:
    report = _report("can my 3090 run Qwen3 32B in 4-bit with 2k context?")
    assert report.memory[0].fits and report.ways_out == [] and report.scale_out is None
    assert "Ways out" not in verdict_text(report)


async def test_ollama_questions_keep_the_partial_offload_plan() -> None:
    # GGUF / Ollama questions lead with the local-serving tool's plan, which already puts the
    # layers that fit on the GPU and the rest in system RAM (and sizes llama.cpp's q8_0 cache
    # itself): the ways out add a context that fits whole on the GPU, no 8-bit KV line, no
    # second offload plan.
    text, conversation = await answer(
        "can my 3090 run Qwen3 32B Q4_K_M with Ollama at 32k context?"
    )
    assert len(re.findall(r"\d+ of 64 layers fit on the GPU \(-ngl \d+", text)) == 1, text
    report = sizing(conversation)
    assert [w.lever for w in report.ways_out] == ["shorter_context"]
    assert "kv-cache-dtype" not in text and "8-bit KV cache" not in text


MODELS = ("Llama 3.1 8B", "Qwen3 32B", "Mistral 7B", "Llama 3.1 70B", "Qwen2.5 14B")
GPUS = (" on my 3090", " on one RTX 4090", " on an L4", " on 2x L40S", " on my RTX 4060 Ti 16GB")
FORMATS = ("", " in 4-bit", " in fp8")
LENGTHS = ("", " at 16k context", " at 32k context", " at 128k context")
LOADS = ("", " for 4 users")


@st.composite
def questions(draw: st.DrawFn) -> str:
    parts = (MODELS, GPUS, FORMATS, LENGTHS, LOADS)
    return "serve " + "".join(draw(st.sampled_from(p)) for p in parts)


@settings(
    max_examples=12,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(questions())
def test_every_serving_miss_on_a_named_gpu_says_what_would(question: str) -> None:
    calls = plan_tool_calls(parse_workload(question))
    report = size(SizingRequest.model_validate(calls[-1].arguments))
    subject = next((m for m in report.memory if m.gpu is not None and m.fits is False), None)
    if subject is None or subject.estimate is None:
        assert all(not w.fits for w in report.ways_out) or not report.ways_out
        return
    asked = subject.estimate
    text = verdict_text(report)
    rec = report.recommendation
    within = rec is not None and any(
        o.gpu == subject.gpu and o.fits and o.tp * o.pp <= subject.count
        for o in [*rec.options, *rec.rejected]
    )
    scale = report.scale_out
    # At least one way out, or the answer says none exists.
    fitting = [w for w in report.ways_out if w.fits]
    said_none = "**Nothing the tools try fits on" in text or "hold no sequence" in text
    holds = scale is not None and scale.holds is not None
    lower = any(
        f.estimate is not None and (f.estimate.fits or f.shorter_context is not None)
        for f in report.lower_formats
    )
    assert fitting or holds or within or lower or said_none, (question, text)
    # No way-out figure contradicts the report: the subject's GPU and count, shorter than
    # asked, at the load asked, the 8-bit KV cache at half the bytes per token, fitting.
    for way in report.ways_out:
        est = way.estimate
        assert est is not None and (way.gpu, way.count) == (subject.gpu, subject.count)
        assert est.fits and est.per_gpu_bytes <= (est.budget_bytes_per_gpu or 0), question
        assert est.batch == asked.batch and est.weights_format == asked.weights_format
        if way.lever == "shorter_context":
            assert est.context < asked.context and est.kv_dtype == asked.kv_dtype
            assert f"fits at up to {est.context:,} tokens" in text, (question, text)
        else:
            assert way.lever == "fp8_kv_cache" and est.context <= asked.context
            assert est.kv_cache_bytes_per_token * 2 == asked.kv_cache_bytes_per_token
            assert f"**fits at {est.context:,} tokens" in text, (question, text)
    if holds:
        assert scale is not None and scale.holds is not None
        assert scale.holds.gpu == subject.gpu and scale.holds.count > subject.count
        budget = asked.budget_bytes_per_gpu or 1
        assert scale.holds.count >= math.ceil(asked.per_gpu_bytes * subject.count / budget)
        assert f"{scale.holds.count}× {gpu_name(subject.gpu)}**" in text, (question, text)


def test_one_gpu_that_holds_fewer_users_says_how_many_in_the_singular() -> None:
    # Llama 3.1 8B bf16 on a 4090: 4,077,903,872 B of KV room / 131,072 B per token = 31,112
    # tokens, so 7 whole 4,096-token sequences at once — not the 20 users asked.
    report = _report("serve Llama 3.1 8B to 20 users on my RTX 4090 at 150 tokens/s per user")
    scale = report.scale_out
    assert scale is not None and scale.within is not None and scale.count == 1
    assert 4_077_903_872 // LLAMA_8B_KV // 4_096 == 7 == scale.within.max_concurrent_sequences
    text = verdict_text(report)
    assert f"**1× GeForce RTX 4090 holds 7 concurrent sequences of {4_096:,} tokens**" in text
    assert "not the 20 users asked" in text


def test_the_mcp_text_carries_the_ways_out() -> None:
    from assistant.mcp.text import render_result

    # MCP text: plain lines (bold dropped), at most a few, the ways out among them. 'int4'
    # said without 'my': a vLLM format on the card, the datacenter verdict (issue 29).
    report = _report(QWEN_ON_ONE_3090[1])
    budget, fixed = _fixed(report)
    # The contexts of the first test's hand arithmetic: 3,456 and (fp8 KV) 6,928 tokens.
    shorter = _longest(budget, fixed, QWEN3_32B_KV)
    eight = _longest(budget, fixed, QWEN3_32B_KV // 2)
    assert (shorter, eight) == (3_456, 6_928)
    lines = render_result(report).splitlines()
    assert lines[0].startswith("Does not fit on 1× GeForce RTX 3090")
    assert f"fits at up to {shorter:,} tokens per sequence" in lines[2]
    assert f"fits at {eight:,} tokens" in lines[3] and "2× GeForce RTX 3090" in lines[4]
    # 'can my 3090 …': owned hardware — the local plan leads the MCP text too.
    owned = render_result(_report(QWEN_ON_ONE_3090[0])).splitlines()
    assert owned[0].startswith("Yes. llama.cpp (llama-server), q4_k_m, on NVIDIA GeForce RTX 3090")
    assert any(line.startswith("Datacenter alternative") for line in owned)
