"""Issue 29: hardware the user owns is answered as it is used (local plan first, the best GGUF
type that fits), the reverse question, and launch lines people paste."""

from __future__ import annotations

import re

import pytest

from assistant.offline.parser import parse_workload
from assistant.offline.planner import plan_tool_calls
from tools.fits import FitsRequest, fits_on_hardware
from tools.local_serving import LocalServingRequest, plan_local_serving
from tools.local_serving.ollama_tags import OLLAMA_TAG_GRAMMAR, ollama_reference
from tools.memory import MemoryRequest, estimate_memory
from tools.sizing import GpuConfiguration, OwnedHardware, SizingRequest, size
from tools.workload import Workload

GiB = 2**30

# Qwen3 32B: 32.8 B parameters (Qwen3 technical report, arXiv 2505.09388, Table 1: 32.8B).
# Q4_K_M averages ≈ 4.85 bits per weight (llama.cpp quantize table: 7B Q4_K_M 4.07 GB / 6.74 B
# params → 4.83 bpw); Q5_K_M ≈ 5.69 bpw (4.78 GB / 6.74 B). A 3090 has 24 GiB (NVIDIA spec).
QWEN3_32B_PARAMS = 32.8e9
Q4_K_M_BPW = 4.85
Q5_K_M_BPW = 5.69
RTX_3090_BYTES = 24 * GiB


def test_hand_arithmetic_qwen3_32b_on_a_3090() -> None:
    q4 = QWEN3_32B_PARAMS * Q4_K_M_BPW / 8  # ≈ 19.9 GB: fits 25.8 GB with room for KV
    q5 = QWEN3_32B_PARAMS * Q5_K_M_BPW / 8  # ≈ 23.3 GB: leaves < 2.5 GB for 8k of KV + buffers
    kv_8k = 64 * 2 * 8 * 128 * 2 * 8192  # layers × K,V × kv heads × head dim × fp16 × tokens
    assert q4 + kv_8k < RTX_3090_BYTES < q5 + kv_8k + 1.0e9
    plan = plan_local_serving(
        LocalServingRequest(model="qwen3-32b", gpu="rtx-3090", choose_format=True)
    )
    assert plan.weights_format == "q4_k_m" and plan.fits_fully
    assert plan.weights_bytes == pytest.approx(q4, rel=0.03)
    assert plan.context_per_slot == 8192 and plan.longest_context_tokens == 16384
    assert plan.format_choice is not None
    assert [t.weights_format for t in plan.format_choice.tried] == [
        "q8_0",
        "q6_k",
        "q5_k_m",
        "q4_k_m",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "can my 3090 run Qwen3 32B",
        "I have an RTX 3090, will Qwen3 32B run on it?",
        "Can Qwen3 32B run on one RTX 3090?",
        "can qwen3 32b run on my rtx 3090 with ollama",
    ],
)
def test_owned_card_questions_lead_with_the_local_plan(text: str) -> None:
    from assistant.offline.engine import answer_text
    from assistant.registry import default_registry
    from assistant.render.results import CallResult

    parsed = parse_workload(text)
    registry = default_registry()
    results = []
    for call in plan_tool_calls(parsed):
        outcome = registry.call(call.name, call.arguments)
        results.append(CallResult(call.name, call.arguments, outcome.value, outcome.is_error))
    lines = [ln for ln in answer_text(parsed, results).text.splitlines() if ln.strip()]
    verdict = lines[1]  # after the 'Read as' line
    assert verdict.startswith(
        ("**Yes.** **llama.cpp", "**llama.cpp", "**Yes.** **Ollama", "**Ollama")
    )
    assert "q4_k_m" in verdict and "RTX 3090" in verdict and "fits on the GPU" in verdict
    body = "\n".join(lines)
    assert body.index("Datacenter alternative") > body.index("Launch:")


def test_a_datacenter_format_keeps_the_datacenter_verdict() -> None:
    report = size(
        SizingRequest(
            workload=Workload(model="llama-3.1-70b", weights="int4-awq"),
            configurations=[GpuConfiguration(gpu="rtx-4090", count=2)],
        )
    )
    assert not report.leads_with_local and not report.local


def test_words_make_a_datacenter_card_owned() -> None:
    report = size(
        SizingRequest(
            workload=Workload(model="llama-3.1-8b"),
            configurations=[GpuConfiguration(gpu="h100-sxm", count=1)],
            owned=OwnedHardware(launcher="ollama"),
        )
    )
    assert report.leads_with_local
    (plan,) = report.local
    # Llama 3.1 8B: 8.03 B params × 8.5 bits (Q8_0: 34 bytes per 32 weights) ≈ 8.5 GB ≪ 80 GB.
    assert plan.weights_format == "q8_0"
    assert plan.weights_bytes == pytest.approx(8.03e9 * 34 / 32, rel=0.02)


