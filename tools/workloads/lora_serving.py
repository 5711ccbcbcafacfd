"""Multi-LoRA serving (issue 30 item 1): the GPU memory vLLM sets aside for adapters, its CPU
adapter cache, and the launch line.

vLLM allocates the adapter slots once, when the model loads (`BaseLinearLayerWithLoRA.
create_lora_weights`, vllm/lora/layers/base_linear.py): for every LoRA-wrapped linear layer and
every slice of a packed one (q, k, v of `qkv_proj`; gate, up of `gate_up_proj`), an A buffer of
`max_loras × max_lora_rank × input_size` and a B buffer of `max_loras × output_size ×
max_lora_rank`, in `lora_dtype` (default `auto`: the base model's dtype). A rank-8 adapter still
takes a slot of `max_lora_rank`. Under tensor parallelism a column-parallel layer (q, k, v,
gate, up) keeps A whole and splits B's output; a row-parallel one (o, down) splits A's input and
keeps B whole (without `--fully-sharded-loras`). The memory comes out of the KV-cache pool:
vLLM profiles with the buffers allocated. Adapters not in a GPU slot wait in the CPU cache of
`max_cpu_loras` adapters (default `max_loras`), LRU, at their own rank.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from tools.architecture import Architecture
from tools.errors import ToolInputError
from tools.field_factories import empty_list
from tools.limits import FINITE, MAX_LORA_ADAPTERS
from tools.memory.lora_slots import (
    VLLM_DEFAULT_MAX_LORA_RANK,
    VLLM_LORA_RANKS,
    slot_params_per_gpu,
    slot_rank,
)

if TYPE_CHECKING:
    from tools.recommend import Option

VLLM_LORA_SOURCE = (
    "vLLM LoRAConfig (docs.vllm.ai/en/v0.22.1/api/vllm/config/lora/: max_lora_rank 16, "
    "max_loras 1, max_cpu_loras None = max_loras, lora_dtype auto = the base model's dtype) and "
    "vllm/lora/layers/base_linear.py create_lora_weights (A: max_loras × max_lora_rank × input, "
    "B: max_loras × output × max_lora_rank per slice)"
)
VLLM_LORA_AS_OF = "2026-12-02"

MAX_ADAPTERS = MAX_LORA_ADAPTERS

LORA_THROUGHPUT_NOTE = (
    "Throughput cost of adapters is not modelled: published figures put it at a few percent "
    "to tens of percent depending on rank and how many distinct adapters share a batch — "
    "Punica (Chen et al. 2023, arXiv 2310.18547) adds about 2 ms per token against the base "
    "model, and S-LoRA (Sheng et al. 2023, arXiv 2311.03285) reports up to 4× the throughput "
    "of vLLM's then naive LoRA support; measure with your adapters."
)


class LoraServing(BaseModel):
    """Serving LoRA adapters on one base model (vLLM `--enable-lora`): how many adapters, how
    many share a batch (`max_loras`: GPU slots), their largest rank, the CPU cache."""

    model_config = ConfigDict(extra="forbid", **FINITE)

    adapters: int = Field(ge=1, le=MAX_ADAPTERS, description="Adapters served.")
    max_loras: int | None = Field(
        default=None,
        ge=1,
        le=MAX_ADAPTERS,
        description="Adapters in one batch (GPU slots); default all adapters, at most the users.",
    )
    max_lora_rank: int | None = Field(
        default=None,
        ge=1,
        le=VLLM_LORA_RANKS[-1],
        description="Largest rank (default 16). Rounded up to a rank vLLM takes.",
    )
    max_cpu_loras: int | None = Field(
        default=None,
        ge=1,
        le=MAX_ADAPTERS,
        description="Adapters cached in host RAM; default all adapters.",
    )

    def slots(self, users: int | None) -> int:
        """GPU adapter slots (`--max-loras`): as given, else every adapter, at most one per
        user when the users are stated."""
        if self.max_loras is not None:
            return self.max_loras
        return self.adapters if users is None else min(self.adapters, users)

    @property
    def slot_rank(self) -> int:
        """The rank of every slot (`--max-lora-rank`): the rank said rounded up to one vLLM
        takes, else vLLM's default 16."""
        asked = self.max_lora_rank
        return VLLM_DEFAULT_MAX_LORA_RANK if asked is None else slot_rank(asked)


class LoraServingResult(BaseModel):
    """The adapters' memory on the layout sized, and the vLLM line that reproduces it."""

    adapters: int
    max_loras: int = Field(description="GPU adapter slots (`--max-loras`).")
    max_lora_rank: int = Field(description="Rank of every slot (`--max-lora-rank`).")
    max_cpu_loras: int = Field(description="Adapters in the CPU cache (`--max-cpu-loras`).")
    dtype_bytes: int = Field(description="Bytes per adapter parameter (the base dtype).")
    params_per_slot: int = Field(description="Adapter parameters one slot holds, at full rank.")
    slot_bytes: int = Field(description="Bytes of one slot over the whole model.")
    gpu_bytes_per_gpu: int = Field(description="Adapter buffers on each GPU, bytes.")
    cpu_cache_bytes: int = Field(
        description="Host RAM for the CPU adapter cache at `max_lora_rank`, bytes (at most)."
    )
    tp: int = 1
    pp: int = 1
    gpu: str | None = Field(default=None, description="Catalog GPU id of the layout.")
    gpu_name: str | None = Field(default=None, description="The GPU's name.")
    count: int | None = Field(default=None, description="GPUs of the layout.")
    headroom_bytes: int | None = Field(
        default=None, description="Memory left per GPU at the load before the adapters, bytes."
    )
    fits: bool | None = Field(
        default=None, description="The layout still holds the load with the adapter buffers."
    )
    max_loras_that_fit: int | None = Field(
        default=None,
        description="When the slots do not fit the headroom: the most `--max-loras` that do.",
    )
    kv_tokens_before: int | None = Field(default=None, description="KV tokens per replica.")
    kv_tokens_after: int | None = Field(
        default=None, description="KV tokens per replica once the buffers are allocated."
    )
    launch: str = Field(description="The vLLM command line (`vllm serve …`).")
    throughput_note: str = LORA_THROUGHPUT_NOTE
    assumptions: list[str] = Field(default_factory=empty_list)
    source: str = VLLM_LORA_SOURCE
    as_of: str = VLLM_LORA_AS_OF


