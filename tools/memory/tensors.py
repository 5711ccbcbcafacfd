"""The tensors of an `Architecture`, grouped the way size calculations need them.

Every linear weight is listed with its shape (rows = output features, cols = input features),
how tensor parallelism places it (split across ranks, replicated, or a K/V projection whose
heads are replicated when there are fewer KV heads than ranks — vLLM's QKVParallelLinear), its
llama.cpp category (for GGUF mixes) and its LoRA target name. With the embedding, the output
layer, the final norm and a vision tower (one block, tools/vision_tower.py), the sum of all
tensors equals `count_parameters(arch).total` exactly (checked in tests), so sizes built on
this inventory inherit the exactness of the parameter counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Literal

from tools.architecture import (
    Architecture,
    norm_params_per_layer,
    output_vector_params,
    qk_norm_params,
    vision_params,
)

TpPlacement = Literal["split", "replicated", "kv"]
LORA_TARGETS: tuple[str, ...] = ("q", "k", "v", "o", "gate", "up", "down")
"""LoRA target modules by role: q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj."""


@dataclass(frozen=True)
class Linear:
    """One linear weight (or `copies` identical ones: MoE routed experts)."""

    name: str
    category: str  # llama.cpp category: attn_q/attn_k/attn_v/attn_o/ffn_gate/ffn_up/ffn_down/
    #                router/other
    rows: int
    cols: int
    copies: int = 1
    tp: TpPlacement = "split"
    expert: bool = False
    lora_target: str | None = None

    @property
    def params(self) -> int:
        return self.rows * self.cols * self.copies


@dataclass(frozen=True)
class LayerShape:
    """`count` consecutive transformer layers with the same tensors, starting at `first`."""

    first: int
    count: int
    linears: tuple[Linear, ...]
    vector_params: int  # norms, biases, attention sinks: 1-D tensors, kept unquantized

    @property
    def params(self) -> int:
        return sum(lin.params for lin in self.linears) + self.vector_params


def _attention(a: Architecture) -> tuple[list[Linear], int]:
    h = a.hidden_size
    if a.mla is not None:
        m = a.mla
        qk_head = m.qk_nope_head_dim + m.qk_rope_head_dim
        lins: list[Linear] = []
        vectors = m.kv_lora_rank  # kv_a_layernorm
        if m.q_lora_rank is None:
            lins.append(
                Linear(
                    "q_proj",
                    "attn_q",
                    a.num_attention_heads * qk_head,
                    h,
                    1,
                    "split",
                    lora_target="q",
                )
            )
        else:
            # vLLM runs the low-rank down-projections replicated on every TP rank.
            lins.append(
                Linear("q_a_proj", "other", m.q_lora_rank, h, 1, "replicated", lora_target="q")
            )
            lins.append(
                Linear(
                    "q_b_proj",
                    "attn_q",
                    a.num_attention_heads * qk_head,
                    m.q_lora_rank,
                    1,
                    "split",
                    lora_target="q",
                )
            )
            vectors += m.q_lora_rank  # q_a_layernorm
        lins.append(
            Linear(
                "kv_a_proj_with_mqa",
                "other",
                m.kv_lora_rank + m.qk_rope_head_dim,
                h,
                1,
                "replicated",
                lora_target="k",
            )
        )
        lins.append(
            Linear(
                "kv_b_proj",
                "attn_v",
                a.num_attention_heads * (m.qk_nope_head_dim + m.v_head_dim),
                m.kv_lora_rank,
                1,
                "split",
                lora_target="v",
            )
        )
        lins.append(
            Linear(
                "o_proj",
                "attn_o",
                h,
                a.num_attention_heads * m.v_head_dim,
                1,
                "split",
                lora_target="o",
            )
        )
        return lins, vectors
    q_dim = a.num_attention_heads * a.head_dim
    kv_dim = a.num_kv_heads * a.head_dim
    lins = [
        Linear("q_proj", "attn_q", q_dim, h, lora_target="q"),
        Linear("k_proj", "attn_k", kv_dim, h, tp="kv", lora_target="k"),
        Linear("v_proj", "attn_v", kv_dim, h, tp="kv", lora_target="v"),
        Linear("o_proj", "attn_o", h, q_dim, lora_target="o"),
    ]
    vectors = 0
    if a.qkv_bias:
        vectors += q_dim + 2 * kv_dim
    if a.o_bias:
        vectors += h
    vectors += qk_norm_params(a)
    if a.attention_sinks:
        vectors += a.num_attention_heads
    return lins, vectors


def _dense_mlp(h: int, width: int, bias: bool, prefix: str = "") -> tuple[list[Linear], int]:
    lins = [
        Linear(f"{prefix}gate_proj", "ffn_gate", width, h, lora_target="gate"),
        Linear(f"{prefix}up_proj", "ffn_up", width, h, lora_target="up"),
        Linear(f"{prefix}down_proj", "ffn_down", h, width, lora_target="down"),
    ]
    return lins, (2 * width + h if bias else 0)


def _moe_layer(a: Architecture, attn: list[Linear], attn_vectors: int) -> tuple[Linear, ...]:
    assert a.moe is not None
    e, h = a.moe, a.hidden_size
    ei, n = e.expert_intermediate_size, e.num_experts
    moe_lins = [
        Linear("router", "router", n, h, 1, "replicated"),
        Linear("experts.gate_proj", "ffn_gate", ei, h, n, expert=True, lora_target="gate"),
        Linear("experts.up_proj", "ffn_up", ei, h, n, expert=True, lora_target="up"),
        Linear("experts.down_proj", "ffn_down", h, ei, n, expert=True, lora_target="down"),
    ]
    if e.num_shared_experts:
        shared, _ = _dense_mlp(h, ei * e.num_shared_experts, False, "shared_experts.")
        moe_lins.extend(shared)
    return (*attn, *moe_lins)


@cache
def layer_shapes(a: Architecture) -> tuple[LayerShape, ...]:
    """The transformer layers of `a` in order, as runs of identical layers: dense FFN layers
    and MoE layers (leading dense layers, DeepSeek; alternating, Llama 4 Maverick)."""
    h = a.hidden_size
    attn, attn_vectors = _attention(a)
    norms = norm_params_per_layer(a)
    dense_mlp, dense_vectors = _dense_mlp(h, a.intermediate_size, a.mlp_bias)
    dense = ((*attn, *dense_mlp), attn_vectors + dense_vectors + norms)
    moe: tuple[tuple[Linear, ...], int] | None = None
    if a.moe is not None:
        e = a.moe
        ei, n = e.expert_intermediate_size, e.num_experts
        moe_vectors = (n if e.router_bias else 0) + (n * (2 * ei + h) if e.expert_bias else 0)
        moe = (_moe_layer(a, attn, attn_vectors), attn_vectors + moe_vectors + norms)
    shapes: list[LayerShape] = []
    for index in range(a.num_layers):
        linears, vectors = moe if moe is not None and a.is_moe_layer(index) else dense
        last = shapes[-1] if shapes else None
        if last is not None and last.linears == linears and last.vector_params == vectors:
            shapes[-1] = LayerShape(last.first, last.count + 1, linears, vectors)
        else:
            shapes.append(LayerShape(index, 1, linears, vectors))
    return tuple(shapes)


def inventory_params(a: Architecture) -> int:
    """Total parameters of the inventory: must equal `count_parameters(a).total`."""
    embedding = a.vocab_size * a.hidden_size
    lm_head = 0 if a.tied_embeddings else embedding
    layers = sum(s.params * s.count for s in layer_shapes(a))
    return embedding + lm_head + output_vector_params(a) + layers + vision_params(a)
