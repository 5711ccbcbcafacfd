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
- GGUF (llama.cpp file types Q2_K … Q8_0, IQ1_S … IQ4_XS, TQ1_0/TQ2_0, MXFP4_MOE): a mix of
  ggml block types per tensor, chosen as llama-quantize does (src/llama-quant.cpp); the block
  sizes, the per-tensor rules and the fallbacks are in `tools/memory/gguf_mix.py`. 1-D tensors
  (norms, biases) and the MoE router stay F32 (convert_hf_to_gguf.py keeps them so).
- EXL2 (ExLlamaV2, `exl2-<bpw>bpw`, any rate from 2.0 to 8.0 bits per weight): the decoder's
  linear layers at the converter's target *average* (`convert.py -b`), which already counts the
  quantization constants — exllamav2/conversion/optimize.py sets the budget to
  `numel × target_bpw` over the decoder layers and charges each option's `total_bits`
  (qparams.py `QParams.total_bits`: q_weight + q_scale_max + q_groups + q_scale + q_invperm).
  The output layer has its own rate, `-hb` (default 6: `qparams_headoptions[6]` =
  15 % of input rows at 8 bits and 85 % at 6, group 128, 4-bit scales — "about 6.3 bits",
  doc/convert.md; `-hb 8` = every row at 8 bits, group 128; also 2-5, groups of 32 below 5:
  `tools/memory/exl2.py` `EXL2_HEAD_OPTIONS`, named `exl2-<bpw>bpw-h<hb>`), sized here by that
  same `total_bits`. The token embedding is written
  unquantized (conversion/compile.py `get_f_module`) and loaded in fp16 into *system RAM*:
  model.py puts `ExLlamaV2Embedding` on device -1 (the CPU) in `set_device_map`
  (`embed_cpu=True` default), `load_tp_gen` and `load_autosplit_gen`, so it takes no VRAM.
  With tied embeddings the head is still a quantized copy (architecture.py maps `lm_head` to
  `model.embed_tokens` for the converter). Norms stay 16-bit, the MoE router unquantized
  (only w1/w2/w3 get quantizers, conversion/quantize.py). Source: turboderp-org/exllamav2 at
  da07fac (README "EXL2 quantization": "any average bitrate between 2 and 8 bits per weight").
