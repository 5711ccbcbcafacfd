"""Replica planning: concurrency per replica and replica count from users / throughput targets.

The unit tests use a hand-made memory-bound decode model, speed(b) = 1 / (a + c·b) tokens/s per
sequence, with a = 10 ms (reading the weights once per step) and c = 0.5 ms per sequence (reading
its KV cache): every expected value below is worked out by hand from that formula.

The recommender tests use published figures: Llama-3.1-70B KV cache 327,680 bytes per token and
Llama-3.1-8B 8,030,261,248 parameters (/work/shared/research/params.json); H100 SXM 3,350 GB/s
(NVIDIA H100 datasheet, catalog/gpus.toml).
"""

from __future__ import annotations

import math

import pytest

from tools.memory import MemoryRequest, estimate_memory
from tools.recommend import recommend
from tools.replicas import full_load, plan_replicas
from tools.workload import validate_workload

A, C = 0.010, 0.0005


def speed(batch: int) -> float:
    return 1.0 / (A + C * batch)


def test_users_are_spread_evenly_over_the_replicas_kv_capacity_needs() -> None:
    # 40 users, 26 sequences fit per replica: ⌈40/26⌉ = 2 replicas of 20 (not 26 + 14, and
    # not 2 × 26 = 52 sequences' worth of throughput). Speed at 20: 1/(0.01 + 0.01) = 50 tok/s.
    plan = plan_replicas(speed, 26, users=40)
    assert (plan.replicas, plan.sequences_per_replica) == (2, 20)
    assert plan.tokens_per_s_per_seq == pytest.approx(50.0)
    assert plan.aggregate_tokens_per_s == pytest.approx(40 * 50.0)
    assert plan.meets and not plan.reasons


def test_throughput_target_without_users_uses_the_smallest_batch_that_reaches_it() -> None:
    # One replica at full batch (100): 100/(0.01 + 0.05) = 1,666.7 tok/s ≥ 1,000 → 1 replica.
    # Smallest b with b/(0.01 + 0.0005 b) ≥ 1,000: b ≥ 10 + 0.5 b → b ≥ 20.
    plan = plan_replicas(speed, 100, users=None, tokens_per_s=1000)
    assert (plan.replicas, plan.sequences_per_replica) == (1, 20)
    assert plan.aggregate_tokens_per_s == pytest.approx(1000.0)
    assert plan.notes and "No user count given" in plan.notes[0]


def test_throughput_target_beyond_one_replica() -> None:
    # Full batch gives 1,666.7 tok/s per replica: ⌈3,900 / 1,666.7⌉ = 3 replicas, each needing
    # 1,300 tok/s: b/(0.01 + 0.0005 b) ≥ 1,300 → 0.35 b ≥ 13 → b ≥ 37.14 → 38.
    plan = plan_replicas(speed, 100, users=None, tokens_per_s=3900)
    assert (plan.replicas, plan.sequences_per_replica) == (3, 38)
    assert plan.aggregate_tokens_per_s == pytest.approx(3 * 38 / (A + C * 38))
    assert plan.aggregate_tokens_per_s >= 3900


def test_users_and_throughput_more_replicas_make_each_sequence_faster() -> None:
    # 10 users must give 900 tok/s: 90 tok/s each → 0.01 + 0.0005 b ≤ 1/90 → b ≤ 2.2 → b = 2,
    # ⌈10/2⌉ = 5 replicas; aggregate 10 × 1/(0.011) = 909.1 tok/s.
    plan = plan_replicas(speed, 100, users=10, tokens_per_s=900)
    assert (plan.replicas, plan.sequences_per_replica) == (5, 2)
    assert plan.aggregate_tokens_per_s == pytest.approx(10 / 0.011)
    assert plan.meets


def test_users_cannot_reach_a_throughput_target_says_the_ceiling() -> None:
    # Even one user per replica decodes 1/(0.0105) = 95.2 tok/s: 10 users give at most 952.
    plan = plan_replicas(speed, 100, users=10, tokens_per_s=3000)
    assert not plan.meets
    ceiling = 10 * 1 / (A + C * 1)  # 10 × 95.24 = 952 tok/s
    assert f"10 users decode at most {ceiling:,.0f} tok/s" in plan.reasons[0]


def test_per_user_speed_limits_the_batch() -> None:
    # 80 tok/s each: 0.01 + 0.0005 b ≤ 0.0125 → b ≤ 5; 40 users → 8 replicas of 5.
    plan = plan_replicas(speed, 100, users=40, tokens_per_s_per_user=80)
    assert (plan.replicas, plan.sequences_per_replica) == (8, 5)
    assert plan.tokens_per_s_per_seq >= 80


def test_per_user_speed_out_of_reach_is_a_reason() -> None:
    plan = plan_replicas(speed, 100, users=4, tokens_per_s_per_user=200)
    assert not plan.meets
    alone = 1 / (A + C * 1)  # 1 / 0.0105 = 95.2 tok/s
    assert f"decode {alone:.1f} tok/s per user even alone < target 200 tok/s" in plan.reasons[0]


