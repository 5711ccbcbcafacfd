"""Performance model: formulas by hand arithmetic, published measurements, properties.

Sources:
- gpt-fast (pytorch-labs/gpt-fast README, 8× A100-80GB, batch 1, 5-token prompt, 200 new
  tokens): Llama-2-7B bf16 104.9 tok/s on one GPU; Llama-2-70B bf16 38.01 tok/s at TP=4.
- Kaplan et al. 2020 §2.1 (C ≈ 6·N·D); nccl-tests doc/PERFORMANCE.md (ring 2(n−1)/n);
  Kleinrock, Queueing Systems vol. 1 §5.6 (M/D/1 wait ρS / (2(1 − ρ))).
- H100 SXM datasheet: 3,350 GB/s, 989.5 dense BF16 TFLOPS, 1,979 FP8 TFLOPS.
The hand calculations inject their own efficiencies (`_eff`) so they do not depend on the
fitted constants; the calibrated ones are checked against their sources in
tests/test_calibration_catalog.py and scored in bench/bench_performance.py.
"""

from __future__ import annotations

import math

import pytest

from tools.architecture import Architecture
from tools.catalog import get_catalog
from tools.memory.formats import normalize_format
from tools.memory.weights import weight_bytes
from tools.performance import (
    Efficiencies,
    ModelOnGpus,
    compute_rate,
    decode_step,
    expected_distinct_experts,
    forward_step,
    latency_at,
    prefill_time,
    resolve,
    static_batching_factor,
    steady_state,
    training_flops_per_token,
    training_mfu,
    training_time,
    wallclock_efficiency,
    weight_bytes_read,
)
from tools.performance.latency import concurrency_grid, prefill_queue_s

# gpt-fast's benchmark: 5 prompt tokens + 200 generated → mean KV length ≈ 105 tokens.
GPT_FAST_MEAN_CONTEXT = 105


