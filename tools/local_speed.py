"""Estimated single-stream decode speed of llama.cpp with some layers in system RAM.

Decoding one token reads every weight once (and the KV cache written so far): memory-bound on
both sides (llama.cpp token generation; the roofline of Williams et al. 2009). With partial
offload the GPU-resident layers are read at GPU memory bandwidth and the CPU-resident layers at
system-RAM bandwidth, one after the other, so the time per token is the sum of the two reads:

    t = bytes_on_gpu / gpu_bandwidth + bytes_in_ram / ram_bandwidth

Both bandwidths are peak figures, so this is an upper bound on tokens/s, labelled "estimated":
no efficiency is fitted here (the calibrated performance model, tools/performance.py, owns
measured factors). MoE models read only the routed experts a token uses (top-k of n).
"""

from __future__ import annotations

from dataclasses import dataclass

from tools.memory.overhead import SourcedConstant

DEFAULT_RAM_BANDWIDTH = SourcedConstant(
    "ram_bandwidth_bytes_per_s",
    2 * 8 * 5600e6,
    "bytes per second",
    "dual-channel DDR5-5600 (JEDEC JESD79-5 speed bin): 5,600 MT/s × 8 bytes per 64-bit "
    "channel × 2 channels = 89.6 GB/s peak, a common desktop; set ram_bandwidth_gb_s for yours",
)


@dataclass(frozen=True)
class DecodeEstimate:
    """Estimated decode speed and what bounds it."""

    tokens_per_s: float
    gpu_seconds_per_token: float
    ram_seconds_per_token: float
    basis: str

    @property
    def ram_bound(self) -> bool:
        """True when reading the RAM-resident part takes longer than the GPU part."""
        return self.ram_seconds_per_token > self.gpu_seconds_per_token


def decode_estimate(
    gpu_bytes_read: float,
    ram_bytes_read: float,
    gpu_bandwidth_bytes_per_s: float | None,
    ram_bandwidth_bytes_per_s: float,
) -> DecodeEstimate | None:
    """Tokens/s for one sequence reading `gpu_bytes_read` from GPU memory and
    `ram_bytes_read` from system RAM per token (bytes); None when a needed bandwidth is
    unknown (a GPU given only by its memory size, with layers on it)."""
    gpu_s = 0.0
    if gpu_bytes_read > 0:
        if not gpu_bandwidth_bytes_per_s:
            return None
        gpu_s = gpu_bytes_read / gpu_bandwidth_bytes_per_s
    ram_s = ram_bytes_read / ram_bandwidth_bytes_per_s if ram_bytes_read > 0 else 0.0
    total = gpu_s + ram_s
    if total <= 0:
        return None
    basis = (
        "estimated (memory-bound upper bound, no fitted efficiency): "
        f"{gpu_bytes_read / 1e9:.2f} GB per token from GPU memory"
        + (f" at {gpu_bandwidth_bytes_per_s / 1e9:g} GB/s" if gpu_bandwidth_bytes_per_s else "")
        + f" + {ram_bytes_read / 1e9:.2f} GB from system RAM at "
        f"{ram_bandwidth_bytes_per_s / 1e9:g} GB/s"
    )
    return DecodeEstimate(1 / total, gpu_s, ram_s, basis)