"""

from __future__ import annotations

from dataclasses import dataclass

from tools.errors import ToolInputError
from tools.memory.exl2 import (
    EXL2_HEAD_BITS,
    EXL2_HEAD_OPTIONS,
    exl2_bpw,
    exl2_format,
    exl2_head_bits,
    exl2_head_rate,
    parse_exl2,
)
from tools.memory.gguf_mix import (
    GGML_BLOCKS,
    GGUF_FTYPES,
    bits_per_weight,
    ggml_type_bytes,
    use_more_bits,
)

__all__ = [
    "BYTE_DTYPES",
    "EXL2_ENGINES",
    "EXL2_FORMAT_NAME",
    "EXL2_HEAD_BITS",
    "FORMAT_RULES",
    "GGML_BLOCKS",
    "GGUF_FORMATS",
    "WEIGHT_FORMATS",
    "FormatRule",
    "engine_format_problem",
    "exl2_bpw",
    "exl2_format",
    "exl2_head_bits",
    "exl2_head_rate",
    "format_reading",
    "ggml_type_bytes",
    "is_weight_format",
    "linear_bytes",
    "normalize_format",
    "use_more_bits",
]

GGUF_FORMATS: tuple[str, ...] = tuple(GGUF_FTYPES)
"""GGUF file types (llama.cpp quantization mixes), by lower-case llama-quantize name."""

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
    *GGUF_FORMATS,
)
"""Canonical weight-format names accepted by the memory calculator, besides EXL2's
parametric `exl2-<bpw>bpw` (`is_weight_format`)."""

EXL2_FORMAT_NAME = "exl2-<bpw>bpw"
"""How EXL2 is listed among the formats: any rate from 2.0 to 8.0 bits per weight."""


def is_weight_format(name: str) -> bool:
    """Whether `name` is a canonical weight-format name (one of `WEIGHT_FORMATS`, or EXL2 at
    a rate: 'exl2-4.65bpw')."""
    return name in WEIGHT_FORMATS or exl2_bpw(name) is not None


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
    "q4km": "q4_k_m",
    "q5km": "q5_k_m",
    # llama-quantize's own aliases (tools/quantize/quantize.cpp QUANT_OPTIONS): "Q4_K" is Q4_K_M,
    # "Q5_K" Q5_K_M, "Q3_K" Q3_K_M.
    "q3_k": "q3_k_m",
    "q4_k": "q4_k_m",
    "q5_k": "q5_k_m",
    "mxfp4-moe": "mxfp4_moe",
    # Generic 4-bit spellings (issue 16): read as the format a server of that kind runs, and
    # said so (`format_reading`).
    "int4": "int4-awq",
    "4bit": "int4-awq",
    "4-bit": "int4-awq",
    "q4": "q4_k_m",
}
"""Add a spelling here (lower case, spaces as '-') to accept it everywhere a format is read;
'-' and '_' are interchangeable for the canonical names."""

_READINGS: dict[str, str] = {
    "int4-awq": "4-bit AWQ (vLLM's usual int4 checkpoint, Marlin kernels; GPTQ is about the same "
    "size: say int4-gptq, nf4 or a GGUF mix such as q4_k_m for another)",
    "q4_k_m": "GGUF Q4_K_M (llama.cpp's usual 4-bit mix; say q4_0 or q4_k_s for another)",
}
_GENERIC_SPELLINGS = ("int4", "4bit", "4-bit", "q4")


def format_reading(name: str) -> str | None:
    """How a generic spelling (int4, 4bit, q4) was read, in words, or None for a format named
    exactly."""
    key = name.strip().lower().replace(" ", "-")
    if key not in _GENERIC_SPELLINGS:
        return None
    fmt = _ALIASES[key]
    return f"Weights '{name.strip()}' read as {fmt}: {_READINGS[fmt]}."


BYTE_DTYPES: dict[str, int] = {"fp32": 4, "bf16": 2, "fp16": 2, "fp8": 1, "int8": 1}
"""Bytes per element of plain dtypes (KV cache, activations)."""

DEFAULT_GROUP_SIZE = 128
"""GPTQ/AWQ group size: 128 is the AutoGPTQ and AutoAWQ default (`group_size=128`)."""


def normalize_format(name: str, field: str = "weights") -> str:
    """Canonical weight-format name for `name` (case, 'gguf' prefix and separators ignored;
    an EXL2 rate in any usual spelling — 'EXL2 4.65bpw', 'exl2_4.65', '4.65bpw', '4.65' — is
    'exl2-4.65bpw').

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
    if underscored in _ALIASES:
        return _ALIASES[underscored]
    exl2 = parse_exl2(key.replace("-bits-per-weight", "bpw"), name, field)
    if exl2 is not None:
        return exl2
    from tools.errors import closest_names

    raise ToolInputError(
        field,
        f"unknown weight format {name!r}",
        ", ".join((*WEIGHT_FORMATS, EXL2_FORMAT_NAME)),
        closest_names(key, WEIGHT_FORMATS),
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
    head_bits: int | None = None
    """The output layer's own quantization (EXL2's `-hb`), sized by `exl2_head_bits`."""
    embedding_in_host_ram: bool = False
    """The engine keeps the token embedding in system RAM, not on the GPU (ExLlamaV2)."""


def _exl2_rule(name: str, bpw: float, head_bits: int) -> FormatRule:
    nominal = EXL2_HEAD_OPTIONS[head_bits].nominal_bits()
    return FormatRule(
        name,
        bpw,
        default_16bit=("embedding",),
        description=f"EXL2 {bpw:g} bpw: the decoder's linear layers at {bpw:g} bits per weight "
        f"on average, quantization constants included; output layer at -hb {head_bits} "
        f"(≈{nominal:.1f} bits); token embedding fp16 in system RAM (ExLlamaV2)",
        head_bits=head_bits,
        embedding_in_host_ram=True,
    )


class _FormatRules(dict[str, FormatRule]):
    """The fixed formats' rules, and EXL2's for any rate, built when asked for."""

    def __missing__(self, key: str) -> FormatRule:
        bpw, head_bits = exl2_bpw(key), exl2_head_rate(key)
        if bpw is None or head_bits is None:
            raise KeyError(key)
        return _exl2_rule(key, bpw, head_bits)


_FIXED_FORMAT_RULES: dict[str, FormatRule] = {
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
    **{
        name: FormatRule(
            name,
            None,
            default_16bit=(),
            description=f"GGUF {name.upper()}: {ft.default_type} "
            f"({bits_per_weight(ft.default_type):g} bits/weight) by default, other types for some "
            "tensors as llama-quantize mixes them (llama.cpp src/llama-quant.cpp)",
        )
        for name, ft in GGUF_FTYPES.items()
    },
}

FORMAT_RULES: dict[str, FormatRule] = _FormatRules(_FIXED_FORMAT_RULES)
"""Every format's rule; an EXL2 name's ('exl2-4.65bpw') is built on look-up."""


EXL2_ENGINES = ("exllamav2",)
"""The engines that load EXL2: ExLlamaV2 (TabbyAPI serves through it). vLLM, llama.cpp,
Transformers and MLX have no EXL2 loader."""


def engine_format_problem(engine: str | None, fmt: str | None) -> tuple[str, str] | None:
    """(problem, allowed) when `engine` cannot load weights `fmt` (canonical names), else None:
    EXL2 runs on ExLlamaV2 only, and ExLlamaV2 loads no GGUF."""
    if fmt is None or engine is None:
        return None
    if exl2_bpw(fmt) is not None and engine not in EXL2_ENGINES:
        return (
            f"{fmt} is ExLlamaV2's EXL2 format, which engine {engine} cannot load (vLLM, "
            "llama.cpp, Transformers and MLX have no EXL2 loader)",
            "engine exllamav2 for EXL2 (ExLlamaV2 / TabbyAPI), or weights int4-gptq / "
            "int4-awq for vLLM, a GGUF type (q4_k_m) for llama.cpp",
        )
    if engine in EXL2_ENGINES and fmt in GGUF_FORMATS:
        return (
            f"{fmt} is a GGUF type, which ExLlamaV2 cannot load",
            "weights exl2-<bpw>bpw (or int4-gptq, fp16) with engine exllamav2, or engine "
            "generic (llama.cpp) for GGUF",
        )
    return None


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
