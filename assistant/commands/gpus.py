"""`gpu-sizer gpus`: list the GPU catalog with units in every column header."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable
from typing import Any

from assistant.cli_examples import help_with_examples
from assistant.render.catalog import (
    UNITS_NOTE,
    gpu_record,
    gpu_table,
    marketed_label,
    usable_example,
)
from assistant.render.output import (
    Document,
    add_format_options,
    emit,
    output_format,
    plain_text,
    text_lines,
)
from tools.catalog import GpuSpec, get_catalog
from tools.hardware import NO_BF16_NOTE, gpu_limit
from tools.units import GB, ByteUnit, to_unit


def add_parser(subparsers: Any, help_text: str) -> None:
    """Register the `gpus` sub-command."""
    parser = subparsers.add_parser(
        "gpus", help=help_text, description=help_text, **help_with_examples("gpus")
    )
    parser.add_argument(
        "name",
        nargs="?",
        metavar="GPU",  # errors about it say "gpu: …"
        help="show one GPU in detail (id or alias, e.g. H100)",
    )
    parser.add_argument(
        "--unit",
        choices=("GiB", "GB"),
        default=None,
        help="unit of the usable-memory column (default GiB = 2^30 bytes, what nvidia-smi and "
        "PyTorch report and every gpu-sizer table uses)",
    )
    parser.add_argument(
        "--all",
        action="store_true",
        help="also list every RAM configuration of the unified-memory machines (Apple silicon, "
        "DGX Spark, Strix Halo), each with its own GPU limit",
    )
    add_format_options(parser, "print JSON (bytes as integers)")


def table(gpus: Iterable[GpuSpec], usable_unit: ByteUnit = "GiB") -> str:
    """The GPU listing as aligned plain text (the chat's /gpus shows it preformatted)."""
    return plain_text(Document([gpu_table(gpus, usable_unit)])).rstrip("\n")


def _detail(gpu: GpuSpec) -> str:
    none = "not published"
    lines = [
        f"{gpu.name} ({gpu.id}), {gpu.vendor} {gpu.architecture}, form factor {gpu.form_factor}, "
        f"{gpu.segment}",
        f"  marketed as: {marketed_label(gpu)} {gpu.memory_type} (the datasheet's label, GB = "
        "10^9 bytes; the chips are built in binary units, so a part labelled N GB carries N GiB)",
        f"  usable: {to_unit(gpu.usable_memory_bytes, 'GiB'):,.2f} GiB "
        f"({gpu.usable_memory_bytes:,} bytes; what one process can allocate, the chips less what "
        f"the driver and firmware keep): {gpu.usable_memory_basis}",
        f"  memory bandwidth: {gpu.memory_bandwidth_bytes_per_s / GB:,.0f} GB/s (datasheet)",
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
    unit: ByteUnit = args.unit or "GiB"
    if output_format(args) == "json":
        records = [gpu_record(g) for g in gpus]
        print(json.dumps(records[0] if args.name else records, indent=2))
        return 0
    data = gpu_table(gpus, unit)
    if args.name:
        doc = Document(text_lines(_detail(gpus[0])), data=data)
    else:
        doc = Document([data], data=data)
        doc.line(UNITS_NOTE, style="dim").line(usable_example(gpus), style="dim")
        doc.line("`gpu-sizer gpus NAME` shows one GPU's sources, notes and usable-memory basis.")
    emit(doc, args)
    return 0
