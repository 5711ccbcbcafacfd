"""What owning a device means for sizing: unified-memory GPU limits, GPUs without bf16, cards
that only talk over PCIe.

Sources (shared/research/2026-12/GPU-NOTES.md §7 and gpus-new.json `unified_memory_gpu_limit`):
- Apple silicon: the GPU may wire at most Metal's recommendedMaxWorkingSetSize, which llama.cpp
  and MLX treat as VRAM. It defaults to a fraction of RAM — observed ~2/3 on a 16 GB M4
  (10.67 GB, exo PR #1672) and 3/4 on a 64 GB M4 Pro (48.0 GiB, ollama #8331; GPUStack: "75% of
  total RAM") — and follows the sysctl `iogpu.wired_limit_mb` (llmfit PR #754; MLX docs:
  "sudo sysctl iogpu.wired_limit_mb=<size_in_megabytes>", reset at reboot). No Apple document
  states where 2/3 turns into 3/4; we take 2/3 up to 36 GB of RAM and 3/4 above (the research's
  rule), and say the boundary is unconfirmed. Apple's "N GB" of unified memory is N GiB of
  DRAM, so the fractions apply to N GiB.
- DGX Spark: coherent NVLink-C2C, no carve-out: the GPU addresses nearly all 128 GB, less what
  the OS uses.
- Strix Halo (Ryzen AI Max+ 395): a BIOS "variable graphics memory" split, up to 96 GB of 128 GB
  in a pre-launch report (ComputerBase); the Linux GTT limit was not researched.
- T4 (Turing), V100 (Volta) and P100 (Pascal) have no bf16: engines run bf16 checkpoints in
  fp16 there (vLLM casts bfloat16 to float16 on GPUs below compute capability 8.0); the bytes
  are the same, the dtype is not.
- PCIe-only multi-GPU (GeForce 40/50, Radeon, Arc have no bridge): llama.cpp's default layer
  split gives capacity, not speed (XiongjieDai/GPU-Benchmarks-on-LLM-Inference, in
  consumer-speed.json); ExLlamaV2's gpu_split is the same layer split; the note names the engine
  sized (`pcie_split_note`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from tools.units import GB, GiB, MiB

GpuLimitRule = Literal["macos-working-set", "coherent", "bios-carveout"]

MACOS_SMALL_RAM_GIB = 36
"""Up to this much RAM the macOS default GPU limit is ~2/3 of it, above it 3/4 (unconfirmed)."""
MACOS_SMALL_FRACTION = 2 / 3
MACOS_LARGE_FRACTION = 3 / 4
OS_RESERVE_BYTES = 8 * GiB
"""RAM left to the operating system when the GPU limit is raised (MLX docs: leave "several GB"
for macOS; 8 GiB is our reading of "several"), and on coherent machines (DGX Spark)."""
CARVEOUT_FRACTION = 96 / 128
"""Strix Halo: up to 96 GB of 128 GB as VRAM (ComputerBase pre-launch report)."""


@dataclass(frozen=True)
class GpuLimit:
    """How much of a unified-memory machine's RAM the GPU may use, and why."""

    bytes: int
    basis: str
    raise_hint: str | None
    """How to give the GPU more, with the figure that gives; None when there is no knob."""


def ram_gib(ram_bytes: int) -> float:
    """A unified-memory size sold as 'N GB' (ram_bytes = N × 10^9) is N GiB of DRAM."""
    return ram_bytes / GB


def gpu_limit(rule: GpuLimitRule, ram_bytes: int) -> GpuLimit:
    """The GPU memory limit of a machine with `ram_bytes` of unified memory (as sold: N GB) by
    `rule`, with its basis and how to raise it."""
    gib = ram_gib(ram_bytes)
    if rule == "macos-working-set":
        small = gib <= MACOS_SMALL_RAM_GIB
        fraction = MACOS_SMALL_FRACTION if small else MACOS_LARGE_FRACTION
        limit = int(gib * GiB * fraction) // MiB * MiB
        basis = (
            f"macOS default GPU working set (Metal recommendedMaxWorkingSetSize, what llama.cpp "
            f"and MLX use as VRAM): {'2/3' if small else '3/4'} of {gib:g} GB unified memory "
            f"= {limit / GiB:.2f} GiB (observed 2/3 on a 16 GB M4, 3/4 on a 64 GB M4 Pro; the "
            f"{MACOS_SMALL_RAM_GIB} GB boundary between the two is unconfirmed)"
        )
        raised = raised_limit_bytes(rule, ram_bytes)
        if raised is None:
            return GpuLimit(limit, basis, None)
        mib = raised // MiB
        hint = (
            f"raise it with `sudo sysctl iogpu.wired_limit_mb={mib}` ({raised / GiB:.0f} GiB, "
            f"keeping {OS_RESERVE_BYTES // GiB} GiB for macOS; resets at reboot)"
        )
        return GpuLimit(limit, basis, hint)
    if rule == "coherent":
        limit = int(gib * GiB - OS_RESERVE_BYTES)
        basis = (
            f"coherent unified memory with no VRAM carve-out: {gib:g} GB less "
            f"{OS_RESERVE_BYTES // GiB} GiB for the OS = {limit / GiB:.2f} GiB (derived; the "
            "OS share was not measured)"
        )
        return GpuLimit(limit, basis, None)
    limit = int(gib * GiB * CARVEOUT_FRACTION) // MiB * MiB
    basis = (
        f"BIOS variable-graphics-memory carve-out: up to 96 of 128 GB reported (ComputerBase, "
        f"pre-launch), applied as 3/4 of {gib:g} GB = {limit / GiB:.2f} GiB (unconfirmed; the "
        "Linux amdgpu GTT limit may differ)"
    )
    return GpuLimit(limit, basis, "set the BIOS variable graphics memory (VGM) to its maximum")


