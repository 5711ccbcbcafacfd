"""Advice notes: the fp8-KV remedy only when it saves something, and the engine-reserve note
about the requested load (users × context), not one sequence (QA review finding 10)."""

from __future__ import annotations

import pytest

from tools.advice import engine_reserve_note, fp8_kv_saving
from tools.notes import texts
from tools.recommend import Option, recommend
from tools.workload import Workload

GIB = 2**30
MIB = 2**20


@pytest.mark.parametrize(
    ("kv_dtype", "saving"),
    [
        # Bytes per element: bf16/fp16 2, fp32 4, fp8/int8 1 (vLLM --kv-cache-dtype fp8).
        (None, "halves it"),  # the memory calculator's default is bf16
        ("bf16", "halves it"),
        ("fp16", "halves it"),
        ("fp32", "cuts it 4×"),
        ("fp8", None),
        ("int8", None),
    ],
)
def test_fp8_kv_saving(kv_dtype: str | None, saving: str | None) -> None:
    assert fp8_kv_saving(kv_dtype) == saving


def _kv_note(kv_dtype: str | None) -> str:
    workload = Workload(
        model="llama-3.1-70b", weights="int4-awq", users=40, context=16_384, kv_dtype=kv_dtype
    )
    return next(n.text for n in recommend(workload).notes if n.code == "kv_dominated")


def test_kv_dominated_note_offers_fp8_only_when_the_cache_is_16_bit() -> None:
    # Llama-3.1-70B (models.json: 80 layers, 8 KV heads, head_dim 128): bf16 KV per token
    # = 2 × 80 × 8 × 128 × 2 = 327,680 B; 40 users × 16,384 tokens × 327,680 B
    # = 214,748,364,800 B = 200.0 GiB; fp8 (1 byte) = 100.0 GiB.
    bf16 = _kv_note(None)
    assert "200.0 GiB of KV cache (bf16)" in bf16
    assert "an fp8 KV cache halves it" in bf16
    fp8 = _kv_note("fp8")
    assert "100.0 GiB of KV cache (fp8)" in fp8
    assert "halves" not in fp8 and "already fp8" in fp8


def _single(per_gpu_bytes: int, budget_bytes: int) -> Option:
    """A failed 1-GPU layout as the recommender reports it: per_gpu_bytes is the one-sequence
    minimum."""
    return Option(
        gpu="test-gpu",
        gpu_name="Test GPU",
        count=1,
        tp=1,
        pp=1,
        dp=1,
        nodes=1,
        fits=False,
        meets_targets=False,
        per_gpu_bytes=per_gpu_bytes,
        budget_bytes_per_gpu=budget_bytes,
        headroom_bytes=budget_bytes - per_gpu_bytes,
        kv_cache_capacity_bytes=0,
        kv_cache_capacity_tokens=0,
        max_concurrent_sequences=0,
    )


# Hand example: 100 GiB usable, budget 0.90 × 100 = 90 GiB; 1 MiB of KV per token and
# 1,024-token sequences, so each sequence holds 1 GiB; weights + runtime 94 GiB, so one
# sequence needs 95 GiB. 0.01 of 100 GiB = 1 GiB = 1,024 KV tokens ("1.02k").
USABLE = 100 * GIB
FIXED_GIB, PER_SEQUENCE_GIB = 94, 1  # weights + runtime; KV of one 1,024-token sequence
ONE_SEQUENCE = _single((FIXED_GIB + PER_SEQUENCE_GIB) * GIB, 90 * GIB)


def _note(users: int, kv_dtype: str | None = None) -> str:
    workload = Workload(model="llama-3.1-8b", users=users, context=1024, kv_dtype=kv_dtype)
    note = engine_reserve_note(workload, [ONE_SEQUENCE], USABLE, MIB)
    assert note is not None and note.code == "engine_reserve" and note.gpu == ONE_SEQUENCE.gpu
    return note.text


def test_engine_reserve_note_one_user() -> None:
    # 95 / 100 → gpu_memory_utilization 0.95 fits the one sequence.
    note = _note(1)
    need = FIXED_GIB + PER_SEQUENCE_GIB  # 95 GiB
    assert f"{need:.1f} GiB > the 90.0 GiB budget at gpu_memory_utilization 0.90" in note
    assert "At 0.95 it fits one GPU" in note
    assert "1.02k KV tokens" in note
    assert "fp8 KV cache also helps" in note


