"""Weight formats: the bytes one tensor takes in each storage format.

Bits per weight are the real storage cost, quantization constants included:

- fp32 / bf16 / fp16: 32 / 16 / 16 bits, every tensor.
- fp8 (vLLM `fp8`, per-tensor scale): 8 bits for the linear layers of the transformer blocks;
  the one fp32 scale per tensor is negligible. Embedding, output layer, norms, router: 16-bit
  (vLLM leaves `lm_head`, `VocabParallelEmbedding` and the MoE gate unquantized).
- int8 (W8A16 / LLM.int8()-style, per-output-channel scales): 8 bits per weight plus one fp16
  scale per output row.
- int4 GPTQ (AutoGPTQ `QuantLinear` buffers): qweight 4 bits/weight, `scales` fp16 per
  (group, output), `qzeros` 4 bits per (group, output), `g_idx` int32 per input feature
  → 4 + 16/g + 4/g bits plus 32 bits per input row. AWQ (AutoAWQ `WQLinear_GEMM`): the same
  without `g_idx`. g = group size (default 128).
- NF4 (bitsandbytes, QLoRA paper arXiv 2305.14314 §3): 4 bits + one fp32 absmax per 64 weights
  = 4.5 bits; with double quantization the absmax is stored in 8 bits with an fp32 constant per
  256 blocks: 4 + 8/64 + 32/(64·256) = 4.127 bits (the paper's 0.5 → 0.127 bits of constants).
- mxfp4 (OCP Microscaling spec; gpt-oss model card): 4-bit E2M1 values + one 8-bit E8M0 scale
  per 32 weights = 4.25 bits. gpt-oss ships only its MoE expert weights in mxfp4; attention,
  router, embedding and output layer stay bf16.
- GGUF (ggml-org/llama.cpp ggml-common.h block structs): Q8_0 34 B per 32 weights (8.5 bits);
  Q4_K 144 B / 256 (4.5); Q5_K 176 B / 256 (5.5); Q6_K 210 B / 256 (6.5625); fallbacks Q5_0
  22 B / 32 (5.5), Q5_1 24 B / 32 (6.0). The per-tensor mix of Q4_K_M / Q5_K_M follows
  llama.cpp's `llama_tensor_get_type` (src/llama-quant.cpp), see `gguf_tensor_type`.
  1-D tensors (norms, biases) and the MoE router stay F32 (convert_hf_to_gguf.py keeps them so).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from tools.errors import ToolInputError

WEIGHT_FORMATS: tuple[str, ...] = (
    "fp32",
    "bf16",
    "fp16",
    "fp8",
    "int8",
    "int4-gptq",
    "int4-awq",
    "nf4",
    "nf4-dq",
    "mxfp4",
    "q8_0",
    "q5_k_m",
    "q4_k_m",
)
"""Canonical weight-format names accepted by the memory calculator."""

# Loose spellings users and models write → canonical name.
_ALIASES: dict[str, str] = {
    "float32": "fp32",
    "f32": "fp32",
    "bfloat16": "bf16",
    "float16": "fp16",
    "f16": "fp16",
    "half": "fp16",
    "fp8-e4m3": "fp8",
    "e4m3": "fp8",
    "w8a8-fp8": "fp8",
    "int8-per-channel": "int8",
    "w8a16": "int8",
    "gptq": "int4-gptq",
    "gptq-int4": "int4-gptq",
    "awq": "int4-awq",
    "awq-int4": "int4-awq",
    "bnb-nf4": "nf4",
    "nf4-double-quant": "nf4-dq",
    "nf4-double": "nf4-dq",
    "qlora": "nf4-dq",
    "mx-fp4": "mxfp4",
    "q8": "q8_0",
    "q4-k-m": "q4_k_m",
    "q4km": "q4_k_m",
    "q5-k-m": "q5_k_m",
    "q5km": "q5_k_m",
    "q8-0": "q8_0",
}

BYTE_DTYPES: dict[str, int] = {"fp32": 4, "bf16": 2, "fp16": 2, "fp8": 1, "int8": 1}
"""Bytes per element of plain dtypes (KV cache, activations)."""

DEFAULT_GROUP_SIZE = 128
"""GPTQ/AWQ group size: 128 is the AutoGPTQ and AutoAWQ default (`group_size=128`)."""


def normalize_format(name: str, field: str = "weights") -> str:
    """Canonical weight-format name for `name` (case, 'gguf' prefix and separators ignored).

    Raises ToolInputError naming `field` with the allowed names when unknown.
    """
    key = name.strip().lower().replace(" ", "-")
    for prefix in ("gguf-", "gguf:", "gguf_", "gguf"):
        if key.startswith(prefix):
            key = key[len(prefix) :]
            break
    if key in WEIGHT_FORMATS:
        return key
    if key in _ALIASES:
        return _ALIASES[key]
    underscored = key.replace("-", "_")
    if underscored in WEIGHT_FORMATS:
        return underscored
    from tools.errors import closest_names

    raise ToolInputError(
        field,
        f"unknown weight format {name!r}",
        ", ".join(WEIGHT_FORMATS),
        closest_names(key, WEIGHT_FORMATS),
    )


# --- GGUF block types: (bytes per block, weights per block) from ggml-common.h ---
GgmlType = Literal["F32", "F16", "Q8_0", "Q6_K", "Q5_K", "Q4_K", "Q5_1", "Q5_0"]
GGML_BLOCKS: dict[str, tuple[int, int]] = {
    "F32": (4, 1),
    "F16": (2, 1),
    "Q8_0": (34, 32),  # fp16 scale + 32 int8
    "Q6_K": (210, 256),  # 128 ql + 64 qh + 16 int8 scales + fp16 d
    "Q5_K": (176, 256),  # fp16 d, dmin + 12 scale bytes + 32 qh + 128 qs
    "Q4_K": (144, 256),  # fp16 d, dmin + 12 scale bytes + 128 qs
    "Q5_1": (24, 32),
    "Q5_0": (22, 32),
}
# llama.cpp tensor_type_fallback: a tensor whose row length is not a multiple of the k-quant
# block (256) falls back to a 32-block type.
_GGML_FALLBACK: dict[str, str] = {"Q4_K": "Q5_0", "Q5_K": "Q5_1", "Q6_K": "Q8_0"}


def ggml_type_bytes(ggml_type: str, rows: int, cols: int) -> int:
    """Bytes of a `rows`×`cols` tensor (row length `cols` = ggml ne[0]) stored as `ggml_type`,
    after llama.cpp's fallback for rows that are not a multiple of the block size."""
    chosen = ggml_type
    block_bytes, block_len = GGML_BLOCKS[chosen]
    if cols % block_len:
        chosen = _GGML_FALLBACK.get(chosen, "F16")
        block_bytes, block_len = GGML_BLOCKS[chosen]
        if cols % block_len:
            block_bytes, block_len = GGML_BLOCKS["F16"]
    return rows * (cols // block_len) * block_bytes


def use_more_bits(i_layer: int, n_layers: int) -> bool:
    """llama.cpp's rule for the layers that get a larger k-quant in _M mixes (first and last
    eighth, and every third layer in between)."""
    return (
        i_layer < n_layers // 8
        or i_layer >= 7 * n_layers // 8
        or (i_layer - n_layers // 8) % 3 == 2
    )


@dataclass(frozen=True)
class FormatRule:
    """How a format stores the three kinds of tensor that matter for size."""

    name: str
    block_linear_bits: float | None
    """Bits per weight of transformer-block linear layers; None: computed per tensor."""
    expert_only: bool = False
    """Quantize only MoE routed experts (gpt-oss mxfp4); other linears stay 16-bit."""
    default_16bit: tuple[str, ...] = ("embedding", "lm_head")
    """Tensors kept in 16-bit unless overridden."""
    description: str = ""


FORMAT_RULES: dict[str, FormatRule] = {
    "fp32": FormatRule("fp32", 32, default_16bit=(), description="fp32: 4 bytes per parameter"),
    "bf16": FormatRule("bf16", 16, default_16bit=(), description="bf16: 2 bytes per parameter"),
    "fp16": FormatRule("fp16", 16, default_16bit=(), description="fp16: 2 bytes per parameter"),
    "fp8": FormatRule("fp8", 8, description="fp8: 1 byte per block weight, per-tensor scale"),
    "int8": FormatRule(
        "int8", None, description="int8: 1 byte per weight + one fp16 scale per output channel"
    ),
    "int4-gptq": FormatRule(
        "int4-gptq",
        None,
        description="GPTQ int4: 4 + 16/g (fp16 scales) + 4/g (zeros) bits + int32 g_idx per input",
    ),
    "int4-awq": FormatRule(
        "int4-awq", None, description="AWQ int4: 4 + 16/g (fp16 scales) + 4/g (zeros) bits"
    ),
    "nf4": FormatRule("nf4", 4.5, description="NF4: 4 bits + fp32 absmax per 64 = 4.5 bits"),
    "nf4-dq": FormatRule(
        "nf4-dq",
        4 + 8 / 64 + 32 / (64 * 256),
        description="NF4 + double quantization: 4 + 8/64 + 32/(64·256) = 4.127 bits",
    ),
    "mxfp4": FormatRule(
        "mxfp4",
        4.25,
        expert_only=True,
        description="mxfp4: 4-bit values + 8-bit scale per 32 = 4.25 bits (MoE experts only)",
    ),
    "q8_0": FormatRule(
        "q8_0", None, default_16bit=(), description="GGUF Q8_0: 34 bytes per 32 weights"
    ),
    "q5_k_m": FormatRule(
        "q5_k_m", None, default_16bit=(), description="GGUF Q5_K_M: Q5_K with Q6_K mix"
    ),
    "q4_k_m": FormatRule(
        "q4_k_m", None, default_16bit=(), description="GGUF Q4_K_M: Q4_K with Q6_K mix"
    ),
}

GGUF_FORMATS = ("q8_0", "q5_k_m", "q4_k_m")


def linear_bytes(fmt: str, rows: int, cols: int, copies: int, group_size: int) -> int:
    """Bytes of `copies` linear weights of shape (rows = out features, cols = in features)
    in a non-GGUF format `fmt` (transformer-block weights, not embeddings)."""
    n = rows * cols * copies
    if fmt == "int8":
        return n + 2 * rows * copies
    if fmt in ("int4-gptq", "int4-awq"):
        groups = -(-cols // group_size)
        per_copy = rows * cols // 2 + groups * rows * 2 + groups * rows // 2
        if fmt == "int4-gptq":
            per_copy += 4 * cols
        return per_copy * copies
    rule = FORMAT_RULES[fmt]
    assert rule.block_linear_bits is not None
    return round(n * rule.block_linear_bits / 8)


def gguf_tensor_type(
    fmt: str,
    category: str,
    *,
    i_layer: int = 0,
    n_layers: int = 1,
    tied: bool = False,
    n_expert: int = 0,
    llama_70b: bool = False,
) -> str:
    """ggml type of one tensor in a GGUF file of `fmt`, after llama.cpp's `llama_tensor_get_type`
    (src/llama-quant.cpp): the output layer (and a tied token embedding) get Q6_K; attn_v-like
    and ffn_down tensors get Q6_K in `use_more_bits` layers for Q4_K_M/Q5_K_M; Llama 70B attn_v
    is raised to Q5_K; 8-expert models (Mixtral) keep attn_v/attn_k in Q8_0 and, in Q4_K_M,
    attn_output in Q5_K. Categories: embedding, lm_head, attn_v, attn_k, attn_o, ffn_down, other.
    """
    if fmt == "q8_0":
        return "Q8_0"
    base = "Q4_K" if fmt == "q4_k_m" else "Q5_K"
    if category == "lm_head" or (category == "embedding" and tied):
        return "Q6_K"
    if category == "attn_v":
        chosen = "Q6_K" if use_more_bits(i_layer, n_layers) else base
        if llama_70b and chosen == "Q4_K":
            chosen = "Q5_K"
        if n_expert == 8:
            chosen = "Q8_0"
        return chosen
    if category == "attn_k" and n_expert == 8:
        return "Q8_0"
    if category == "ffn_down":
        return "Q6_K" if use_more_bits(i_layer, n_layers) else base
    if category == "attn_o" and n_expert == 8 and fmt == "q4_k_m":
        return "Q5_K"
    return base
