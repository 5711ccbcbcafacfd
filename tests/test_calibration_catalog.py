"""catalog/performance.toml against the reference set it was fitted on, and the KV-pool and
weight-spelling rules that feed the speed figures.

- Every fitted constant names at least two reference rows (no constant tuned to one row), every
  named row exists in bench/data/perf_references.json with a source, and a fresh fit reproduces
  the stored values (the file is generated, not edited).
- KV pool: vLLM's activation peak is profiled at max_num_batched_tokens and keeps a sampler
  reserve for max_num_seqs requests; vLLM PR #10511's log for Llama-3-8B on an H100 (8,192
  batched tokens, 256 dummy requests) shows a 1.26 GiB activation peak.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tools.memory import MemoryRequest, estimate_memory
from tools.memory.activations import VLLM_SAMPLER_BYTES_PER_LOGIT, inference_activation_bytes
from tools.memory.formats import format_reading, normalize_format
from tools.performance import calibration
from tools.performance.measured import measurements
from tools.units import GiB
from tools.workload import validate_workload

REFERENCES = Path(__file__).resolve().parents[1] / "bench" / "data" / "perf_references.json"


def _rows() -> dict[str, dict[str, object]]:
    doc = json.loads(REFERENCES.read_text(encoding="utf-8"))
    return {str(r["id"]): r for r in doc["rows"]}


def test_every_fitted_constant_names_two_or_more_sourced_rows() -> None:
    rows = _rows()
    constants = calibration().all()
    assert constants
    for c in constants:
        assert len(c.rows) >= 2, f"{c.table} {c.key} rests on {c.rows}"
        for r in c.rows:
            assert r in rows, f"{c.table} {c.key}: unknown row {r}"
            assert rows[r]["source_url"] and not rows[r].get("uncovered")
        if c.fit_error_pct is not None:
            assert c.heldout_error_pct is not None


def test_measured_figures_are_reference_rows() -> None:
    rows = _rows()
    found = measurements()
    assert found
    for m in found:
        row = rows[m.row]
        assert row["value"] == pytest.approx(m.tokens_per_s)
        assert int(str(row["batch"])) == 1


def test_the_catalog_file_is_a_fresh_fit() -> None:
    from bench.fit_performance import compare, fit_all

    assert compare(fit_all(), calibration()) == []


def test_vllm_activation_peak_matches_the_pr_10511_log() -> None:
    # Llama-3-8B: 8,192 × (2 × 4,096 + 3 × 14,336) × 2 B of layer activations = 0.78 GiB, and
    # 256 × 128,256 × 16 B of sampler (fp32 logits, probabilities, int64 sort indices).
    from tools.catalog import get_catalog

    arch = get_catalog().model("llama-3.1-8b").architecture
    act = inference_activation_bytes(
        arch, chunk_tokens=8192, sequences=1, sequence_tokens=8192, sampler_sequences=256
    )
    assert act.layers == 8192 * (2 * 4096 + 3 * 14336) * 2
    assert act.logits == 256 * 128_256 * VLLM_SAMPLER_BYTES_PER_LOGIT
    assert act.total / GiB == pytest.approx(1.26, rel=0.03)


def test_vllm_sampler_reserve_does_not_grow_with_the_batch() -> None:
    def at(batch: int) -> int:
        est = estimate_memory(
            MemoryRequest(model="llama-3.1-8b", gpu="h100-sxm", context=4096, batch=batch)
        )
        return est.breakdown["activations"]

    # max_num_seqs 1,024 on an H100: the reserve is the same for 1 or 64 running sequences.
    assert at(1) == at(64)
    one = estimate_memory(MemoryRequest(model="llama-3.1-8b", gpu="h100-sxm", context=4096))
    assert any("max_num_seqs = 1024" in a for a in one.assumptions)


@pytest.mark.parametrize(
    ("spelling", "fmt"),
    [("int4", "int4-awq"), ("INT4", "int4-awq"), ("4bit", "int4-awq"), ("q4", "q4_k_m")],
)
def test_generic_four_bit_spellings_are_read_as_a_format_and_say_so(
    spelling: str, fmt: str
) -> None:
    assert normalize_format(spelling) == fmt
    note = format_reading(spelling)
    assert note is not None and f"'{spelling}' read as {fmt}" in note
    req = MemoryRequest(model="llama-3.1-8b", weights=spelling)
    assert req.weights == fmt and req.weights_reading == note
    assert note in estimate_memory(req).assumptions
    w = validate_workload({"model": "llama-3.1-8b", "weights": spelling})
    assert w.weights == fmt and w.weights_reading == note


def test_exact_format_names_carry_no_reading_note() -> None:
    assert format_reading("int4-awq") is None and format_reading("q4_k_m") is None
    assert MemoryRequest(model="llama-3.1-8b", weights="awq").weights_reading is None


@pytest.mark.parametrize(
    ("spelling", "fmt"), [("int4", "int4-awq"), ("4bit", "int4-awq"), ("q4", "q4_k_m")]
)
def test_cli_accepts_generic_four_bit_weights_and_says_how_it_read_them(
    spelling: str, fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from assistant.cli import main

    for command in ("memory", "recommend", "cost"):
        argv = [command, "--model", "llama-3.1-8b", "--weights", spelling]
        if command == "recommend":
            argv += ["--only", "rtx-4090"]
        if command == "cost":
            argv += ["--gpu", "rtx-4090"]
        assert main(argv) == 0
        out = capsys.readouterr().out
        assert f"Weights '{spelling}' read as {fmt}" in out


def test_recommend_cli_shows_the_speed_basis(capsys: pytest.CaptureFixture[str]) -> None:
    from assistant.cli import main

    assert main(["recommend", "--model", "llama-3.1-8b", "--only", "gaudi3", "a100-80gb-sxm4"]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("GPU "))
    assert "speed basis" in header
    # Piped, the table is one row per line, its cells two or more spaces apart.
    rows = {cells[0]: cells for line in out.splitlines() if (cells := re.split(r"\s{2,}", line))}
    # The A100 (vLLM BF16, NVIDIA HBM) has decode constants fitted on its own class's rows. Its
    # GEMM MFU (throughput, TTFT) has none: the graph engines' only compute constant is
    # TensorRT-LLM FP8 on Hopper (NIM 1.8.0, MLPerf v4.1), which runs on FP8 tensor cores the
    # A100 does not have and is no fallback for a BF16 GEMM, so those say estimated. The
    # Gaudi 3 has no rows of its class at all.
    assert "decode calibrated; throughput, TTFT estimated" in rows["a100-80gb-sxm4"]
    assert "estimated" in rows["gaudi3"]
