"""What the performance model reads about a GPU: its class (for calibrated efficiencies), the
tensor throughput a weight format computes at, and the link a tensor-parallel group talks over.

GPU classes group accelerators whose kernels reach similar shares of their datasheet figures:
memory technology (HBM, GDDR, unified LPDDR) × vendor, refined by architecture generation
(Ampere, Hopper, Ada, ...). Calibrated constants are looked up from the most specific class that
has measurements (tools/performance/calibration.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from tools.catalog import GpuSpec, get_catalog

ComputeDtype = Literal["bf16", "fp16", "fp8", "int8", "fp4"]
LinkKind = Literal["nvlink", "pcie", "network"]
Accumulate = Literal["fp32", "fp16"]

# PCIe x16 bandwidth per direction, bytes/s, from the PCI-SIG signalling rates: Gen3 8 GT/s,
# Gen4 16 GT/s, Gen5 32 GT/s with 128b/130b encoding → 16 lanes × rate × 128/130 / 8 bits.
PCIE_X16_BYTES_PER_S: dict[int, float] = {
    gen: 16 * rate * 1e9 * 128 / 130 / 8 for gen, rate in ((3, 8), (4, 16), (5, 32), (6, 64))
}
DEFAULT_PCIE_GEN = 4  # when the catalog has no PCIe generation (stated in assumptions)

# Weight formats whose matmuls run on low-precision tensor cores when the GPU has them:
# fp8 (W8A8 with dynamic activation scales, vLLM/TensorRT-LLM FP8) and mxfp4 (Blackwell FP4
# tensor cores). Weight-only formats dequantise to 16-bit and compute in bf16: int8 here is
# W8A16 (tools/memory/formats.py), likewise GPTQ/AWQ int4, NF4 and GGUF.
_LOW_PRECISION_COMPUTE: dict[str, ComputeDtype] = {"fp8": "fp8", "mxfp4": "fp4"}

# GeForce Ampere/Ada/Blackwell cards run 16-bit tensor math with FP32 accumulation at half the
# FP16-accumulate rate; the catalog stores the FP32-accumulate figure (rtx-4090: 165.2 of the
# 330.3 TFLOPS NVIDIA prints). Engines that accumulate in FP16 (llama.cpp's cuBLAS path,
# CUBLAS_COMPUTE_16F) get the full rate. Source: shared/research/2026-12/gpus-new.json schema
# notes ("For GeForce Ampere/Ada, bf16/fp16/fp8 dense = FP32-accumulate rate (half the
# FP16-accumulate rate)"), NVIDIA Ada GPU architecture whitepaper appendix A.
FP16_ACCUMULATE_SPEEDUP = 2.0


def is_geforce(gpu: GpuSpec) -> bool:
    """True for consumer GeForce cards (halved FP32-accumulate tensor rate)."""
    return "geforce" in gpu.name.lower()


@dataclass(frozen=True)
class GpuClass:
    """The calibration class of a GPU: memory class and architecture generation."""

    memory: str  # nvidia-hbm, nvidia-gddr, amd-hbm, amd-gddr, apple, intel-gddr, other
    generation: str  # ampere, hopper, ada, blackwell, cdna3, rdna3, apple, ...


_GENERATIONS = (
    "ampere",
    "hopper",
    "ada",
    "blackwell",
    "volta",
    "turing",
    "pascal",
    "cdna",
    "rdna",
    "gaudi",
    "xe",
    "apple",
)


def gpu_class(gpu: GpuSpec) -> GpuClass:
    """Calibration class of `gpu` from its catalog vendor, memory type and architecture."""
    vendor = str(gpu.vendor).lower()
    memory_type = gpu.memory_type.lower()
    arch = gpu.architecture.lower()
    generation = next((g for g in _GENERATIONS if g in arch), arch.split()[0] if arch else "")
    if _is_apple(gpu):
        # llama.cpp reaches a different share of the bandwidth on each tier of Apple chip
        # (shared/research/2026-12/GPU-NOTES.md §7, Llama-2-7B Q4_0 tg128 x bytes / peak:
        # 70–84 % on base and Pro chips, 58–65 % on Max chips, 40–52 % on Ultra chips, two Max
        # dies joined by UltraFusion), so the tiers calibrate apart.
        name = gpu.name.lower()
        tier = "apple-ultra" if "ultra" in name else "apple-max" if " max" in name else "apple"
        return GpuClass("apple", tier)
    if "hbm" in memory_type:
        memory = "hbm"
    elif "gddr" in memory_type:
        memory = "gddr"
    else:
        return GpuClass("other", generation)
    if vendor in ("nvidia", "amd") or (vendor == "intel" and memory == "gddr"):
        return GpuClass(f"{vendor}-{memory}", generation)
    return GpuClass("other", generation)


def apple_chip(gpu: GpuSpec) -> str | None:
    """The Apple silicon generation of `gpu` ("m1" ... "m4"), None for other GPUs. llama.cpp's
    K-quant Metal kernels reach a different share of the bandwidth on each generation at the
    same tier (XiongjieDai llama-bench, May 2024: Q4_K_M on the 400 GB/s M1 Max streams about
    170 GB/s at 8B and at 70B, the M3 Max 40-core about 250 and 320 GB/s), so K-quant
    efficiencies calibrate per generation where two rows allow (efficiency.decode_keys)."""
    if not _is_apple(gpu):
        return None
    found = re.search(r"\bm(\d+)\b", gpu.name.lower())
    return f"m{found.group(1)}" if found else None


def _is_apple(gpu: GpuSpec) -> bool:
    return (
        str(gpu.vendor).lower() == "apple"
        or "apple" in gpu.architecture.lower()
        or "apple" in gpu.name.lower()
    )


def stream_bandwidth(gpu: GpuSpec) -> float:
    """Bandwidth the GPU can stream, bytes/s: the measured GPU-side STREAM figure of a
    unified-memory chip when the catalog has one (M3 Ultra 738 of 819 GB/s, M4 Pro 248 of
    273), else the datasheet figure; the calibrated efficiencies are shares of it."""
    um = gpu.unified_memory
    if um is not None and um.measured_stream_bandwidth_bytes_per_s:
        return um.measured_stream_bandwidth_bytes_per_s
    return gpu.memory_bandwidth_bytes_per_s


def vector_flops(gpu: GpuSpec) -> float | None:
    """Datasheet FP32 non-tensor throughput, FLOP/s (what weight-only kernels dequantise
    with); None when the catalog has no figure (Apple publishes none)."""
    return None if gpu.fp32_tflops is None else gpu.fp32_tflops * 1e12


@dataclass(frozen=True)
class ComputeRate:
    """Peak dense tensor throughput the model's matmuls run at, FLOP/s, and the dtype chosen."""

    flops_per_s: float
    dtype: ComputeDtype
    reason: str


