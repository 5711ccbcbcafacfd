"""llama.cpp on several GPUs: the layer split (its default) and the tensor split.

- `--split-mode layer` (default): pipeline parallelism, each GPU holds a contiguous run of
  layers and their KV cache (llama.cpp docs/multi-gpu.md, PR #22729); a token passes through
  the GPUs in turn, so one stream decodes at one GPU's speed for the whole model plus a hop
  per stage boundary: capacity, not speed. The performance model times it as pp stages.
- `--split-mode tensor` (ggml-org/llama.cpp PR #19378, 'ggml: backend-agnostic tensor
  parallelism (experimental)', merged 2026-04-09): every weight split over the GPUs. It needs
  flash attention and an unquantized KV cache ('simultaneous use of SPLIT_MODE_TENSOR and KV
  cache quantization not implemented', PR thread; LocalAI PR #9560: a build with #19378,
  FlashAttention enabled, KV-cache quantization disabled). Its decode speed-up over the layer
  split is taken from the PR's own measurements (tg128, -sm layer vs -sm tensor): dense models
  gain (4× RTX 4090, llama 1B F16: 314.75 → 409.87 tok/s, 1.30×; gemma4 31B Q4_K_M: 43.81 →
  59.45, 1.36×), MoE models do not (4× RTX 4090, gpt-oss 120B MXFP4: 180.36 → 179.79, 1.00×;
  gemma4 26B A4B: 197.11 → 138.76, 0.70×). The lower dense figure and the MoE 1.00 are used:
  an estimate, never calibrated on the user's GPUs. Prompt processing is not sped up (the PR
  measures 0.25–1.53× depending on model and depth): prefill stays timed as the layer split.
"""

from __future__ import annotations

from typing import Literal

from tools.architecture import Architecture

SplitMode = Literal["layer", "tensor"]

TENSOR_SPLIT_SOURCE = (
    "ggml-org/llama.cpp PR #19378 (merged 2026-04-09), tg128 -sm layer vs -sm tensor: dense "
    "1.30× (4× RTX 4090, llama 1B F16 314.75 → 409.87 tok/s; 1.36× gemma4 31B Q4_K_M), MoE "
    "1.00× (4× RTX 4090, gpt-oss 120B 180.36 → 179.79; 0.70× gemma4 26B A4B)"
)
TENSOR_SPLIT_DENSE_SPEEDUP = 409.87 / 314.75
TENSOR_SPLIT_MOE_SPEEDUP = 1.0
UNQUANTIZED_KV = frozenset({"bf16", "fp16", "fp32", "f16", "f32"})


def tensor_split_speedup(arch: Architecture) -> float:
    """Decode speed-up of --split-mode tensor over the layer split (PR #19378's figures)."""
    return TENSOR_SPLIT_MOE_SPEEDUP if arch.moe is not None else TENSOR_SPLIT_DENSE_SPEEDUP


def tensor_split_problem(kv_dtype: str | None, flash_attention: bool = True) -> str | None:
    """Why llama.cpp cannot run --split-mode tensor with these settings (None: it can)."""
    if not flash_attention:
        return "llama.cpp's --split-mode tensor needs flash attention (-fa on)"
    if kv_dtype is not None and kv_dtype.lower() not in UNQUANTIZED_KV:
        return (
            f"llama.cpp's --split-mode tensor does not run with a quantized KV cache ({kv_dtype}): "
            "'simultaneous use of SPLIT_MODE_TENSOR and KV cache quantization not implemented' "
            "(PR #19378); use an f16 cache or the layer split"
        )
    return None


def split_note(mode: SplitMode, gpus: int, arch: Architecture) -> str:
    """What the multi-GPU llama.cpp figures assume, in words."""
    if mode == "tensor":
        return (
            f"llama.cpp --split-mode tensor over {gpus} GPUs (builds from 2026-04-09 on, with "
            "flash attention and an f16 KV cache): decode timed as the layer split × "
            f"{tensor_split_speedup(arch):.2f} ({TENSOR_SPLIT_SOURCE}); estimated, prefill as "
            "the layer split."
        )
    return (
        f"llama.cpp --split-mode layer (its default) over {gpus} GPUs: each GPU holds its run "
        "of layers and their KV cache, a token passes through them in turn (pipeline), so one "
        "stream decodes at about one GPU's speed: capacity, not speed."
    )
