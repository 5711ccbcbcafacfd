"""The words of a local plan: the warnings that would stop llama.cpp or Ollama running it as
sized, and the notes that say how the machine, the split and the placement were read. The
figures come from `plan.py` and `placement.py`; nothing is computed here but its wording.
"""

from __future__ import annotations

from tools.architecture import Architecture, vision_params
from tools.catalog import GpuSpec
from tools.hardware import LAYER_SPLIT_NOTE
from tools.local_serving.kv import kv_bytes_per_token
from tools.local_serving.launch import OLLAMA_CACHE_TYPES
from tools.local_serving.machine import Machine
from tools.local_serving.placement import Placement
from tools.local_serving.request import CacheType, LocalServingRequest
from tools.performance.llama_split import split_note
from tools.units import GB, format_bytes, format_count


def plan_warnings(
    req: LocalServingRequest, machine: Machine, cache: CacheType, fixed: int, budget: int
) -> list[str]:
    """What would stop llama.cpp or Ollama running the plan as sized: compute buffers alone
    over the GPU memory, a quantized V cache without flash attention, a cache type Ollama
    does not take."""
    warnings: list[str] = []
    if fixed > budget:
        warnings.append(
            f"the compute buffers and runtime alone ({format_bytes(fixed, 'GiB')}) exceed "
            f"{machine.label}'s {format_bytes(budget, 'GiB')}: llama.cpp would run on the CPU "
            "only"
        )
    if cache not in ("f16", "f32", "bf16") and not req.flash_attention:
        warnings.append(f"a {cache} V cache needs flash attention (-fa on) in llama.cpp")
    if req.launcher == "ollama" and cache not in OLLAMA_CACHE_TYPES:
        warnings.append(f"Ollama's OLLAMA_KV_CACHE_TYPE takes f16, q8_0 or q4_0, not {cache}")
    return warnings


def machine_notes(req: LocalServingRequest, machine: Machine, arch: Architecture) -> list[str]:
    """How the machine was sized, in words: a GPU not in the catalog on the memory given, the
    split over several GPUs."""
    notes: list[str] = []
    if machine.stated:
        given = "of unified memory " if machine.unified else ""
        bandwidth = machine.bandwidth_bytes_per_s
        known = "" if bandwidth is None else f"; {bandwidth / GB:g} GB/s"
        notes.append(
            f"{machine.label} is not in the catalog: sized on the {req.gpu_memory_gb:g} GB "
            f"{given}you gave (no bandwidth known{known})"
        )
    if req.gpus > 1:
        notes.append(
            split_note("tensor", req.gpus, arch)
            if req.split_mode == "tensor"
            else _split_note(req.gpus, machine.spec)
        )
    return notes


def vision_note(arch: Architecture) -> str:
    """Why a checkpoint's vision tower is left out of the plan."""
    return (
        f"Vision tower ({format_count(vision_params(arch))} parameters) left out: the "
        "text GGUF does not hold it; llama.cpp loads the encoder from a separate --mmproj "
        "file (Ollama's multimodal models carry it as a second layer) when images are used."
    )


def placement_note(
    arch: Architecture, placement: Placement, cache: CacheType, per_slot: int, parallel: int
) -> str:
    """The placement in llama.cpp's terms: what -ngl puts on the GPU, the KV cache per token
    in its cache type, the -c of all slots."""
    return (
        "Placement as llama.cpp does it: token embedding in system RAM; "
        f"-ngl {placement.n_gpu_layers} puts the output layer and the last "
        f"{placement.gpu_layers} of {arch.num_layers} layers on the GPU, each with its KV "
        f"cache ({cache}: {kv_bytes_per_token(arch, cache):,.0f} bytes per token); "
        f"-c {per_slot * parallel:,} = {per_slot:,} tokens × {parallel} slots."
    )


def _split_note(gpus: int, spec: GpuSpec | None) -> str:
    """llama.cpp's layer split over several GPUs: capacity, not speed (measured)."""
    if spec is not None and spec.pcie_only:
        return LAYER_SPLIT_NOTE
    return (
        f"llama.cpp splits the layers over the {gpus} GPUs (--split-mode layer, the default): "
        "their memory adds up, but each token passes through them in turn, so the decode "
        "estimate reads every GPU-resident byte at one GPU's bandwidth (capacity, not speed; "
        "--split-mode tensor, split_mode, splits each tensor instead)."
    )