def apple_core_rate_keys(gpu: GpuSpec) -> list[str]:
    """Lookup keys of the effective prefill FLOP/s per GPU core of an Apple chip: its
    generation (m1 … m4), then every generation pooled."""
    chip = apple_chip(gpu)
    return [chip, "any"] if chip else ["any"]


def apple_compute_rate(gpu: GpuSpec) -> ComputeRate | None:
    """An Apple chip's prompt-processing rate: GPU cores × the effective FLOP/s per core that
    published llama.cpp pp512/pp1024 rows imply (catalog/performance.toml apple_core_flops;
    Apple publishes no GPU TFLOPS). Effective: it already holds the share of peak llama.cpp's
    Metal kernels reach, so no GEMM MFU applies on top. None without a core count or a fit."""
    from tools.performance.calibration import calibration  # the catalog file, loaded once

    um = gpu.unified_memory
    if um is None or not um.gpu_cores:
        return None
    per_core = calibration().lookup("apple_core_flops", apple_core_rate_keys(gpu))
    if per_core is None:
        return None
    return ComputeRate(
        um.gpu_cores * per_core.value,
        "fp16",
        f"{um.gpu_cores} GPU cores × {per_core.value / 1e9:.0f} GFLOP/s per core, the rate "
        f"published prompt-processing rows imply (apple_core_flops {per_core.key})",
    )


