"""vLLM's LoRA adapter slots, per GPU (issue 30 item 1): the buffers `--enable-lora` allocates
when the model loads, whatever adapters are later loaded into them.

`BaseLinearLayerWithLoRA.create_lora_weights` (vllm/lora/layers/base_linear.py): for every
LoRA-wrapped linear layer and every slice of a packed one (q, k, v of `qkv_proj`; gate, up of
`gate_up_proj`), an A buffer of `max_loras × max_lora_rank × input_size` and a B buffer of
`max_loras × output_size × max_lora_rank`, in `lora_dtype` (default `auto`: the base model's
dtype). Under tensor parallelism a column-parallel layer (q, k, v, gate, up) keeps A whole and
splits B's output; a row-parallel one (o, down) splits A's input and keeps B whole (without
`--fully-sharded-loras`). The memory calculator counts them with the weights (they are
allocated before vLLM profiles, so they come out of the KV-cache pool), and so the recommender
sizes every layout with them.
"""

from __future__ import annotations

from tools.architecture import Architecture
from tools.memory.tensors import layer_shapes

VLLM_LORA_RANKS = (1, 8, 16, 32, 64, 128, 256, 320, 512)
"""`--max-lora-rank` values vLLM accepts (`MaxLoRARanks`, vllm/config/lora.py)."""
VLLM_DEFAULT_MAX_LORA_RANK = 16

_COLUMN = frozenset({"q", "k", "v", "gate", "up"})
"""Column-parallel LoRA targets in vLLM (A whole, B split by TP); o and down are row-parallel."""


def slot_rank(rank: int) -> int:
    """The smallest `--max-lora-rank` vLLM accepts that holds an adapter of `rank`."""
    return next(r for r in VLLM_LORA_RANKS if r >= rank)


def slot_params_per_gpu(arch: Architecture, rank: int, tp: int = 1, pp: int = 1) -> int:
    """Adapter parameters of one slot on one GPU: Σ over LoRA-wrapped linears of rank × (input
    + output), A's input split by TP for row-parallel layers, B's output for column-parallel
    ones; layers split evenly over `pp` stages (the largest stage counted)."""
    total = 0
    layers = 0
    for shape in layer_shapes(arch):
        per_layer = 0
        for lin in shape.linears:
            if lin.lora_target is None:
                continue
            inp, out = lin.cols, lin.rows
            if lin.lora_target in _COLUMN:
                out = -(-out // tp)
            else:
                inp = -(-inp // tp)
            per_layer += rank * (inp + out) * lin.copies
        total += per_layer * shape.count
        layers += shape.count
    stage_layers = -(-layers // pp)
    return total if pp == 1 else -(-total * stage_layers // layers)


def slot_bytes_per_gpu(
    arch: Architecture, slots: int, rank: int, dtype_bytes: int, tp: int = 1, pp: int = 1
) -> int:
    """Bytes of `slots` adapter slots of `rank` (rounded up to a rank vLLM takes) on one GPU:
    slots × `slot_params_per_gpu` × `dtype_bytes`."""
    return slots * slot_params_per_gpu(arch, slot_rank(rank), tp, pp) * dtype_bytes
