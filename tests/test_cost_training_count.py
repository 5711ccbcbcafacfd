"""`gpu-sizer cost` for training (QA round 3, G): --count honoured or refused, --zero, the
tensor-parallel group hosted in one instance, unconfirmed (low-confidence) prices ranked last.
"""

from __future__ import annotations

import json

import pytest

from assistant.cli import main
from tools.cost import TrainingCostInput, training_costs
from tools.pricing import builtin_price_book

# catalog/prices.toml "lyceum-h100-on-demand": 1 GPU per instance, 2.79 USD/GPU-h, as_of
# 2026-08-04, confidence "low" ("no Lyceum price page confirms these rates").
LYCEUM = "lyceum-h100-on-demand"


def _lyceum_row_checked() -> None:
    row = next(p for p in builtin_price_book().prices if p.id == LYCEUM)
    assert (row.gpus_per_instance, row.price_per_gpu_hour, row.confidence) == (1, 2.79, "low")


def test_tp8_job_never_priced_on_one_gpu_machines() -> None:
    _lyceum_row_checked()
    job = TrainingCostInput(gpu="h100-sxm", count=24, training_hours=10, tp=8)
    result = training_costs([job], builtin_price_book())
    assert LYCEUM not in {r.price_id for r in result.rows}
    assert any(e.id == LYCEUM and "group of 8" in e.reason for e in result.excluded)
    assert result.rows and all(r.tp == 8 for r in result.rows)
    # No row left is a 1-GPU (or any < 8-GPU) instance.
    book = {p.id: p for p in builtin_price_book().prices}
    for r in result.rows:
        per_instance = book[r.price_id].gpus_per_instance
        assert per_instance is None or per_instance >= 8


def test_unconfirmed_price_ranks_after_confirmed_ones() -> None:
    _lyceum_row_checked()
    job = TrainingCostInput(gpu="h100-sxm", count=64, training_hours=10, tp=1)
    result = training_costs([job], builtin_price_book())
    on_demand = [r for r in result.rows if r.tier == "on_demand" and r.usd_cost is not None]
    lyceum = next(r for r in on_demand if r.price_id == LYCEUM)
    # By hand: 64 GPUs × 2.79 USD/GPU-h × 10 h = 1,785.60 USD.
    assert lyceum.usd_cost == pytest.approx(1_785.60)
    assert lyceum.low_confidence and any("unconfirmed price" in n for n in lyceum.notes)
    flags = [r.low_confidence for r in on_demand]
    assert flags == sorted(flags)  # every confirmed row first, then the low-confidence ones
    before = [r for r in on_demand if not r.low_confidence]
    # At least one confirmed row costs more yet ranks first; the tier's cheapest is confirmed.
    assert any((r.usd_cost or 0) > 1_785.60 for r in before)
    assert result.cheapest_by_tier["on_demand"] != LYCEUM


def _training_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:  # type: ignore[type-arg]
    args = ["cost", "--model", "llama-3.1-70b", "--task", "full", "--train-tokens", "2B"]
    assert main([*args, "--gpu", "h100-sxm", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)["training"]  # type: ignore[no-any-return]


def test_count_and_zero_are_honoured(capsys: pytest.CaptureFixture[str]) -> None:
    # QA round 3, C: 32 H100 take 1.172e21 FLOP / (32 × 989e12 FLOP/s × 0.4 MFU) = 25.7 h
    # (Llama 3 paper Table 4: 38-43% BF16 MFU on H100); 64 take half, 12.9 h.
    for count, hours in ((32, 1.172e21 / (32 * 989e12 * 0.4) / 3600), (64, 12.9)):
        train = _training_json(capsys, "--count", str(count), "--zero", "3")
        assert train["rows"] and {r["count"] for r in train["rows"]} == {count}
        assert train["rows"][0]["wall_hours"] == pytest.approx(hours, rel=0.01)


def test_count_without_zero_keeps_tp_groups_in_one_machine(
    capsys: pytest.CaptureFixture[str],
) -> None:
    train = _training_json(capsys, "--count", "64")
    assert {r["count"] for r in train["rows"]} == {64}
    assert all(r["tp"] and r["tp"] > 1 for r in train["rows"])
    assert LYCEUM not in {r["price_id"] for r in train["rows"]}


def test_count_the_job_cannot_fit_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    # 70B full fine-tune: bf16 weights + grads + fp32 Adam ≈ 16 B × 70.6e9 ≈ 1.1 TB, far over
    # 2 × 80 GB without sharding.
    args = ["cost", "--model", "llama-3.1-70b", "--task", "full", "--train-tokens", "2B"]
    assert main([*args, "--gpu", "h100-sxm", "--count", "2"]) == 2
    err = capsys.readouterr().err
    assert "--count" in err and "does not fit on 2 GPUs" in err