def test_static_batching_counts_only_useful_decode_slots() -> None:
    # Half the slots idle (mean output = half the longest): 40 users × 50 tok/s × 0.5.
    plan = plan_replicas(speed, 26, users=40, useful_share=0.5)
    assert plan.aggregate_tokens_per_s == pytest.approx(1000.0)


def test_full_load_fills_every_kv_slot_unless_a_per_user_speed_caps_it() -> None:
    # 100 slots: 100 / (0.01 + 0.05) = 1,666.7 tok/s. At ≥ 80 tok/s each, b ≤ 5 (above):
    # 5 × 1/(0.0125) = 400 tok/s. A per-user target out of reach still runs one sequence.
    assert full_load(speed, 100) == (100, pytest.approx(100 / 0.06))
    assert full_load(speed, 100, tokens_per_s_per_user=80) == (5, pytest.approx(400.0))
    assert full_load(speed, 100, tokens_per_s_per_user=200) == (1, pytest.approx(1 / 0.0105))
    assert full_load(speed, 26, useful_share=0.5) == (26, pytest.approx(0.5 * 26 / 0.023))


def test_bad_plan_inputs_are_refused() -> None:
    with pytest.raises(ValueError):
        plan_replicas(speed, 0, users=1)
    with pytest.raises(ValueError):
        plan_replicas(speed, 10, users=None)


# --- through the recommender ------------------------------------------------------------------

LLAMA_70B_KV_PER_TOKEN = 327_680  # 2 (K, V) × 80 layers × 8 KV heads × 128 × 2 bytes
LLAMA_8B_PARAMS = 8_030_261_248


def test_per_gpu_memory_is_at_the_users_load_not_one_sequence() -> None:
    rec = recommend(
        validate_workload(
            {
                "model": "llama-3.1-70b",
                "weights": "awq",
                "users": 40,
                "context": 16384,
                "constraints": {"only_gpus": ["mi300x"]},
            }
        )
    )
    option = rec.options[0]
    assert option.fits and option.tp == 1 and option.dp == 2
    assert option.sequences_per_replica == 20  # 40 users over 2 replicas
    one_sequence = estimate_memory(
        MemoryRequest(model="llama-3.1-70b", weights="awq", context=16384, gpu="mi300x")
    ).per_gpu_bytes
    # Each GPU holds 19 more 16,384-token sequences than the one-sequence estimate, each
    # with its KV cache only: vLLM reserves its sampler for max_num_seqs requests at start-up
    # (vLLM V1 gpu_model_runner._dummy_sampler_run), so a further sequence adds no logits.
    per_sequence = 16384 * LLAMA_70B_KV_PER_TOKEN
    assert option.per_gpu_bytes == one_sequence + 19 * per_sequence
    # QA round 2, finding 11: the same load through the memory tool gives the same bytes.
    at_load = estimate_memory(
        MemoryRequest(model="llama-3.1-70b", weights="awq", context=16384, gpu="mi300x", batch=20)
    ).per_gpu_bytes
    assert option.per_gpu_bytes == at_load
    assert option.per_gpu_bytes <= option.budget_bytes_per_gpu
    assert option.headroom_bytes == option.budget_bytes_per_gpu - option.per_gpu_bytes


def test_throughput_target_alone_does_not_mean_one_user_per_replica() -> None:
    # 1,000 tok/s of Llama-3.1-8B bf16 output on H100 SXM. At batch 1 a decode step reads the
    # 16.06 GB of weights: at most 3,350 / 16.06 = 208.6 tok/s even at the full datasheet
    # bandwidth, so ≥ ⌈1,000 / 208.6⌉ = 5 concurrent sequences are needed; one H100 holds them
    # (80 GB) and reaches the target with them. The old behaviour ran one sequence per replica
    # and asked for 7 H100s.
    rec = recommend(
        validate_workload(
            {
                "model": "llama-3.1-8b",
                "tokens_per_s": 1000,
                "constraints": {"only_gpus": ["h100-sxm"]},
            }
        )
    )
    option = rec.options[0]
    roofline_batch1 = 3.35e12 / (2 * LLAMA_8B_PARAMS)
    assert option.count == 1 and option.meets_targets
    assert option.sequences_per_replica >= math.ceil(1000 / roofline_batch1) == 5
    assert option.aggregate_tokens_per_s is not None and option.aggregate_tokens_per_s >= 1000


def test_full_load_is_the_kv_capacity_of_every_replica() -> None:
    rec = recommend(
        validate_workload({"model": "llama-3.1-8b", "constraints": {"only_gpus": ["l40s"]}})
    )
    option = rec.options[0]
    assert option.sequences_per_replica == 1  # one user by default
    assert option.full_load_sequences_per_replica == option.max_concurrent_sequences > 1
    assert option.full_load_tokens_per_s is not None and option.aggregate_tokens_per_s is not None
    # Decode reads the weights once per step for the whole batch: full load is many times
    # the one-user throughput, but each sequence is no faster than alone.
    ratio = option.full_load_tokens_per_s / option.aggregate_tokens_per_s
    assert 1 < ratio <= option.full_load_sequences_per_replica
