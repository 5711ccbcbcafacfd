"""Weight memory: the bytes of every tensor in a chosen format, per GPU under tensor parallelism.

Tensor parallelism (Megatron-LM, arXiv 1909.08053 §3; vLLM's parallel linear layers): column-
and row-parallel weights are split across the `tp` ranks; the embedding and output layer are
split by vocabulary (VocabParallelEmbedding); K/V projections hold ceil(kv_heads / tp) heads per
rank, so they are replicated when there are fewer KV heads than ranks; routers, MLA low-rank
down-projections and 1-D tensors (norms, biases) are replicated on every rank.

A vision tower (Gemma 3 4B+, Llama 4, Mistral Small 3.1) is sized in 16-bit whatever the text
weights' format (quantizers and GGUF converters leave it unquantized: llama.cpp keeps it in a
separate mmproj file) and split over the tensor-parallel ranks like the text layers (vLLM's
default encoder TP mode); `vision=False` leaves it out, as text-only serving does.

EXL2 (ExLlamaV2) keeps the token embedding in fp16 in system RAM (exllamav2 model.py: the
embedding module on device -1 in every load path; see `tools/memory/formats.py`): its bytes are
`embedding_host_ram`, not GPU memory, and the output layer is its own quantized tensor at `-hb`
bits even when the checkpoint ties it to the embedding.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property, lru_cache

from tools.architecture import Architecture, output_vector_params, vision_params
from tools.memory.exl2 import exl2_head_bits
from tools.memory.formats import DEFAULT_GROUP_SIZE, FORMAT_RULES, GGUF_FORMATS, linear_bytes
from tools.memory.gguf_mix import gguf_layer_bytes, gguf_table_bytes
from tools.memory.tensors import LayerShape, Linear, layer_shapes

SIXTEEN_BIT_TENSORS: tuple[str, ...] = ("embedding", "lm_head")
"""Tensors a quantized format may keep in 16-bit (overridable with `keep_16bit`)."""


@dataclass(frozen=True)
class WeightBytes:
    """Weight bytes per GPU (for the `tp` used), split the way pipeline stages need them."""

    embedding: int
    lm_head: int  # 0 when tied (the embedding serves as output layer)
    layers: tuple[int, ...]  # one entry per transformer layer
    final_norm: int
    fmt: str
    keep_16bit: tuple[str, ...]
    tp: int
    routed_experts: int = 0
    """Bytes of the MoE routed-expert matrices (all experts, all layers), already included in
    `layers`: the part a decode step reads only for the experts its tokens are routed to."""
    vision: int = 0
    """Bytes of the vision encoder + projector (0 when absent or left out); not read by a text
    decode step. Held by the first pipeline stage."""
    embedding_host_ram: int = 0
    """Bytes of the token embedding the engine keeps in system RAM instead (ExLlamaV2 with
    EXL2 weights; `embedding` is then 0): not GPU memory, not in `total`."""

    @cached_property
    def total(self) -> int:
        """All weights on one GPU when the model is not pipelined (pp = 1), bytes (summed once:
        the recommender and the step model ask for it per layout)."""
        return self.embedding + self.lm_head + sum(self.layers) + self.final_norm + self.vision


def _vector_bits(fmt: str) -> int:
    # 1-D tensors are never quantized: fp32 stays fp32, GGUF stores them F32
    # (convert_hf_to_gguf.py), everything else keeps them in 16-bit.
    return 32 if fmt == "fp32" or fmt in GGUF_FORMATS else 16


def _tp_share(nbytes: int, lin: Linear, tp: int, kv_heads: int) -> int:
    if tp == 1 or lin.tp == "replicated":
        return nbytes
    if lin.tp == "kv":
        per_rank_heads = -(-kv_heads // tp)
        return -(-nbytes * per_rank_heads // kv_heads)
    return -(-nbytes // tp)


def _plain_linear_bytes(fmt: str, lin: Linear, group_size: int, moe: bool) -> int:
    rule = FORMAT_RULES[fmt]
    if lin.category == "router":
        return lin.params * (4 if fmt == "fp32" else 2)
    if rule.expert_only and moe and not lin.expert:
        return lin.params * 2
    return linear_bytes(fmt, lin.rows, lin.cols, lin.copies, group_size)


def _layer_bytes(
    a: Architecture,
    shape: LayerShape,
    fmt: str,
    tp: int,
    group_size: int,
) -> list[tuple[int, int]]:
    """(bytes, of which routed-expert matrices) for each layer of `shape` (not GGUF)."""
    vector_bytes = shape.vector_params * _vector_bits(fmt) // 8
    moe = a.moe is not None
    sizes = [
        (
            _tp_share(_plain_linear_bytes(fmt, lin, group_size, moe), lin, tp, a.num_kv_heads),
            lin.expert,
        )
        for lin in shape.linears
    ]
    per_layer = vector_bytes + sum(n for n, _ in sizes)
    experts = sum(n for n, expert in sizes if expert)
    return [(per_layer, experts)] * shape.count


def _embedding_bytes(
    a: Architecture, fmt: str, role: str, keep: Iterable[str], group_size: int
) -> int:
    rows, cols = a.vocab_size, a.hidden_size
    if role in keep:
        return rows * cols * 2
    if fmt in GGUF_FORMATS:
        return gguf_table_bytes(a, fmt, role)
    rule = FORMAT_RULES[fmt]
    if rule.block_linear_bits == 16 or rule.block_linear_bits == 32:
        return round(rows * cols * rule.block_linear_bits / 8)
    if rule.expert_only and a.moe is not None:
        return rows * cols * 2
    return linear_bytes(fmt, rows, cols, 1, group_size)


def weight_bytes(
    arch: Architecture,
    fmt: str,
    *,
    tp: int = 1,
    group_size: int = DEFAULT_GROUP_SIZE,
    keep_16bit: Iterable[str] | None = None,
    total_params: int | None = None,
    vision: bool = True,
) -> WeightBytes:
    """Weight bytes of `arch` stored as `fmt` (a canonical name from `formats`), per GPU with
    tensor-parallel degree `tp`.

    `vision`: include the checkpoint's vision tower (the default: vLLM and Transformers load
    it); False for text-only serving (llama.cpp without --mmproj).

    `keep_16bit`: which of ("embedding", "lm_head") stay 16-bit; default per format (kept for
    GPTQ/AWQ/NF4/fp8/int8/mxfp4, quantized for GGUF). `total_params`: a stated parameter count
    (bare "13B" request) to which the transformer-layer bytes are scaled.

    Pure, and asked for the same model hundreds of times by one recommendation (every layout
    and concurrency): results are cached (WeightBytes is frozen).
    """
    keep = None if keep_16bit is None else tuple(keep_16bit)
    return _weight_bytes(arch, fmt, tp, group_size, keep, total_params, vision)


@lru_cache(maxsize=512)
def _weight_bytes(
    arch: Architecture,
    fmt: str,
    tp: int,
    group_size: int,
    keep_16bit: tuple[str, ...] | None,
    total_params: int | None,
    vision: bool = True,
) -> WeightBytes:
    rule = FORMAT_RULES[fmt]
    keep = tuple(rule.default_16bit if keep_16bit is None else keep_16bit)
    sized: list[tuple[int, int]] = []
    if fmt in GGUF_FORMATS:
        # Per-layer types vary (llama-quantize's counters): walk all layers in order.
        sized = gguf_layer_bytes(
            arch, fmt, lambda nbytes, lin: _tp_share(nbytes, lin, tp, arch.num_kv_heads)
        )
    else:
        for shape in layer_shapes(arch):
            sized.extend(_layer_bytes(arch, shape, fmt, tp, group_size))
    layers = [total for total, _ in sized]
    routed_experts = sum(experts for _, experts in sized)
    embedding = -(-_embedding_bytes(arch, fmt, "embedding", keep, group_size) // tp)
    embedding_host_ram = 0
    if rule.embedding_in_host_ram:
        embedding_host_ram, embedding = embedding * tp, 0
    lm_head = 0
    if rule.head_bits is not None:
        # EXL2's head is quantized at -hb bits, a tensor of its own even when tied.
        head = exl2_head_bits(arch.hidden_size, arch.vocab_size, rule.head_bits)
        lm_head = -(-head // (8 * tp))
    elif not arch.tied_embeddings:
        lm_head = -(-_embedding_bytes(arch, fmt, "lm_head", keep, group_size) // tp)
    final_norm = output_vector_params(arch) * _vector_bits(fmt) // 8
    vision_bytes = 0
    if vision and arch.vision is not None:
        vision_bytes = -(-vision_params(arch) * (4 if fmt == "fp32" else 2) // tp)
    if total_params is not None:
        own_total = sum(s.params * s.count for s in layer_shapes(arch))
        fixed = arch.vocab_size * arch.hidden_size * (1 if arch.tied_embeddings else 2)
        fixed += arch.hidden_size
        # Scale by the exact ratio with cumulative rounding, so the scaled layers sum to
        # exactly round(sum × ratio): a stated 7.5e9 in bf16 is 15,000,000,000 bytes.
        numerator, denominator = max(total_params - fixed, 0), own_total
        scaled: list[int] = []
        running = done = 0
        for b in layers:
            running += b
            target = (running * numerator * 2 + denominator) // (2 * denominator)
            scaled.append(target - done)
            done = target
        layers = scaled
        routed_experts = routed_experts * numerator // denominator
    return WeightBytes(
        embedding,
        lm_head,
        tuple(layers),
        final_norm,
        fmt,
        keep,
        tp,
        routed_experts,
        vision_bytes,
        embedding_host_ram,
    )
