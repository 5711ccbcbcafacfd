"""The machine a local plan runs on: a catalog GPU or one given by its memory, and, for a
unified-memory machine (Apple silicon, DGX Spark, Strix Halo), the share of its RAM the GPU may
use and what GPU and CPU parts together may use. Bytes throughout.
"""

from __future__ import annotations

from dataclasses import dataclass

from tools.catalog import GpuSpec, get_catalog
from tools.errors import ToolInputError
from tools.hardware import OS_RESERVE_BYTES, GpuLimit, gpu_limit, ram_gib
from tools.local_serving.request import LocalServingRequest
from tools.units import GB, GiB, format_bytes


@dataclass(frozen=True)
class Machine:
    """The GPU a plan is sized on."""

    spec: GpuSpec | None
    """The catalog GPU; None for one given by its memory."""
    label: str
    """The GPU as named (catalog name or the user's words)."""
    usable_bytes: int
    """Memory llama.cpp may use per GPU (a unified-memory machine's GPU limit)."""
    bandwidth_bytes_per_s: float | None
    stated: bool
    """Sized on the memory the user gave (not in the catalog)."""
    limit: GpuLimit | None
    """A unified-memory machine's GPU limit; None for a discrete GPU."""
    ram_sold_bytes: int
    """A unified-memory machine's RAM as sold ('N GB')."""

    @property
    def unified(self) -> bool:
        """Whether GPU and CPU share one memory."""
        return self.limit is not None


def machine_of(req: LocalServingRequest) -> Machine:
    """The machine `req` names, its unified-memory limit by the catalog's rule (or the one
    said of a machine given by its RAM). Raises ToolInputError without a GPU, or for unified
    memory that leaves the model nothing after what the OS keeps."""
    spec, label, usable, bandwidth, stated = _gpu(req)
    rule = req.gpu_unified_memory if spec is None else None
    if spec is not None and spec.unified_memory is not None:
        rule = spec.unified_memory.gpu_limit
    ram_sold = round((req.gpu_memory_gb or 0) * GB) if spec is None else spec.memory_bytes
    limit = None if rule is None else gpu_limit(rule, ram_sold)
    if limit is not None and limit.bytes <= 0:
        # A coherent machine keeps OS_RESERVE_BYTES for the OS: RAM at or below that leaves
        # the model nothing (never a negative budget).
        raise ToolInputError(
            "gpu_memory_gb",
            f"{ram_sold / GB:g} GB of unified memory leaves no memory for the model after the "
            f"{OS_RESERVE_BYTES // GiB} GiB the operating system keeps",
            f"more than {OS_RESERVE_BYTES // GiB} GB of RAM (as sold: N GB is N GiB of DRAM)",
        )
    if spec is None and limit is not None:
        usable = limit.bytes  # the memory given is the machine's RAM: the GPU gets its share
    return Machine(spec, label, usable, bandwidth, stated, limit, ram_sold)


def _gpu(req: LocalServingRequest) -> tuple[GpuSpec | None, str, int, float | None, bool]:
    """(catalog spec, label, usable bytes per GPU, bandwidth, memory stated by the user)."""
    if req.gpu is not None:
        spec = get_catalog().gpu(req.gpu)
        return (
            spec,
            spec.name,
            spec.usable_memory_bytes,
            spec.memory_bandwidth_bytes_per_s,
            False,
        )
    if req.gpu_memory_gb is None:
        raise ToolInputError(
            "gpu", "give the GPU: a catalog id, or gpu_memory_gb for one not in the catalog"
        )
    label = req.gpu_name or f"GPU with {req.gpu_memory_gb:g} GB"
    bandwidth = None if req.gpu_bandwidth_gb_s is None else req.gpu_bandwidth_gb_s * GB
    return None, label, round(req.gpu_memory_gb * GB), bandwidth, True


def unified_ram(
    limit: GpuLimit, ram_sold: int, notes: list[str], fits_fully: bool
) -> tuple[int, int]:
    """(the machine's RAM, what GPU and CPU parts together may use) of a unified-memory
    machine sold with `ram_sold` bytes ('N GB'), with the note that says how it was sized."""
    ram = round(ram_gib(ram_sold) * GiB)  # 'N GB' of unified memory is N GiB
    room = ram - OS_RESERVE_BYTES
    raise_hint = f"; {limit.raise_hint}" if limit.raise_hint and not fits_fully else ""
    notes.append(
        f"Unified memory: no separate VRAM. The GPU may use {format_bytes(limit.bytes, 'GiB')} "
        f"({limit.basis}){raise_hint}; the layers llama.cpp keeps off the GPU run on the CPU "
        f"from the same {format_bytes(ram, 'GiB')} at the same peak bandwidth (the CPU cores "
        "reach less of it than the GPU, so the estimate is an upper bound), and GPU and CPU "
        f"parts together must fit the RAM less {OS_RESERVE_BYTES // GiB} GiB for the OS."
    )
    return ram, room
