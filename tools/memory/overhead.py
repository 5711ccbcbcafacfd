"""Runtime overheads: named, sourced constants, each overridable in `MemoryRequest`.

These are not derivable from the model's shape, so each is a stated assumption with its source.
They are reported in every estimate's assumptions.
"""

from __future__ import annotations

from dataclasses import dataclass

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

VLLM_MAX_NUM_BATCHED_TOKENS = SourcedConstant(
    "prefill_chunk_tokens",
    8192,
    "tokens per forward pass",
    "vLLM V1 chunked prefill: max_num_batched_tokens defaults to 8192 for the OpenAI-compatible "
    "server on data-centre GPUs (2048 for the offline LLM class); the activation peak is "
    "profiled at this many tokens",
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
