"""estimate_memory end to end: breakdown identities, fits, MoE, parallelism, bad input, CLI."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assistant.cli import main
from tools.errors import ToolInputError
from tools.memory import MemoryRequest, estimate_memory, validate_request
from tools.notes import texts

BREAKDOWN_KEYS = {"weights", "kv_cache", "activations", "gradients", "optimizer", "overhead"}


def test_breakdown_sums_to_per_gpu_and_kv_capacity_identity() -> None:
    est = estimate_memory(MemoryRequest(model="llama-3.1-8b", gpu="h100-sxm", batch=8))
    assert set(est.breakdown) == BREAKDOWN_KEYS
    assert sum(est.breakdown.values()) == est.per_gpu_bytes
    assert [c.name for c in est.components] == list(est.breakdown)
    # vLLM budget = usable × 0.9 (vLLM docs default); headroom = budget − per GPU
    assert est.usable_bytes_per_gpu == 85_520_809_984  # catalog: 81,559 MiB
    assert est.budget_bytes_per_gpu == int(85_520_809_984 * 0.9)
    assert est.headroom_bytes == est.budget_bytes_per_gpu - est.per_gpu_bytes
    # The recommender's KV capacity: budget − (per_gpu − kv_cache) ≥ the KV cache we asked for
    capacity = est.budget_bytes_per_gpu - (est.per_gpu_bytes - est.breakdown["kv_cache"])
    assert capacity - est.breakdown["kv_cache"] == est.headroom_bytes
    # KV for 8 × 4096 tokens (default context), 131,072 B/token (2·32·8·128·2)
    assert est.breakdown["kv_cache"] == 131_072 * 4096 * 8


def test_70b_int8_fits_80gb_only_with_16bit_layers_and_kv_budgeted() -> None:
    # Seed-article rule: INT8 is 1 byte/param, so a 70B "fits" an 80 GB GPU. Budgeted exactly:
    # 68.45B block weights at 1 B (+ fp16 scales) and the 16-bit embedding and output layer
    # (2 × 128,256 × 8,192 × 2 B = 4.20 GB) → 72.67 GB of weights, before any KV cache.
    est = estimate_memory(
        MemoryRequest(
            model="llama-3.1-70b",
            weights="int8",
            engine="transformers",
            gpu="a100-80gb-sxm4",
            context=4096,
        )
    )
    assert est.breakdown["weights"] / 1e9 == pytest.approx(72.67, abs=0.01)
    assert est.fits
    # The same with 32k tokens of KV cache (80 · 2 · 8 · 128 · 2 B × 32,768 = 10.7 GB) no longer
    # fits: the KV cache has to be budgeted, not assumed free.
    long = estimate_memory(
        MemoryRequest(
            model="llama-3.1-70b",
            weights="int8",
            engine="transformers",
            gpu="a100-80gb-sxm4",
            context=32768,
        )
    )
    assert long.breakdown["kv_cache"] == 327_680 * 32768
    assert not long.fits
    assert any("16-bit" in a for a in est.assumptions)


def test_moe_all_experts_resident_active_reported() -> None:
    # params.json (Mixtral-8x7B-v0.1): 46,702,792,704 total, 12,879,925,248 active per token.
    est = estimate_memory(MemoryRequest(model="mixtral-8x7b", weights="bf16"))
    assert est.total_params == 46_702_792_704
    assert est.active_params == 12_879_925_248
    assert est.breakdown["weights"] == 2 * 46_702_792_704


def test_gpt_oss_120b_native_mxfp4_fits_one_80gb_gpu() -> None:
    # openai/gpt-oss README: gpt-oss-120b "fits into a single 80GB GPU (like NVIDIA H100)"
    # thanks to MXFP4 MoE weights — the catalog's native checkpoint format is the default.
    est = estimate_memory(MemoryRequest(model="gpt-oss-120b", gpu="h100-sxm"))
    assert est.weights_format == "mxfp4"
    assert est.fits


def test_pipeline_parallel_worst_stage() -> None:
    # Llama-3.1-70B, pp=2: 40 layers per stage; stage 0 adds the embedding, stage 1 the
    # lm_head and the final norm (equal-sized tables) → stage 1 is the largest.
    one = estimate_memory(MemoryRequest(model="llama-3.1-70b", gpus=2, pp=2))
    layer = 2 * (2 * 8192 * 8192 + 2 * 8192 * 1024 + 3 * 8192 * 28672 + 2 * 8192)
    table = 2 * 128_256 * 8192
    assert one.breakdown["weights"] == 40 * layer + table + 2 * 8192
    assert (one.tp, one.pp, one.dp) == (1, 2, 1)


def test_context_beyond_model_max_is_a_warning() -> None:
    est = estimate_memory(MemoryRequest(model="llama-2-7b", context=8192))
    assert any(
        w.code == "context_above_maximum" and "exceeds the model's maximum of 4,096" in w.text
        for w in est.warnings
    )


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"model": "llama-3.1-8b", "batch": -1}, "batch"),
        ({"model": "llama-3.1-8b", "context": 0}, "context"),
        ({"model": "llama-3.1-8b", "context": 10**9}, "context"),
        ({"model": "llama-3.1-8b", "gpus": 0}, "gpus"),
        ({"model": "llama-3.1-8b", "gpu_memory_utilization": math.nan}, "gpu_memory_utilization"),
        ({"model": "llama-3.1-8b", "lora_rank": 0, "task": "lora"}, "lora_rank"),
        ({"model": "llama-3.1-8b", "weights": "int3"}, "weights"),
        ({"model": "llama-3.1-8b", "kv_dtype": "int2"}, "kv_dtype"),
        ({"params": math.nan}, "params"),
        ({"params": -7e9}, "params"),
        ({}, "model"),
        ({"model": "llama-3.1-8b", "params": "8B"}, "model"),
    ],
)
def test_bad_request_names_the_field(fields: dict[str, object], field: str) -> None:
    with pytest.raises(ToolInputError) as err:
        validate_request(fields)
    assert err.value.field == field


@pytest.mark.parametrize(
    ("fields", "field", "needle"),
    [
        ({"model": "llama-3.1-70b", "tp": 3}, "tp", "1, 2, 4, 8, 16, 32, 64"),
        ({"model": "llama-3.1-70b", "gpus": 4, "tp": 8}, "gpus", "tp·pp"),
        ({"model": "lama-3.1-70b"}, "model", "llama-3.1-70b"),
        ({"model": "llama-3.1-8b", "gpu": "h10-sxm"}, "gpu", "h100-sxm"),
        ({"params": "1e20"}, "params", "20T"),
        ({"params": "lots"}, "params", "13B"),
        ({"model": "llama-3.1-8b", "task": "full", "weights": "int4-awq"}, "weights", "bf16"),
    ],
)
def test_unsizable_input_names_field_and_allowed(
    fields: dict[str, object], field: str, needle: str
) -> None:
    with pytest.raises(ToolInputError) as err:
        estimate_memory(validate_request(fields))
    assert err.value.field == field
    assert needle in err.value.message


def test_cli_json_contract(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["memory", "--model", "llama-3.1-70b", "--gpu", "h100-sxm", "--gpus", "4", "--json"]
    )
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    for key in (
        "total_params",
        "active_params",
        "per_gpu_bytes",
        "total_bytes",
        "kv_cache_bytes_per_token",
        "breakdown",
        "assumptions",
        "fits",
        "headroom_bytes",
    ):
        assert key in data
    assert data["total_params"] == 70_553_706_496  # params.json
    assert data["kv_cache_bytes_per_token"] == 327_680
    assert all(isinstance(v, int) for v in data["breakdown"].values())
    assert data["tp"] == 4


def test_cli_json_without_gpu_has_no_fit_fields(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["memory", "--params", "13B", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert "fits" not in data and "headroom_bytes" not in data
    assert data["total_params"] == 13_000_000_000


def test_cli_table_has_one_unit_family(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["memory", "--model", "qwen2.5-7b", "--gpu", "l4", "--unit", "GiB"]) == 0
    out = capsys.readouterr().out
    table = out.split("Assumptions:")[0]
    assert "GiB per GPU" in table and " GB" not in table
    assert "Assumptions:" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["memory", "--model", "llama-3.1-8b", "--batch", "-3"],
        ["memory", "--model", "no-such-model"],
        ["memory", "--model", "llama-3.1-70b", "--tp", "3"],
        ["memory", "--params", "nan"],
        ["memory", "--model", "llama-3.1-8b", "--task", "lora", "--lora-rank", "0"],
    ],
)
def test_cli_bad_input_exits_2_without_traceback(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "error:" in err and "Traceback" not in err


def test_eager_attention_materialises_scores() -> None:
    # Without flash attention each sequence stores heads × s² scores and probabilities:
    # Llama-3.1-8B, 32 heads, s = 4096, 16-bit: 2 × 32 × 4096² × 2 B = 2,147,483,648 extra.
    kwargs = {"model": "llama-3.1-8b", "engine": "transformers", "context": 4096}
    flash = estimate_memory(MemoryRequest(**kwargs))
    eager = estimate_memory(MemoryRequest(**kwargs, flash_attention=False))
    extra = eager.breakdown["activations"] - flash.breakdown["activations"]
    assert extra == 2 * 32 * 4096 * 4096 * 2


def test_training_only_options_warn_for_inference() -> None:
    est = estimate_memory(MemoryRequest(model="llama-3.1-8b", zero=3, offload_optimizer=True))
    # One warning per ignored training-only option, naming it.
    assert len(est.warnings) == 2
    assert [w.code for w in est.warnings] == [
        "zero_ignored_for_inference",
        "offload_ignored_for_inference",
    ]
    assert "zero" in est.warnings[0].text and "offload_optimizer" in est.warnings[1].text
    assert all("training only" in w for w in texts(est.warnings))
    assert est.breakdown["gradients"] == est.breakdown["optimizer"] == 0


def test_cli_reads_a_local_config(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    # Mistral-7B-v0.3 config values (models.json); params.json total 7,248,023,552.
    config = tmp_path / "config.json"
    config.write_text(
        json.dumps(
            {
                "model_type": "mistral",
                "hidden_size": 4096,
                "intermediate_size": 14336,
                "num_hidden_layers": 32,
                "num_attention_heads": 32,
                "num_key_value_heads": 8,
                "vocab_size": 32768,
                "max_position_embeddings": 32768,
            }
        )
    )
    assert main(["memory", "--config", str(config), "--task", "qlora", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["total_params"] == 7_248_023_552
    assert data["weights_format"] == "nf4-dq"


@settings(max_examples=40, deadline=None)
@given(
    model=st.sampled_from(["llama-3.1-8b", "mixtral-8x7b", "gemma-2-9b", "deepseek-v3"]),
    context=st.integers(min_value=1, max_value=200_000),
    batch=st.integers(min_value=1, max_value=64),
    weights=st.sampled_from(["bf16", "fp8", "int4-awq", "nf4", "q4_k_m", "q8_0"]),
)
def test_breakdown_identity_and_kv_monotonic(
    model: str, context: int, batch: int, weights: str
) -> None:
    req = MemoryRequest(model=model, context=context, batch=batch, weights=weights)
    est = estimate_memory(req)
    assert est.per_gpu_bytes == sum(est.breakdown.values())
    assert all(v >= 0 for v in est.breakdown.values())
    longer = estimate_memory(req.model_copy(update={"context": context + 16}))
    assert longer.breakdown["kv_cache"] >= est.breakdown["kv_cache"]


def test_qlora_with_16bit_base_warns() -> None:
    est = estimate_memory(MemoryRequest(model="llama-3.1-8b", task="qlora", weights="bf16"))
    assert any("plain LoRA" in w for w in texts(est.warnings))
    default = estimate_memory(MemoryRequest(model="llama-3.1-8b", task="qlora"))
    assert default.weights_format == "nf4-dq" and not default.warnings


def test_a_format_error_names_the_field_once_and_lists_allowed_values_once() -> None:
    with pytest.raises(ToolInputError) as info:
        validate_request({"model": "llama-3.1-8b", "weights": "int3"})
    message = info.value.message
    assert message.startswith("weights: unknown weight format 'int3'.")
    assert message.count("weights:") == 1 and message.count("Allowed:") == 1
