"""Engine families and kernel families: the two software axes calibrated constants depend on.

Engine family — how the serving stack issues work to the GPU:
- `graph`: CUDA-graph serving engines with fused kernels (vLLM, SGLang, TensorRT-LLM/NIM,
  gpt-fast's torch.compile): small per-layer overhead, paged KV, continuous batching.
- `llama.cpp`: ggml kernels (CUDA, Metal, Vulkan, ROCm), one ubatch at a time.
- `eager`: PyTorch eager / Hugging Face Transformers (AutoAWQ, bitsandbytes): a Python launch per
  op, the largest per-layer overhead.
- `mlx`: Apple's MLX (mlx-lm, vllm-mlx, Rapid-MLX): lazily built Metal graphs, its own kernels.
- `exllamav2`: ExLlamaV2's CUDA kernels for GPTQ / EXL2 weights.
- `mlc`: MLC LLM (TVM-compiled kernels).

Kernel family — the weight format's matmul kernel: 16-bit GEMM/GEMV, fp8 W8A8, weight-only int8,
weight-only int4 (GPTQ/AWQ/Marlin/tinygemm, NF4), GGUF block quants (llama.cpp), mxfp4.
"""

from __future__ import annotations

from typing import Literal

from tools.memory.formats import GGUF_FORMATS

EngineFamily = Literal["graph", "llama.cpp", "eager", "mlx", "exllamav2", "mlc"]
KernelFamily = Literal["16bit", "fp8", "int8", "int4", "gguf", "mxfp4"]

# Engine names (the memory/recommend `engine` field, and the engines the reference
# measurements name) → family.
_ENGINE_FAMILY: dict[str, EngineFamily] = {
    "vllm": "graph",
    "sglang": "graph",
    "tensorrt-llm": "graph",
    "gpt-fast": "graph",
    "generic": "llama.cpp",
    "llama.cpp": "llama.cpp",
    "llama.cpp-vulkan": "llama.cpp",
    "transformers": "eager",
    "mlx": "mlx",
    "mlx-lm": "mlx",
    "exllamav2": "exllamav2",
    "mlc-llm": "mlc",
}

ENGINE_LABELS: dict[EngineFamily, str] = {
    "graph": "CUDA-graph serving engines (vLLM, SGLang, TensorRT-LLM, gpt-fast)",
    "llama.cpp": "llama.cpp",
    "eager": "PyTorch eager / Transformers",
    "mlx": "MLX (Apple)",
    "exllamav2": "ExLlamaV2",
    "mlc": "MLC LLM",
}


def engine_family(engine: str | None) -> EngineFamily:
    """The family of an engine name (None: vLLM, the serving default; a build era after `@`,
    `build_era`, does not change it)."""
    return _ENGINE_FAMILY.get(base_engine(engine or "vllm").lower(), "graph")


LLAMA_CPP_K_QUANT_ERAS = ("2023-24",)
"""llama.cpp build eras whose Metal K-quant kernels calibrate apart from the newest builds'.
"2023-24": builds dated up to the end of 2024, ikawrakow's 2023 Metal mat-vec kernels (llama.cpp
PRs 2290, 2294, 2307 of July 2023; XiongjieDai's May-2024 build 2797 runs them too). The same
chip and model decode faster on 2026 builds: an M1 Max runs Llama 3.1 8B Q4_K_M at 34.5 tok/s
on build 2797 (XiongjieDai, May 2024) and at 46.2 on a March-2026 build (normiebench #40). A
setup with no era (an unknown or newer build) takes the newest builds' constants."""


def with_build_era(engine: str, era: str | None) -> str:
    """`engine` tagged with a llama.cpp build era (`llama.cpp@2023-24`); unchanged for None."""
    return engine if era is None else f"{base_engine(engine)}@{era}"


def build_era(engine: str | None) -> str | None:
    """The llama.cpp build era an engine name carries (`LLAMA_CPP_K_QUANT_ERAS`), None for the
    newest builds (or no era named)."""
    _, _, era = (engine or "").partition("@")
    return era if era in LLAMA_CPP_K_QUANT_ERAS else None


def base_engine(engine: str) -> str:
    """An engine name without its build era."""
    return engine.partition("@")[0]


LLAMA_CPP_VULKAN = "llama.cpp-vulkan"
"""llama.cpp built with its Vulkan backend (GGML_VULKAN): the same ggml graph as the default
backend (CUDA on NVIDIA), other kernels (GLSL shaders, coopmat / coopmat2 matmuls) and another
command submission path, so its constants calibrate apart where rows allow."""


LLAMA_CPP_BACKENDS = ("vulkan",)
"""The non-default llama.cpp backends whose constants calibrate apart."""


def llama_backend(engine: str | None) -> str | None:
    """The non-default llama.cpp backend an engine name selects ("vulkan"), None for the
    default one (CUDA on NVIDIA, Metal on Apple, ROCm/HIP on AMD) and for other engines."""
    return "vulkan" if base_engine(engine or "").lower() == LLAMA_CPP_VULKAN else None


def kernel_family(weight_format: str) -> KernelFamily:
    """The matmul kernel family a weight format runs on."""
    fmt = weight_format.lower()
    if fmt in ("bf16", "fp16", "fp32"):
        return "16bit"
    if fmt == "fp8":
        return "fp8"
    if fmt == "int8":
        return "int8"
    if fmt in GGUF_FORMATS or fmt.startswith("q") or fmt.startswith("iq"):
        return "gguf"
    if fmt == "mxfp4":
        return "mxfp4"
    # GPTQ / AWQ / NF4, and EXL2 at any rate: weight-only dequantising matmuls (ExLlamaV2 runs
    # EXL2 through the same GPTQ-style kernels it runs GPTQ with, so the exllamav2 family's
    # GPTQ rows calibrate it; its bytes per token are the format's own).
    return "int4"
