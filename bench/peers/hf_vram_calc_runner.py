"""Run hf-vram-calc on the shared peer workloads. Executed by bench/peers/.venv-hf-vram-calc."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

GiB = 2**30


def run_calc(config: dict[str, object], dtype: str, seq_len: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        model_dir = Path(tmp) / "model"
        model_dir.mkdir()
        (model_dir / "config.json").write_text(json.dumps(config))
        out = Path(tmp) / "out.json"
        exe = Path(sys.executable).parent / "hf-vram-calc"
        subprocess.run(
            [
                str(exe),
                "--model",
                "peer-model",
                "--model_path",
                str(model_dir),
                "--dtype",
                dtype,
                "--max_seq_len",
                str(seq_len),
                "--max_batch_size",
                "1",
                "--output_json",
                str(out),
            ],
            check=True,
            capture_output=True,
            env={**os.environ, "HF_HUB_OFFLINE": "1"},
        )
        result: dict[str, float] = json.loads(out.read_text())["memory_requirements"][0]
        return result


def main() -> None:
    configs = json.loads(sys.stdin.read())
    rows = []
    r = run_calc(configs["llama-2-7b"], "fp16", 2048)
    rows.append(
        {
            "workload": "llama2_7b_fp16_weights",
            "value": r["model_size_gib"] * GiB,
            "unit": "bytes",
            "note": "model_size_gib (2 decimals)",
        }
    )
    rows.append(
        {
            "workload": "llama2_7b_kv_2048",
            "value": r["kv_cache_size_gib"] * GiB,
            "unit": "bytes",
            "note": "kv_cache_size_gib at max_seq_len 2048, batch 1",
        }
    )
    rows.append(
        {
            "workload": "llama2_7b_full_ft_adamw_states",
            "value": r["training_gib"] * GiB,
            "unit": "bytes",
            "note": "training_gib ('Training (Adam)')",
        }
    )
    r4 = run_calc(configs["llama-2-7b"], "int4", 2048)
    rows.append(
        {
            "workload": "llama_7b_4bit_base",
            "value": r4["model_size_gib"] * GiB,
            "unit": "bytes",
            "note": "INT4 model_size_gib (0.5 B/param)",
        }
    )
    r70 = run_calc(configs["llama-3.1-70b"], "bf16", 65536)
    rows.append(
        {
            "workload": "llama31_70b_kv_per_token",
            "value": r70["kv_cache_size_gib"] * GiB / 65536,
            "unit": "bytes",
            "note": "kv_cache_size_gib at 65,536 tokens / 65,536",
        }
    )
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
