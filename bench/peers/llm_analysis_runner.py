"""Run llm-analysis (cli99) on the shared peer workloads. Executed by .venv-llm-analysis."""

from __future__ import annotations

import json
import logging
import sys
import tempfile
from pathlib import Path

from llm_analysis.analysis import infer, train


def main() -> None:
    configs = json.loads(sys.stdin.read())
    logging.disable(logging.CRITICAL)
    rows = []
    # Its bundled Llama-2-7B config is what a user gets by name.
    base = dict(
        model_name="NousResearch_Llama-2-7b-hf",
        gpu_name="a100-sxm-80gb",
        dtype_name="w16a16e16",
        log_level="CRITICAL",
        batch_size_per_gpu=1,
    )
    r = infer(**base, seq_len=2047, num_tokens_to_generate=1)
    rows.append(
        {
            "workload": "llama2_7b_fp16_weights",
            "value": r["weight_memory_per_gpu"],
            "unit": "bytes",
            "note": "bundled config NousResearch_Llama-2-7b-hf",
        }
    )
    rows.append(
        {
            "workload": "llama2_7b_kv_2048",
            "value": r["kv_cache_memory_per_gpu"],
            "unit": "bytes",
            "note": "seq_len 2047 + 1 generated token",
        }
    )
    r = infer(**base, seq_len=128, num_tokens_to_generate=256)
    rows.append(
        {
            "workload": "llama2_7b_decode_a100",
            "value": r["decode_tokens_per_sec"],
            "unit": "tokens/s",
            "note": "default efficiencies, batch 1",
        }
    )
    # Unsharded 7B states do not fit its 80 GB GPU (it asserts), so compare ZeRO-3 over 8 GPUs.
    t = train(
        model_name="NousResearch_Llama-2-7b-hf",
        gpu_name="a100-sxm-80gb",
        dtype_name="w16a16e16",
        log_level="CRITICAL",
        batch_size_per_gpu=1,
        seq_len=512,
        ds_zero=3,
        dp_size=8,
        total_num_gpus=8,
        total_num_tokens=512 * 8,
    )
    states = (
        t["weight_memory_per_gpu"]
        + t["gradient_memory_per_gpu"]
        + t["optimizer_state_memory_per_gpu"]
    )
    rows.append(
        {
            "workload": "llama2_7b_zero3_8gpu_states",
            "value": states,
            "unit": "bytes",
            "note": "weight + gradient + optimizer_state memory per GPU, ZeRO-3, dp 8",
        }
    )
    r4 = infer(**{**base, "dtype_name": "w4a16e16"}, seq_len=128, num_tokens_to_generate=1)
    rows.append(
        {
            "workload": "llama_7b_4bit_base",
            "value": r4["weight_memory_per_gpu"],
            "unit": "bytes",
            "note": "w4a16e16",
        }
    )
    c = configs["llama-3.1-70b"]
    own = {
        "name": "llama-3.1-70b",
        "num_layers": c["num_hidden_layers"],
        "n_head": c["num_attention_heads"],
        "hidden_dim": c["hidden_size"],
        "vocab_size": c["vocab_size"],
        "max_seq_len": c["max_position_embeddings"],
        "num_key_value_heads": c["num_key_value_heads"],
        "ffn_embed_dim": c["intermediate_size"],
        "model_type": "llama",
    }
    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "llama-3.1-70b.json"
            path.write_text(json.dumps(own))
            r70 = infer(
                model_name=str(path),
                gpu_name="h100-sxm-80gb",
                dtype_name="w16a16e16",
                log_level="CRITICAL",
                batch_size_per_gpu=1,
                seq_len=1023,
                num_tokens_to_generate=1,
            )
        rows.append(
            {
                "workload": "llama31_70b_kv_per_token",
                "value": r70["kv_cache_memory_per_gpu"] / 1024,
                "unit": "bytes",
                "note": "config in llm-analysis format from the published config.json",
            }
        )
    except (ValueError, AssertionError) as exc:
        # It requires ffn_embed_dim to be a multiple of hidden_dim (28,672 / 8,192 = 3.5).
        rows.append(
            {
                "workload": "llama31_70b_kv_per_token",
                "value": None,
                "unit": "bytes",
                "note": f"cannot represent the model: {exc}",
            }
        )
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
