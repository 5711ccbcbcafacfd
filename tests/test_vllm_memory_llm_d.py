"""vLLM's own memory accounting, reproduced (issue 31 point 5): llm-d's published vLLM tables.

Source 1 — llm-d/llm-d-benchmark config_explorer/empirical-vllm-memory-results.md (the table
llm-d-planner's capacity planner is checked on): vLLM v0.11.0 on one H100 (79.18 GiB total
memory as vLLM sees it), --max-model-len 16000, --gpu-memory-utilization 0.9 (default) unless
noted; GiB from the 'Model loading took' and 'Available KV cache memory' log lines. Max
concurrency = KV tokens / 16,000.

Source 2 — llm-d-incubation/llm-d-planner docs/accuracy/vllm-v0.19.0-accuracy-report.md:
vLLM v0.19.0 on H100 (79.19 GiB), max_model_len 8,192, utilization 0.95: KV pool GiB and the
'GPU KV cache size' tokens.

Target: weights, KV pool and max concurrency within 3% of each row. Two rows of source 1 miss
it and are marked so (strict): their pools are small (4.45 and 3.33 GiB), so a 0.3-0.6 GiB
activation difference is 7% to all of the pool; and one vision model whose vision-tower path
vLLM profiles apart.
"""

from __future__ import annotations

import pytest

from tools.memory import MemoryRequest, estimate_memory

GiB = 2**30

# (model, catalog id, tp, weights, utilization, logged weights GiB, logged KV pool GiB)
V011 = [
    ("gpt-oss-20b", "gpt-oss-20b", 1, None, 0.9, 13.47, 50.28),
    ("Llama-3.3-70B-FP8 (RedHatAI FP8-dynamic)", "llama-3.3-70b", 2, "fp8", 0.9, 33.88, 32.00),
    ("Llama-3.1-8B", "llama-3.1-8b", 1, None, 0.9, 14.99, 51.38),
    ("Qwen3-0.6B", "qwen3-0.6b", 1, None, 0.9, 1.12, 64.45),
    ("Qwen3-32B TP2", "qwen3-32b", 2, None, 0.9, 30.59, 34.49),
    pytest.param(
        "Qwen3-32B TP1",
        "qwen3-32b",
        1,
        None,
        0.9,
        61.03,
        4.45,
        marks=pytest.mark.xfail(
            strict=True,
            reason="pool 4.14 vs 4.45 GiB (-7%): the dense activation peak is modelled at "
            "5.96 GiB where vLLM logs 5.64",
        ),
    ),
    pytest.param(
        "gpt-oss-120b",
        "gpt-oss-120b",
        1,
        None,
        0.9,
        64.38,
        3.33,
        marks=pytest.mark.xfail(
            strict=True,
            reason="pool -0.2 vs 3.33 GiB: the MoE activation peak is modelled 0.63 GiB "
            "under vLLM's 7.38 and the padded weights 0.17 GiB over its 64.38",
        ),
    ),
    pytest.param(
        "Mistral-Small-3.2-24B (vision)",
        "mistral-small-3.1-24b",
        1,
        None,
        0.95,
        44.76,
        28.20,
        marks=pytest.mark.xfail(
            strict=True,
            reason="pool 24.7 vs 28.2 GiB: vLLM profiles this multimodal model at 2.12 GiB "
            "of activation (its vision path skips the text profile), modelled 5.66",
        ),
    ),
]


def _pool(est: object) -> float:
    budget = est.budget_bytes_per_gpu  # type: ignore[attr-defined]
    rest = est.per_gpu_bytes - est.breakdown["kv_cache"]  # type: ignore[attr-defined]
    return float(budget - rest)


