"""The efficiencies one setup runs at: calibrated constants looked up for its engine family,
GPU class and kernel family, with the published defaults where no constant exists.

Defaults (figures labelled *estimated*):
- bandwidth efficiency 0.727: gpt-fast (pytorch-labs/gpt-fast README, "Tensor Parallelism"):
  Llama-2-70B bf16 on 2× A100-80GB reached 1,481.87 of the 2,039 GB/s datasheet;
- GEMM MFU 0.40: Llama 3 paper (Dubey et al. 2024, Table 4): 38–43% BF16 MFU on H100;
- all-reduce latency: NCCL's ring/LL latency model, base 6.6 µs + 0.6 µs (NVLink) / 1.0 µs
  (PCIe) / 2.7 µs (network) per hop (NVIDIA/nccl src/graph/tuning.cc baseLat, hwLat);
- no per-layer launch overhead, and MoE expert GEMMs at the dense efficiency.

Decode bandwidth efficiency is a property of the engine's kernels on a memory system, not of the
weight format: one η per engine family × GPU class for every format. What a weight-only format
adds is its dequantisation: each stored byte is unpacked, converted and scaled on the vector
ALUs before the FMAs, `dequant_flops_per_byte` (per kernel family, shared by every GPU) ×
bytes / datasheet FP32 FLOP/s. That term is what makes an A100 (19.5 TFLOPS FP32 for 2.0 TB/s:
~10 FLOP per byte) lose more to int4 than an RTX 4090 (82.6 for 1.0 TB/s: ~82). GPUs without a
published FP32 figure (Apple) keep a per-format η instead.

MoE expert GEMMs at full load: each expert multiplies only the T·k/E tokens routed to it
(grouped GEMMs with few rows, plus the routing permutations), so they reach a smaller share of
peak than dense GEMMs; `moe_gemm_eff` is that ratio, calibrated on full-load MoE rows. (A
saturating T_e / (T_e + T_half) in tokens per expert fitted the two MLPerf Mixtral rows worse:
−18% / +14% against ±6%.)
"""

from __future__ import annotations

from dataclasses import dataclass

from tools.catalog import GpuSpec
from tools.performance.basis import SpeedBasis
from tools.performance.calibration import Calibration, Constant, calibration, keys_from
from tools.performance.engines import (
    EngineFamily,
    KernelFamily,
    build_era,
    engine_family,
    kernel_family,
    llama_backend,
)
from tools.performance.hardware import (
    Accumulate,
    LinkKind,
    apple_chip,
    apple_core_rate_keys,
    gpu_class,
    gpu_link,
    vector_flops,
)

DECODE_BANDWIDTH_EFF = 1481.87 / 2039.0
PEAK_COPY_BANDWIDTH_EFF = 1700.0 / 2039.0  # gpt-fast README note; an upper bound, for checks
DEFAULT_GEMM_MFU = 0.40
NCCL_RING_BASE_LATENCY_S = 6.6e-6
NCCL_HOP_LATENCY_S: dict[LinkKind, float] = {"nvlink": 0.6e-6, "pcie": 1.0e-6, "network": 2.7e-6}