def test_engine_reserve_note_all_users_fit_at_a_higher_utilisation() -> None:
    # 3 users: 94 + 3 × 1 = 97 GiB → 0.97.
    note = _note(3)
    need = FIXED_GIB + 3 * PER_SEQUENCE_GIB  # 97 GiB of the 100 usable
    said = f"At {need / 100:.2f} one GPU holds all 3 users' 1,024-token sequences ({need:.1f} GiB)"
    assert said in note
    assert "it fits one GPU" not in note


def test_engine_reserve_note_says_how_many_users_fit_when_not_all_do() -> None:
    # 10 users: 94 + 10 × 1 = 104 GiB > 100 GiB usable. At 0.95 (what one sequence needs):
    # (95 − 94) / 1 = 1 sequence; at 1.00: (100 − 94) / 1 = 6.
    note = _note(10)
    at_95 = (95 - FIXED_GIB) // PER_SEQUENCE_GIB  # 1
    at_100 = (100 - FIXED_GIB) // PER_SEQUENCE_GIB  # 6
    held = f"holds {at_95} of the 10 users' 1,024-token sequences ({at_100} at 1.00)"
    assert f"At 0.95 one GPU {held}" in note
    need = FIXED_GIB + 10 * PER_SEQUENCE_GIB  # 104 GiB
    assert f"all 10 need {need:.1f} GiB > the 100.0 GiB usable" in note
    assert "it fits one GPU" not in note


def test_engine_reserve_note_with_fp8_kv_does_not_offer_fp8() -> None:
    note = _note(1, kv_dtype="fp8")
    assert "fp8" not in note and "a shorter context also helps" in note


def test_engine_reserve_note_none_when_one_sequence_exceeds_usable_memory() -> None:
    workload = Workload(model="llama-3.1-8b", users=1, context=1024)
    too_big = _single(101 * GIB, 90 * GIB)
    assert engine_reserve_note(workload, [too_big], USABLE, MIB) is None


def test_qa_40_users_16k_fp8_kv_on_l40s_is_not_called_a_fit() -> None:
    # QA finding 10: "At 0.98 it fits one GPU" was true for one 16k sequence only; 40 users
    # need 100 GiB of fp8 KV cache (40 × 16,384 × 163,840 B), more than an L40S's memory.
    workload = Workload(
        model="llama-3.1-70b",
        weights="int4-awq",
        users=40,
        context=16_384,
        kv_dtype="fp8",
        constraints={"only_gpus": ["l40s"]},
    )
    notes = [n.text for n in recommend(workload).notes if n.code == "engine_reserve"]
    assert notes
    note = notes[0]
    assert "it fits one GPU" not in note
    assert "of the 40 users' 16,384-token sequences" in note
    assert "fp8 KV cache" not in note


# --- training answers get no serving text (QA round 4, 11) -----------------------------------


def test_training_notes_have_no_multi_tenant_serving_text() -> None:
    # QA: an 8B full fine-tune was told "room for a second model or many LoRA adapters
    # (multi-tenant serving)". Serving the same model on one large GPU still gets that note.
    training = recommend(Workload(model="llama-3.1-8b", task="full"))
    assert not any("multi-tenant" in n or "second model" in n for n in texts(training.notes))
    serving = recommend(
        Workload(model="llama-3.1-8b", users=1, constraints={"only_gpus": ["h200-sxm"]})
    )
    assert any("multi-tenant serving" in n for n in texts(serving.notes))


