"""Transformer architectures and exact parameter counts derived from them.

Parameter counts are *computed* from the architecture, never typed in. Each term below mirrors a
tensor of the Hugging Face Transformers implementation of that family (modeling_<family>.py), so
the totals equal `sum(p.numel() for p in model.parameters())` of the instantiated model
(checked in tests against shared/research/params.json and tests/data/research/params-new.json,
computed on PyTorch's meta device). Multimodal checkpoints count their vision tower
(tools/vision_tower.py) in the total, as the instantiated *ForConditionalGeneration does;
multi-token-prediction (MTP) modules are on disk only (transformers does not build them, and
engines load them only for speculative decoding), so `total` leaves them out and `mtp` says
how large they are.
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
from tools.vision_tower import VisionTower, vision_tower_params

Family = Literal[
    "llama",
    "mistral",
    "mixtral",
    "qwen2",
    "qwen3",
    "qwen3_moe",
    "gemma2",
    "gemma3",
    "phi3",
    "phimoe",
    "deepseek_v2",
    "deepseek_v3",
    "gpt_oss",
    "llama4",
    "glm4_moe",
    "minimax_m2",
    "cohere",
    "olmo2",
    "smollm3",
    "granite",
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
        description="Leading layers with a dense FFN instead of MoE (DeepSeek "
        "first_k_dense_replace, GLM-4.5).",
    )
    layer_step: int = Field(
        default=1,
        ge=1,
        le=MAX_LAYERS,
        description="MoE on every layer_step-th layer (layer i when (i + 1) % layer_step == 0), "
        "a dense FFN of the architecture's intermediate_size on the others: Llama 4 "
        "interleave_moe_layer_step (dense width intermediate_size_mlp), Qwen3 "
        "decoder_sparse_step.",
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
        if self.first_dense_layers and self.layer_step > 1:
            raise ValueError("give first_dense_layers or layer_step > 1, not both")
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
    qk_norm: bool = Field(default=False, description="RMSNorm/LayerNorm weights on q and k.")
    qk_norm_scope: Literal["head", "projection"] = Field(
        default="head",
        description="head: one head_dim-wide norm shared by the heads (Qwen3, Gemma 3, "
        "GLM-4.5); projection: one weight per q/k output feature (OLMo 2, MiniMax-M2, Cohere). "
        "Llama 4's parameter-free L2 norm is qk_norm false.",
    )
    attention_sinks: bool = Field(default=False, description="Learned per-head sink (gpt-oss).")
    norms_per_layer: int = Field(
        default=2, ge=0, le=MAX_NORMS_PER_LAYER, description="Norm weights per layer."
    )
    norm_bias: bool = Field(
        default=False, description="Norms are LayerNorms with a bias (Phi-3.5-MoE), final included."
    )
    lm_head_bias: bool = Field(default=False, description="Output layer has a bias (Phi-3.5-MoE).")
    sliding_window: int | None = Field(
        default=None, gt=0, le=MAX_CONTEXT_TOKENS, description="Window, in tokens."
    )
    sliding_window_layers: int = Field(
        default=0,
        ge=0,
        le=MAX_LAYERS,
        description="Layers whose KV cache stops growing at the window.",
    )
    attention_chunk_size: int | None = Field(
        default=None,
        gt=0,
        le=MAX_CONTEXT_TOKENS,
        description="Chunked local attention (Llama 4 attention_chunk_size), tokens: a token "
        "attends within its chunk only.",
    )
    chunked_attention_layers: int = Field(
        default=0,
        ge=0,
        le=MAX_LAYERS,
        description="Layers with chunked attention: their KV cache holds at most one chunk.",
    )
    mtp_layers: int = Field(
        default=0,
        ge=0,
        le=MAX_LAYERS,
        description="Multi-token-prediction modules in the checkpoint (num_nextn_predict_layers"
        "): on disk, not loaded for plain serving.",
    )
    moe: MoE | None = None
    mla: MLA | None = None
    vision: VisionTower | None = Field(
        default=None, description="Vision encoder + projector shipped in the checkpoint."
    )

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
        if self.chunked_attention_layers and self.attention_chunk_size is None:
            raise ValueError("chunked_attention_layers set without attention_chunk_size")
        if self.sliding_window_layers + self.chunked_attention_layers > self.num_layers:
            raise ValueError("sliding and chunked attention layers together exceed num_layers")
        if self.moe and self.moe.first_dense_layers > self.num_layers:
            raise ValueError("moe.first_dense_layers exceeds num_layers")
        if self.moe and self.moe.layer_step > self.num_layers:
            raise ValueError("moe.layer_step exceeds num_layers")
        return self

    @property
    def attention_kind(self) -> Literal["MLA", "MHA", "GQA", "MQA"]:
        if self.mla is not None:
            return "MLA"
        if self.num_kv_heads == self.num_attention_heads:
            return "MHA"
        return "MQA" if self.num_kv_heads == 1 else "GQA"

    def is_moe_layer(self, index: int) -> bool:
        """Whether layer `index` (0-based) has the MoE FFN: past the leading dense layers, on
        every `layer_step`-th layer (transformers Llama4TextConfig.moe_layers,
        Qwen3MoeDecoderLayer, DeepseekV3DecoderLayer)."""
        if self.moe is None or index < self.moe.first_dense_layers:
            return False
        return (index + 1) % self.moe.layer_step == 0

    @property
    def num_moe_layers(self) -> int:
        if self.moe is None:
            return 0
        dense_lead = self.moe.first_dense_layers
        return (self.num_layers - dense_lead) // self.moe.layer_step

    @property
    def num_dense_ffn_layers(self) -> int:
        """Layers whose FFN is the dense one of width `intermediate_size`."""
        return self.num_layers - self.num_moe_layers

    @property
    def full_attention_layers(self) -> int:
        """Layers whose KV cache grows with the whole context (no window, no chunk)."""
        return self.num_layers - self.sliding_window_layers - self.chunked_attention_layers

    def kv_layer_groups(self) -> tuple[tuple[int, int | None], ...]:
        """(layers, token cap) for the layers' KV caches: the full layers without a cap, the
        sliding-window layers capped at the window, the chunked layers at one chunk (vLLM
        keeps one chunk per chunked-attention layer)."""
        groups: list[tuple[int, int | None]] = [(self.full_attention_layers, None)]
        if self.sliding_window_layers:
            groups.append((self.sliding_window_layers, self.sliding_window))
        if self.chunked_attention_layers:
            groups.append((self.chunked_attention_layers, self.attention_chunk_size))
        return tuple(groups)


class ParamCounts(BaseModel):
    """Parameter counts by group. `total` counts tied weights once, as PyTorch does, and
    includes a vision tower; MTP modules (on disk only) are in `mtp`, not in `total`."""

    model_config = ConfigDict(frozen=True)

    total: int
    active_per_token: int = Field(
        description="Parameters used per token (MoE: top-k experts); the meta-device "
        "convention: total − routed experts × (1 − k/E), vision tower included."
    )
    embedding: int = Field(description="Input embedding table.")
    lm_head: int = Field(
        description="Untied output projection (and its bias); 0 when tied to the embedding."
    )
    attention: int
    mlp_dense: int = Field(description="Dense FFN layers and shared experts.")
    routed_experts: int = Field(description="All routed expert weights (MoE only).")
    router: int
    norms: int
    vision: int = Field(default=0, description="Vision encoder + projector, in `total`.")
    mtp: int = Field(
        default=0,
        description="Multi-token-prediction modules stored in the checkpoint, NOT in `total`: "
        "one decoder layer + eh_proj (2h → h) + three norms each (DeepSeek-V3 §2.2), without "
        "the embedding/output copies some checkpoints store beside them.",
    )

    @property
    def transformer_blocks(self) -> int:
        """Everything except the embedding, the output layer and a vision tower."""
        return self.total - self.embedding - self.lm_head - self.vision

    @property
    def text_only(self) -> int:
        """The language model alone: `total` without the vision tower."""
        return self.total - self.vision

    @property
    def active_text_per_token(self) -> int:
        """Active parameters of the language model per token (vision tower left out)."""
        return self.active_per_token - self.vision


def qk_norm_params(a: Architecture) -> int:
    """q/k norm weights of one layer: head_dim each (per-head scope) or one per q and k output
    feature (projection scope: OLMo 2 q_norm over heads·head_dim)."""
    if not a.qk_norm:
        return 0
    if a.qk_norm_scope == "head":
        return 2 * a.head_dim
    return (a.num_attention_heads + a.num_kv_heads) * a.head_dim


def norm_params_per_layer(a: Architecture) -> int:
    """Norm weights (and LayerNorm biases) of one layer, outside attention."""
    return a.norms_per_layer * a.hidden_size * (2 if a.norm_bias else 1)


def output_vector_params(a: Architecture) -> int:
    """The final norm (with its bias for LayerNorm models) and an output-layer bias."""
    final_norm = a.hidden_size * (2 if a.norm_bias else 1)
    return final_norm + (a.vocab_size if a.lm_head_bias else 0)


def vision_params(a: Architecture) -> int:
    """Vision encoder + projector parameters (0 for text-only checkpoints)."""
    return 0 if a.vision is None else vision_tower_params(a.vision, a.hidden_size)


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
    params += qk_norm_params(a)
    if a.attention_sinks:
        params += a.num_attention_heads
    return params


def _gated_mlp_params(hidden: int, intermediate: int, bias: bool) -> int:
    """SwiGLU/GeGLU FFN: gate and up (hidden→intermediate), down (intermediate→hidden)."""
    params = 3 * hidden * intermediate
    if bias:
        params += 2 * intermediate + hidden
    return params


def _moe_layer_params(a: Architecture) -> tuple[int, int, int, int]:
    """(shared experts, all routed experts, active routed experts, router) of one MoE layer."""
    assert a.moe is not None
    e, h = a.moe, a.hidden_size
    shared = 0
    if e.num_shared_experts:
        shared = _gated_mlp_params(h, e.expert_intermediate_size * e.num_shared_experts, False)
    one_expert = _gated_mlp_params(h, e.expert_intermediate_size, e.expert_bias)
    # DeepSeek-V3's e_score_correction_bias is a buffer in Transformers, not a parameter.
    router = h * e.num_experts + (e.num_experts if e.router_bias else 0)
    return shared, e.num_experts * one_expert, e.experts_per_token * one_expert, router


def _mtp_params(a: Architecture, layer_params: int) -> int:
    """MTP modules: per module one decoder layer + eh_proj (2h → h) + enorm, hnorm and the
    shared head's norm (DeepSeek-V3 report §2.2, modeling in deepseek-ai/DeepSeek-V3
    inference/model.py), without the embedding/output copies."""
    h = a.hidden_size
    return a.mtp_layers * (layer_params + 2 * h * h + 3 * h)


@lru_cache(maxsize=256)
def count_parameters(a: Architecture) -> ParamCounts:
    """Exact parameter counts of `a`, term by term as in the Transformers implementation.

    Cached: a recommendation asks for the same architecture's counts thousands of times
    (Architecture and ParamCounts are frozen)."""
    h = a.hidden_size
    embedding = a.vocab_size * h
    lm_head = 0 if a.tied_embeddings else a.vocab_size * h
    lm_head += a.vocab_size if a.lm_head_bias else 0
    one_attention = _attention_params(a)
    attention = a.num_layers * one_attention
    final_norm = a.hidden_size * (2 if a.norm_bias else 1)
    norms = a.num_layers * norm_params_per_layer(a) + final_norm
    dense_mlp = _gated_mlp_params(h, a.intermediate_size, a.mlp_bias)
    mlp_dense = a.num_dense_ffn_layers * dense_mlp
    routed = router = active_routed = 0
    last_layer = one_attention + norm_params_per_layer(a) + dense_mlp
    if a.moe is not None:
        moe_layers = a.num_moe_layers
        shared, all_routed, active, one_router = _moe_layer_params(a)
        mlp_dense += moe_layers * shared
        routed = moe_layers * all_routed
        active_routed = moe_layers * active
        router = moe_layers * one_router
        last_layer = one_attention + norm_params_per_layer(a) + shared + all_routed + one_router
    vision = vision_params(a)
    total = embedding + lm_head + attention + norms + mlp_dense + routed + router + vision
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
        vision=vision,
        mtp=_mtp_params(a, last_layer),
    )