def _bf16_on(model_id: str, gpu_id: str, tp: int = 1, engine: str = "vllm") -> ModelOnGpus:
    cat = get_catalog()
    entry = cat.model(model_id)
    a = entry.architecture
    # KV bytes per token per GPU, bf16: 2 (K and V) × layers × kv_heads/tp × head_dim × 2 bytes.
    kv = 2 * a.num_layers * max(1, a.num_kv_heads // tp) * a.head_dim * 2
    p = entry.params
    return ModelOnGpus(a, p, p.total * 2, "bf16", kv, cat.gpu(gpu_id), tp=tp, engine=engine)


def _eff(
    bandwidth: float = 0.8,
    layer_s: float = 0.0,
    mfu: float = 0.5,
    base_s: float = 0.0,
    per_gpu_s: float = 0.0,
    moe: float = 1.0,
    step_s: float = 0.0,
) -> Efficiencies:
    return Efficiencies(
        engine_family="graph",
        kernel="16bit",
        gpu_class="test",
        bandwidth_eff=bandwidth,
        layer_overhead_s=layer_s,
        allreduce_base_s=base_s,
        allreduce_per_gpu_s=per_gpu_s,
        gemm_mfu=mfu,
        moe_gemm_eff=moe,
        accumulate="fp32",
        decode_basis="estimated",
        prefill_basis="estimated",
        constants=(),
        step_overhead_s=step_s,
    )


def test_gpt_fast_llama2_7b_bf16_a100_batch1_within_10_percent() -> None:
    # gpt-fast README: Llama-2-7B Base, 1× A100-80GB, 104.9 tokens/s.
    m = _bf16_on("llama-2-7b", "a100-80gb-sxm4", engine="gpt-fast")
    step = decode_step(m, 1, GPT_FAST_MEAN_CONTEXT)
    assert step.bound == "memory"
    assert 1 / step.seconds == pytest.approx(104.9, rel=0.10)


def test_gpt_fast_llama2_70b_tp4_within_10_percent() -> None:
    # gpt-fast README, "Tensor Parallelism": Llama-2-70B bf16 on 4× A100-80GB: 38.01 tok/s.
    m = _bf16_on("llama-2-70b", "a100-80gb-sxm4", 4, engine="gpt-fast")
    step = decode_step(m, 1, GPT_FAST_MEAN_CONTEXT)
    assert step.communication_s > 0 and step.overhead_s > 0
    assert 1 / step.seconds == pytest.approx(38.01, rel=0.10)


def test_decode_step_by_hand() -> None:
    # Llama-3.1-8B bf16 on one H100 SXM, batch 1, 1,000 cached tokens, η = 0.8, 20 µs per
    # layer: weights read = total − input embedding (a row gather) = 2 × (8,030,261,248 −
    # 525,336,576) = 15,009,849,344 B; KV = 1,000 × 131,072 B; memory = (15.0098e9 +
    # 0.131e9) / (3.35e12 × 0.8) = 5.6495 ms; + 32 layers × 20 µs = 0.64 ms.
    m = _bf16_on("llama-3.1-8b", "h100-sxm")
    step = decode_step(m, 1, 1000, eff=_eff(bandwidth=0.8, layer_s=20e-6))
    hand_bytes = 2 * (8_030_261_248 - 525_336_576) + 1000 * 131_072
    assert step.memory_s == pytest.approx(hand_bytes / (3.35e12 * 0.8))
    assert step.seconds == pytest.approx(hand_bytes / (3.35e12 * 0.8) + 32 * 20e-6)


def test_host_time_per_step_is_paid_once_per_step_and_per_prefill_chunk() -> None:
    # llama.cpp builds its ggml graph and samples on the CPU once per token, whatever the
    # depth: with 0.8 ms of it, the 8B step of test_decode_step_by_hand (32 layers × 20 µs)
    # gains 0.8 ms, not 32 × anything; a 2,048-token prompt in 512-token chunks pays it 4 times.
    m = _bf16_on("llama-3.1-8b", "h100-sxm")
    base = decode_step(m, 1, 1000, eff=_eff(layer_s=20e-6))
    step = decode_step(m, 1, 1000, eff=_eff(layer_s=20e-6, step_s=0.8e-3))
    assert step.seconds - base.seconds == pytest.approx(0.8e-3)
    assert step.overhead_s == pytest.approx(32 * 20e-6 + 0.8e-3)
    chunked = prefill_time(m, 2048, 512, eff=_eff(step_s=0.8e-3))
    plain = prefill_time(m, 2048, 512, eff=_eff())
    assert chunked is not None and plain is not None
    assert chunked.seconds - plain.seconds == pytest.approx(4 * 0.8e-3)


def test_all_reduce_latency_per_gpu_count_by_hand() -> None:
    # Llama-2-70B at TP=8 over NVLink (450 GB/s... the A100's 300 GB/s one direction):
    # 2 all-reduces per layer × 80 layers, each base 10 µs + 1.5 µs × 7 further GPUs = 20.5 µs,
    # plus the ring transfer 2·7/8 × 8,192 × 2 B / 300e9 = 95.6 ns for one token.
    m = _bf16_on("llama-2-70b", "a100-80gb-sxm4", 8)
    step = decode_step(m, 1, 100, eff=_eff(base_s=10e-6, per_gpu_s=1.5e-6))
    transfer = 2 * 7 / 8 * 8192 * 2 / 300e9
    assert step.communication_s == pytest.approx(160 * (10e-6 + 7 * 1.5e-6 + transfer))
    assert decode_step(_bf16_on("llama-2-70b", "a100-80gb-sxm4"), 1, 100).communication_s == 0


def test_tensor_parallel_speedup_stays_below_linear_for_small_models() -> None:
    # QA of issue 16: small models at high TP were promised near-linear speedups. gpt-fast
    # measured Llama-2-7B at 104.9 (TP1) and 328.43 tok/s (TP8): 3.1×, not 8×.
    one = decode_step(_bf16_on("llama-2-7b", "a100-80gb-sxm4", engine="gpt-fast"), 1, 105)
    eight = decode_step(_bf16_on("llama-2-7b", "a100-80gb-sxm4", 8, engine="gpt-fast"), 1, 105)
    assert one.seconds / eight.seconds < 4.0


def test_expected_experts_hand_calculation() -> None:
    # Mixtral: E = 8, k = 2. One token: exactly 2. Two tokens: 8·(1 − (6/8)²) = 3.5.
    assert expected_distinct_experts(8, 2, 1) == pytest.approx(2.0)
    assert expected_distinct_experts(8, 2, 2) == pytest.approx(3.5)
    assert expected_distinct_experts(8, 2, 256) == pytest.approx(8.0, rel=1e-6)


def test_mixtral_decode_reads_active_weights_at_batch_1_and_all_at_large_batch() -> None:
    cat = get_catalog()
    entry = cat.model("mixtral-8x7b")
    p, a = entry.params, entry.architecture
    # Mixtral model card: ~46.7B total, ~12.9B active per token.
    assert p.total == pytest.approx(46.7e9, rel=0.01)
    assert p.active_per_token == pytest.approx(12.9e9, rel=0.01)
    bf16 = weight_bytes(a, "bf16")
    one = weight_bytes_read(bf16, a, 1)
    # Batch 1 reads the active parameters minus the (gathered) embedding, 2 bytes each.
    assert one == pytest.approx((p.active_per_token - p.embedding) * 2, rel=1e-9)
    many = weight_bytes_read(bf16, a, 4096)
    assert many == pytest.approx((p.total - p.embedding) * 2, rel=1e-6)


# gpt-oss-120b, openai/gpt-oss config.json: 36 layers, hidden 2880, 64 query heads and 8 KV
# heads of 64, vocab 201,088, 128 experts (4 per token) of width 2880, q/k/v/o biases,
# attention sinks, router and expert biases, untied embeddings. The checkpoint (model card):
# MoE expert weights in MXFP4 (4-bit E2M1 + one 8-bit scale per 32 = 17 bytes per 32
# weights), everything else bf16.
_OSS_LAYERS, _OSS_H, _OSS_V, _OSS_E, _OSS_K = 36, 2880, 201_088, 128, 4
_OSS_ATTENTION = 4096 * 2880 + 512 * 2880 + 512 * 2880 + 2880 * 4096  # q, k, v, o
_OSS_ROUTER = 128 * 2880
_OSS_VECTORS = (4096 + 512 + 512) + 2880 + 64 + 2 * 2880 + 128 + 128 * (2 * 2880 + 2880)
_OSS_EXPERT_BYTES = 3 * 2880 * 2880 // 32 * 17  # gate, up, down of one expert in MXFP4
# One decode step at batch 1: every bf16 tensor of the layers, 4 of 128 experts per layer,
# the bf16 output layer and final norm; the input embedding is a row gather.
_OSS_BATCH1_BYTES = (
    _OSS_LAYERS * (_OSS_ATTENTION + _OSS_ROUTER + _OSS_VECTORS) * 2
    + _OSS_LAYERS * _OSS_K * _OSS_EXPERT_BYTES
    + _OSS_V * _OSS_H * 2
    + _OSS_H * 2
)


def test_gpt_oss_mxfp4_reads_16_bit_tensors_at_2_bytes_not_the_model_average() -> None:
    # QA round 2, finding 3: the active path is mostly bf16 (attention, router, output layer:
    # 1.59B parameters × 2 B) plus 3.58B MXFP4 expert weights, 5.08 GB per step.
    assert _OSS_BATCH1_BYTES == 5_080_040_064
    a = get_catalog().model("gpt-oss-120b").architecture
    mxfp4 = weight_bytes(a, "mxfp4")
    assert weight_bytes_read(mxfp4, a, 1) == _OSS_BATCH1_BYTES
    all_experts = _OSS_BATCH1_BYTES + _OSS_LAYERS * (_OSS_E - _OSS_K) * _OSS_EXPERT_BYTES
    assert weight_bytes_read(mxfp4, a, 1_000_000) == pytest.approx(all_experts, rel=1e-9)


def test_weights_must_match_the_stated_total() -> None:
    cat = get_catalog()
    entry = cat.model("gpt-oss-120b")
    mxfp4 = weight_bytes(entry.architecture, "mxfp4")
    with pytest.raises(ValueError, match="weight_bytes_total"):
        ModelOnGpus(entry.architecture, entry.params, mxfp4.total, "bf16", 0, cat.gpu("h100-sxm"))


def _active_path_floor(a: Architecture, fmt: str) -> int:
    """Bytes one token must read, at least: the model with only the k experts a token uses,
    minus the input embedding (a row gather) when untied."""
    if a.moe is not None:
        only_used = a.moe.model_copy(update={"num_experts": a.moe.experts_per_token})
        a = a.model_copy(update={"moe": only_used})
    w = weight_bytes(a, fmt)
    return w.total - (0 if a.tied_embeddings else w.embedding)


@pytest.mark.parametrize("model_id", sorted(get_catalog().models))
def test_decode_never_beats_the_bandwidth_roofline_of_its_active_path(model_id: str) -> None:
    # Property: tokens/s at batch 1 ≤ datasheet bandwidth / (active bytes + KV), with the
    # calibrated efficiencies, for every catalog model in its native format.
    cat = get_catalog()
    entry = cat.model(model_id)
    a = entry.architecture
    fmt = normalize_format(entry.checkpoint_format or "bf16")
    if fmt in ("q4_k_m", "q5_k_m", "q8_0"):
        fmt = "bf16"  # GGUF mixes depend on the expert count; the floor model changes it
    gpu = cat.gpu("h100-sxm")
    w = weight_bytes(a, fmt)
    kv_per_token, context = 100_000, 1_000
    m = ModelOnGpus(a, entry.params, w.total, fmt, kv_per_token, gpu, weights=w)
    floor = _active_path_floor(entry.architecture, fmt)
    step = decode_step(m, 1, context)
    assert 1 / step.seconds <= gpu.memory_bandwidth_bytes_per_s / (floor + kv_per_token * context)


def test_compute_dtype_follows_weights_gpu_and_accumulation() -> None:
    cat = get_catalog()
    h100, a100, rtx = cat.gpu("h100-sxm"), cat.gpu("a100-80gb-sxm4"), cat.gpu("rtx-4090")
    fp8 = compute_rate(h100, "fp8")
    assert fp8 is not None and fp8.dtype == "fp8" and fp8.flops_per_s == 1979e12
    on_a100 = compute_rate(a100, "fp8")
    assert on_a100 is not None and on_a100.dtype == "bf16" and on_a100.flops_per_s == 312e12
    assert compute_rate(cat.gpu("a10g"), "bf16") is None  # no published tensor throughput
    # RTX 4090: 165.2 TFLOPS with FP32 accumulation, 330.3 with FP16 accumulation (NVIDIA Ada
    # whitepaper appendix A); llama.cpp's cuBLAS path accumulates in FP16.
    fp32_acc, fp16_acc = compute_rate(rtx, "bf16"), compute_rate(rtx, "bf16", "fp16")
    assert fp32_acc is not None and fp16_acc is not None
    assert (fp32_acc.flops_per_s, fp16_acc.flops_per_s) == (165.2e12, 330.4e12)
    h100_fp16 = compute_rate(h100, "bf16", "fp16")
    assert h100_fp16 is not None and h100_fp16.flops_per_s == 989.5e12  # not a GeForce card


def test_prefill_is_compute_bound_counts_attention_and_adds_no_decode_step() -> None:
    m = _bf16_on("llama-3.1-8b", "h100-sxm")
    s = 8192
    result = prefill_time(m, s, eff=_eff(mfu=0.4))
    assert result is not None and result.bound == "compute"
    # 2·N·s + causal attention 2·L·heads·(2·head_dim) per pair; s tokens at mean context s/2.
    a, n = m.arch, m.params.active_per_token
    flops = 2 * n * s + 2 * a.num_layers * a.num_attention_heads * 2 * a.head_dim * s * s / 2
    assert result.compute_s == pytest.approx(flops / (989.5e12 * 0.40))
    assert result.seconds == pytest.approx(result.compute_s)  # TTFT has no decode step in it


def test_prefill_in_chunks_reads_the_weights_per_chunk() -> None:
    # llama.cpp pp1024 with n_ubatch 512: two forwards, so weights are read twice.
    m = _bf16_on("llama-3.1-8b", "rtx-4090", engine="generic")
    one = prefill_time(m, 1024, 1024, eff=_eff(mfu=1e-3))
    two = prefill_time(m, 1024, 512, eff=_eff(mfu=1e-3))
    assert one is not None and two is not None
    assert two.memory_s == pytest.approx(2 * one.memory_s, rel=1e-3)


def test_steady_state_carries_the_prefill_of_replacing_requests() -> None:
    # 32 sequences of 2,048 in / 512 out: each step decodes 32 tokens and prefills
    # 32 × 2,048 / 512 = 128 prompt tokens; per-user steps carry the other 31 users' 124.
    m = _bf16_on("llama-3.1-8b", "h100-sxm")
    eff = _eff(bandwidth=0.8, mfu=0.5)
    point = steady_state(m, 32, 2048, 512, eff=eff)
    assert point.prefill_tokens_per_step == pytest.approx(128)
    full = forward_step(m, 32, 2048 + 256, prefill_tokens=128, prefill_context=1024, eff=eff)
    own = forward_step(m, 32, 2048 + 256, prefill_tokens=124, prefill_context=1024, eff=eff)
    assert point.step.seconds == pytest.approx(full.seconds)
    assert point.inter_token_s == pytest.approx(own.seconds)
    assert point.output_tokens_per_s == pytest.approx(32 / full.seconds)
    # A decode-only count (the old model) overstates throughput once the prefill of
    # replacements binds: 256 sequences of 2,048 in / 128 out prefill 4,096 tokens per step.
    heavy = steady_state(m, 256, 2048, 128, eff=eff)
    decode_only = 256 / decode_step(m, 256, 2048 + 64, eff=eff).seconds
    assert heavy.bound_by_compute and decode_only > 2 * heavy.output_tokens_per_s


def test_steady_state_splits_steps_past_the_token_budget() -> None:
    # 256 sequences of 1,000 in / 100 out: 256 + 2,560 tokens per step; with a 2,048-token
    # budget that is 2,816 / 2,048 = 1.375 forwards, each reading the weights.
    m = _bf16_on("llama-3.1-8b", "h100-sxm")
    point = steady_state(m, 256, 1000, 100, max_num_batched_tokens=2048, eff=_eff())
    assert point.forwards_per_step == pytest.approx(2816 / 2048)


def test_throughput_rises_and_per_user_speed_falls_with_the_batch() -> None:
    m = _bf16_on("llama-3.1-8b", "h100-sxm")
    points = [steady_state(m, b, 3072, 1024) for b in (1, 2, 8, 32, 128, 256)]
    rates = [p.output_tokens_per_s for p in points]
    speeds = [p.tokens_per_s_per_seq for p in points]
    assert rates == sorted(rates) and speeds == sorted(speeds, reverse=True)


def test_m_d_1_queue_for_other_prefills_by_hand() -> None:
    # 10 users, prefill S = 0.2 s, request R = 10 s: the 9 others bring λ = 0.9 /s, ρ = 0.18,
    # Wq = ρS / (2(1 − ρ)) = 0.18 × 0.2 / 1.64 = 21.95 ms.
    assert prefill_queue_s(0.2, 10.0, 10) == pytest.approx(0.18 * 0.2 / (2 * 0.82))
    assert prefill_queue_s(0.2, 10.0, 1) == 0.0
    # Saturated prefill server: every other user's prefill is ahead.
    assert prefill_queue_s(0.2, 1.0, 10) == pytest.approx(9 * 0.2)


def test_ttft_grows_with_concurrency_and_waits_for_a_slot_past_capacity() -> None:
    m = _bf16_on("llama-3.1-70b", "h100-sxm", 4)
    ttfts = [latency_at(m, n, 64, 3072, 1024).ttft_s for n in (1, 8, 32, 64)]
    assert ttfts == sorted(ttfts)
    at_cap = latency_at(m, 64, 64, 3072, 1024)
    past = latency_at(m, 128, 64, 3072, 1024)
    # Twice the users of a full replica: each waits about one request time for a slot.
    request_s = at_cap.prefill_s + 1024 * at_cap.inter_token_s
    assert past.queue_s - at_cap.queue_s == pytest.approx(request_s * (128 / 64 - 1), rel=1e-6)


def test_concurrency_grid_covers_users_and_capacity() -> None:
    grid = concurrency_grid(40, 110)
    assert grid[0] == 1 and 40 in grid and 110 in grid and grid == sorted(set(grid))
    assert len(grid) <= 10


def test_training_6nd_hand_calculation_at_the_generation_mfu() -> None:
    m = _bf16_on("llama-3.1-8b", "h100-sxm")
    n = m.params.active_per_token
    seq, batch, tokens = 4096, 256, 1e9
    t = training_time(m, "full", 8, seq, batch, tokens, recompute=False)
    assert t is not None
    per_token = training_flops_per_token(m.params, m.arch, "full", False, seq)
    a = m.arch
    attention_by_hand = 2 * a.num_layers * a.num_attention_heads * 2 * a.head_dim * (seq + 1) / 2
    assert (a.num_layers, a.num_attention_heads, a.head_dim) == (32, 32, 128)  # config.json
    assert per_token == pytest.approx(6 * n + 3 * attention_by_hand)
    mfu = training_mfu(m.gpu)
    assert mfu.generation == "hopper" and mfu.basis == "calibrated"
    step = seq * batch * per_token / (8 * 989.5e12 * mfu.value)
    assert t.step_s == pytest.approx(step)
    assert t.steps == math.ceil(tokens / (seq * batch))
    # Wall-clock: the compute hours over the effective-training-time share (Llama 3 §3.3.4).
    assert wallclock_efficiency() == 0.90
    assert t.hours == pytest.approx(t.steps * step / 3600 / 0.90)
    assert t.gpu_hours == pytest.approx(t.hours * 8)
    lora = training_flops_per_token(m.params, m.arch, "lora", False, seq)
    assert lora == pytest.approx(per_token - 2 * n)  # no weight-gradient matmuls: 4N


def test_full_recompute_costs_one_more_forward_selective_costs_nothing() -> None:
    m = _bf16_on("llama-3.1-8b", "h100-sxm")
    plain = training_time(m, "full", 8, 4096, 256, 1e9, recompute=False)
    full = training_time(m, "full", 8, 4096, 256, 1e9, recompute=True)
    assert plain is not None and full is not None
    n = m.params.active_per_token
    per_token = training_flops_per_token(m.params, m.arch, "full", False, 4096)
    attention_forward = (per_token - 6 * n) / 3
    ratio = (8 * n + 4 * attention_forward) / (6 * n + 3 * attention_forward)
    assert full.step_s / plain.step_s == pytest.approx(ratio)
    assert full.flops_per_token == plain.flops_per_token  # the MFU basis is the same 6N


def test_training_on_an_unmeasured_generation_is_estimated() -> None:
    # No published training run on MI300X (CDNA 3) is in the reference set.
    mfu = training_mfu(get_catalog().gpu("mi300x"))
    assert mfu.basis == "estimated"


def test_efficiency_labels_follow_the_calibrated_classes() -> None:
    cat = get_catalog()
    # vLLM-class engines on A100 bf16: gpt-fast and vLLM rows calibrate the class.
    assert resolve(cat.gpu("a100-80gb-sxm4"), "bf16", "vllm").decode_basis == "calibrated"
    # llama.cpp on a GeForce Ada card: llama-bench rows calibrate it.
    assert resolve(cat.gpu("rtx-4090"), "q4_k_m", "generic").decode_basis == "calibrated"
    # No measurement of any engine on Gaudi 3.
    assert resolve(cat.gpu("gaudi3"), "bf16", "vllm").decode_basis == "estimated"


def test_static_batching_waits_for_the_longest() -> None:
    # Outputs of mean 256 and max 512 tokens: half the slot-steps do useful work.
    assert static_batching_factor(256, 512) == pytest.approx(0.5)
    assert static_batching_factor(256, 256) == 1.0
