"""Activation memory: the inference prefill peak and training activations.

Inference runs one layer at a time and frees its intermediates, so the peak is one layer's
largest working set for the tokens of one forward pass (a prefill chunk), plus the logits.
Training keeps every layer's activations for the backward pass (Korthikanti et al. 2022,
"Reducing Activation Recomputation in Large Transformer Models", arXiv 2205.05198, Table 2).
"""

from __future__ import annotations

from dataclasses import dataclass

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
    logits = sequences * arch.vocab_size * (2 + 4)
    formula += f"; logits: sequences·V·(2 + 4) B, V={arch.vocab_size}"
    return ActivationBytes(per_layer, logits, formula)


def training_activation_bytes(
    arch: Architecture,
    *,
    sequence_tokens: int,
    micro_batch: int,
    tp: int = 1,
    pp: int = 1,
    checkpointing: bool = False,
    flash_attention: bool = True,
) -> ActivationBytes:
    """Activation bytes on one GPU for a training step (16-bit activations).

    Per layer (Korthikanti et al. 2022, Table 2; s sequence, b micro-batch, h hidden, a heads):
    no parallelism sbh(34 + 5as/h); tensor parallel t: sbh(10 + 24/t + 5as/(ht)). Flash/fused
    attention never stores the a·s² score matrix, removing the 5as/h term (the paper's selective
    recomputation). Full recomputation (gradient checkpointing) stores only each layer's input,
    2sbh, and rebuilds one layer at a time in the backward pass (+ one layer's full set).
    With pipeline parallelism (1F1B) the first stage holds `pp` micro-batches of its layers:
    ceil(L/pp)·pp layers' worth (§4.2.3 of the paper: independent of the stage count).
    Logits and loss (Hugging Face ForCausalLMLoss upcasts logits to fp32): 16-bit logits 2 B,
    the fp32 copy 4 B and its gradient 4 B per token per vocabulary entry, split by tp.
    """
    s, b, h, a = sequence_tokens, micro_batch, arch.hidden_size, arch.num_attention_heads
    sbh = s * b * h
    attention_scores = 0 if flash_attention else 5 * a * s * sbh // (h * tp)
    if tp == 1:
        full_layer = 34 * sbh + attention_scores
    else:
        full_layer = 10 * sbh + -(-24 * sbh // tp) + attention_scores
    layers_held = -(-arch.num_layers // pp) * pp
    if checkpointing:
        layers = layers_held * 2 * sbh + full_layer
        formula = "L·2sbh (checkpointed layer inputs) + one layer recomputed"
    else:
        layers = layers_held * full_layer
        formula = "L·sbh(34 + 5as/h)" if tp == 1 else "L·sbh(10 + 24/t + 5as/(ht))"
        if flash_attention:
            formula += " without the 5as/h term (flash attention)"
    logits = -(-s * b * arch.vocab_size * (2 + 4 + 4) // tp)
    formula += f"; logits and loss s·b·V·(2 + 4 + 4)/tp, s={s}, b={b}, h={h}, V={arch.vocab_size}"
    return ActivationBytes(layers, logits, formula)
