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