@dataclass(frozen=True)
class PowerLimit:
    """The share of its datasheet tensor peak a lower-TDP board of a die sustains at full load,
    against the full-power SXM module of that die, and why."""

    share: float
    reason: str


@lru_cache(maxsize=64)
def _power_limit(gpu_id: str, full_power_id: str) -> PowerLimit | None:
    catalog = get_catalog()
    gpu, full = catalog.gpu(gpu_id), catalog.gpu(full_power_id)
    parts = (gpu.base_clock_mhz, gpu.sm_count, full.base_clock_mhz, full.sm_count)
    if None in parts or gpu.bf16_tflops is None or full.bf16_tflops is None:
        return None
    base, sms, full_base, full_sms = parts
    assert base and sms and full_base and full_sms
    # Both boards clock the same SMs; under a full tensor load each holds what its power limit
    # allows, and the base clock is the clock each is rated to hold at its TDP. So the
    # sustained throughputs are taken in the ratio of SMs × base clock, the full-power module
    # at its datasheet peak; the datasheet peak of the lower-TDP board (at a boost clock) is
    # scaled down to that, never up.
    sustained = full.bf16_tflops * (sms * base) / (full_sms * full_base)
    share = min(1.0, sustained / gpu.bf16_tflops)
    if share >= 1.0:
        return None
    return PowerLimit(
        share,
        f"{share:.2f} of the datasheet peak sustained at the {gpu.tdp_w or 0:.0f} W board power: "
        f"{sms} SMs × {base:,.0f} MHz base clock against the {full.name}'s "
        f"{full_sms} × {full_base:,.0f} MHz at its datasheet peak",
    )


def power_limited_share(gpu: GpuSpec) -> PowerLimit | None:
    """The share of its datasheet tensor peak `gpu` sustains at full load when it is a
    lower-TDP board of a die also sold as a full-power SXM module (`full_power_part`: H100 NVL
    and PCIe against the H100 SXM, A100 PCIe against the A100 SXM4, ...): that module's peak ×
    (SMs × base clock) / (its SMs × base clock), over the board's own peak; None for any other
    GPU, or where the catalog lacks a clock."""
    if gpu.full_power_part is None:
        return None
    return _power_limit(gpu.id, gpu.full_power_part)


def compute_rate(
    gpu: GpuSpec, weight_format: str, accumulate: Accumulate = "fp32"
) -> ComputeRate | None:
    """Dense FLOP/s for `weight_format` on `gpu` (low-precision tensor cores when both the
    format and the GPU support them, else bf16, else fp16): the datasheet peak, or on a
    power-limited board the share of it sustained at full load (`power_limited_share`); None
    when the GPU publishes none.
    `accumulate="fp16"`: the engine accumulates 16-bit matmuls in FP16, which GeForce cards run
    at twice their FP32-accumulate rate (`FP16_ACCUMULATE_SPEEDUP`)."""
    fmt = weight_format.lower()
    if _is_apple(gpu) and gpu.fp16_tflops is None and gpu.bf16_tflops is None:
        return apple_compute_rate(gpu)
    low = _LOW_PRECISION_COMPUTE.get(fmt)
    table: dict[ComputeDtype, float | None] = {
        "fp8": gpu.fp8_tflops,
        "int8": gpu.int8_tops,
        "fp4": gpu.fp4_tflops,
        "bf16": gpu.bf16_tflops,
        "fp16": gpu.fp16_tflops,
    }
    if low is not None:
        low_value = table[low]
        if low_value is not None:
            return _sustained(
                gpu, ComputeRate(low_value * 1e12, low, f"{fmt} weights on {low} tensor cores")
            )
    dtype: ComputeDtype
    # T4/V100/P100 have no bf16 tensor math: engines run 16-bit checkpoints as fp16 there.
    sixteen: tuple[ComputeDtype, ...] = ("bf16", "fp16") if gpu.supports_bf16 else ("fp16",)
    for dtype in sixteen:
        value = table[dtype]
        if value is not None:
            why = f"{fmt} weights computed in {dtype}"
            if low is not None:
                why += f" ({gpu.name} publishes no {low} tensor throughput)"
            rate = value * 1e12
            if accumulate == "fp16" and is_geforce(gpu):
                rate *= FP16_ACCUMULATE_SPEEDUP
                why += " with FP16 accumulation (GeForce full rate)"
            return _sustained(gpu, ComputeRate(rate, dtype, why))
    return None


