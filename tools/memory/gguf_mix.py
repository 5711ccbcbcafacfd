"""GGUF quantization mixes: which ggml type llama.cpp gives each tensor, and its bytes.

A GGUF "file type" such as Q4_K_M is a mix, not one type: llama-quantize starts every 2-D
weight at the file type's default ggml type and then raises or lowers some tensors. This module
ports that choice from llama.cpp's `src/llama-quant.cpp` (ggml-org/llama.cpp, read 2026-12):

- `llama_ftype_get_default_type`: the default type per file type (`GGUF_FTYPES`);
- `llama_tensor_get_type_impl`: the per-category rules (output / tied embedding, token
  embedding, attn_v-like, attn_k, attn_q, ffn_down, attn_output, attn_qkv, ffn_gate/up), with
  its `use_more_bits` layer rule and its 70B and 8-expert special cases (`tensor_type`);
- `tensor_type_fallback`: a row length (ne[0]) that is not a multiple of the type's block falls
  back to a 32-weight block type, then F16 (`fallback`).

Block sizes (bytes per block, weights per block) are those of ggml-common.h's block structs;
the `gguf` package's `GGML_QUANT_SIZES` holds the same table (tests compare the two).
1-D tensors (norms, biases) and the MoE router (`ffn_gate_inp`) are never quantized: F32.

Imatrix: llama-quantize refuses IQ1_*/IQ2_* (and Q2_K_S) without an importance matrix, and the
published IQ quants are made with one, so IQ file types are sized as made with an imatrix; the
others without (it changes only a few rules: IQ3_XXS attn_v, IQ4 and Q4_0/Q5_0 ffn_down).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tools.architecture import Architecture
    from tools.memory.tensors import Linear

GGML_BLOCKS: dict[str, tuple[int, int]] = {
    # type: (bytes per block, weights per block), ggml-common.h
    "F32": (4, 1),
    "F16": (2, 1),
    "BF16": (2, 1),
    "Q4_0": (18, 32),  # fp16 d + 16 bytes of nibbles
    "Q4_1": (20, 32),  # fp16 d, m + 16 bytes
    "Q5_0": (22, 32),
    "Q5_1": (24, 32),
    "Q8_0": (34, 32),  # fp16 scale + 32 int8
    "Q2_K": (84, 256),
    "Q3_K": (110, 256),
    "Q4_K": (144, 256),  # fp16 d, dmin + 12 scale bytes + 128 qs
    "Q5_K": (176, 256),
    "Q6_K": (210, 256),  # 128 ql + 64 qh + 16 int8 scales + fp16 d
    "IQ1_S": (50, 256),
    "IQ1_M": (56, 256),
    "IQ2_XXS": (66, 256),
    "IQ2_XS": (74, 256),
    "IQ2_S": (82, 256),
    "IQ3_XXS": (98, 256),
    "IQ3_S": (110, 256),
    "IQ4_NL": (18, 32),
    "IQ4_XS": (136, 256),
    "TQ1_0": (54, 256),
    "TQ2_0": (66, 256),
    "MXFP4": (17, 32),  # 16 bytes of E2M1 pairs + one E8M0 scale
}


@dataclass(frozen=True)
class GgufFileType:
    """One llama.cpp file type: its default ggml type and `general.file_type` number."""

    default_type: str
    file_type: int
    """llama.h `enum llama_ftype` value, stored in a GGUF as `general.file_type`."""


GGUF_FTYPES: dict[str, GgufFileType] = {
    "q4_0": GgufFileType("Q4_0", 2),
    "q4_1": GgufFileType("Q4_1", 3),
    "q8_0": GgufFileType("Q8_0", 7),
    "q5_0": GgufFileType("Q5_0", 8),
    "q5_1": GgufFileType("Q5_1", 9),
    "q2_k": GgufFileType("Q2_K", 10),
    "q3_k_s": GgufFileType("Q3_K", 11),
    "q3_k_m": GgufFileType("Q3_K", 12),
    "q3_k_l": GgufFileType("Q3_K", 13),
    "q4_k_s": GgufFileType("Q4_K", 14),
    "q4_k_m": GgufFileType("Q4_K", 15),
    "q5_k_s": GgufFileType("Q5_K", 16),
    "q5_k_m": GgufFileType("Q5_K", 17),
    "q6_k": GgufFileType("Q6_K", 18),
    "iq2_xxs": GgufFileType("IQ2_XXS", 19),
    "iq2_xs": GgufFileType("IQ2_XS", 20),
    "q2_k_s": GgufFileType("Q2_K", 21),
    "iq3_xs": GgufFileType("IQ3_S", 22),
    "iq3_xxs": GgufFileType("IQ3_XXS", 23),
    "iq1_s": GgufFileType("IQ1_S", 24),
    "iq4_nl": GgufFileType("IQ4_NL", 25),
    "iq3_s": GgufFileType("IQ3_S", 26),
    "iq3_m": GgufFileType("IQ3_S", 27),
    "iq2_s": GgufFileType("IQ2_XS", 28),
    "iq2_m": GgufFileType("IQ2_S", 29),
    "iq4_xs": GgufFileType("IQ4_XS", 30),
    "iq1_m": GgufFileType("IQ1_M", 31),
    "tq1_0": GgufFileType("TQ1_0", 36),
    "tq2_0": GgufFileType("TQ2_0", 37),
    "mxfp4_moe": GgufFileType("MXFP4", 38),
}
"""Quantized GGUF file types by canonical (lower-case llama-quantize) name."""

FILE_TYPE_NAMES: dict[int, str] = {ft.file_type: name for name, ft in GGUF_FTYPES.items()}
"""`general.file_type` → canonical name (0 = all F32, 1 = F16, 32 = BF16 are not mixes)."""

_IQ_LOW = ("iq2_xxs", "iq2_xs", "iq3_xxs", "iq1_s", "iq2_s", "iq2_m", "iq1_m")
_IQ2_FAMILY = ("iq2_xxs", "iq2_xs", "iq1_s", "iq2_s", "iq2_m", "iq1_m")
# tensor_type_fallback: 256-block types → a 32-block type; then F16 if that fails too.
_FALLBACK: dict[str, str] = {
    **dict.fromkeys(
        ("IQ1_S", "IQ1_M", "IQ2_XXS", "IQ2_XS", "IQ2_S", "IQ3_XXS", "IQ3_S", "IQ4_XS"), "IQ4_NL"
    ),
    **dict.fromkeys(("Q2_K", "Q3_K", "TQ1_0", "TQ2_0"), "Q4_0"),
    "Q4_K": "Q5_0",
    "Q5_K": "Q5_1",
    "Q6_K": "Q8_0",
}


def bits_per_weight(ggml_type: str) -> float:
    """Storage bits per weight of one ggml type (block bytes × 8 / block weights)."""
    block_bytes, block_len = GGML_BLOCKS[ggml_type]
    return block_bytes * 8 / block_len


def has_imatrix(ftype: str) -> bool:
    """Whether a file type is sized as made with an importance matrix (the IQ types)."""
    return ftype.startswith("iq")


def use_more_bits(i_layer: int, n_layers: int) -> bool:
    """llama.cpp's rule for the tensors that get a larger k-quant in _M mixes (first and last
    eighth, and every third layer in between)."""
    return (
        i_layer < n_layers // 8
        or i_layer >= 7 * n_layers // 8
        or (i_layer - n_layers // 8) % 3 == 2
    )


def fallback(ggml_type: str, ncols: int) -> str:
    """The type llama.cpp stores a tensor of row length `ncols` in when `ggml_type`'s block
    does not divide it (tensor_type_fallback)."""
    if ncols % GGML_BLOCKS[ggml_type][1] == 0:
        return ggml_type
    chosen = _FALLBACK.get(ggml_type, "F16")
    return chosen if ncols % GGML_BLOCKS[chosen][1] == 0 else "F16"


@lru_cache(maxsize=4096)
def ggml_type_bytes(ggml_type: str, rows: int, cols: int) -> int:
    """Bytes of a `rows`×`cols` tensor (row length `cols` = ggml ne[0]) stored as `ggml_type`,
    after llama.cpp's fallback for rows that are not a multiple of the block size."""
    chosen = fallback(ggml_type, cols)
    block_bytes, block_len = GGML_BLOCKS[chosen]
    return rows * (cols // block_len) * block_bytes


@dataclass(frozen=True)
class MixModel:
    """The model facts llama.cpp's mix rules read (llama_hparams and the model type)."""

    n_layers: int
    n_gqa: int
    """n_head / n_head_kv."""
    n_expert: int
    model_70b: bool
    """llama.cpp's LLM_TYPE_70B: an 80-layer Llama with grouped KV heads."""
    tied: bool
    """No output.weight: the token embedding is quantized as the output."""


def mix_model(arch: Architecture) -> MixModel:
    """The MixModel of a catalog or config architecture."""
    return MixModel(
        n_layers=arch.num_layers,
        n_gqa=arch.num_attention_heads // arch.num_kv_heads,
        n_expert=arch.moe.num_experts if arch.moe else 0,
        model_70b=arch.family == "llama"
        and arch.num_layers == 80
        and arch.num_kv_heads != arch.num_attention_heads,
        tied=arch.tied_embeddings,
    )


def _output_type(ftype: str, default: str, ncols: int) -> str:
    if ftype == "mxfp4_moe" or ncols % GGML_BLOCKS[default][1]:
        return "Q8_0"
    if ftype in _IQ_LOW:
        return "Q5_K"
    return default if default == "Q8_0" else "Q6_K"


def _embedding_type(ftype: str, default: str) -> str:
    if ftype in ("iq2_xxs", "iq2_xs", "iq1_s", "iq1_m"):
        return "Q2_K"
    if ftype in ("iq2_s", "iq2_m", "iq3_xxs"):
        return "IQ3_S"
    if ftype in ("tq1_0", "tq2_0"):
        return "Q4_K"
    return default


def _iq2_family_type(ftype: str, category: str, m: MixModel, default: str, i_ffn_down: int) -> str:
    iq3_s = ftype in ("iq2_s", "iq2_m")
    if category == "attn_v":
        if m.n_gqa >= 4 or m.n_expert >= 4:
            return "Q4_K"
        return "IQ3_S" if iq3_s else "Q2_K"
    if category == "attn_k" and m.n_expert == 8:
        return "Q4_K"
    if category == "ffn_down":
        # The raw ffn_down counter here, not the layer (llama-quant.cpp).
        if i_ffn_down < m.n_layers // 8:
            return "IQ3_S" if iq3_s else "Q2_K"
        return default
    if category == "attn_o":
        if m.n_expert == 8:
            return "Q5_K"
        if ftype in ("iq1_s", "iq1_m"):
            return "IQ2_XXS"
        if iq3_s:
            return "IQ3_S"
    return default


def _attn_v_type(ftype: str, m: MixModel, default: str, i_attn_v: int) -> str:
    gqa4 = m.n_gqa >= 4
    new = default
    if ftype == "q2_k":
        new = "Q4_K" if gqa4 else "Q3_K"
    elif ftype == "q2_k_s" and gqa4:
        new = "Q4_K"
    elif ftype == "iq3_xxs":
        new = "Q4_K" if gqa4 else ("IQ3_XXS" if has_imatrix(ftype) else "IQ3_S")
    elif ftype in ("iq3_xs", "iq3_s") and gqa4:  # noqa: SIM114 (one branch per llama.cpp's)
        new = "Q4_K"
    elif ftype == "iq3_m":
        new = "Q4_K"
    elif ftype == "q3_k_m":
        new = "Q5_K" if i_attn_v < 2 else "Q4_K"
    elif ftype == "q3_k_l":  # noqa: SIM114 (one branch per llama.cpp's)
        new = "Q5_K"
    elif ftype in ("iq4_nl", "iq4_xs") and gqa4:
        new = "Q5_K"
    elif ftype in ("q4_k_m", "q5_k_m") and use_more_bits(i_attn_v, m.n_layers):
        new = "Q6_K"
    elif ftype == "q4_k_s" and i_attn_v < 4:
        new = "Q5_K"
    if m.model_70b and new in ("Q3_K", "Q4_K"):
        new = "Q5_K"
    if m.n_expert == 8:
        new = "Q8_0"
    return new


def _ffn_down_2_3_bit(ftype: str, m: MixModel, default: str, i: int) -> str | None:
    """llama-quant.cpp's ffn_down rules of the 2- and 3-bit file types, in its order; None
    for the other file types."""
    n = m.n_layers
    if ftype == "q2_k":
        return "Q3_K"
    if ftype == "q2_k_s":
        return "Q4_K" if i < n // 8 else default
    if ftype == "iq3_xxs" and not has_imatrix(ftype):
        return "Q4_K" if i < n // 8 else "Q3_K"
    if ftype == "q3_k_m":
        return "Q5_K" if i < n // 16 else "Q4_K"  # (the Falcon-only Q3_K branch aside)
    if ftype == "iq3_m" and (i < n // 8 or (m.n_expert == 8 and use_more_bits(i, n))):
        return "Q4_K"
    if ftype == "q3_k_l":
        return "Q5_K"
    return None


def _ffn_down_type(ftype: str, m: MixModel, default: str, i: int) -> str:
    low = _ffn_down_2_3_bit(ftype, m, default, i)
    if low is not None:
        return low
    n = m.n_layers
    imatrix = has_imatrix(ftype)
    if ftype == "q4_k_m":
        return "Q6_K" if use_more_bits(i, n) else default
    if i < n // 8 and ftype in ("iq4_nl", "iq4_xs") and not imatrix:
        return "Q5_K"
    if ftype == "q5_k_m" and use_more_bits(i, n):
        return "Q6_K"
    if ftype == "q4_k_s" and i < n // 8:
        return "Q5_K"
    if ftype in ("q4_0", "q5_0") and imatrix and i < n // 8:
        return "Q4_1" if ftype == "q4_0" else "Q5_1"
    return default


def _attn_output_type(ftype: str, m: MixModel, default: str) -> str:
    if m.n_expert == 8:
        raised = ("q2_k", "iq3_xs", "iq3_xxs", "q3_k_s", "q3_k_m", "iq4_nl", "q4_k_s", "q4_k_m")
        return "Q5_K" if ftype in (*raised, "iq3_s", "iq3_m", "iq4_xs") else default
    return {"q2_k": "Q3_K", "iq3_xxs": "IQ3_S", "q3_k_m": "Q4_K", "q3_k_l": "Q5_K"}.get(
        ftype, "Q4_K" if ftype == "iq3_m" else default
    )


def tensor_type(
    ftype: str,
    category: str,
    m: MixModel,
    *,
    ncols: int,
    layer: int = 0,
    i_attn_v: int = 0,
    i_ffn_down: int = 0,
    expert: bool = False,
) -> str:
    """The ggml type of one 2-D/3-D weight in a GGUF of file type `ftype`, fallback applied.

    `category`: embedding, lm_head, attn_q, attn_k, attn_v (also MLA's kv_b), attn_qkv, attn_o,
    ffn_gate, ffn_up, ffn_down, router or other. `layer`: the block index; `i_attn_v` /
    `i_ffn_down`: how many attn_v-like / ffn_down tensors came before (llama.cpp's counters;
    the ffn rules read the layer from the name for MoE models and the counter otherwise).
    `expert`: a 3-D routed-expert tensor. `ncols`: the row length (ggml ne[0]).
    """
    if category == "router":
        return "F32"
    default = GGUF_FTYPES[ftype].default_type
    new = default
    if category == "lm_head" or (m.tied and category == "embedding"):
        new = _output_type(ftype, default, ncols)
    elif ftype == "mxfp4_moe":
        new = "MXFP4" if expert else "Q8_0"
    elif category == "embedding":
        new = _embedding_type(ftype, default)
    elif ftype in _IQ2_FAMILY:
        new = _iq2_family_type(ftype, category, m, default, i_ffn_down)
    elif category == "attn_v":
        new = _attn_v_type(ftype, m, default, i_attn_v)
    elif category == "attn_k":
        if m.n_expert == 8:
            new = "Q8_0"
        else:
            new = {"iq3_xs": "IQ3_XXS", "iq3_xxs": "IQ2_S"}.get(ftype, default)
    elif category == "attn_q":
        new = {"iq3_xs": "IQ3_XXS", "iq3_xxs": "IQ2_S"}.get(ftype, default)
    elif category == "ffn_down":
        new = _ffn_down_type(ftype, m, default, layer if m.n_expert > 1 else i_ffn_down)
    elif category == "attn_o":
        new = _attn_output_type(ftype, m, default)
    elif category == "attn_qkv":
        qkv = {"q3_k_m": "Q4_K", "q3_k_l": "Q4_K", "iq3_m": "Q4_K", "q4_k_m": "Q5_K"}
        new = qkv.get(ftype, "Q6_K" if ftype == "q5_k_m" else default)
    elif category in ("ffn_gate", "ffn_up") and ftype == "iq3_xs":
        n = m.n_layers
        i = layer if m.n_expert > 1 else i_ffn_down
        if n // 8 <= i < 7 * n // 8:
            new = "IQ3_XXS"
    return fallback(new, ncols)


TpShare = Callable[[int, "Linear"], int]


def gguf_layer_bytes(arch: Architecture, ftype: str, share: TpShare) -> list[tuple[int, int]]:
    """(bytes, of which routed-expert matrices) of every transformer layer of `arch` in a GGUF
    of file type `ftype`, walking the tensors in llama-quantize's order (layer by layer) so its
    counters advance as they do there. `share` maps a tensor's bytes to one GPU's share."""
    from tools.memory.tensors import layer_shapes

    m = mix_model(arch)
    out: list[tuple[int, int]] = []
    i_attn_v = i_ffn_down = 0
    for shape in layer_shapes(arch):
        vector_bytes = shape.vector_params * 4  # 1-D tensors stay F32
        for layer in range(shape.first, shape.first + shape.count):
            total, experts = vector_bytes, 0
            for lin in shape.linears:
                ggml = tensor_type(
                    ftype,
                    lin.category,
                    m,
                    ncols=lin.cols,
                    layer=layer,
                    i_attn_v=i_attn_v,
                    i_ffn_down=i_ffn_down,
                    expert=lin.expert,
                )
                nbytes = share(ggml_type_bytes(ggml, lin.rows * lin.copies, lin.cols), lin)
                total += nbytes
                experts += nbytes if lin.expert else 0
                if lin.category == "attn_v":
                    i_attn_v += 1
                elif lin.category == "ffn_down":
                    i_ffn_down += 1
            out.append((total, experts))
    return out


def gguf_table_bytes(arch: Architecture, ftype: str, role: str) -> int:
    """Bytes of the token embedding (`role` 'embedding') or output layer ('lm_head')."""
    ggml = tensor_type(ftype, role, mix_model(arch), ncols=arch.hidden_size)
    return ggml_type_bytes(ggml, arch.vocab_size, arch.hidden_size)
