"""The command line that starts each serving engine with a sized configuration.

Flags as each engine documents them:
- `vllm serve MODEL --tensor-parallel-size N --pipeline-parallel-size P --max-model-len C
  --max-num-seqs S --gpu-memory-utilization F [--quantization fp8] [--kv-cache-dtype fp8]`
  (vLLM engine arguments; `--quantization fp8` quantizes a 16-bit checkpoint at load).
- `python -m sglang.launch_server --model-path MODEL --tp N --pp-size P --context-length C
  --max-running-requests S --mem-fraction-static F [--quantization fp8]
  [--kv-cache-dtype fp8_e4m3]` (docs.sglang.io, Server Arguments).
- `trtllm-serve MODEL --backend pytorch --tp_size N --pp_size P --max_seq_len C
  --max_batch_size S --kv_cache_free_gpu_memory_fraction F` (tensorrt_llm/commands/serve.py);
  an FP8 KV cache has no flag: `kv_cache_config: {dtype: fp8}` in the YAML passed with
  `--extra_llm_api_options`.
- llama.cpp and Ollama: `tools.local_serving.launch` (the local-serving plan's own lines).
"""

from __future__ import annotations

import shlex

from tools.deployment.engine_rules import ServeEngine

_SGLANG_KV = {"fp8": "fp8_e4m3"}


def _fraction(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".") if value < 1 else "1"


def engine_command(
    engine: ServeEngine,
    model_ref: str,
    tp: int,
    pp: int,
    context: int,
    sequences: int | None,
    fraction: float,
    quantization: str | None,
    kv_dtype: str | None,
) -> tuple[str, str | None]:
    """(the shell-quoted command, a YAML file it needs or None) for vLLM, SGLang and
    TensorRT-LLM. `quantization` is the engine's --quantization value (None: the checkpoint's
    own); `kv_dtype` 'fp8' for an FP8 KV cache (None: the model's dtype); `sequences` None
    leaves the engine's own cap on concurrent sequences (no load was stated)."""
    if engine == "vllm":
        args = ["vllm", "serve", model_ref, "--tensor-parallel-size", str(tp)]
        if pp > 1:
            args += ["--pipeline-parallel-size", str(pp)]
        args += ["--max-model-len", str(context)]
        args += ["--max-num-seqs", str(sequences)] if sequences else []
        args += ["--gpu-memory-utilization", _fraction(fraction)]
        if quantization:
            args += ["--quantization", quantization]
        if kv_dtype:
            args += ["--kv-cache-dtype", kv_dtype]
        return shlex.join(args), None
    if engine == "sglang":
        args = ["python", "-m", "sglang.launch_server", "--model-path", model_ref, "--tp", str(tp)]
        if pp > 1:
            args += ["--pp-size", str(pp)]
        args += ["--context-length", str(context)]
        args += ["--max-running-requests", str(sequences)] if sequences else []
        args += ["--mem-fraction-static", _fraction(fraction)]
        if quantization:
            args += ["--quantization", quantization]
        if kv_dtype:
            args += ["--kv-cache-dtype", _SGLANG_KV.get(kv_dtype, kv_dtype)]
        return shlex.join(args), None
    if engine == "tensorrt-llm":
        args = ["trtllm-serve", model_ref, "--backend", "pytorch", "--tp_size", str(tp)]
        if pp > 1:
            args += ["--pp_size", str(pp)]
        args += ["--max_seq_len", str(context)]
        args += ["--max_batch_size", str(sequences)] if sequences else []
        args += ["--kv_cache_free_gpu_memory_fraction", _fraction(fraction)]
        yaml = None
        if kv_dtype:
            yaml = f"kv_cache_config:\n  dtype: {kv_dtype}\n"
            args += ["--extra_llm_api_options", "extra_llm_api_options.yaml"]
        return shlex.join(args), yaml
    raise ValueError(f"no server command line here for {engine}")
