"""One default request shape for `memory`, `recommend` and the engines (tools/defaults.py).

The decision (the lead's, stated in tools/defaults.py): prompt 3,072 + output 1,024 = 4,096
tokens per sequence, the same 4,096-token training sequence, and for a model whose maximum
context is shorter, that maximum split 3:1. Before it, `memory` sized 4,096 tokens and
`recommend` 1,024 + 256 = 1,280, so the same question got two per-GPU figures.

Sources: Llama-3.1-8B config.json (32 layers, 8 KV heads, head_dim 128; shared/research
models.json); LLaMA-65B config (bench/references.py: LLaMA paper arXiv 2302.13971 Table 2,
max_position_embeddings 2,048, 80 layers, 64 heads × 128).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assistant.cli import main
from assistant.offline.parser import parse_workload
from assistant.offline.planner import plan_tool_calls
from bench.references import LLAMA_65B_CONFIG
from tools.defaults import default_request_shape
from tools.memory import estimate_memory, validate_request
from tools.notes import texts
from tools.recommend import recommend
from tools.sizing import SizingRequest
from tools.sizing.memory import configuration_fields
from tools.workload import validate_workload

# Llama-3.1-8B KV bytes per token in bf16: 2 (K, V) × 32 layers × 8 KV heads × 128 head dim
# × 2 bytes.
LLAMA_8B_KV_PER_TOKEN = 2 * 32 * 8 * 128 * 2
# LLaMA-65B (MHA): 2 × 80 layers × 64 KV heads × 128 head dim × 2 bytes.
LLAMA_65B_KV_PER_TOKEN = 2 * 80 * 64 * 128 * 2


@pytest.fixture
def llama_65b_config(tmp_path: Path) -> str:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(LLAMA_65B_CONFIG))
    return str(path)


def test_the_shape_is_3072_plus_1024_and_scales_down_3_to_1() -> None:
    full = default_request_shape(131_072)
    assert (full.prompt_tokens, full.output_tokens, full.context_tokens) == (3072, 1024, 4096)
    # A 4,096-token model takes the default exactly (no cap).
    assert default_request_shape(4096) == full
    # 2,048 × 3/4 = 1,536 prompt, 2,048 − 1,536 = 512 output.
    capped = default_request_shape(2048)
    assert (capped.prompt_tokens, capped.output_tokens) == (1536, 512)
    # An odd maximum still sums to it: 2,047 × 3 // 4 = 1,535, + 512 = 2,047.
    odd = default_request_shape(2047)
    assert (odd.prompt_tokens, odd.output_tokens) == (1535, 512)


def test_memory_kv_for_llama_8b_at_the_default_is_half_a_gib() -> None:
    est = estimate_memory(validate_request({"model": "llama-3.1-8b"}))
    assert LLAMA_8B_KV_PER_TOKEN == 131_072
    # 131,072 B × 4,096 tokens = 536,870,912 B = 0.5 GiB (4,096 is a multiple of vLLM's
    # 16-token blocks, so paging adds nothing).
    assert est.context == 4096
    assert est.breakdown["kv_cache"] == 536_870_912 == 2**30 // 2
    assert any("4,096 tokens per sequence (default" in a for a in est.assumptions)


def test_memory_and_recommend_agree_at_one_user_with_no_lengths() -> None:
    mem = estimate_memory(validate_request({"model": "llama-3.1-8b", "gpu": "h100-sxm"}))
    workload = validate_workload(
        {"model": "llama-3.1-8b", "constraints": {"only_gpus": ["h100-sxm"]}}
    )
    assert workload.users == 1
    rec = recommend(workload)
    assert rec.context_tokens == mem.context == 4096
    assert rec.weight_bytes == mem.breakdown["weights"]
    assert rec.kv_cache_bytes_per_token * rec.context_tokens == mem.breakdown["kv_cache"]
    option = rec.options[0]
    assert (option.gpu, option.count, option.tp) == ("h100-sxm", 1, 1)
    # One sequence on one GPU: the recommender's per-GPU figure is the memory tool's.
    assert option.per_gpu_bytes == mem.per_gpu_bytes


def test_cli_memory_and_recommend_print_the_same_context(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["memory", "--model", "llama-3.1-8b", "--json"]) == 0
    memory: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert main(["recommend", "--model", "llama-3.1-8b", "--only", "h100-sxm"]) == 0
    text = capsys.readouterr().out
    assert memory["context"] == 4096 and "context 4,096 tokens" in text
    assert memory["breakdown"]["kv_cache"] == LLAMA_8B_KV_PER_TOKEN * 4096
    # The recommender's defaults are stated, not silently used: 4,096 tokens split 3:1.
    workload = validate_workload(
        {"model": "llama-3.1-8b", "constraints": {"only_gpus": ["h100-sxm"]}}
    )
    assert (workload.prompt_tokens, workload.output_tokens) == (4096 * 3 // 4, 4096 // 4)
    shape = f"{4096 * 3 // 4:,} prompt + {4096 // 4:,} output = {4096:,} tokens"
    assert f"Request shape: {shape}" in text


def test_training_defaults_to_4096_in_both() -> None:
    mem = estimate_memory(validate_request({"model": "llama-3.1-8b", "task": "lora"}))
    workload = validate_workload({"model": "llama-3.1-8b", "task": "lora"})
    assert mem.context == workload.training_sequence_tokens == 4096
    assert workload.default_notes == [
        "Training sequence length: 4,096 tokens (default; set sequence_length)."
    ]


def test_a_2048_token_model_gets_capped_defaults_in_both(llama_65b_config: str) -> None:
    mem = estimate_memory(validate_request({"config_path": llama_65b_config}))
    assert mem.context == 2048
    assert mem.breakdown["kv_cache"] == LLAMA_65B_KV_PER_TOKEN * 2048
    assert any("2,048 tokens per sequence: the default 4,096 capped" in a for a in mem.assumptions)

    workload = validate_workload(
        {"config_path": llama_65b_config, "constraints": {"only_gpus": ["h200-sxm"]}}
    )
    assert (workload.prompt_tokens, workload.output_tokens) == (1536, 512)
    assert workload.context_tokens == 2048
    (note,) = workload.default_notes
    assert "1,536 prompt + 512 output = 2,048 tokens" in note
    assert "maximum context of 2,048 tokens" in note and "3:1" in note
    rec = recommend(workload)
    assert rec.context_tokens == 2048
    assert rec.kv_cache_bytes_per_token == LLAMA_65B_KV_PER_TOKEN

    lora = validate_workload({"config_path": llama_65b_config, "task": "lora"})
    lora_mem = estimate_memory(validate_request({"config_path": llama_65b_config, "task": "lora"}))
    assert lora.training_sequence_tokens == lora_mem.context == 2048
    assert lora.default_notes == [
        "Training sequence length: 2,048 tokens (the default 4,096 capped at the model's "
        "maximum context of 2,048 tokens (max_position_embeddings); set sequence_length)."
    ]


def test_capped_defaults_are_stated_by_the_recommend_cli(
    llama_65b_config: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["recommend", "--config", llama_65b_config, "--only", "h200-sxm", "--json"]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert any(
        "scaled down to the model's maximum context of 2,048" in a for a in out["assumptions"]
    )


def test_explicit_lengths_above_the_maximum_are_used_with_a_memory_warning(
    llama_65b_config: str,
) -> None:
    # Existing behaviour kept: lengths the user gave are not capped and not refused; the memory
    # calculator warns (quality past max_position_embeddings is not assured).
    workload = validate_workload(
        {
            "config_path": llama_65b_config,
            "context": 4096,
            "constraints": {"only_gpus": ["h200-sxm"]},
        }
    )
    assert workload.context_tokens == 4096 and workload.default_notes == []
    assert recommend(workload).context_tokens == 4096
    mem = estimate_memory(validate_request({"config_path": llama_65b_config, "context": 4096}))
    assert mem.context == 4096
    assert any("exceeds the model's maximum of 2,048" in w for w in texts(mem.warnings))
    # A prompt length alone is the user's too: 3,000 + the default 1,024 output, uncapped.
    prompt_only = validate_workload({"config_path": llama_65b_config, "prompt_tokens": 3000})
    assert prompt_only.context_tokens == 3000 + 1024 and prompt_only.default_notes == []


def test_offline_plan_sizes_one_context_with_no_lengths() -> None:
    # No length in the text: the memory call leaves context to the memory tool's default and
    # the recommender takes the same shape, so both size 4,096 tokens.
    (planned,) = plan_tool_calls(parse_workload("Llama 3.1 8B on one H100"))
    request = SizingRequest.model_validate(planned.arguments)
    fields = configuration_fields(request, "h100-sxm", 1)
    assert "context" not in fields
    mem = estimate_memory(validate_request(fields))
    workload = validate_workload(planned.arguments["workload"])
    assert mem.context == workload.context_tokens == 4096


def test_offline_plan_passes_prompt_plus_output_to_memory() -> None:
    # Lengths in the text: the memory call takes the recommender's prompt + output.
    (planned,) = plan_tool_calls(
        parse_workload("Llama 3.1 8B on one H100, prompts of 2000 tokens, outputs of 500 tokens")
    )
    request = SizingRequest.model_validate(planned.arguments)
    assert configuration_fields(request, "h100-sxm", 1)["context"] == 2000 + 500