@dataclass(frozen=True)
class Efficiencies:
    """The constants one (engine, GPU, weight format) setup runs at, and how they were found."""

    engine_family: EngineFamily
    kernel: KernelFamily
    gpu_class: str
    bandwidth_eff: float
    layer_overhead_s: float
    allreduce_base_s: float
    allreduce_per_gpu_s: float
    gemm_mfu: float
    moe_gemm_eff: float
    accumulate: Accumulate
    decode_basis: SpeedBasis
    prefill_basis: SpeedBasis
    constants: tuple[Constant, ...]
    kv_bandwidth_eff: float | None = None
    """Bandwidth share of the attention kernels reading the KV cache: the 16-bit efficiency
    of the class (the KV cache is not in the weights' format); None: `bandwidth_eff`."""
    dequant_flops_per_byte: float = 0.0
    """Vector-ALU FLOPs a weight-only kernel spends per stored weight byte (0: none, 16-bit and
    W8A8/FP4 tensor-core formats, or a GPU without an FP32 figure)."""
    vector_flops_per_s: float | None = None
    """The GPU's datasheet FP32 rate the dequantisation runs at, FLOP/s."""
    pcie_allreduce_base_s: float | None = None
    pcie_allreduce_per_gpu_s: float | None = None
    """All-reduce latency over PCIe, for groups larger than a 2-way bridge joins."""
    step_overhead_s: float = 0.0
    """Host time per engine step whatever the model's depth (llama.cpp builds its ggml graph
    and samples on the CPU every token); 0 where no constant was fitted."""

    @property
    def kv_bandwidth(self) -> float:
        """The KV read's bandwidth share."""
        return self.kv_bandwidth_eff if self.kv_bandwidth_eff is not None else self.bandwidth_eff

    def dequant_s(self, quantized_bytes: float) -> float:
        """Vector-ALU time to dequantise `quantized_bytes` of weights, seconds."""
        if not self.dequant_flops_per_byte or not self.vector_flops_per_s:
            return 0.0
        return quantized_bytes * self.dequant_flops_per_byte / self.vector_flops_per_s

    def allreduce_latency_s(self, tp: int, kind: LinkKind | None = None) -> float:
        """Latency of one all-reduce over `tp` GPUs (no payload), seconds; `kind`: the link
        the group actually uses (PCIe for a bridged card past two GPUs)."""
        if tp <= 1:
            return 0.0
        if kind == "pcie" and self.pcie_allreduce_base_s is not None:
            per = self.pcie_allreduce_per_gpu_s or 2 * NCCL_HOP_LATENCY_S["pcie"]
            return self.pcie_allreduce_base_s + per * (tp - 1)
        return self.allreduce_base_s + self.allreduce_per_gpu_s * (tp - 1)


DEQUANT_KERNELS = frozenset({"int8", "int4", "gguf"})
"""Kernel families that dequantise on the vector ALUs (weight-only formats); fp8 and mxfp4
too on GPUs without fp8 / fp4 tensor cores (Marlin-style W8A16 / W4A16 kernels)."""


def dequantises(kernel: str, gpu: GpuSpec, family: str | None = None) -> bool:
    """True when `kernel` runs weight-only on `gpu` (dequantising every weight it reads).
    llama.cpp's 16-bit decode kernels convert each F16 weight to F32 before the FMA on the
    vector ALUs (ggml-cuda dequantize_mul_mat_vec / mul_mat_vec with an F16 source), so for
    that family 16-bit weights pay the same kind of term."""
    if kernel == "16bit":
        return family == "llama.cpp"
    if kernel in DEQUANT_KERNELS:
        return True
    if kernel == "fp8":
        return gpu.fp8_tflops is None
    if kernel == "mxfp4":
        return gpu.fp4_tflops is None
    return False


def decode_keys(
    family: str,
    memory: str,
    generation: str,
    kernel: str,
    has_alu: bool = True,
    weight_format: str | None = None,
    chip: str | None = None,
    backend: str | None = None,
    era: str | None = None,
) -> list[str]:
    """Lookup keys of the bandwidth efficiency, most specific first: per engine family × GPU
    class for every format when the GPU has an FP32 figure (the dequantisation term carries the
    format), per weight format (then kernel family) as well when it has none: without the ALU
    rate, the share a format reaches stands in for its dequantisation (Q4_0 unpacks two weights
    per byte, Q8_0 one). A K-quant format (Q4_K_M, Q5_K_M, ...: 256-weight super-blocks with
    packed 6-bit scales, the most ALU work per byte of the GGUF formats) is keyed by the chip
    generation `chip` first: at 400 GB/s the M1 Max streams Q4_K_M at about 43% where the M3 Max
    reaches 62-80% (hardware.apple_chip). Other formats keep one constant per tier. A
    non-default llama.cpp `backend` (Vulkan) goes first (`backend_keys`). A K-quant row of an
    older llama.cpp build `era` (engines.LLAMA_CPP_K_QUANT_ERAS) is keyed by the era first, per
    tier then per memory class (`era_keys`); with no era a setup takes the newest builds' keys."""
    if has_alu or kernel == "16bit":
        keys = [f"{family}/{memory}/{generation}", f"{family}/{memory}", family, "any"]
        return backend_keys(family, memory, backend) + keys
    by_format = [] if weight_format is None else [f"{family}/{memory}/{generation}/{weight_format}"]
    by_chip = (
        [f"{by_format[0]}/{chip}"] if by_format and chip and is_k_quant(str(weight_format)) else []
    )
    return [
        *backend_keys(family, memory, backend),
        *era_keys(family, memory, generation, str(weight_format or ""), era),
        *by_chip,
        *by_format,
        f"{family}/{memory}/{generation}/{kernel}",
        f"{family}/{memory}/{generation}",
        f"{family}/{memory}/{kernel}",
        f"{family}/{memory}",
        # The kernel outlives the memory class: llama.cpp runs a GGUF prompt through its
        # quantized matmul path (MMQ, or dequantise-then-cuBLAS) and F16 through cuBLAS on every
        # CUDA GPU, and the same publication's same-GPU pairs put the quantized one at about
        # 0.75x the F16 share (XiongjieDai pp512: RTX 4090, H100 PCIe, A100 PCIe), so a class
        # with too few rows of its own takes its kernel's figure before the family's.
        f"{family}/{kernel}",
        family,
        "any",
    ]


