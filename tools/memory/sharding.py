"""Parallel layout: tensor (TP), pipeline (PP) and data (DP) parallel degrees, and ZeRO sharding.

- TP must divide the attention heads (vLLM and Megatron-LM split heads evenly); with fewer KV
  heads than ranks, tp must be a multiple of the KV heads so each rank holds a whole replica.
- PP splits the layers into stages; the embedding sits on the first stage and the output layer
  on the last (with tied embeddings the last stage keeps its own copy of the table, as vLLM and
  Megatron-LM do). The per-GPU figure is the worst stage.
- DP = gpus / (tp · pp). ZeRO (arXiv 1910.02054 §5) partitions across the DP ranks: stage 1
  the optimizer states, stage 2 also the gradients, stage 3 also the parameters (FSDP
  FULL_SHARD is stage 3, SHARD_GRAD_OP stage 2).
"""

from __future__ import annotations

from dataclasses import dataclass

from tools.architecture import Architecture
from tools.errors import ToolInputError
from tools.memory.weights import WeightBytes


@dataclass(frozen=True)
class Layout:
    """The parallel degrees of an estimate."""

    tp: int
    pp: int
    dp: int

    @property
    def gpus(self) -> int:
        return self.tp * self.pp * self.dp


def _divisors(n: int, limit: int = 64) -> str:
    return ", ".join(str(d) for d in range(1, min(n, limit) + 1) if n % d == 0)


def tp_splits_heads(arch: Architecture, tp: int) -> bool:
    """Whether `tp` ranks can split the model's attention: tp divides the attention heads, and
    (vLLM's rule, vllm/config: "Total number of KV heads must be divisible by tensor parallel
    size") tp divides the KV heads, or is a multiple of them (each head then replicated). MLA
    caches one latent per token, so only the attention heads matter."""
    heads, kv = arch.num_attention_heads, arch.num_kv_heads
    if heads % tp:
        return False
    return arch.mla is not None or (tp % kv == 0 if kv < tp else kv % tp == 0)


def plan_layout(
    arch: Architecture, *, gpus: int, tp: int | None, pp: int, training: bool
) -> Layout:
    """Validate and complete the layout. Default tp: gpus/pp for inference, 1 for training."""
    if pp > arch.num_layers:
        raise ToolInputError(
            "pp",
            f"{pp} stages exceed the model's {arch.num_layers} layers",
            f"1 to {arch.num_layers}",
        )
    if gpus % pp:
        raise ToolInputError("pp", f"{pp} does not divide gpus ({gpus})", _divisors(gpus))
    if tp is None:
        tp = 1 if training else gpus // pp
    heads, kv = arch.num_attention_heads, arch.num_kv_heads
    if heads % tp:
        raise ToolInputError(
            "tp",
            f"{tp} does not divide the model's {heads} attention heads",
            f"a divisor of {heads}: {_divisors(heads)}",
        )
    if not tp_splits_heads(arch, tp):
        relation = "is not a multiple of" if kv < tp else "does not divide"
        raise ToolInputError(
            "tp",
            f"{tp} {relation} the model's {kv} KV heads",
            f"a divisor of {kv}, or a multiple of it that divides {heads}",
        )
    if gpus % (tp * pp):
        raise ToolInputError(
            "gpus",
            f"{gpus} GPUs cannot be split into tp={tp} × pp={pp} groups",
            f"a multiple of tp·pp = {tp * pp}",
        )
    return Layout(tp, pp, gpus // (tp * pp))


def zero_single_rank_warning(zero: int) -> str:
    """The warning for ZeRO asked of a layout with one data-parallel rank (nothing to shard
    across); memory estimates carry it as note code 'zero_single_rank'."""
    return f"zero={zero} has no effect with one data-parallel rank"


@dataclass(frozen=True)
class StageBytes:
    """Weight bytes of the most loaded pipeline stage, and how many layers it holds."""

    bytes: int
    layers: int
    stage: int


def worst_stage(weights: WeightBytes, pp: int) -> StageBytes:
    """The pipeline stage with the most weight bytes. Layers are split into pp contiguous runs
    of ceil(L/pp) (the last may be shorter); stage 0 adds the embedding (and a vision tower),
    the last stage the output layer (or a copy of a tied embedding) and the final norm."""
    layers = weights.layers
    if pp == 1:
        return StageBytes(weights.total, len(layers), 0)
    # Found once per (immutable) WeightBytes and pp: the recommender asks for every layout.
    found: dict[int, StageBytes] = weights.__dict__.setdefault("_worst_stages", {})
    if pp not in found:
        found[pp] = _worst_stage(weights, pp)
    return found[pp]


def _worst_stage(weights: WeightBytes, pp: int) -> StageBytes:
    layers = weights.layers
    per_stage = -(-len(layers) // pp)
    head = weights.lm_head or weights.embedding
    best = StageBytes(-1, 0, 0)
    for stage in range(pp):
        run = layers[stage * per_stage : (stage + 1) * per_stage]
        total = sum(run)
        if stage == 0:
            total += weights.embedding + weights.vision
        if stage == pp - 1:
            total += head + weights.final_norm
        if total > best.bytes:
            best = StageBytes(total, len(run), stage)
    return best


ZERO3_GATHER_SOURCE = (
    "PyTorch FSDP BackwardPrefetch.BACKWARD_PRE (the default): 'at the peak, it holds the "
    "current set of parameters, next set of parameters, and current set of gradients'; "
    "DeepSpeed ZeRO-3 likewise keeps gathered parameters live (stage3_max_live_parameters, "
    "default 1e9) and prefetches the next ones (stage3_prefetch_bucket_size, default 5e8)"
)


@dataclass(frozen=True)
class GatheredBytes:
    """The ZeRO-3 / FSDP working set one GPU all-gathers on top of its shards, bytes."""

    params: int  # the unit being computed and the prefetched next one, unsharded
    gradients: int  # the unit's full gradients before they are reduce-scattered


def zero3_gathered_bytes(
    weights: WeightBytes, *, param_scale: float = 1.0, gradient_scale: float | None = 1.0
) -> GatheredBytes:
    """Peak all-gathered working set of ZeRO-3 / FSDP FULL_SHARD on one GPU.

    The model is gathered one wrapping unit at a time (FSDP auto-wrap per transformer layer;
    DeepSpeed per module): units in forward order are the embedding, each layer, then the
    output layer with the final norm (a tied embedding is gathered again there). Backward
    holds unit i's parameters and gradients and unit i−1's prefetched parameters
    (`ZERO3_GATHER_SOURCE`); the peak is the largest such sum, taken over the whole model
    (an upper bound for a pipeline stage that holds fewer units). `weights` gives each unit's
    bytes as stored on this GPU's tensor-parallel shard; `param_scale` / `gradient_scale`
    convert them to the gathered dtypes (1.0 when the bytes already are; None: no gradients,
    a frozen base).
    """
    head = (weights.lm_head or weights.embedding) + weights.final_norm
    vision = [weights.vision] if weights.vision else []
    units = [*vision, weights.embedding, *weights.layers, head]
    best = GatheredBytes(0, 0)
    for i, unit in enumerate(units):
        prefetched = units[i - 1] if i else 0
        params = round((unit + prefetched) * param_scale)
        grads = 0 if gradient_scale is None else round(unit * gradient_scale)
        if params + grads > best.params + best.gradients:
            best = GatheredBytes(params, grads)
    return best
