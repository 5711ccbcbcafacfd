"""Launch lines that match a local-serving plan: llama-server flags or an Ollama Modelfile and
environment. Each flag is the documented one:

- llama-server (ggml-org/llama.cpp tools/server/README.md, common/arg.cpp): `-m FILE`;
  `-c N` the context size *in total*: with `-np P` parallel slots each slot gets N / P tokens
  (src/llama-context.cpp: n_ctx_seq = n_ctx / n_seq_max unless --kv-unified); `-ngl N`
  (--n-gpu-layers) layers on the GPU, counting the output layer (src/llama-model.cpp:
  i_gpu_start = n_layer + 1 - n_gpu_layers); `--cache-type-k/-v` f16 (default), q8_0, q4_0, …;
  `-fa on` flash attention, which a quantized V cache requires.
- Ollama (docs/faq.md, docs/modelfile.md): `OLLAMA_NUM_PARALLEL` slots, each of
  `OLLAMA_CONTEXT_LENGTH` / `num_ctx` tokens (the KV cache holds num_ctx × parallel);
  `OLLAMA_KV_CACHE_TYPE` f16, q8_0 or q4_0, effective only with `OLLAMA_FLASH_ATTENTION=1`;
  Modelfile `PARAMETER num_gpu N` layers to offload (as -ngl) and `PARAMETER num_ctx N`.
"""

from __future__ import annotations

import shlex

OLLAMA_CACHE_TYPES = ("f16", "q8_0", "q4_0")


def llama_server_command(
    model_path: str,
    context_total: int,
    parallel: int,
    n_gpu_layers: int,
    cache_type: str,
    fa: bool,
    split_mode: str | None = None,
) -> str:
    """The llama-server command line (shell-quoted); `split_mode` 'tensor' adds
    `--split-mode tensor` (llama.cpp PR #19378; the layer split is the default, no flag)."""
    args = ["llama-server", "-m", model_path, "-c", str(context_total), "-np", str(parallel)]
    args += ["-ngl", str(n_gpu_layers), "-fa", "on" if fa else "off"]
    if split_mode == "tensor":
        args += ["--split-mode", "tensor"]
    if cache_type != "f16":
        args += ["--cache-type-k", cache_type, "--cache-type-v", cache_type]
    return shlex.join(args)


def ollama_setup(
    model_ref: str, context_per_slot: int, parallel: int, n_gpu_layers: int, cache_type: str
) -> tuple[str, dict[str, str], str]:
    """(Modelfile, server environment, command line) for Ollama."""
    modelfile = "\n".join(
        [
            f"FROM {model_ref}",
            f"PARAMETER num_ctx {context_per_slot}",
            f"PARAMETER num_gpu {n_gpu_layers}",
        ]
    )
    env = {
        "OLLAMA_NUM_PARALLEL": str(parallel),
        "OLLAMA_CONTEXT_LENGTH": str(context_per_slot),
        "OLLAMA_FLASH_ATTENTION": "1",
    }
    if cache_type != "f16":
        env["OLLAMA_KV_CACHE_TYPE"] = cache_type
    line = " ".join(f"{k}={v}" for k, v in env.items()) + " ollama serve"
    return modelfile, env, line


LM_STUDIO_CACHE = {"q8_0": "Q8_0", "q4_0": "Q4_0", "q4_1": "Q4_1", "q5_0": "Q5_0", "q5_1": "Q5_1"}

MLX_BITS = (8, 6, 4, 3, 2)
"""Bits mlx_lm.convert's -q --q-bits quantizes to here (mlx-lm README: 4 by default); a GGUF
type's bits are rounded down to one of these."""


def lm_studio_settings(
    file_name: str, n_gpu_layers: int, n_layers: int, context: int, cache_type: str, fa: bool
) -> str:
    """LM Studio's model-load settings for the plan, in words (its llama.cpp engine: 'GPU
    Offload' counts the transformer layers, 'Context Length' is per chat)."""
    layers = max(n_gpu_layers - 1, 0)  # -ngl counts the output layer; LM Studio the blocks
    offload = "all" if n_gpu_layers > n_layers else f"{layers} of {n_layers}"
    words = (
        f"LM Studio: load {file_name} with GPU Offload {offload} layers, Context Length "
        f"{context:,}, Flash Attention {'on' if fa else 'off'}"
    )
    if cache_type in LM_STUDIO_CACHE:
        kind = LM_STUDIO_CACHE[cache_type]
        words += f", K and V Cache Quantization Type {kind}"
    return words + "."


def mlx_lines(hf_repo: str, weights_bits: float, model_id: str) -> str:
    """mlx_lm.convert (quantize the Hugging Face checkpoint) then mlx_lm.server (mlx-lm
    README / SERVER.md: `mlx_lm.server --model PATH --port 8080`, an OpenAI-style API)."""
    bits = next((b for b in MLX_BITS if b <= weights_bits), MLX_BITS[-1])
    out = f"./{model_id}-mlx-{bits}bit"
    convert = shlex.join(
        ["mlx_lm.convert", "--hf-path", hf_repo, "-q", "--q-bits", str(bits), "--mlx-path", out]
    )
    server = shlex.join(["mlx_lm.server", "--model", out, "--port", "8080"])
    return f"{convert} && {server}"