def era_keys(
    family: str, memory: str, generation: str, weight_format: str, era: str | None
) -> list[str]:
    """The build era's own K-quant keys (`llama.cpp/apple/apple-max/k-quant@2023-24`, then
    `llama.cpp/apple/k-quant@2023-24`), none for other formats or without an era."""
    if era is None or not is_k_quant(weight_format):
        return []
    return [f"{family}/{memory}/{generation}/k-quant@{era}", f"{family}/{memory}/k-quant@{era}"]


CHIP_REFERENCE = "m2"
"""The Apple chip generation the tier constants are the bandwidth shares of: the one generation
with fit rows on every tier (base/Pro, Max, Ultra) and in four publications."""


def chip_keys(family: str, memory: str, chip: str | None) -> list[str]:
    """Lookup keys of the chip-generation term of an Apple chip under llama.cpp
    (`llama.cpp/apple/m1`): none for the reference generation (`CHIP_REFERENCE`), other
    engines or other GPUs. One generation's GPU cores reach a different share of the same
    datasheet bandwidth on every tier and format (llama.cpp discussion 4167, build 8e672ef:
    Llama 2 7B Q4_0 tg128 at 400 GB/s, M1 Max 61.2 tok/s against the M2 Max's 66.0; Q8_0 at
    800 GB/s, M1 Ultra 59.9 against the M2 Ultra's 62.1), so the term is added to 1/η of every
    setup of that generation."""
    if family != "llama.cpp" or memory != "apple" or chip is None or chip == CHIP_REFERENCE:
        return []
    return [f"{family}/{memory}/{chip}"]


def with_chip(eta: float, chip_term: float | None) -> float:
    """The bandwidth share `eta` with a chip generation's term (`chip_keys`) added to its
    inverse: the time per byte grows (or shrinks) by the term whatever the format."""
    return 1.0 / (1.0 / eta + (chip_term or 0.0))


def is_backend_key(key: str, backend: str | None) -> bool:
    """True for a key of `backend`'s own (`backend_keys`)."""
    return backend is not None and backend in key.split("/")


def backend_keys(family: str, memory: str, backend: str | None) -> list[str]:
    """The backend's own key, ahead of a setup's other keys: llama.cpp's Vulkan backend on one
    GPU memory class (`llama.cpp/nvidia-gddr/vulkan`) across generations. Its kernels and
    submission path differ from the default backend's (llama.cpp PR 21024, 2026: an RTX 3090
    decodes Llama 3 8B Q4_0 at 146.7 tok/s on Vulkan, more than its CUDA constants give), so it
    calibrates apart; with too few rows of its own a row falls back to the class's keys."""
    return [f"{family}/{memory}/{backend}"] if backend else []


def is_k_quant(weight_format: str) -> bool:
    """True for GGUF K-quant formats (q4_k_m, q5_k_s, q6_k, ...)."""
    return "_k" in weight_format.lower()


def dequant_keys(
    kernel: str,
    family: str | None = None,
    memory: str | None = None,
    backend: str | None = None,
) -> list[str]:
    """Lookup keys of the dequantisation FLOPs per byte: one per kernel family (llama.cpp's
    16-bit conversion under its own key), a non-default llama.cpp backend's own first: its
    shaders unpack the blocks their own way (Vulkan's integer-dot-product path for Q4_0/Q8_0,
    llama.cpp PR 14903)."""
    keys = [f"{family}/{kernel}"] if kernel == "16bit" else [kernel]
    own = [f"{key}/{kernel}" for key in backend_keys(str(family), str(memory), backend)]
    return own + keys


