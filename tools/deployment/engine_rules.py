"""Each serving engine's own KV-cache pool rule and defaults, with where each comes from.

The engines size the KV-cache pool differently from one another, so one model on one GPU
holds a different number of tokens under each (all figures per GPU):

- vLLM: pool = total × gpu_memory_utilization − weights − activation peak − non-torch memory
  (`tools.memory.engine_versions` names the accounting per version; the memory calculator
  applies it). Default utilization 0.9 (vLLM 0.6.4 engine arguments; 0.92 in the newest docs).
- SGLang: pool = total × mem_fraction_static − (weights and what was allocated before the pool:
  the CUDA context); activations and CUDA graphs live in the (1 − mem_fraction_static) rest
  (sglang/srt/model_executor/model_runner.py profile_max_num_token: rest_memory =
  available_gpu_memory − total_gpu_memory × (1 − mem_fraction_static)). The default depends on
  the tensor-parallel size in SGLang's 2024 ServerArgs.__post_init__ (v0.3-v0.4): 0.88 at TP 1,
  0.87 at TP ≥ 2, 0.85 at ≥ 4, 0.81 at ≥ 8, 0.79 at ≥ 16; later releases (from the v0.4.8 era)
  derive it from the GPU's memory, reserving memory for activations and CUDA graphs by memory
  tier and TP × PP, so the launch line passes the fraction sized here explicitly.
- TensorRT-LLM: pool = kv_cache_free_gpu_memory_fraction × the memory still free after the
  weights, the CUDA context and the activation buffers are allocated (trtllm-serve
  tensorrt_llm/commands/serve.py: 'Free GPU memory fraction reserved for KV Cache, after
  allocating model weights and buffers', default 0.9).
- llama.cpp, Ollama and MLX allocate the KV cache of the requested context exactly
  (llama.cpp: n_ctx × n_seq cells at start-up; MLX grows it per token): no pool fraction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ServeEngine = Literal["vllm", "sglang", "tensorrt-llm", "llama.cpp", "ollama", "mlx"]
PoolRule = Literal["fraction_of_total", "fraction_of_free", "exact"]

AS_OF = "2026-12-02"
"""When the rules below were read from the engines' sources and docs."""

SGLANG_TP_DEFAULTS: tuple[tuple[int, float], ...] = ((16, 0.79), (8, 0.81), (4, 0.85), (2, 0.87))
SGLANG_TP1_DEFAULT = 0.88
SGLANG_SOURCE = (
    "sgl-project/sglang python/sglang/srt/server_args.py ServerArgs.__post_init__, its 2024 "
    "releases (v0.3-v0.4; read 2026-12-02): mem_fraction_static 0.88 at TP 1, 0.87 / 0.85 / "
    "0.81 / 0.79 at TP ≥ 2 / 4 / 8 / 16; later releases (the v0.4.8 era on, PR #10975 "
    "'general heuristics') derive it from the GPU's memory — round((gpu_mem − reserved) / "
    "gpu_mem, 3), reserved by memory tier and TP × PP — so the launch line pins the fraction "
    "sized here; model_runner.profile_max_num_token: pool = available − total × (1 − fraction)"
)
TRTLLM_FREE_FRACTION = 0.9
TRTLLM_SOURCE = (
    "NVIDIA/TensorRT-LLM tensorrt_llm/commands/serve.py: --kv_cache_free_gpu_memory_fraction "
    "default 0.9, 'Free GPU memory fraction reserved for KV Cache, after allocating model "
    "weights and buffers'"
)
VLLM_SOURCE = (
    "vLLM engine arguments: --gpu-memory-utilization default 0.9 (0.92 in the newest docs); "
    "KV pool = total × utilization − weights − activation peak − non-torch memory "
    "(gpu_worker.determine_available_memory)"
)
EXACT_SOURCE = (
    "llama.cpp src/llama-context.cpp: the KV cache holds n_ctx cells over all slots, "
    "allocated at start-up; Ollama passes num_ctx × OLLAMA_NUM_PARALLEL to it; mlx-lm grows "
    "its cache per token"
)
VLLM_BLOCK_TOKENS = 16
"""vLLM's default KV block size (--block-size 16 on CUDA): the pool holds whole blocks."""


@dataclass(frozen=True)
class EngineRule:
    """How one engine turns a GPU's memory into its KV-cache pool."""

    engine: ServeEngine
    label: str
    rule: PoolRule
    fraction_flag: str | None
    block_tokens: int
    source: str


RULES: dict[ServeEngine, EngineRule] = {
    "vllm": EngineRule(
        "vllm",
        "vLLM",
        "fraction_of_total",
        "--gpu-memory-utilization",
        VLLM_BLOCK_TOKENS,
        VLLM_SOURCE,
    ),
    "sglang": EngineRule(
        "sglang", "SGLang", "fraction_of_total", "--mem-fraction-static", 1, SGLANG_SOURCE
    ),
    "tensorrt-llm": EngineRule(
        "tensorrt-llm",
        "TensorRT-LLM",
        "fraction_of_free",
        "--kv_cache_free_gpu_memory_fraction",
        1,
        TRTLLM_SOURCE,
    ),
    "llama.cpp": EngineRule("llama.cpp", "llama.cpp", "exact", None, 1, EXACT_SOURCE),
    "ollama": EngineRule("ollama", "Ollama", "exact", None, 1, EXACT_SOURCE),
    "mlx": EngineRule("mlx", "MLX (mlx-lm)", "exact", None, 1, EXACT_SOURCE),
}


def sglang_default_fraction(tp: int) -> float:
    """SGLang's default --mem-fraction-static at tensor-parallel size `tp` (its 2024 rule)."""
    for at_least, fraction in SGLANG_TP_DEFAULTS:
        if tp >= at_least:
            return fraction
    return SGLANG_TP1_DEFAULT


def pool_bytes(
    rule: PoolRule,
    fraction: float,
    total: int,
    weights: int,
    activations: int,
    context_bytes: int,
    graphs: int,
) -> int:
    """The KV-cache pool per GPU under `rule` (bytes; negative: nothing is left).

    fraction_of_total (vLLM, SGLang differ in what the fraction must also hold, so the caller
    passes `activations`/`graphs` as 0 where they live in the rest); fraction_of_free
    (TensorRT-LLM): `fraction` × what is free after weights, context, activations, graphs."""
    if rule == "fraction_of_free":
        free = total - weights - activations - context_bytes - graphs
        return int(fraction * free) if free > 0 else free
    return int(fraction * total) - weights - activations - context_bytes - graphs
