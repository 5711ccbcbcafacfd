"""Single-stream decode speed of llama.cpp with some layers in system RAM.

Decoding one token reads every weight once (and the KV cache written so far): memory-bound on
both sides (llama.cpp token generation; the roofline of Williams et al. 2009). With partial
offload the GPU-resident layers are read by the GPU and the CPU-resident layers from system
RAM, one after the other, so the time per token is the sum of the two parts:

    t = t_gpu + bytes_in_ram / ram_bandwidth
    t_gpu = bytes_on_gpu / (stream bandwidth × η) + GPU layers × layer overhead + dequant

For a catalog GPU, t_gpu uses the performance model's llama.cpp constants for its class
(tools/performance: the bandwidth efficiency η, the per-layer step overhead and the vector-ALU
dequantisation of quantized weights, fitted on llama-bench measurements): *calibrated* when
those constants were fitted on that class, else *estimated*. A GPU known only by its bandwidth
is read at that peak (estimated, an upper bound). The RAM part is read at the RAM's peak
bandwidth (no CPU-side measurement calibrates it: estimated); on a unified-memory machine
(Apple silicon, DGX Spark, Strix Halo) the "RAM" is the same unified memory, so its bandwidth
is the chip's, not a desktop DDR5 figure. MoE models read only the routed experts a token
uses (top-k of n).
"""

from __future__ import annotations

from dataclasses import dataclass

from tools.catalog import GpuSpec
from tools.memory.overhead import SourcedConstant
from tools.performance.basis import SpeedBasis, weakest
from tools.performance.efficiency import dequantises, resolve
from tools.performance.hardware import stream_bandwidth

DEFAULT_RAM_BANDWIDTH = SourcedConstant(
    "ram_bandwidth_bytes_per_s",
    2 * 8 * 5600e6,
    "bytes per second",
    "dual-channel DDR5-5600 (JEDEC JESD79-5 speed bin): 5,600 MT/s × 8 bytes per 64-bit "
    "channel × 2 channels = 89.6 GB/s peak, a common desktop; set ram_bandwidth_gb_s for yours",
)

LLAMA_CPP = "llama.cpp"


def host_ram_bandwidth(gpu: GpuSpec | None) -> tuple[float, str]:
    """Bandwidth the CPU-resident layers are read at when the user gives none, bytes/s, and
    where it comes from: a unified-memory machine's own memory, else a desktop DDR5 default."""
    if gpu is not None and gpu.unified_memory is not None:
        return (
            gpu.memory_bandwidth_bytes_per_s,
            f"{gpu.name}'s unified memory ({gpu.memory_bandwidth_bytes_per_s / 1e9:g} GB/s, "
            f"catalog, as of {gpu.as_of}): the CPU reads the layers left off the GPU from it",
        )
    return DEFAULT_RAM_BANDWIDTH.value, DEFAULT_RAM_BANDWIDTH.source


@dataclass(frozen=True)
class DecodeEstimate:
    """Decode speed, what bounds it, and how far to trust it."""

    tokens_per_s: float
    gpu_seconds_per_token: float
    ram_seconds_per_token: float
    basis: str
    label: SpeedBasis = "estimated"

    @property
    def ram_bound(self) -> bool:
        """True when reading the RAM-resident part takes longer than the GPU part."""
        return self.ram_seconds_per_token > self.gpu_seconds_per_token


def _gpu_seconds(
    gpu: GpuSpec,
    weight_format: str,
    weight_bytes: float,
    kv_bytes: float,
    layers: int,
    engine: str = LLAMA_CPP,
) -> tuple[float, SpeedBasis, str]:
    eff = resolve(gpu, weight_format, engine)
    peak = stream_bandwidth(gpu)
    seconds = weight_bytes / (peak * eff.bandwidth_eff) + kv_bytes / (peak * eff.kv_bandwidth)
    seconds += layers * eff.layer_overhead_s + eff.step_overhead_s
    if dequantises(eff.kernel, gpu, eff.engine_family):
        seconds += eff.dequant_s(weight_bytes)
    how = (
        f"llama.cpp on {gpu.name}: {eff.bandwidth_eff:.0%} of {peak / 1e9:g} GB/s, "
        f"{eff.layer_overhead_s * 1e6:.0f} µs per layer"
        + (f" + {eff.step_overhead_s * 1e3:.2f} ms per token" if eff.step_overhead_s else "")
    )
    return seconds, eff.decode_basis, how


def decode_estimate(
    gpu_bytes_read: float,
    ram_bytes_read: float,
    gpu_bandwidth_bytes_per_s: float | None,
    ram_bandwidth_bytes_per_s: float,
    *,
    gpu: GpuSpec | None = None,
    weight_format: str | None = None,
    gpu_layers: int = 0,
    gpu_kv_bytes_read: float = 0.0,
    ram_label: str = "system RAM",
    engine: str = LLAMA_CPP,
) -> DecodeEstimate | None:
    """Tokens/s for one sequence reading `gpu_bytes_read` from GPU memory (of which
    `gpu_kv_bytes_read` KV cache) and `ram_bytes_read` from system RAM per token (bytes); None
    when a needed bandwidth is unknown (a GPU given only by its memory size, with layers on
    it). `gpu` and `weight_format`: the catalog GPU and format, for the calibrated llama.cpp
    constants of its class; `gpu_layers`: the transformer layers on the GPU (each a step of
    kernel launches); `ram_label`: what the off-GPU part is read from (a unified-memory
    machine's own memory); `engine`: llama.cpp, with its build era where one was named
    (`tools.performance.engines.with_build_era`)."""
    gpu_s = 0.0
    label: SpeedBasis = "estimated"
    gpu_how = ""
    if gpu_bytes_read > 0:
        if gpu is not None and weight_format is not None:
            weights = max(0.0, gpu_bytes_read - gpu_kv_bytes_read)
            gpu_s, label, gpu_how = _gpu_seconds(
                gpu, weight_format, weights, gpu_kv_bytes_read, gpu_layers, engine
            )
        elif not gpu_bandwidth_bytes_per_s:
            return None
        else:
            gpu_s = gpu_bytes_read / gpu_bandwidth_bytes_per_s
            gpu_how = f"at the peak {gpu_bandwidth_bytes_per_s / 1e9:g} GB/s (no calibration)"
    ram_s = ram_bytes_read / ram_bandwidth_bytes_per_s if ram_bytes_read > 0 else 0.0
    if ram_s > 0:
        label = weakest(label, "estimated")
    total = gpu_s + ram_s
    if total <= 0:
        return None
    parts = [f"{gpu_bytes_read / 1e9:.2f} GB per token from GPU memory ({gpu_how})"]
    if ram_bytes_read > 0:
        parts.append(
            f"{ram_bytes_read / 1e9:.2f} GB from {ram_label} at "
            f"{ram_bandwidth_bytes_per_s / 1e9:g} GB/s (its peak; estimated: an upper bound)"
        )
    why = (
        "performance model's llama.cpp constants for this GPU class, fitted on published "
        "llama-bench rows"
        if label == "calibrated"
        else "memory-bound estimate"
    )
    basis = f"{label} ({why}): " + " + ".join(parts)
    return DecodeEstimate(1 / total, gpu_s, ram_s, basis, label)