def overhead_keys(
    family: str, memory: str, generation: str, backend: str | None = None
) -> list[str]:
    """Lookup keys of the per-layer step overhead and the GEMM MFU, most specific first."""
    keys = [f"{family}/{memory}/{generation}", f"{family}/{memory}", family]
    return backend_keys(family, memory, backend) + keys


def step_keys(family: str, memory: str, backend: str | None = None) -> list[str]:
    """Lookup keys of the host time per step: per engine family and memory technology (the
    default backend: CUDA, Metal, ROCm each build and launch the graph differently), a
    non-default backend (Vulkan) first."""
    return [*backend_keys(family, memory, backend), f"{family}/{memory}", family]


def gemm_keys(
    family: str, memory: str, generation: str, kernel: str, backend: str | None = None
) -> list[str]:
    """Lookup keys of the GEMM MFU (prefill, batched steps), most specific first. The keys
    past the first name fewer dimensions; the catalog holds a pooled constant there only where
    two fitted 16-bit constants or more lie under it (bench/fit_performance.py
    `GEMM_POOL_MIN_CONSTANTS`, `low_precision`), so a lookup skips a dimension only where
    measurements span it: vLLM BF16 on an RTX 4090 does not get TensorRT-LLM's FP8 MFU on
    Hopper, and falls to `any` (the 16-bit constants of every class pooled), estimated. Past
    the memory class the kernel is kept one level longer (`{family}/{kernel}`) than the
    family."""
    return [
        *backend_keys(family, memory, backend),
        f"{family}/{memory}/{generation}/{kernel}",
        f"{family}/{memory}/{generation}",
        f"{family}/{memory}/{kernel}",
        f"{family}/{memory}",
        # The kernel outlives the memory class: llama.cpp runs a GGUF prompt through its
        # quantized matmul path (MMQ, or dequantise-then-cuBLAS) and F16 through cuBLAS on every
        # CUDA GPU, and the same publication's same-GPU pairs put the quantized one at about
        # 0.75x the F16 share (XiongjieDai pp512: RTX 4090, H100 PCIe, A100 PCIe), so a class
        # with too few rows of its own takes its kernel's figure before the family's.
        f"{family}/{kernel}",
        family,
        "any",
    ]


def _own_class(c: Constant | None, family: str, memory: str, backend: str | None = None) -> bool:
    """True for a constant fitted on rows of this engine family and GPU memory class (or pooled
    from constants of that class only: its key names both); the class is what a figure's
    *calibrated* label promises, the architecture generation refines it where rows allow. A
    non-default llama.cpp backend's figure is calibrated only on that backend's own constant
    (`backend_keys`): the default backend's rows say little about its kernels."""
    own = backend_keys(family, memory, backend) or [f"{family}/{memory}"]
    return c is not None and c.key.startswith(own[0])


def accumulate_for(family: EngineFamily) -> Accumulate:
    """llama.cpp's cuBLAS path accumulates 16-bit matmuls in FP16 (CUBLAS_COMPUTE_16F, ggml-cuda
    ggml_cuda_op_mul_mat_cublas); vLLM/TensorRT-LLM and PyTorch accumulate in FP32."""
    return "fp16" if family == "llama.cpp" else "fp32"


def resolve(
    gpu: GpuSpec, weight_format: str, engine: str | None, cal: Calibration | None = None
) -> Efficiencies:
    """The efficiencies of `engine` running `weight_format` on `gpu` (cached per setup when the
    catalog calibration is used)."""
    fmt, name = weight_format.lower(), (engine or "vllm").lower()
    if cal is not None:
        return _resolve(gpu, fmt, name, cal)
    key = (gpu.id, gpu.memory_bandwidth_bytes_per_s, fmt, name)
    found = _RESOLVED.get(key)
    if found is None:
        found = _RESOLVED[key] = _resolve(gpu, fmt, name, calibration())
    return found


# Resolved setups for the catalog calibration, keyed by GPU id (and bandwidth, so a user GPU
# spec reusing an id is not confused with the catalog's), format and engine: hashing a whole
# GpuSpec per step costs more than the step.
_RESOLVED: dict[tuple[str, float, str, str], Efficiencies] = {}


def _value(constant: Constant | None, default: float) -> float:
    """A calibrated constant's value, else the published default."""
    return default if constant is None else constant.value