def test_moe_training_note_quotes_the_training_weights() -> None:
    # Mixtral 8x7B: 46,702,792,704 parameters (HF model card / config.json count). A full
    # fine-tune keeps 16-bit weights plus an fp32 master copy: 2 + 4 = 6 B per parameter (HF
    # "Model training anatomy", the memory calculator's default mixed-hf accounting):
    # 46,702,792,704 × 6 = 280,216,756,224 B = 261.0 GiB — not the 87.0 GiB of bf16 weights.
    rec = recommend(
        Workload(model="mixtral-8x7b", task="full", constraints={"only_gpus": ["h100-sxm"]})
    )
    note = next(n.text for n in rec.notes if n.code == "moe")
    mixtral = 46_702_792_704
    assert f"{mixtral * 6 / GIB:.1f} GiB of training weights, 6 B per parameter" in note  # 261.0
    assert f"{mixtral * 2 / GIB:.1f} GiB" not in note  # 87.0
    assert "decode" not in note and "training FLOPs per token" in note
    # Serving quotes the bf16 weights: 46,702,792,704 × 2 B = 87.0 GiB.
    served = recommend(Workload(model="mixtral-8x7b", constraints={"only_gpus": ["h100-sxm"]}))
    served_note = next(n.text for n in served.notes if n.code == "moe")
    assert f"({mixtral * 2 / GIB:.1f} GiB of weights)" in served_note


# --- the training MFU was measured on H100 / A100 only (QA round 4, 13) ----------------------


def test_training_mfu_caveat_on_gpus_it_was_not_measured_on() -> None:
    # catalog/performance.toml training_mfu is fitted on published runs on H100 (llm-foundry
    # MPT, Llama 3.1 model card) from two publications; A100's (llm-foundry) from one. MI300X
    # (CDNA 3) and Gaudi 3 have no such run: their training times are labelled estimated.
    rec = recommend(
        Workload(
            model="llama-3.1-8b",
            task="full",
            train_tokens=1e9,
            constraints={"only_gpus": ["mi300x", "gaudi3", "h100-sxm", "a100-80gb-sxm4"]},
        )
    )
    by_gpu = {o.gpu: o for o in rec.options}
    for gpu in ("mi300x", "gaudi3"):
        o = by_gpu[gpu]
        assert o.training_hours is not None
        assert o.speed_basis == "estimated"
        assert any("no published training run on its generation" in n for n in o.notes), o.notes
    assert by_gpu["h100-sxm"].speed_basis == "calibrated"
    assert not any("MFU" in n for n in by_gpu["h100-sxm"].notes)
    # Ampere's fitted runs are one publication's (llm-foundry; the LLaMA paper's run is held
    # out of the fit, bench/perf_rows.py): fewer than the two a constant needs, so estimated.
    assert by_gpu["a100-80gb-sxm4"].speed_basis == "estimated"
    assert any("training_mfu" in a and "effective training time" in a for a in rec.assumptions)


def test_training_gets_no_stop_at_one_gpu_note() -> None:
    # QA round 5: "Fits on 1× B200 … stop there — a second GPU adds cost" sat under a training
    # recommendation ranked by job total (8× MI355X, 112 USD vs 254 on the B200). A training
    # job on more GPUs finishes sooner for about the same GPU-hours: the note is serving-only.
    from tools.recommend import recommend
    from tools.workload import validate_workload

    rec = recommend(
        validate_workload(
            {"model": "llama-3.1-8b", "task": "full", "train_tokens": 2e9, "objective": "cheapest"}
        )
    )
    assert rec.options and not any("stop there" in note for note in texts(rec.notes))
    serving = recommend(validate_workload({"model": "llama-3.1-8b", "users": 4}))
    assert any("stop there" in note for note in texts(serving.notes))  # still said when serving


def test_training_headline_on_an_unmeasured_gpu_carries_the_mfu_caveat() -> None:
    # QA round 5: the training MFU is fitted on published runs on H100 and A100 only; a
    # headline on another architecture must say its hours are estimated.
    from tools.catalog import get_catalog
    from tools.recommend import recommend
    from tools.workload import validate_workload

    rec = recommend(
        validate_workload(
            {
                "model": "llama-3.1-8b",
                "task": "full",
                "train_tokens": 2e9,
                "constraints": {"only_gpus": ["mi300x"]},
            }
        )
    )
    name = get_catalog().gpu("mi300x").name
    assert any(
        n.code == "training_mfu_caveat"
        and n.text.startswith(f"Training time on {name}")
        and "is estimated" in n.text
        and "MFU" in n.text
        for n in rec.notes
    )
    h100 = recommend(
        validate_workload(
            {
                "model": "llama-3.1-8b",
                "task": "full",
                "train_tokens": 2e9,
                "constraints": {"only_gpus": ["h100-sxm"]},
            }
        )
    )
    assert not any("MFU, measured on other GPUs" in n for n in h100.notes)