@pytest.mark.parametrize(
    ("request_", "largest_min_params"),
    [
        (FitsRequest(gpu_memory_gb=24), 30e9),  # a 24 GB card holds a 32B at Q4_K_M
        (FitsRequest(gpu="apple-m3-max-40c-64gb"), 30e9),
        (FitsRequest(gpu="rtx-3090", gpus=2), 60e9),  # 48 GiB: a 70B at Q4_K_M (≈ 42.5 GB)
        (FitsRequest(gpu="h100-sxm", gpus=8), 300e9),  # 640 GB: a 405B at Q8_0 ≈ 430 GB
    ],
)
def test_reverse_question_lists_models_the_memory_calculator_confirms(
    request_: FitsRequest, largest_min_params: float
) -> None:
    from tools.catalog import get_catalog

    result = fits_on_hardware(request_)
    models = [m for g in result.groups for m in g.models]
    assert models and max(m.params for m in models) >= largest_min_params
    gpus = request_.gpus
    for m in models:
        assert m.gpu_bytes <= m.budget_bytes
        # The memory calculator (its llama.cpp engine, layers split over the GPUs) agrees:
        # its need over all GPUs is within the budget, give or take the token embedding,
        # which it counts on the GPU and llama.cpp keeps in system RAM (at most
        # vocab × hidden × 2 bytes, its fp16 size).
        arch = get_catalog().models[m.model_id].architecture
        embedding = arch.vocab_size * arch.hidden_size * 2
        memory = MemoryRequest(
            model=m.model_id,
            weights=m.weights_format,
            engine="generic",
            context=m.context_per_slot,
            gpus=gpus,
        )
        if request_.gpu is not None:
            memory = memory.model_copy(update={"gpu": request_.gpu})
        est = estimate_memory(memory)
        assert est.per_gpu_bytes * gpus <= m.budget_bytes + embedding, m.model_id
        if gpus == 1 and request_.gpu is not None:
            assert est.fits or est.per_gpu_bytes - embedding <= m.budget_bytes, m.model_id


def test_reverse_question_ranked_by_what_was_asked() -> None:
    fastest = fits_on_hardware(FitsRequest(gpu="rtx-4090", rank_by="fastest"))
    speeds = [m.decode_tokens_per_s or 0 for g in fastest.groups for m in g.models]
    assert speeds == sorted(speeds, reverse=True)
    coding = fits_on_hardware(FitsRequest(gpu="rtx-4090", rank_by="coding"))
    # Qwen2.5-Coder 32B and Qwen3-Coder 30B-A3B (their publishers' names) fit a 4090 at 4-5
    # bits (≈ 20 GB), so the coding list opens with them; the rest follow by size.
    lead = coding.groups[0]
    assert lead.name == "named for coding"
    assert {m.model_id for m in lead.models} >= {"qwen2.5-coder-32b", "qwen3-coder-30b-a3b"}
    assert all("Coder" in m.model_name for m in lead.models)
    largest = fits_on_hardware(FitsRequest(gpu="rtx-4090"))
    sizes = [max(m.params for m in g.models) for g in largest.groups]
    assert sizes == sorted(sizes, reverse=True)


@pytest.mark.parametrize(
    ("text", "rank"),
    [
        ("which model fits my 24 GB GPU for coding?", "coding"),
        ("What's the biggest model I can run on 2x 3090?", "largest"),
        ("what can I run on my M3 Max 64GB, fastest first", "fastest"),
        ("what can my 4090 run with the longest context", "context"),
        ("which models can I run on my 3090 for reasoning", "reasoning"),
    ],
)
def test_reverse_question_ranks_by_the_words(text: str, rank: str) -> None:
    (call,) = plan_tool_calls(parse_workload(text))
    assert call.name == "fits_on_hardware" and call.arguments.get("rank_by", "largest") == rank


@pytest.mark.parametrize(
    "text",
    [
        "What can I run on my 24 GB GPU?",
        "what can my 3090 run",
        "which models fit on an M3 Max 64GB?",
        "What LLM can I run on 2x 3090?",
    ],
)
def test_reverse_question_is_planned_as_fits(text: str) -> None:
    calls = plan_tool_calls(parse_workload(text))
    assert [c.name for c in calls] == ["fits_on_hardware"], calls


@pytest.mark.parametrize(
    ("model", "weights", "tag"),
    [
        ("llama-3.1-8b", "q4_k_m", "llama3.1:8b-instruct-q4_K_M"),
        ("llama-3.1-8b", "q8_0", "llama3.1:8b-instruct-q8_0"),
        ("qwen3-32b", "q8_0", "qwen3:32b-q8_0"),
        ("gemma-3-27b", "q8_0", "gemma3:27b-it-q8_0"),
        ("qwen3-14b", "q4_k_m", "qwen3:14b"),
    ],
)
def test_modelfile_tags_are_ollama_tags(model: str, weights: str, tag: str) -> None:
    assert ollama_reference(model, weights) == (tag, True)
    assert OLLAMA_TAG_GRAMMAR.match(tag)
    plan = plan_local_serving(
        LocalServingRequest(model=model, gpu="h100-sxm", weights=weights, launcher="ollama")
    )
    assert plan.ollama_modelfile is not None
    assert plan.ollama_modelfile.splitlines()[0] == f"FROM {tag}"


