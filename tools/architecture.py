"""Transformer architectures and exact parameter counts derived from them.

Parameter counts are *computed* from the architecture, never typed in. Each term below mirrors a
tensor of the Hugging Face Transformers implementation of that family (modeling_<family>.py), so
the totals equal `sum(p.numel() for p in model.parameters())` of the instantiated model
(checked in tests against shared/research/params.json, computed on PyTorch's meta device).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from tools.limits import (
    FINITE,
    MAX_CONTEXT_TOKENS,
    MAX_EXPERTS,
    MAX_FFN_WIDTH,
    MAX_HEADS,
    MAX_HIDDEN_SIZE,
    MAX_LAYERS,
    MAX_NORMS_PER_LAYER,
    MAX_VOCAB,
)

Family = Literal[
    "llama",
    "mistral",
    "mixtral",
    "qwen2",
    "qwen3",
    "qwen3_moe",
    "gemma2",
    "phi3",
    "deepseek_v3",
    "gpt_oss",
    "generic",
]
FAMILIES: tuple[str, ...] = Family.__args__  # type: ignore[attr-defined]


class MoE(BaseModel):
    """Mixture-of-experts feed-forward layers. All experts are resident in memory; only
    `experts_per_token` routed experts (plus any shared experts) run for each token."""

    model_config = ConfigDict(extra="forbid", frozen=True, **FINITE)

    num_experts: int = Field(gt=0, le=MAX_EXPERTS, description="Routed experts per MoE layer.")
    experts_per_token: int = Field(
        gt=0, le=MAX_EXPERTS, description="Routed experts per token (top-k)."
    )
    expert_intermediate_size: int = Field(
        gt=0, le=MAX_FFN_WIDTH, description="FFN width of one expert."
    )
    num_shared_experts: int = Field(
        default=0, ge=0, le=MAX_EXPERTS, description="Always-active shared experts."
    )
    first_dense_layers: int = Field(
        default=0,
        ge=0,
        le=MAX_LAYERS,
        description="Leading layers with a dense FFN instead of MoE (DeepSeek).",
    )
    router_bias: bool = Field(
        default=False, description="Router linear layer has a bias (gpt-oss)."
    )
    expert_bias: bool = Field(
        default=False, description="Expert projections have biases (gpt-oss)."
    )

    @model_validator(mode="after")
    def _topk_within_experts(self) -> MoE:
        if self.experts_per_token > self.num_experts:
            raise ValueError(
                f"experts_per_token ({self.experts_per_token}) exceeds num_experts "
                f"({self.num_experts})"
            )
        return self


class MLA(BaseModel):
    """Multi-head latent attention (DeepSeek-V2/V3, arXiv 2405.04434 §2.1)."""

    model_config = ConfigDict(extra="forbid", frozen=True, **FINITE)

    q_lora_rank: int | None = Field(default=None, gt=0, le=MAX_HIDDEN_SIZE)
    kv_lora_rank: int = Field(gt=0, le=MAX_HIDDEN_SIZE)
    qk_nope_head_dim: int = Field(gt=0, le=MAX_HEADS)
    qk_rope_head_dim: int = Field(gt=0, le=MAX_HEADS)
    v_head_dim: int = Field(gt=0, le=MAX_HEADS)


class Architecture(BaseModel):
    """The shape of a decoder-only transformer, as in its Hugging Face config.json."""

    model_config = ConfigDict(extra="forbid", frozen=True, **FINITE)

    family: Family
    num_layers: int = Field(gt=0, le=MAX_LAYERS)
    hidden_size: int = Field(gt=0, le=MAX_HIDDEN_SIZE)
    intermediate_size: int = Field(gt=0, le=MAX_FFN_WIDTH, description="Dense FFN width.")
    num_attention_heads: int = Field(gt=0, le=MAX_HEADS)
    num_kv_heads: int = Field(
        gt=0, le=MAX_HEADS, description="Key/value heads (< attention heads: GQA; 1: MQA)."
    )
    head_dim: int = Field(gt=0, le=MAX_HEADS)
    vocab_size: int = Field(gt=0, le=MAX_VOCAB)
    tied_embeddings: bool = False
    max_context: int = Field(
        gt=0, le=MAX_CONTEXT_TOKENS, description="max_position_embeddings, in tokens."
    )
    qkv_bias: bool = False
    o_bias: bool = False
    mlp_bias: bool = False
    qk_norm: bool = Field(default=False, description="Per-head RMSNorm on q and k (Qwen3).")
    attention_sinks: bool = Field(default=False, description="Learned per-head sink (gpt-oss).")
    norms_per_layer: int = Field(
        default=2, ge=0, le=MAX_NORMS_PER_LAYER, description="RMSNorm weights per layer."
    )
    sliding_window: int | None = Field(
        default=None, gt=0, le=MAX_CONTEXT_TOKENS, description="Window, in tokens."
    )
    sliding_window_layers: int = Field(
        default=0,
        ge=0,
        le=MAX_LAYERS,
        description="Layers whose KV cache stops growing at the window.",
    )
    moe: MoE | None = None
    mla: MLA | None = None

    @model_validator(mode="after")
    def _consistent(self) -> Architecture:
        if self.num_attention_heads % self.num_kv_heads:
            raise ValueError(
                f"num_attention_heads ({self.num_attention_heads}) is not a multiple of "
                f"num_kv_heads ({self.num_kv_heads})"
            )
        if self.sliding_window_layers > self.num_layers:
            raise ValueError("sliding_window_layers exceeds num_layers")
        if self.sliding_window_layers and self.sliding_window is None:
            raise ValueError("sliding_window_layers set without sliding_window")
        if self.moe and self.moe.first_dense_layers > self.num_layers:
            raise ValueError("moe.first_dense_layers exceeds num_layers")
        return self

    @property
    def attention_kind(self) -> Literal["MLA", "MHA", "GQA", "MQA"]:
        if self.mla is not None:
            return "MLA"
        if self.num_kv_heads == self.num_attention_heads:
            return "MHA"
        return "MQA" if self.num_kv_heads == 1 else "GQA"

    @property
    def num_moe_layers(self) -> int:
        return 0 if self.moe is None else self.num_layers - self.moe.first_dense_layers


class ParamCounts(BaseModel):
    """Parameter counts by group. `total` counts tied weights once, as PyTorch does."""

    model_config = ConfigDict(frozen=True)

    total: int
    active_per_token: int = Field(description="Parameters used per token (MoE: top-k experts).")
    embedding: int = Field(description="Input embedding table.")
    lm_head: int = Field(description="Untied output projection; 0 when tied to the embedding.")
    attention: int
    mlp_dense: int = Field(description="Dense FFN layers and shared experts.")
    routed_experts: int = Field(description="All routed expert weights (MoE only).")
    router: int
    norms: int

    @property
    def transformer_blocks(self) -> int:
        """Everything except the embedding and output layer."""
        return self.total - self.embedding - self.lm_head


def _attention_params(a: Architecture) -> int:
    h = a.hidden_size
    if a.mla is not None:
        m = a.mla
        qk_head = m.qk_nope_head_dim + m.qk_rope_head_dim
        if m.q_lora_rank is None:
            q = h * a.num_attention_heads * qk_head
        else:  # q_a_proj, q_a_layernorm, q_b_proj
            q = h * m.q_lora_rank + m.q_lora_rank + m.q_lora_rank * a.num_attention_heads * qk_head
        kv = (
            h * (m.kv_lora_rank + m.qk_rope_head_dim)  # kv_a_proj_with_mqa
            + m.kv_lora_rank  # kv_a_layernorm
            + m.kv_lora_rank * a.num_attention_heads * (m.qk_nope_head_dim + m.v_head_dim)
        )
        o = a.num_attention_heads * m.v_head_dim * h
        return q + kv + o
    q_dim = a.num_attention_heads * a.head_dim
    kv_dim = a.num_kv_heads * a.head_dim
    params = h * q_dim + 2 * h * kv_dim + q_dim * h
    if a.qkv_bias:
        params += q_dim + 2 * kv_dim
    if a.o_bias:
        params += h
    if a.qk_norm:
        params += 2 * a.head_dim
    if a.attention_sinks:
        params += a.num_attention_heads
    return params


def _gated_mlp_params(hidden: int, intermediate: int, bias: bool) -> int:
    """SwiGLU/GeGLU FFN: gate and up (hidden→intermediate), down (intermediate→hidden)."""
    params = 3 * hidden * intermediate
    if bias:
        params += 2 * intermediate + hidden
    return params


@lru_cache(maxsize=256)
def count_parameters(a: Architecture) -> ParamCounts:
    """Exact parameter counts of `a`, term by term as in the Transformers implementation.

    Cached: a recommendation asks for the same architecture's counts thousands of times
    (Architecture and ParamCounts are frozen)."""
    h = a.hidden_size
    embedding = a.vocab_size * h
    lm_head = 0 if a.tied_embeddings else a.vocab_size * h
    attention = a.num_layers * _attention_params(a)
    norms = a.num_layers * a.norms_per_layer * h + h  # + the final norm
    mlp_dense = 0
    routed = 0
    router = 0
    active_routed = 0
    if a.moe is None:
        mlp_dense = a.num_layers * _gated_mlp_params(h, a.intermediate_size, a.mlp_bias)
    else:
        e = a.moe
        moe_layers = a.num_moe_layers
        mlp_dense = e.first_dense_layers * _gated_mlp_params(h, a.intermediate_size, a.mlp_bias)
        if e.num_shared_experts:
            shared_width = e.expert_intermediate_size * e.num_shared_experts
            mlp_dense += moe_layers * _gated_mlp_params(h, shared_width, False)
        one_expert = _gated_mlp_params(h, e.expert_intermediate_size, e.expert_bias)
        routed = moe_layers * e.num_experts * one_expert
        active_routed = moe_layers * e.experts_per_token * one_expert
        # DeepSeek-V3's e_score_correction_bias is a buffer in Transformers, not a parameter.
        per_layer_router = h * e.num_experts + (e.num_experts if e.router_bias else 0)
        router = moe_layers * per_layer_router
    total = embedding + lm_head + attention + norms + mlp_dense + routed + router
    return ParamCounts(
        total=total,
        active_per_token=total - routed + active_routed,
        embedding=embedding,
        lm_head=lm_head,
        attention=attention,
        mlp_dense=mlp_dense,
        routed_experts=routed,
        router=router,
        norms=norms,
    )
