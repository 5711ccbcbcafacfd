"""Activation memory: the inference prefill peak and training activations.

Inference runs one layer at a time and frees its intermediates, so the peak is one layer's
largest working set for the tokens of one forward pass (a prefill chunk), plus the logits.
Training keeps every layer's activations for the backward pass (Korthikanti et al. 2022,
"Reducing Activation Recomputation in Large Transformer Models", arXiv 2205.05198, Table 2).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from tools.architecture import Architecture


@dataclass(frozen=True)
class ActivationBytes:
    """Activation bytes per GPU with the formula that produced them."""

    layers: int
    logits: int
    formula: str

    @property
    def total(self) -> int:
        return self.layers + self.logits


# vLLM profiles its sampler at start-up with max_num_seqs dummy requests (V1
# gpu_model_runner._dummy_sampler_run; V0 profile_run) and keeps that peak out of the KV cache:
# fp32 logits (4 B), fp32 probabilities (4 B) and the int64 indices of the top-k/top-p sort
# (8 B) per vocabulary entry. Check: vLLM PR #10511's log for Llama-3-8B (H100, 8,192 batched
# tokens, 256 dummy requests) shows a 1.26 GiB activation peak = 0.78 GiB of layer
# activations (formula above) + 256 × 128,256 × 16 B (0.49 GiB).
VLLM_SAMPLER_BYTES_PER_LOGIT = 4 + 4 + 8


def _mlp_width(arch: Architecture) -> int:
    """FFN width a token passes through: dense width, or top-k routed + shared experts."""
    if arch.moe is None:
        return arch.intermediate_size
    e = arch.moe
    routed = e.experts_per_token * e.expert_intermediate_size
    shared = e.num_shared_experts * e.expert_intermediate_size
    return max(routed + shared, arch.intermediate_size if e.first_dense_layers else 0)


def inference_activation_bytes(
    arch: Architecture,
    *,
    chunk_tokens: int,
    sequences: int,
    sequence_tokens: int,
    tp: int = 1,
    flash_attention: bool = True,
    act_bytes: int = 2,
    sampler_sequences: int | None = None,
    mode: Literal["sampler_sum", "batch_logits", "sampler_max"] = "sampler_sum",
) -> ActivationBytes:
    """Peak activation bytes on one GPU while prefilling `chunk_tokens` tokens.

    Per layer (16-bit activations, b = `act_bytes`): the residual stream and its normed copy
    2·T·h, the FFN's gate and up projections and their product 3·T·I/tp. Without a fused/flash
    attention kernel, each sequence also materialises its score and probability matrices:
    2 · heads/tp · s² (eager attention). Logits are computed for the last token of each sequence
    (vLLM's sampler; Transformers generate with logits_to_keep=1): 16-bit logits plus an fp32
    copy for sampling, 6 · V bytes per sequence.
    """
    h = arch.hidden_size
    width = _mlp_width(arch)
    t = chunk_tokens
    per_layer = t * (2 * h + 3 * -(-width // tp)) * act_bytes
    formula = f"T·(2h + 3·I/tp)·{act_bytes} B with T={t} tokens, h={h}, I={width}, tp={tp}"
    if not flash_attention:
        heads = -(-arch.num_attention_heads // tp)
        scores = 2 * heads * sequence_tokens * sequence_tokens * act_bytes
        # the scores exist for the sequences of this chunk; at least one sequence
        seqs_in_chunk = max(1, min(sequences, t // max(sequence_tokens, 1)))
        per_layer += scores * seqs_in_chunk
        formula += f" + eager attention 2·(heads/tp)·s²·{act_bytes} B per sequence"
    if sampler_sequences is not None and mode == "batch_logits":
        # vLLM 0.11-0.16: the profile keeps fp32 logits of every profiled token.
        logits = t * arch.vocab_size * 4
        formula += f"; fp32 logits of the profiled batch T·V·4 B, V={arch.vocab_size}"
        return ActivationBytes(per_layer, logits, formula)
    if sampler_sequences is not None and mode == "sampler_max":
        # vLLM 0.17 on: the layer working set and the sampler peak apart, the larger counts.
        sampler = sampler_sequences * arch.vocab_size * VLLM_SAMPLER_BYTES_PER_LOGIT
        formula += (
            f"; the larger of that and the sampler max_num_seqs·V·{VLLM_SAMPLER_BYTES_PER_LOGIT} "
            f"B, max_num_seqs={sampler_sequences}, V={arch.vocab_size}"
        )
        return ActivationBytes(max(per_layer, sampler), 0, formula)
    if sampler_sequences is not None:
        logits = sampler_sequences * arch.vocab_size * VLLM_SAMPLER_BYTES_PER_LOGIT
        formula += (
            f"; sampler: max_num_seqs·V·{VLLM_SAMPLER_BYTES_PER_LOGIT} B, "
            f"max_num_seqs={sampler_sequences}, V={arch.vocab_size}"
        )
        return ActivationBytes(per_layer, logits, formula)
    logits = sequences * arch.vocab_size * (2 + 4)
    formula += f"; logits: sequences·V·(2 + 4) B, V={arch.vocab_size}"
    return ActivationBytes(per_layer, logits, formula)


ActivationStyle = Literal["gated", "paper"]


def _layer_activation_bytes(
    arch: Architecture, s: int, b: int, tp: int, flash: bool, style: ActivationStyle
) -> tuple[int, str]:
    """Bytes one layer stores for the backward pass, and the formula used."""
    h, a = arch.hidden_size, arch.num_attention_heads
    sbh = s * b * h
    if style == "paper":
        # Korthikanti et al. Table 2 (GPT: 4h GeLU FFN, MHA, dropout masks included).
        scores = 0 if flash else -(-5 * a * s * sbh // (h * tp))
        if tp == 1:
            return 34 * sbh + scores, "sbh(34 + 5as/h)"
        return 10 * sbh + -(-24 * sbh // tp) + scores, "sbh(10 + 24/t + 5as/(ht))"
    # The same accounting for today's decoders: gated FFN of width I (SwiGLU/GeGLU: gate, up,
    # act(gate) and their product are kept), grouped KV projections, no dropout masks.
    # Replicated across TP ranks: the inputs of the QKV and FFN projections (2sbh each) and of
    # the two norms (2sbh each) = 8sbh. Split: Q and attention output 4sbh, K and V
    # 4sb·kv_dim, FFN 8sb·I; without flash attention the softmax output 2as²b.
    kv_dim = arch.num_kv_heads * arch.head_dim
    if arch.mla is not None:  # MLA attends with full per-head K and V after up-projection
        kv_dim = a * arch.head_dim
    width = _mlp_width(arch)
    split = 4 * sbh + 4 * s * b * kv_dim + 8 * s * b * width
    if not flash:
        split += 2 * a * s * s * b
    return 8 * sbh + -(-split // tp), "8sbh + (4sbh + 4sb·kv_dim + 8sb·I [+ 2as²b])/t"


def training_activation_bytes(
    arch: Architecture,
    *,
    sequence_tokens: int,
    micro_batch: int,
    tp: int = 1,
    pp: int = 1,
    checkpointing: bool = False,
    flash_attention: bool = True,
    style: ActivationStyle = "gated",
) -> ActivationBytes:
    """Activation bytes on one GPU for a training step (16-bit activations).

    Per layer, following Korthikanti et al. 2022 (arXiv 2205.05198) §4 and Table 2 (s sequence,
    b micro-batch, h hidden, a heads, t tensor parallel). `style="paper"` is Table 2 verbatim:
    sbh(34 + 5as/h), or sbh(10 + 24/t + 5as/(ht)) with TP — derived for GPT's 4h GeLU FFN with
    dropout. `style="gated"` (default) applies the paper's tensor-by-tensor accounting to gated
    FFNs of width I, grouped KV heads and no dropout (Llama-family training):
    8sbh + (4sbh + 4sb·kv_dim + 8sb·I)/t. Flash/fused attention never stores the a·s² score
    matrix (the paper's 5as/h term, selective recomputation). Full recomputation (gradient
    checkpointing) stores each layer's input, 2sbh, and rebuilds one layer at a time in the
    backward pass (+ one layer's full set). With pipeline parallelism (1F1B) the first stage
    holds `pp` micro-batches of its layers: ceil(L/pp)·pp layers' worth (§4.2.3: independent of
    the stage count). Logits and loss (Hugging Face ForCausalLMLoss upcasts logits to fp32):
    16-bit logits 2 B, the fp32 copy 4 B and its gradient 4 B per token per vocabulary entry,
    split by tp.
    """
    s, b, h = sequence_tokens, micro_batch, arch.hidden_size
    sbh = s * b * h
    full_layer, layer_formula = _layer_activation_bytes(arch, s, b, tp, flash_attention, style)
    layers_held = -(-arch.num_layers // pp) * pp
    if checkpointing:
        layers = layers_held * 2 * sbh + full_layer
        formula = f"L·2sbh (checkpointed layer inputs) + one layer recomputed ({layer_formula})"
    else:
        layers = layers_held * full_layer
        formula = f"L·{layer_formula}"
        if flash_attention:
            formula += " without the s² attention term (flash attention)"
    logits = -(-s * b * arch.vocab_size * (2 + 4 + 4) // tp)
    formula += f"; logits and loss s·b·V·(2 + 4 + 4)/tp, s={s}, b={b}, h={h}, V={arch.vocab_size}"
    return ActivationBytes(layers, logits, formula)