def test_no_modelfile_names_a_catalog_id() -> None:
    from tools.catalog import get_catalog

    for entry in get_catalog().models.values():
        ref, pulled = ollama_reference(entry.id, "q6_k")
        assert ref != entry.id
        assert OLLAMA_TAG_GRAMMAR.match(ref) if pulled else ref.endswith(".gguf")


def test_launch_lines_carry_the_plan() -> None:
    plan = plan_local_serving(
        LocalServingRequest(
            model="qwen3-32b", gpu="rtx-3090", choose_format=True, cache_type="q8_0", mlx=True
        )
    )
    assert plan.launch is not None
    line = plan.launch.llama_server
    assert re.search(r"-ngl \d+", line) and "-c " in line and "-fa on" in line
    assert "--cache-type-k q8_0" in line
    assert "Context Length" in plan.launch.lm_studio and "Q8_0" in plan.launch.lm_studio
    assert plan.launch.mlx_server is not None
    assert plan.launch.mlx_server.startswith("mlx_lm.convert --hf-path Qwen/Qwen3-32B")


def test_bits_said_in_vllm_words_are_the_gguf_type_of_those_bits() -> None:
    """'in 4-bit' on owned hardware is Q4_K_M, not a better type chosen over the user's words:
    Qwen3 32B at 16k context — 19.9 GB of Q4_K_M weights + 16,384 × 262,144 B of f16 KV
    (4.3 GB) = 24.2 GB, inside the 3090's 25.8 GB."""
    q4 = QWEN3_32B_PARAMS * Q4_K_M_BPW / 8
    kv = 16384 * 64 * 2 * 8 * 128 * 2
    assert q4 + kv < RTX_3090_BYTES
    parsed = parse_workload("can my 3090 run Qwen3 32B in 4-bit with 16k context?")
    (call,) = [c for c in plan_tool_calls(parsed) if c.name == "size"]
    report = size(SizingRequest.model_validate(call.arguments))
    (plan,) = report.local
    assert plan.weights_format == "q4_k_m" and plan.format_choice is None
    assert plan.context_per_slot == 16384 and plan.fits_fully


@pytest.mark.parametrize(
    "text",
    [
        "I have an M3 Max with 64GB, can it run Llama 3.1 70B?",
        "can my MacBook Pro M3 Max 64GB run llama 3.1 70b",
        "Llama 3.1 70B on my M3 Max 64 GB with ollama",
    ],
)
def test_a_mac_owner_gets_the_type_its_working_set_holds(text: str) -> None:
    """Llama 3.1 70B (70.55 B parameters) on a 64 GB M3 Max: macOS lets the GPU use 3/4 of
    64 GiB = 48 GiB (51.5 GB). Q4_K_M ≈ 70.55 × 4.85 / 8 = 42.8 GB fits with 8k of f16 KV
    (80 layers × 2 × 8 × 128 × 2 B × 8,192 = 2.7 GB); Q5_K_M ≈ 70.55 × 5.69 / 8 = 50.2 GB
    does not, with the same KV."""
    params, working_set = 70.55e9, 0.75 * 64 * GiB
    kv = 80 * 2 * 8 * 128 * 2 * 8192
    assert params * Q4_K_M_BPW / 8 + kv < working_set < params * Q5_K_M_BPW / 8 + kv
    parsed = parse_workload(text)
    (call,) = [c for c in plan_tool_calls(parsed) if c.name == "size"]
    report = size(SizingRequest.model_validate(call.arguments))
    assert report.leads_with_local
    (plan,) = report.local
    assert plan.unified_memory and plan.weights_format == "q4_k_m" and plan.fits_fully
    assert plan.budget_bytes == working_set


def test_more_cards_than_llama_cpp_splits_over_is_said_under_the_configuration() -> None:
    # llama.cpp's plan splits layers over at most 64 GPUs (LocalServingRequest.gpus): a
    # configuration of 100 owned cards is still sized for the datacenter, and the local plan's
    # refusal names the configuration's count (a fuzz finding: it named a bare inner field).
    from assistant.registry import default_registry

    out = default_registry().call(
        "size",
        {
            "workload": {"model": "llama-3.1-8b"},
            "configurations": [{"gpu": "rtx-3090", "count": 100}],
            "owned": {"launcher": "llama-server"},
        },
    )
    assert not out.is_error
    report = out.value
    assert report.local == []
    (error,) = report.local_errors
    assert error.field == "configurations.count" and "64" in error.problem
