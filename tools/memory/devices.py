"""What the device changes in a memory estimate: the engine a Mac runs, fp16 where there is no
bf16, the unified-memory GPU limit and how to raise it, PCIe-only multi-GPU, boards that are
two devices. The device facts and their sources are in tools/hardware.py and the catalog.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tools.catalog import GpuSpec
from tools.hardware import NO_BF16_NOTE, gpu_limit, pcie_split_note, raised_limit_bytes
from tools.units import format_bytes


@dataclass
class DeviceNotes:
    """Assumptions and warnings a device adds to an estimate."""

    assumptions: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def no_cuda(gpu: GpuSpec) -> bool:
    """Apple silicon (Metal) and AMD's APU run llama.cpp / MLX / Ollama, not vLLM."""
    return gpu.vendor == "Apple" or (gpu.unified_memory is not None and gpu.vendor == "AMD")


def default_engine(gpu: GpuSpec | None, notes: DeviceNotes) -> str | None:
    """The engine a device implies when the user names none; None: the usual default."""
    if gpu is None or not no_cuda(gpu):
        return None
    notes.assumptions.append(
        f"Engine: {gpu.name} has no CUDA; vLLM's GPU backends do not run on it, so the estimate "
        "is for llama.cpp / Ollama / MLX-style serving (engine generic: no memory reserve, "
        "contiguous KV cache)."
    )
    return "generic"


def engine_warning(gpu: GpuSpec | None, engine: str) -> str | None:
    """A warning when the named engine does not run on the device."""
    if gpu is not None and engine == "vllm" and no_cuda(gpu):
        return f"engine vllm on {gpu.name}: vLLM has no backend for this GPU (use llama.cpp/MLX)"
    if gpu is not None and engine == "exllamav2" and no_cuda(gpu):
        return (
            f"engine exllamav2 on {gpu.name}: ExLlamaV2 (EXL2) runs on CUDA and ROCm GPUs "
            "only (use a GGUF type with llama.cpp, or MLX)"
        )
    if gpu is not None and engine == "mlx" and gpu.vendor != "Apple":
        return (
            f"engine mlx on {gpu.name}: MLX is Apple's framework for Apple silicon; its memory "
            "and speed are sized as on a Mac (use generic for llama.cpp, vllm for vLLM)"
        )
    return None


def sixteen_bit(gpu: GpuSpec | None, fmt: str, said: bool, what: str, notes: DeviceNotes) -> str:
    """`fmt` as the device runs it: bf16 becomes fp16 on GPUs without bf16 (T4, V100, P100;
    the same 2 bytes). `said`: the user asked for it (a warning) or it is a default (an
    assumption); `what`: 'weights' or 'KV cache'."""
    if gpu is None or gpu.supports_bf16 or fmt != "bf16":
        return fmt
    note = NO_BF16_NOTE.format(gpu=gpu.name)
    if said:
        notes.warnings.append(f"{what} bf16 on {gpu.name}: sized as fp16. {note}")
    elif note not in notes.assumptions:
        notes.assumptions.append(note)
    return "fp16"


def fp8_warning(gpu: GpuSpec | None, fmt: str) -> str | None:
    """fp8 weights on a GPU without FP8 support (T4, V100, P100: GPU-NOTES §7)."""
    if gpu is not None and fmt == "fp8" and not gpu.supports_bf16:
        return (
            f"fp8 weights on {gpu.name}: it has no FP8 (nor bf16) support, so fp8 checkpoints "
            "do not run there; use fp16, int8 or a 4-bit format"
        )
    return None


def budget_notes(
    gpu: GpuSpec,
    layout: tuple[int, int, int],
    engine: str,
    per_gpu: int,
    utilisation: float,
    notes: DeviceNotes,
) -> None:
    """Unified-memory limits (and the raise that would make a model fit), PCIe-only
    multi-GPU for `engine` over `layout` (gpus, tp, pp), two-device boards."""
    gpus, tp, pp = layout
    um = gpu.unified_memory
    if um is not None:
        limit = gpu_limit(um.gpu_limit, gpu.memory_bytes)
        ram = format_bytes(gpu.memory_bytes, "GB")
        line = (
            f"{gpu.name}: {ram} of unified memory, of which the GPU may use "
            f"{format_bytes(limit.bytes, 'GiB')} by default ({limit.basis})"
        )
        notes.assumptions.append(line + (f"; {limit.raise_hint}." if limit.raise_hint else "."))
        raised = raised_limit_bytes(um.gpu_limit, gpu.memory_bytes)
        budget, raised_budget = limit.bytes * utilisation, (raised or 0) * utilisation
        if per_gpu > budget and raised is not None and per_gpu <= raised_budget:
            notes.warnings.append(
                f"does not fit {gpu.name}'s default GPU limit of "
                f"{format_bytes(limit.bytes, 'GiB')}, but fits after raising it: "
                f"{limit.raise_hint}"
            )
    if gpus > 1 and gpu.pcie_only and gpu.segment in ("consumer", "workstation"):
        notes.assumptions.append(pcie_split_note(engine, tp, pp))
    if gpu.devices_per_package > 1:
        notes.assumptions.append(
            f"{gpu.name}: each board is {gpu.devices_per_package} devices to software; GPU "
            f"counts here are devices ({gpus} = {gpus / gpu.devices_per_package:g} boards), "
            f"each with {format_bytes(gpu.usable_memory_bytes, 'GiB')}."
        )
