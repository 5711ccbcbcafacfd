"""The catalog listings every surface shows: `gpu-sizer gpus` / `models`, the chat's `/gpus` and
`/models`, the MCP resources. Records (JSON-ready, bytes as integers), columns and rows; the
surfaces lay them out (`assistant.render.output`) or serialise them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from assistant.render.output import Column, Table
from tools.catalog import GpuSpec, ModelEntry
from tools.units import GB, ByteUnit, format_count, to_unit


def gpu_record(gpu: GpuSpec) -> dict[str, Any]:
    """A JSON-ready record of every catalog field (bytes and bytes/s as numbers, no units)."""
    return gpu.model_dump(mode="json")


def _number(value: float | None, digits: int = 0) -> str:
    return "" if value is None else f"{value:,.{digits}f}"


def _link(gpu: GpuSpec) -> str:
    if gpu.interconnect_bytes_per_s is None:
        return gpu.interconnect
    return f"{gpu.interconnect} {gpu.interconnect_bytes_per_s / GB:,.0f}"


def marketed_label(gpu: GpuSpec) -> str:
    """The capacity as the vendor labels it ('40 GB'): a product name, not a byte count.

    The catalog stores the label's number × 10^9 (`memory_bytes`); the part itself is built in
    binary units (an 'A100 40GB' holds 40 GiB), so converting the label to GiB (37.25) or
    setting it next to usable GB (42.57) reads as a contradiction. Shown as text instead.
    """
    return f"{gpu.memory_bytes / GB:,.0f} GB"


def gpu_columns(usable_unit: ByteUnit) -> tuple[Column, ...]:
    # GiB for memory (every gpu-sizer table); GB and GB/s only where the datasheet is quoted,
    # and labelled so. The most droppable column goes first when a terminal is narrow.
    return (
        Column("id"),
        Column("name", drop=2),
        Column("segment", drop=7),
        Column("marketed (datasheet)", numeric=True, drop=1),
        Column(f"usable {usable_unit}", numeric=True),
        Column("bandwidth GB/s (datasheet)", numeric=True, drop=3),
        Column("BF16 TFLOPS (dense)", numeric=True, drop=4),
        Column("FP8 TFLOPS (dense)", numeric=True, drop=6),
        Column("interconnect GB/s (one direction)", drop=8),
        Column("TDP W", numeric=True, drop=9),
        Column("as_of", drop=5),
    )


def gpu_row(gpu: GpuSpec, usable_unit: ByteUnit) -> list[str]:
    # One unit per table (GB and GiB are never mixed): usable memory in GiB by default; the
    # marketed label is the datasheet's text, no unit conversion.
    return [
        gpu.id,
        gpu.name,
        gpu.segment,
        marketed_label(gpu),
        _number(to_unit(gpu.usable_memory_bytes, usable_unit), 2),
        _number(gpu.memory_bandwidth_bytes_per_s / GB),
        _number(gpu.bf16_tflops, 1),
        _number(gpu.fp8_tflops, 1),
        _link(gpu),
        _number(gpu.tdp_w),
        gpu.as_of,
    ]


UNITS_NOTE = (
    "marketed is the vendor's label as the datasheet prints it (GB = 10^9 bytes), not a byte "
    "count: memory is built in binary units, so a part labelled 'N GB' carries N GiB (2^30 "
    "bytes) of chips. usable is what one process can allocate: the chips less what the driver, "
    "firmware and ECC keep, so it sits just under N GiB — and above N GB, which is why usable "
    "can read larger than the label. For unified-memory machines, usable is the GPU's default "
    "share of the RAM (macOS working-set limit). Throughputs are the datasheet's, dense (no "
    "sparsity); blank = not published."
)
"""What the columns mean, printed under the table (the chat's /gpus shows the same)."""


def usable_example(gpus: Iterable[GpuSpec]) -> str:
    """One row's figures spelled out (the H100 SXM5 when listed), so the rule reads on data."""
    listed = list(gpus)
    gpu = next((g for g in listed if g.id == "h100-sxm"), listed[0] if listed else None)
    if gpu is None:
        return ""
    return (
        f"Example: {gpu.name} is marketed as {marketed_label(gpu)}; one process can allocate "
        f"{to_unit(gpu.usable_memory_bytes, 'GiB'):,.2f} GiB "
        f"({gpu.usable_memory_bytes:,} bytes)."
    )


def gpu_table(gpus: Iterable[GpuSpec], usable_unit: ByteUnit = "GiB") -> Table:
    """The GPU listing: the vendor's label as text, usable memory in `usable_unit` only."""
    return Table(gpu_columns(usable_unit), [gpu_row(g, usable_unit) for g in gpus])


def model_record(entry: ModelEntry) -> dict[str, Any]:
    """A JSON-ready record: catalog fields plus the computed parameter counts (integers)."""
    counts = entry.params
    return {
        "id": entry.id,
        "name": entry.name,
        "aliases": list(entry.aliases),
        "total_params": counts.total,
        "active_params": counts.active_per_token,
        "active_params_without_input_embedding": counts.active_per_token - counts.embedding,
        "embedding_params": counts.embedding,
        "lm_head_params": counts.lm_head,
        "vision_params": counts.vision,
        "text_only_params": counts.text_only,
        "mtp_params_on_disk": counts.mtp,
        "checkpoint_params": entry.checkpoint_params,
        "official_params": entry.official_params,
        "same_architecture_as": entry.same_architecture_as,
        "checkpoints": [c.model_dump(mode="json") for c in entry.checkpoints],
        "attention": entry.architecture.attention_kind,
        "max_context_tokens": entry.architecture.max_context,
        "checkpoint_format": entry.checkpoint_format,
        "architecture": entry.architecture.model_dump(mode="json"),
        "notes": entry.notes,
        "conflicts": entry.conflicts,
        "gaps": entry.gaps,
        "source": entry.source,
        "as_of": entry.as_of,
    }


def model_row(entry: ModelEntry) -> list[str]:
    counts = entry.params
    arch = entry.architecture
    moe = arch.moe
    return [
        entry.id,
        entry.name,
        format_count(counts.total),
        format_count(counts.active_per_token) if moe else "",
        f"{moe.num_experts}/{moe.experts_per_token}" if moe else "",
        arch.attention_kind,
        f"{arch.max_context:,}",
        entry.as_of,
    ]


MODEL_COLUMNS = (
    Column("id"),
    Column("name", drop=2),
    Column("params (computed)", numeric=True),
    Column("active/token", numeric=True),
    Column("experts/top-k", numeric=True, drop=3),
    Column("attention", drop=4),
    Column("max context (tokens)", numeric=True),
    Column("as_of", drop=1),
)
MODEL_HEADERS = tuple(c.header for c in MODEL_COLUMNS)


def model_table(entries: Iterable[ModelEntry]) -> Table:
    """The model listing: parameter counts computed from each architecture, with as_of."""
    return Table(MODEL_COLUMNS, [model_row(e) for e in entries])