def raised_limit_bytes(rule: GpuLimitRule, ram_bytes: int) -> int | None:
    """The GPU limit after `sudo sysctl iogpu.wired_limit_mb=…` as `gpu_limit` suggests it
    (macOS only; None when raising gains nothing)."""
    if rule != "macos-working-set":
        return None
    gib = ram_gib(ram_bytes)
    fraction = MACOS_SMALL_FRACTION if gib <= MACOS_SMALL_RAM_GIB else MACOS_LARGE_FRACTION
    raised = int(gib * GiB - OS_RESERVE_BYTES) // MiB * MiB
    return raised if raised > int(gib * GiB * fraction) // MiB * MiB else None


LAYER_SPLIT_NOTE = (
    "Several cards without NVLink: llama.cpp splits the layers across them (--split-mode layer, "
    "the default), so their memory adds up but each token still passes through every card in "
    "turn: capacity, not speed. Measured: Llama 3 8B Q4_K_M decode 127.74 → 122.56 tok/s on "
    "1 → 2× RTX 4090 and 111.7 → 108.07 on 1 → 2× RTX 3090 (XiongjieDai/GPU-Benchmarks-on-LLM-"
    "Inference, 2024-05-12). Tensor parallelism over PCIe (vLLM) can speed up decode, but "
    "GeForce cards often run without P2P."
)
"""The note for PCIe-only multi-GPU setups (consumer/workstation cards without a fast link) run
with llama.cpp: the engine the local plans are for. `pcie_split_note` names the engine sized."""

_MEASURED_LAYER_SPLIT = (
    "as measured on llama.cpp's layer split: Llama 3 8B Q4_K_M decode 127.74 → 122.56 tok/s on "
    "1 → 2× RTX 4090, XiongjieDai/GPU-Benchmarks-on-LLM-Inference, 2024-05-12"
)


def pcie_split_note(engine: str, tp: int, pp: int) -> str:
    """The PCIe-only multi-GPU note for the engine the estimate is for (`engine`: the memory
    tool's engine id) and its layout: ExLlamaV2 and llama.cpp split the layers (capacity, not
    speed), vLLM / Transformers as their layout says."""
    if engine == "generic" and tp > 1:
        return (
            f"Several cards without NVLink: llama.cpp's --split-mode tensor splits every "
            f"weight over the {tp} cards and exchanges each layer's results over PCIe (its "
            "speed-up is llama.cpp PR 19378's published one, estimated); GeForce cards often "
            "run without P2P."
        )
    if engine == "generic":
        return LAYER_SPLIT_NOTE
    if engine == "exllamav2":
        return (
            "Several cards without NVLink: ExLlamaV2 splits the layers across them (gpu_split "
            "/ autosplit, its default load), so their memory adds up but each token still "
            f"passes through every card in turn: capacity, not speed ({_MEASURED_LAYER_SPLIT})."
        )
    if tp > 1:
        runner = "vLLM" if engine == "vllm" else "The layout"
        return (
            f"Several cards without NVLink: {runner} shards every layer over the {tp} cards "
            "(tensor parallelism), so each layer's all-reduce crosses PCIe: it can speed up "
            "decode, but GeForce cards often run without P2P."
        )
    stages = {"vllm": "vLLM's pipeline stages put", "transformers": "Transformers' device_map puts"}
    return (
        f"Several cards without NVLink: {stages.get(engine, 'the layout puts')} a run of layers "
        f"on each of the {pp} cards, so each token passes through every card in turn: capacity, "
        f"not speed ({_MEASURED_LAYER_SPLIT})."
    )


NO_BF16_NOTE = (
    "{gpu} has no bf16 tensor cores (Turing/Volta/Pascal): bf16 checkpoints run as fp16 there "
    "(vLLM casts bfloat16 to float16 below compute capability 8.0); the same 2 bytes per "
    "weight, so the memory figures hold, sized as fp16."
)
