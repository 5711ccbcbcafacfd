"""GEMM MFU fallbacks: a constant fitted on one GPU class, precision and engine is no fallback
for another (bench/fit_performance.py GEMM_POOL_MIN_CONSTANTS, low_precision)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from bench.fit_performance import GEMM_POOL_MIN_CONSTANTS, _gemm_parents, pool_table
from tools.catalog import get_catalog
from tools.performance import calibration
from tools.performance.efficiency import resolve

REFERENCES = Path(__file__).resolve().parents[1] / "bench" / "data" / "perf_references.json"
HOPPER_FP8 = "graph/nvidia-hbm/hopper/fp8"


def _rows() -> dict[str, dict[str, object]]:
    data = json.loads(REFERENCES.read_text(encoding="utf-8"))
    return {str(r["id"]): r for r in data["rows"]}


def test_one_fitted_constant_is_no_pooled_fallback() -> None:
    # One class's constant alone under graph/nvidia-hbm/hopper, graph/nvidia-hbm/fp8,
    # graph/nvidia-hbm, graph and any: none of them gets a pooled value from it.
    fitted = {HOPPER_FP8: (0.5, ["a", "b", "c", "d", "e"])}
    pooled = pool_table("gemm_mfu", fitted, _gemm_parents, set(), GEMM_POOL_MIN_CONSTANTS)
    assert pooled == {}


def test_two_fitted_constants_pool_as_the_row_weighted_geometric_mean() -> None:
    # 11 rows at 0.35 and 3 at 0.395: exp((11 ln 0.35 + 3 ln 0.395) / 14)
    # = exp((11 × -1.04982 + 3 × -0.92887) / 14) = exp(-1.02390) = 0.35920.
    fitted = {
        "llama.cpp": (0.35, [f"r{i}" for i in range(11)]),
        "llama.cpp/nvidia-gddr/ampere/gguf": (0.395, ["s0", "s1", "s2"]),
    }
    pooled = pool_table("gemm_mfu", fitted, _gemm_parents, set(), GEMM_POOL_MIN_CONSTANTS)
    # The llama.cpp family key is fitted itself; its Ampere keys have one constant under them.
    assert set(pooled) == {"any"}
    value, rows = pooled["any"]
    assert value == pytest.approx(0.35920, abs=5e-5)
    assert len(rows) == 14 and not math.isnan(value)


def test_no_pooled_gemm_fallback_rests_on_fp8_rows() -> None:
    # The catalog's pooled GEMM MFUs (no fit error: not fitted on rows of their own key) are
    # what classes without constants fall back to; none may carry an FP8 measurement.
    rows = _rows()
    table = calibration().constants["gemm_mfu"]
    pooled = [c for c in table.values() if c.fit_error_pct is None]
    assert pooled
    for c in pooled:
        formats = {str(rows[r]["weights"]).lower() for r in c.rows}
        assert not formats & {"fp8", "mxfp4"}, f"{c.key} pools {formats}"


def test_tensorrt_llm_fp8_mfu_reaches_no_other_class() -> None:
    # The Hopper FP8 constant rests on NIM 1.8.0's and MLPerf v4.1's TensorRT-LLM rows only.
    table = calibration().constants["gemm_mfu"]
    assert {str(_rows()[r]["engine"]) for r in table[HOPPER_FP8].rows} == {"tensorrt-llm"}
    cat = get_catalog()
    hopper = resolve(cat.gpu("h100-sxm"), "fp8", "tensorrt-llm")
    assert hopper.prefill_basis == "calibrated"
    assert any(c.key == HOPPER_FP8 for c in hopper.constants)
    # BF16 under vLLM on a consumer Ada card and on an A100 (no FP8 tensor cores), and FP8 on
    # an Ada L40S: another architecture, memory class or precision, so another constant and
    # an estimate.
    for gpu, fmt in (("rtx-4090", "bf16"), ("a100-80gb-sxm4", "bf16"), ("l40s", "fp8")):
        eff = resolve(cat.gpu(gpu), fmt, "vllm")
        gemm = [c for c in eff.constants if c.table == "gemm_mfu"]
        assert [c.key for c in gemm] != [HOPPER_FP8], gpu
        assert eff.prefill_basis == "estimated", gpu


def test_an_estimated_gemm_mfu_says_what_it_assumed() -> None:
    from tools.recommend.speed import gemm_fallback_note

    cat = get_catalog()
    # Fitted on its own class: nothing assumed.
    assert gemm_fallback_note(resolve(cat.gpu("h100-sxm"), "fp8", "tensorrt-llm")) == ""
    # vLLM BF16 on an RTX 4090: the pooled 16-bit 'any', named with its value.
    pooled = calibration().constants["gemm_mfu"]["any"]
    note = gemm_fallback_note(resolve(cat.gpu("rtx-4090"), "bf16", "vllm"))
    assert f"GEMM MFU {pooled.value:.2f} assumed from any" in note
    assert "no compute rows of this engine, GPU class and precision" in note


def test_a_gguf_prompt_falls_to_its_kernel_before_the_engine_family() -> None:
    # The lattice keeps the kernel where it drops the memory class: a GGUF constant of one
    # class sits under llama.cpp/gguf as well as under the class and the family.
    parents = _gemm_parents("llama.cpp/nvidia-gddr/ampere/gguf")
    assert parents == [
        "llama.cpp/nvidia-gddr/ampere",
        "llama.cpp/nvidia-gddr/gguf",
        "llama.cpp/nvidia-gddr",
        "llama.cpp/gguf",
        "llama.cpp",
        "any",
    ]
    assert _gemm_parents("llama.cpp/nvidia-gddr/ampere") == [
        "llama.cpp/nvidia-gddr",
        "llama.cpp",
        "any",
    ]
    # An RTX 4090 (Ada GDDR: its prompt rows are one publication's) running Q8_0 under llama.cpp
    # takes the GGUF kernel's constant, fitted on GGUF rows of several classes; F16 on it takes
    # no GGUF-only figure ahead of the family's.
    cat = get_catalog()
    table = calibration().constants["gemm_mfu"]
    assert {str(_rows()[r]["weights"]).lower() for r in table["llama.cpp/gguf"].rows} <= {
        "q4_0",
        "q4_k_m",
        "q8_0",
    }
    q8 = resolve(cat.gpu("rtx-4090"), "q8_0", "llama.cpp")
    assert [c.key for c in q8.constants if c.table == "gemm_mfu"] == ["llama.cpp/gguf"]
    f16 = resolve(cat.gpu("rtx-4090"), "bf16", "llama.cpp")
    assert [c.key for c in f16.constants if c.table == "gemm_mfu"] == ["llama.cpp"]
