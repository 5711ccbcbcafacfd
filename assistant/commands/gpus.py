"""`gpu-sizer gpus`: list the GPU catalog with units in every column header."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable
from typing import Any

from assistant.commands._table import render_table
from tools.catalog import GpuSpec, get_catalog
from tools.hardware import NO_BF16_NOTE, gpu_limit
from tools.units import GB, ByteUnit, to_unit


def add_parser(subparsers: Any, help_text: str) -> None:
    """Register the `gpus` sub-command."""
    parser = subparsers.add_parser("gpus", help=help_text, description=help_text)
    parser.add_argument(
        "name",
        nargs="?",
        metavar="GPU",  # errors about it say "gpu: …"
        help="show one GPU in detail (id or alias, e.g. H100)",
    )
    parser.add_argument(
        "--unit",
        choices=("GB", "GiB"),
        default=None,
        help="unit of the usable-memory column (default GB, like the GB/s bandwidth column; "
        "GiB is what nvidia-smi and PyTorch report)",
    )
    parser.add_argument(
        "--all",
        action="store_true",
        help="also list every RAM configuration of the unified-memory machines (Apple silicon, "
        "DGX Spark, Strix Halo), each with its own GPU limit",
    )
    parser.add_argument("--json", action="store_true", help="print JSON (bytes as integers)")


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


def _headers(usable_unit: ByteUnit) -> tuple[str, ...]:
    return (
        "id",
        "name",
        "segment",
        "marketed as",
        f"usable {usable_unit}",
        "bandwidth GB/s",
        "BF16 TFLOPS (dense)",
        "FP8 TFLOPS (dense)",
        "interconnect GB/s (one direction)",
        "TDP W",
        "as_of",
    )


def _row(gpu: GpuSpec, usable_unit: ByteUnit) -> list[str]:
    # One unit per table (GB and GiB are never mixed): GB by default, matching the GB/s
    # bandwidth column; --unit GiB for nvidia-smi users. The marketed label is text, no unit.
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
    "GB = 10^9 bytes, GiB = 2^30 bytes. 'marketed as' is the vendor's label, not a byte count: "
    "memory is built in binary units, so a part labelled 'N GB' holds about N GiB and its "
    "usable GB can exceed N. Usable = what one process can allocate; for unified-memory "
    "machines, the GPU's default share of the RAM (macOS working-set limit). Throughputs are "
    "dense (no sparsity); blank = not published."
)
"""What the columns mean, printed under the table (the chat's /gpus can show the same)."""


def table(gpus: Iterable[GpuSpec], usable_unit: ByteUnit = "GB") -> str:
    """The GPU listing: the vendor's label as text, usable memory in `usable_unit` only."""
    rows = [_row(g, usable_unit) for g in gpus]
    return render_table(_headers(usable_unit), rows, right_align=(3, 4, 5, 6, 7, 9))


def _detail(gpu: GpuSpec) -> str:
    none = "not published"
    lines = [
        f"{gpu.name} ({gpu.id}), {gpu.vendor} {gpu.architecture}, form factor {gpu.form_factor}, "
        f"{gpu.segment}",
        f"  marketed as: {marketed_label(gpu)} {gpu.memory_type} (the vendor's label; memory "
        "is built in binary units, so usable GB can exceed it)",
        f"  usable: {gpu.usable_memory_bytes:,} bytes"
        f" = {to_unit(gpu.usable_memory_bytes, 'GB'):,.2f} GB"
        f" = {to_unit(gpu.usable_memory_bytes, 'GiB'):,.2f} GiB ({gpu.usable_memory_basis})",
        f"  memory bandwidth: {gpu.memory_bandwidth_bytes_per_s / GB:,.0f} GB/s",
    ]
    for label, value in (
        ("BF16", gpu.bf16_tflops),
        ("FP16", gpu.fp16_tflops),
        ("FP8", gpu.fp8_tflops),
        ("FP4", gpu.fp4_tflops),
    ):
        lines.append(f"  {label} dense: {none if value is None else f'{value:,.1f} TFLOPS'}")
    lines.append(f"  INT8 dense: {none if gpu.int8_tops is None else f'{gpu.int8_tops:,.1f} TOPS'}")
    lines.append(f"  TDP: {none if gpu.tdp_w is None else f'{gpu.tdp_w:,.0f} W'}")
    link = (
        none
        if gpu.interconnect_bytes_per_s is None
        else f"{gpu.interconnect_bytes_per_s / GB:,.0f} GB/s per GPU, one direction"
    )
    lines.append(f"  interconnect: {gpu.interconnect}, {link}")
    if gpu.pcie_gen is not None:
        lines.append(f"  PCIe: Gen{gpu.pcie_gen}")
    if gpu.gpus_per_node is not None:
        lines.append(f"  GPUs per node: {gpu.gpus_per_node}")
    if gpu.devices_per_package > 1:
        lines.append(
            f"  devices per board: {gpu.devices_per_package} (software sees each as a GPU; "
            "the figures above are per device)"
        )
    if not gpu.supports_bf16:
        lines.append("  " + NO_BF16_NOTE.format(gpu=gpu.name))
    if not gpu.recommend_by_default:
        lines.append("  recommender: sized when named, not a default candidate")
    lines.extend(_ram_lines(gpu))
    if gpu.aliases:
        lines.append(f"  aliases: {', '.join(gpu.aliases)}")
    for item in gpu.unconfirmed:
        lines.append(f"  unconfirmed: {item}")
    if gpu.notes:
        lines.append(f"  notes: {gpu.notes}")
    lines.append(f"  source: {gpu.source}")
    lines.append(f"  as_of: {gpu.as_of}")
    return "\n".join(lines)


def _ram_lines(gpu: GpuSpec) -> list[str]:
    """A unified-memory chip's RAM configurations with their GPU limits and how to raise them."""
    um = gpu.unified_memory
    if um is None:
        return []
    lines = [f"  GPU memory limit rule: {um.gpu_limit}"]
    for config in get_catalog().ram_configurations(gpu.id):
        ram = config.memory_bytes
        limit = gpu_limit(um.gpu_limit, ram)
        confirmed = "" if ram in um.ram_options_bytes else " (size not confirmed)"
        line = (
            f"  {ram / GB:,.0f} GB{confirmed} ({config.id}): GPU limit "
            f"{to_unit(limit.bytes, 'GiB'):,.2f} GiB"
        )
        if limit.raise_hint:
            line += f"; {limit.raise_hint}"
        lines.append(line)
    return lines


def run(args: argparse.Namespace) -> int:
    """List the GPUs (or one GPU with `name`). Unknown names raise ToolInputError."""
    catalog = get_catalog()
    if args.name:
        gpus = [catalog.gpu(args.name)]
    else:
        gpus = list(catalog.gpus.values()) if args.all else catalog.devices()
    if args.json:
        records = [gpu_record(g) for g in gpus]
        print(json.dumps(records[0] if args.name else records, indent=2))
        return 0
    if args.name:
        print(_detail(gpus[0]))
        return 0
    print(table(gpus, args.unit or "GB"))
    print("\n" + UNITS_NOTE + " `gpu-sizer gpus NAME` shows sources, notes and the basis.")
    return 0