def size_lora_serving(
    request: LoraServing,
    arch: Architecture,
    repo: str,
    dtype_bytes: int,
    option: Option | None = None,
    users: int | None = None,
    included: bool = False,
) -> LoraServingResult:
    """The adapters' memory for `arch` on `option`'s layout (TP/PP; None: one GPU) and the
    launch line; `repo` names the model on the line, `users` caps the default batch slots.
    `included`: `option` was sized with the slots (the recommender counts them with the
    weights, `tools.memory.lora_slots`), so its headroom and KV pool are already after them."""
    assumptions: list[str] = []
    asked = request.max_lora_rank
    rank = request.slot_rank
    if asked is None:
        assumptions.append(
            f"Adapter rank up to {rank} (vLLM's default --max-lora-rank); a larger rank needs "
            "a larger slot."
        )
    elif rank != asked:
        assumptions.append(
            f"Rank {asked} served in rank-{rank} slots (the next --max-lora-rank vLLM accepts)."
        )
    max_loras = request.slots(users)
    if request.max_loras is None:
        assumptions.append(
            f"{max_loras} adapter slot(s) on the GPU (--max-loras): every adapter can be in one "
            "batch" + ("" if max_loras == request.adapters else ", at most one per user")
        )
    if max_loras > request.adapters:
        raise ToolInputError(
            "lora_serving.max_loras",
            f"{max_loras} GPU slots for {request.adapters} adapters",
            f"at most the adapters served ({request.adapters})",
        )
    cpu = request.max_cpu_loras or max(request.adapters, max_loras)
    if cpu < max_loras:
        raise ToolInputError(
            "lora_serving.max_cpu_loras",
            f"{cpu} is fewer than max_loras ({max_loras})",
            "at least max_loras (vLLM refuses fewer)",
        )
    tp = 1 if option is None else option.tp
    pp = 1 if option is None else option.pp
    per_slot = slot_params_per_gpu(arch, rank)
    gpu_bytes = max_loras * slot_params_per_gpu(arch, rank, tp, pp) * dtype_bytes
    if included:
        assumptions.append(
            "The adapter slots are counted with the weights in every layout sized, so the "
            "GPUs recommended hold them with the load."
        )
    result = LoraServingResult(
        adapters=request.adapters,
        max_loras=max_loras,
        max_lora_rank=rank,
        max_cpu_loras=cpu,
        dtype_bytes=dtype_bytes,
        params_per_slot=per_slot,
        slot_bytes=per_slot * dtype_bytes,
        gpu_bytes_per_gpu=gpu_bytes,
        cpu_cache_bytes=cpu * per_slot * dtype_bytes,
        tp=tp,
        pp=pp,
        launch=launch_line(repo, max_loras, rank, cpu, tp, pp),
        assumptions=assumptions,
    )
    if option is None:
        return result
    return result.model_copy(update=_on_layout(option, gpu_bytes, max_loras, included))


def _on_layout(option: Option, gpu_bytes: int, slots: int, included: bool) -> dict[str, object]:
    """The slots on `option`'s layout: its headroom and KV tokens before and after them (the
    KV pool shrinks by the slots' bytes at the same bytes per token), whether it holds them,
    and the most slots that fit when it does not."""
    kv_bytes = option.kv_cache_capacity_bytes
    tokens = option.kv_cache_capacity_tokens
    if included:
        headroom = option.headroom_bytes + gpu_bytes
        before = tokens if kv_bytes <= 0 else tokens * (kv_bytes + gpu_bytes) // kv_bytes
        after = tokens
    else:
        headroom = option.headroom_bytes
        before = tokens
        after = tokens if kv_bytes <= 0 else max(0, tokens * (kv_bytes - gpu_bytes) // kv_bytes)
    fits = option.fits and headroom >= gpu_bytes
    most = None if fits or not option.fits else max(0, headroom // max(1, gpu_bytes // slots))
    return {
        "max_loras_that_fit": most,
        "gpu": option.gpu,
        "gpu_name": option.gpu_name,
        "count": option.count,
        "headroom_bytes": headroom,
        "fits": fits,
        "kv_tokens_before": before,
        "kv_tokens_after": after,
    }


def launch_line(repo: str, max_loras: int, rank: int, cpu: int, tp: int, pp: int) -> str:
    """`vllm serve` with the LoRA flags of the sizing (adapters named by `--lora-modules`)."""
    parts = [f"vllm serve {repo}", "--enable-lora", f"--max-loras {max_loras}"]
    parts += [f"--max-lora-rank {rank}", f"--max-cpu-loras {cpu}"]
    if tp > 1:
        parts.append(f"--tensor-parallel-size {tp}")
    if pp > 1:
        parts.append(f"--pipeline-parallel-size {pp}")
    parts.append("--lora-modules name1=/path/to/adapter1 …")
    return " ".join(parts)