@pytest.mark.parametrize(("name", "model", "tp", "weights", "util", "w_gib", "kv_gib"), V011)
def test_vllm_0_11_h100_table(
    name: str, model: str, tp: int, weights: str | None, util: float, w_gib: float, kv_gib: float
) -> None:
    fields: dict[str, object] = {
        "model": model,
        "gpu": "h100-sxm",
        "gpus": tp,
        "tp": tp,
        "engine": "vllm",
        "engine_version": "0.11.0",
        "context": 16_000,
        "gpu_memory_utilization": util,
    }
    if weights:
        fields["weights"] = weights
    est = estimate_memory(MemoryRequest.model_validate(fields))
    assert est.breakdown["weights"] / GiB == pytest.approx(w_gib, rel=0.03)
    pool = _pool(est)
    assert pool / GiB == pytest.approx(kv_gib, rel=0.03)
    # Max concurrency at max-model-len: KV tokens / 16,000, as vLLM logs it.
    per_token = est.kv_cache_bytes_per_token_per_gpu
    assert pool / per_token / 16_000 == pytest.approx(kv_gib * GiB / per_token / 16_000, rel=0.03)


# (model, logged KV pool GiB, logged KV tokens): TP 1, max_model_len 8,192, utilization 0.95.
V019 = [("llama-3.1-8b", 58.11, 476_016), ("qwen2.5-7b", 58.53, 1_096_000)]


@pytest.mark.parametrize(("model", "kv_gib", "tokens"), V019)
def test_vllm_0_19_h100_pool_and_tokens(model: str, kv_gib: float, tokens: int) -> None:
    est = estimate_memory(
        MemoryRequest(
            model=model,
            gpu="h100-sxm",
            engine="vllm",
            engine_version="0.19.0",
            context=8_192,
            gpu_memory_utilization=0.95,
        )
    )
    pool = _pool(est)
    assert pool / GiB == pytest.approx(kv_gib, rel=0.03)
    assert pool // est.kv_cache_bytes_per_token_per_gpu == pytest.approx(tokens, rel=0.03)


def test_the_budget_starts_from_what_vllm_sees() -> None:
    # 79.18 GiB × 0.9 = 71.26 GiB (vLLM's 'requested memory'), not nvidia-smi's 79.65 GiB.
    est = estimate_memory(
        MemoryRequest(model="llama-3.1-8b", gpu="h100-sxm", engine="vllm", engine_version="0.11")
    )
    assert est.budget_bytes_per_gpu / GiB == pytest.approx(79.18 * 0.9, abs=0.01)


def test_nccl_buffers_at_tp2_and_the_version_default_utilization() -> None:
    # v0.19.0 logs: non-torch 0.25 GiB at TP 1, 2.07 GiB at TP 2 (NCCL all-reduce buffers),
    # 2.13 at TP 4; the stable docs' default utilization is 0.92.
    def est(tp: int) -> object:
        return estimate_memory(
            MemoryRequest(
                model="llama-3.1-8b",
                gpu="h100-sxm",
                gpus=tp,
                tp=tp,
                engine="vllm",
                engine_version="0.19",
            )
        )

    one, two, four = est(1), est(2), est(4)
    assert one.breakdown["overhead"] / GiB == pytest.approx(0.25, abs=0.005)  # type: ignore[attr-defined]
    assert two.breakdown["overhead"] / GiB == pytest.approx(2.07, abs=0.005)  # type: ignore[attr-defined]
    assert four.breakdown["overhead"] / GiB == pytest.approx(2.13, abs=0.005)  # type: ignore[attr-defined]
    assert one.budget_bytes_per_gpu / GiB == pytest.approx(79.18 * 0.92, abs=0.01)  # type: ignore[attr-defined]


def test_activation_is_version_aware() -> None:
    # Llama-3.1-8B on H100 (max_num_batched_tokens 8,192, max_num_seqs 1,024): vLLM v0.11.0
    # logs a 4.76 GiB activation peak, v0.19.0 1.89 GiB (about 60% less).
    def act(version: str) -> float:
        e = estimate_memory(
            MemoryRequest(
                model="llama-3.1-8b", gpu="h100-sxm", engine="vllm", engine_version=version
            )
        )
        return e.breakdown["activations"] / GiB

    assert act("0.11") == pytest.approx(4.76, rel=0.03)
    assert act("0.19") == pytest.approx(1.89, rel=0.05)


@pytest.mark.parametrize("bad", ["latest", "eleven", "1"])
def test_a_version_that_is_not_one_is_refused(bad: str) -> None:
    from tools.errors import ToolInputError
    from tools.memory.request import validate_request

    with pytest.raises(ToolInputError) as err:
        validate_request({"model": "llama-3.1-8b", "engine_version": bad})
    assert err.value.field == "engine_version"
