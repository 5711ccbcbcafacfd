"""Runtime overheads: named, sourced constants, each overridable in `MemoryRequest`.

These are not derivable from the model's shape, so each is a stated assumption with its source.
They are reported in every estimate's assumptions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from tools.units import GiB, MiB


@dataclass(frozen=True)
class SourcedConstant:
    """A figure that is not computed from the model: its value, unit and where it comes from."""

    name: str
    value: float
    unit: str
    source: str


CUDA_CONTEXT = SourcedConstant(
    "cuda_context_bytes",
    1343 * MiB,
    "bytes per GPU",
    "Hugging Face Transformers docs, 'Model training anatomy': the CUDA context with kernels "
    "loaded took 1343 MB (nvidia-smi MiB) on a V100; published ranges are 0.5-1 GiB depending "
    "on GPU, driver and loaded kernels, so this errs high",
)

CUBLAS_WORKSPACE = SourcedConstant(
    "cublas_workspace_bytes",
    32 * MiB,
    "bytes per GPU",
    "PyTorch CUDABlasHandlePool getChosenWorkspaceSize: CUBLAS_WORKSPACE_CONFIG ':4096:8' "
    "(8 x 4096 KiB = 32 MiB) on Hopper, less on older GPUs; cuBLAS docs recommend 32 MiB "
    "on Hopper",
)

METAL_RUNTIME = SourcedConstant(
    "metal_runtime_bytes",
    0,
    "bytes per device",
    "estimate, not a measurement: llama.cpp's (ggml-metal) and MLX's Metal backends allocate "
    "the model, KV-cache and compute buffers (each sized separately here) inside Metal's GPU "
    "working set, and no CUDA context or cuBLAS workspace exists on Apple silicon; the Metal "
    "device and command queues are not counted against that working set",
)

VLLM_CUDA_GRAPHS = SourcedConstant(
    "cuda_graph_bytes",
    0.5 * GiB,
    "bytes per GPU",
    "vLLM captures CUDA graphs for decode batch sizes at start-up and logs their size "
    "('Graph capturing finished ... took X GiB'); typical 7B-70B runs report 0.1-1 GiB, "
    "so 0.5 GiB is budgeted (set cuda_graph_bytes, or 0 with --enforce-eager)",
)

VLLM_GPU_MEMORY_UTILIZATION = SourcedConstant(
    "gpu_memory_utilization",
    0.9,
    "fraction of GPU memory",
    "vLLM engine arguments: gpu_memory_utilization defaults to 0.9 (0.92 in the newest "
    "releases); vLLM uses at most this fraction of the GPU's memory",
)

LLAMA_CPP_N_UBATCH = SourcedConstant(
    "prefill_chunk_tokens",
    512,
    "tokens per forward pass",
    "llama.cpp common/common.h: n_ubatch = 512, the physical batch size for prompt processing "
    "(-ub/--ubatch-size, common/arg.cpp; the logical -b/--batch-size defaults to 2048 and is "
    "split into ubatches); llama.cpp reserves its compute buffer for a graph of "
    "min(n_ctx, n_ubatch) tokens, so it does not grow with more sequences",
)

EXLLAMAV2_MAX_INPUT_LEN = SourcedConstant(
    "prefill_chunk_tokens",
    2048,
    "tokens per forward pass",
    "ExLlamaV2Config.max_input_len = 2048 (exllamav2/config.py: 'Sequences longer than this "
    "will be processed in multiple steps'); ExLlamaV2 keeps no memory reserve of its own",
)

MLX_PREFILL_STEP = SourcedConstant(
    "prefill_chunk_tokens",
    2048,
    "tokens per forward pass",
    "mlx-lm generate_step: prefill_step_size = 2048, the prompt processed in steps of at most "
    "2,048 tokens; MLX allocates the model, KV cache and those buffers inside Metal's working "
    "set like llama.cpp (no memory reserve, no CUDA context)",
)

# vLLM V1 default batch limits for the OpenAI-compatible server (vllm/engine/arg_utils.py
# EngineArgs.get_batch_defaults): GPUs with at least 70 GiB that are not A100s get
# max_num_batched_tokens 8192 and max_num_seqs 1024 ("NOTE(Kuntai): Setting large
# max_num_batched_tokens for A100 reduces throughput, see PR #17885"); every other GPU
# 2048 and 256. (The offline LLM class doubles the token budget: 16384 / 8192.)
VLLM_LARGE_GPU_BYTES = 70 * GiB
VLLM_SERVER_DEFAULTS_LARGE = (1024, 8192)
VLLM_SERVER_DEFAULTS = (256, 2048)
VLLM_BATCH_DEFAULTS_SOURCE = (
    "vLLM V1 EngineArgs.get_batch_defaults (OpenAI server): max_num_seqs 1024 and "
    "max_num_batched_tokens 8192 on GPUs of at least 70 GiB other than A100, else 256 and 2048"
)


class _GpuMemory(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def usable_memory_bytes(self) -> int: ...


def vllm_batch_defaults(gpu: _GpuMemory | None) -> tuple[int, int, str]:
    """(max_num_seqs, max_num_batched_tokens, source) vLLM's server picks on `gpu` (the large-GPU
    defaults when no GPU is named: the memory calculator then sizes the larger profile)."""
    if gpu is None:
        seqs, tokens = VLLM_SERVER_DEFAULTS_LARGE
        return seqs, tokens, VLLM_BATCH_DEFAULTS_SOURCE
    large = gpu.usable_memory_bytes >= VLLM_LARGE_GPU_BYTES and "a100" not in gpu.name.lower()
    seqs, tokens = VLLM_SERVER_DEFAULTS_LARGE if large else VLLM_SERVER_DEFAULTS
    return seqs, tokens, VLLM_BATCH_DEFAULTS_SOURCE
