"""The model's geometry on its GPUs: bytes read and FLOPs per step (no efficiencies here).

- Weight bytes read count each tensor at its stored size (tools.memory.weight_bytes: 16-bit
  tensors a quantized checkpoint keeps are read at 2 bytes, not at the model's average). MoE
  routed experts are read for the expected number of distinct experts B tokens touch,
  E·(1 − (1 − k/E)^B) per layer (each token picks k of E experts; uniform routing assumed).
  A vision tower is not read by text decode (text serving: `WeightBytes.vision` left out).
- Bytes dequantised: the part of those bytes a weight-only format stores quantized (every
  tensor but the 16-bit ones it keeps), which the GPU's vector ALUs unpack before the FMAs.
- FLOPs: 2·N_active (text: vision tower left out) per token forward (Kaplan et al. 2020,
  §2.1) + causal attention 2·heads·(d_qk + d_v) per (query, key) pair, sliding-window layers
  capped at the window, chunked-attention layers (Llama 4) at half a chunk on average.
- KV read per decode token: each layer's cache up to its cap (sliding window, one chunk).
- Engines that replicate the output layer on every tensor-parallel rank (gpt-fast's tp.py
  shards only attention and FFN) read it whole on each GPU.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from tools.architecture import Architecture, ParamCounts
from tools.catalog import GpuSpec
from tools.memory.weights import WeightBytes, weight_bytes

T = TypeVar("T")

REPLICATED_HEAD_ENGINES = frozenset({"gpt-fast"})
"""Engines whose tensor parallelism leaves the output layer whole on every rank."""


def expected_distinct_experts(num_experts: int, experts_per_token: int, tokens: int) -> float:
    """Expected distinct experts touched in one MoE layer by `tokens` tokens, each routed to
    `experts_per_token` of `num_experts` uniformly: E·(1 − (1 − k/E)^B)."""
    e, k = num_experts, experts_per_token
    return e * (1.0 - (1.0 - k / e) ** max(tokens, 1))


def weight_bytes_read(weights: WeightBytes, arch: Architecture, tokens: int) -> float:
    """Weight bytes streamed from memory for one forward over `tokens` tokens, bytes (for the
    tensor-parallel degree `weights` was sized at; the whole model when tp = 1).

    Every tensor counts at its own stored size (a quantized format keeps the embedding and
    output layer — and for mxfp4 attention and router — in 16-bit). The input embedding is a
    row gather (only `tokens` rows are read), so it is excluded unless it is tied to the output
    layer, which reads it whole. MoE routed experts scale by the expected share of experts
    touched (`expected_distinct_experts`); their 1-D biases are counted whole (at most ~2% of
    gpt-oss-120b's active bytes: an upper bound on the bytes read).
    """
    read = float(weights.total - weights.vision)
    if not arch.tied_embeddings:
        read -= weights.embedding
    if arch.moe is not None and weights.routed_experts:
        share = (
            expected_distinct_experts(arch.moe.num_experts, arch.moe.experts_per_token, tokens)
            / arch.moe.num_experts
        )
        read -= weights.routed_experts * (1.0 - share)
    return read


def attention_flops(arch: Architecture, query_tokens: int, context_tokens: int) -> float:
    """Attention score and value FLOPs (forward) for `query_tokens` new tokens attending to a
    causal context ending at `context_tokens`: 2 FLOPs per multiply-add × heads × (d_qk + d_v)
    per (query, key) pair; sliding-window layers see at most the window."""
    if arch.mla is not None:
        d_qk = arch.mla.qk_nope_head_dim + arch.mla.qk_rope_head_dim
        d_v = arch.mla.v_head_dim
    else:
        d_qk = d_v = arch.head_dim
    per_pair = 2 * arch.num_attention_heads * (d_qk + d_v)
    start = context_tokens - query_tokens  # tokens already in the cache

    full = query_tokens * start + query_tokens * (query_tokens + 1) / 2

    def pairs(window: int | None) -> float:
        # Query i (0-based, absolute position start+i) sees start+i+1 keys, capped by window.
        if window is None or window >= context_tokens:
            return full
        return min(full, float(query_tokens * window))

    def chunked_pairs(chunk: int) -> float:
        # A query at position p sees the (p mod chunk) + 1 keys of its own chunk: past one
        # chunk, half a chunk on average (Llama 4 attention_chunk_size).
        if chunk >= context_tokens:
            return full
        return min(full, query_tokens * (chunk + 1) / 2)

    total_pairs = arch.full_attention_layers * full
    if arch.sliding_window_layers:
        total_pairs += arch.sliding_window_layers * pairs(arch.sliding_window)
    if arch.chunked_attention_layers and arch.attention_chunk_size:
        total_pairs += arch.chunked_attention_layers * chunked_pairs(arch.attention_chunk_size)
    return per_pair * total_pairs


def kv_tokens_read(arch: Architecture, context_tokens: float) -> float:
    """Cached tokens one decode token reads, averaged over the layers: each layer's cache up to
    its cap (sliding window; one chunk for chunked attention), so a sliding-window model at a
    long context reads less than layers × context."""
    total = 0.0
    for layers, cap in arch.kv_layer_groups():
        total += layers * (context_tokens if cap is None else min(context_tokens, float(cap)))
    return total / arch.num_layers


def head_bytes(weights: WeightBytes, arch: Architecture) -> int:
    """Bytes of the output layer (the embedding when tied): what an engine that does not shard
    it reads whole on every tensor-parallel rank."""
    return weights.embedding if arch.tied_embeddings else weights.lm_head


def sixteen_bit_bytes_read(weights: WeightBytes, arch: Architecture) -> int:
    """Bytes of the 16-bit tensors a quantized format keeps that a forward reads (the output
    layer; the embedding only when tied to it): no dequantisation for those."""
    kept = 0
    if "lm_head" in weights.keep_16bit and not arch.tied_embeddings:
        kept += weights.lm_head
    if "embedding" in weights.keep_16bit and arch.tied_embeddings:
        kept += weights.embedding
    return kept


def routed_expert_share(params: ParamCounts, arch: Architecture) -> float:
    """Share of the active parameters that sit in routed experts (0 for dense models): the
    part of a step's matmul FLOPs that runs as small per-expert GEMMs."""
    if arch.moe is None or not params.routed_experts or not params.active_text_per_token:
        return 0.0
    active_routed = params.routed_experts * arch.moe.experts_per_token / arch.moe.num_experts
    return min(1.0, active_routed / params.active_text_per_token)


@dataclass(frozen=True)
class ModelOnGpus:
    """What the performance model needs about a model placed on a TP×PP group of one GPU type.

    `weight_bytes_total` is the whole model's weight bytes in its format (from
    tools.memory.weight_bytes); `kv_bytes_per_token_per_gpu` the KV cache one token adds on one
    GPU (from tools.memory, which handles replication of KV heads when tp > kv heads).
    `weights`: the whole model's per-tensor bytes (tools.memory.weight_bytes at tp = 1) that
    decode and prefill read; when omitted they are sized from `arch` and `weight_format`, and
    either way their total must equal `weight_bytes_total`. `engine`: the serving engine
    (vllm, generic = llama.cpp, transformers, or a measured engine such as tensorrt-llm), which
    selects the calibrated efficiencies.
    """

    arch: Architecture
    params: ParamCounts
    weight_bytes_total: int
    weight_format: str
    kv_bytes_per_token_per_gpu: float
    gpu: GpuSpec
    tp: int = 1
    pp: int = 1
    weights: WeightBytes | None = None
    engine: str = "vllm"
    decode_speedup: float = 1.0
    """Decode steps (no prefill in the step) run this many times faster than the placement's
    roofline: llama.cpp's --split-mode tensor over a pp-stage layout (performance/llama_split)."""

    def __post_init__(self) -> None:
        if self.weights is None:
            # The frozen dataclass is completed once here, so every step reads per-tensor bytes.
            object.__setattr__(self, "weights", weight_bytes(self.arch, self.weight_format))
        assert self.weights is not None
        if self.weights.total != self.weight_bytes_total:
            raise ValueError(
                f"weight_bytes_total {self.weight_bytes_total:,} B differs from the per-tensor "
                f"total {self.weights.total:,} B of {self.weights.fmt}: pass `weights` sized for "
                "the same model and format"
            )

    @property
    def tensor_bytes(self) -> WeightBytes:
        """The whole model's per-tensor weight bytes (set in __post_init__)."""
        assert self.weights is not None
        return self.weights

    @property
    def per_gpu_share(self) -> float:
        """Weights and FLOPs split evenly over tp × pp GPUs; a token visits every stage in turn,
        so a step's latency is the per-GPU share summed over pp stages = whole model / tp."""
        return 1.0 / self.tp

    @property
    def replicates_head(self) -> bool:
        """True when the engine keeps the whole output layer on every tensor-parallel rank
        (gpt-fast's tp.py shards attention and FFN only; vLLM, SGLang and TensorRT-LLM split
        it by vocabulary)."""
        return self.tp > 1 and self.engine.lower() in REPLICATED_HEAD_ENGINES

    def _per_gpu(self, read: float) -> float:
        if not self.replicates_head:
            return read * self.per_gpu_share
        head = float(head_bytes(self.tensor_bytes, self.arch))
        return (read - head) * self.per_gpu_share + head

    def step_weight_bytes(self, tokens: int) -> float:
        """Weight bytes one GPU reads per step (summed over pipeline stages), bytes."""
        if self.arch.moe is None:  # the same bytes at every batch: computed once
            return self.cached(
                "dense_weight_bytes",
                lambda: self._per_gpu(weight_bytes_read(self.tensor_bytes, self.arch, 1)),
            )
        return self._per_gpu(weight_bytes_read(self.tensor_bytes, self.arch, tokens))

    def dequant_bytes(self, tokens: int) -> float:
        """Of `step_weight_bytes(tokens)`, the bytes stored quantized (what a weight-only
        kernel dequantises; the caller decides whether the format is weight-only), bytes."""
        kept = sixteen_bit_bytes_read(self.tensor_bytes, self.arch)
        kept_share = float(kept) if self.replicates_head else kept * self.per_gpu_share
        return max(0.0, self.step_weight_bytes(tokens) - kept_share)

    def kv_read_bytes(self, sequences: int, context_tokens: float) -> float:
        """KV-cache bytes one step reads for `sequences` sequences of `context_tokens` tokens,
        summed over pipeline stages, bytes (sliding-window and chunked layers at their cap)."""
        tokens = context_tokens
        if self.arch.sliding_window_layers or self.arch.chunked_attention_layers:
            tokens = kv_tokens_read(self.arch, context_tokens)
        return sequences * tokens * self.kv_bytes_per_token_per_gpu * self.pp

    def attention_flops_per_token(self, context_tokens: float) -> float:
        """Attention FLOPs of one new token over `context_tokens` cached ones (cached per
        context: the step model asks for the same few contexts many times)."""
        ctx = max(1, round(context_tokens))
        cache: dict[int, float] = self.__dict__.setdefault("_attention_cache", {})
        value = cache.get(ctx)
        if value is None:
            value = cache[ctx] = attention_flops(self.arch, 1, ctx)
        return value

    def cached(self, key: str, make: Callable[[], T]) -> T:
        """A value derived from this (frozen) placement, computed once: the step model asks for
        the same link, tensor rate and shares at every step."""
        store: dict[str, Any] = self.__dict__.setdefault("_derived", {})
        if key not in store:
            store[key] = make()
        value: T = store[key]
        return value

    def matmul_flops(self, tokens: float) -> float:
        """Linear-layer FLOPs of a forward over `tokens` text tokens (whole model):
        2·N_active·T, the vision tower left out (it runs once per image, not per token)."""
        return 2.0 * self.params.active_text_per_token * tokens