def _sustained(gpu: GpuSpec, rate: ComputeRate) -> ComputeRate:
    """`rate` at the share of it a power-limited board sustains (`power_limited_share`)."""
    limit = power_limited_share(gpu)
    if limit is None:
        return rate
    return ComputeRate(rate.flops_per_s * limit.share, rate.dtype, f"{rate.reason}, {limit.reason}")


@dataclass(frozen=True)
class Link:
    """GPU-to-GPU link used by tensor-parallel all-reduces: bytes/s one direction, and kind."""

    bytes_per_s: float
    kind: LinkKind
    assumed: bool  # True when the catalog has no figure and PCIe was assumed


# The link between the devices of one board, where the catalog has no GPU-to-GPU figure:
# MI250X's two GCDs are joined in the package by Infinity Fabric at 400 GB/s (AMD, Hot Chips
# 34 block diagram, as reported by TechPowerUp, "AMD Releases its CDNA2 MI250X 'Aldebaran' HPC
# GPU Block Diagram": "The two GPU dies are connected by a 400 GB/s Infinity Fabric link"),
# read as bidirectional like every vendor figure here: 200 GB/s one direction.
IN_PACKAGE_LINK_BYTES_PER_S: dict[str, float] = {"mi250x": 400e9 / 2}


def pcie_link(gpu: GpuSpec) -> Link:
    """PCIe x16 of the GPU's generation (the default generation when the catalog has none)."""
    gen = gpu.pcie_gen or DEFAULT_PCIE_GEN
    return Link(PCIE_X16_BYTES_PER_S[gen], "pcie", assumed=gpu.pcie_gen is None)


def gpu_link(gpu: GpuSpec, tp: int = 2) -> Link:
    """The link a TP group of `tp` GPUs on `gpu` talks over. NVLink/Infinity Fabric use the
    catalog's per-GPU one-direction bandwidth; without a figure, PCIe of the GPU's generation.
    An NVLink bridge joins two cards only (RTX A6000, A40, A100 PCIe: NVIDIA's 2-way bridge),
    so a group of 4 or 8 runs its ring all-reduce over PCIe between the pairs, the slowest hop.
    A group within one board of several devices (MI250X: 2 GCDs) uses the in-package link;
    a larger one leaves the board: without a catalog figure, PCIe of its generation
    (`assumed`, an upper bound on the time)."""
    if gpu.interconnect == "nvlink-bridge" and tp > 2:
        return pcie_link(gpu)
    in_package = IN_PACKAGE_LINK_BYTES_PER_S.get(gpu.configuration_of or gpu.id)
    if in_package is not None and 1 < tp <= gpu.devices_per_package:
        return Link(in_package, "nvlink", assumed=False)
    kind: LinkKind = "nvlink" if gpu.interconnect in ("nvlink", "nvlink-bridge") else "pcie"
    if gpu.interconnect == "infinity-fabric":
        kind = "nvlink"  # same latency class: a direct GPU-to-GPU fabric
    if gpu.interconnect == "ethernet":
        kind = "network"
    if gpu.interconnect_bytes_per_s is not None:
        return Link(gpu.interconnect_bytes_per_s, kind, assumed=False)
    return Link(pcie_link(gpu).bytes_per_s, "pcie", assumed=True)