def _prefill_basis(
    gemm: Constant | None,
    apple_rate: Constant | None,
    family: EngineFamily,
    mem: str,
    backend: str | None = None,
) -> SpeedBasis:
    """Prefill is calibrated when its GEMM efficiency was fitted on this GPU class (on Apple
    chips: the chip's own effective FLOP/s per core, under llama.cpp)."""
    if mem == "apple":
        own = apple_rate is not None and apple_rate.key != "any" and family == "llama.cpp"
        return "calibrated" if own else "estimated"
    return "calibrated" if _own_class(gemm, family, mem, backend) else "estimated"


def _resolve(gpu: GpuSpec, weight_format: str, engine: str, cal: Calibration) -> Efficiencies:
    family = engine_family(engine)
    backend = llama_backend(engine)
    era = build_era(engine)
    kernel = kernel_family(weight_format)
    cls = gpu_class(gpu)
    mem, gen = cls.memory, cls.generation
    alu = vector_flops(gpu)
    chip = apple_chip(gpu)
    bw = cal.lookup(
        "decode_bandwidth",
        decode_keys(family, mem, gen, kernel, alu is not None, weight_format, chip, backend, era),
    )
    kv_bw = cal.lookup("decode_bandwidth", decode_keys(family, mem, gen, "16bit", backend=backend))
    chip_term = cal.lookup("chip_bandwidth", chip_keys(family, mem, chip))
    delta = None if chip_term is None else chip_term.value
    overhead = cal.lookup("layer_overhead", overhead_keys(family, mem, gen, backend))
    step = cal.lookup("step_overhead", step_keys(family, mem, backend))
    dq = None
    if alu is not None and dequantises(kernel, gpu, family):
        dq = cal.lookup("dequant", dequant_keys(kernel, family, mem, backend))
    link = gpu_link(gpu).kind
    ar_base = cal.lookup("allreduce_base", keys_from([[link, "any"]]))
    ar_gpu = cal.lookup("allreduce_per_gpu", keys_from([[link, "any"]]))
    pcie_base = cal.lookup("allreduce_base", ["pcie", "any"])
    pcie_gpu = cal.lookup("allreduce_per_gpu", ["pcie", "any"])
    gemm = cal.lookup("gemm_mfu", gemm_keys(family, mem, gen, kernel, backend))
    apple_rate = None
    if mem == "apple":
        # The chip's rate is already the effective one (hardware.apple_compute_rate): no MFU.
        apple_rate = cal.lookup("apple_core_flops", apple_core_rate_keys(gpu))
        gemm = None
    moe = cal.lookup("moe_gemm", ["any"])
    used = tuple(
        c
        for c in (bw, chip_term, overhead, step, dq, ar_base, ar_gpu, gemm, moe, apple_rate)
        if c is not None
    )
    # Decode is calibrated when its bandwidth and per-layer constants were fitted on this GPU
    # class (and the dequantisation cost too, where the kernel dequantises).
    dequant_known = dq is not None or alu is None or not dequantises(kernel, gpu, family)
    decode_own = _own_class(bw, family, mem, backend) and _own_class(overhead, family, mem, backend)
    decode_basis: SpeedBasis = "calibrated" if decode_own and dequant_known else "estimated"
    prefill_basis = _prefill_basis(gemm, apple_rate, family, mem, backend)
    return Efficiencies(
        engine_family=family,
        kernel=kernel,
        gpu_class=f"{mem}/{gen}",
        bandwidth_eff=with_chip(_value(bw, DECODE_BANDWIDTH_EFF), delta),
        layer_overhead_s=_value(overhead, 0.0),
        allreduce_base_s=_value(ar_base, NCCL_RING_BASE_LATENCY_S),
        allreduce_per_gpu_s=_value(ar_gpu, 2 * NCCL_HOP_LATENCY_S[link]),
        gemm_mfu=1.0 if mem == "apple" else _value(gemm, DEFAULT_GEMM_MFU),
        moe_gemm_eff=_value(moe, 1.0),
        accumulate=accumulate_for(family),
        decode_basis=decode_basis,
        prefill_basis=prefill_basis,
        constants=used,
        kv_bandwidth_eff=None if kv_bw is None else with_chip(kv_bw.value, delta),
        dequant_flops_per_byte=_value(dq, 0.0),
        step_overhead_s=_value(step, 0.0),
        vector_flops_per_s=alu,
        pcie_allreduce_base_s=_value(pcie_base, NCCL_RING_BASE_LATENCY_S),
        pcie_allreduce_per_gpu_s=_value(pcie_gpu, 2 * NCCL_HOP_LATENCY_S["pcie"]),
    )
