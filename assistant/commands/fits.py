"""`gpu-sizer fits`: the catalog models that run on hardware the user has (issue 29), grouped by
size class, each in the best GGUF type that keeps every layer on the GPU, with its longest
context and estimated decode speed. Flags are generated from `tools.fits.FitsRequest`;
`--json` prints the `FitsResult` (bytes as integers).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from assistant.cli_examples import help_with_examples
from assistant.commands._flags import CommandFlags, request
from assistant.commands._progress import working
from assistant.render.output import (
    Blank,
    Column,
    Document,
    Line,
    Table,
    add_format_options,
    emit,
    output_format,
)
from tools.fits import FitsRequest, FitsResult, fits_on_hardware
from tools.units import format_count, to_unit


def add_parser(subparsers: Any, help_text: str) -> argparse.ArgumentParser:
    """Register `fits`: one flag per FitsRequest field (assistant/commands/_flags.py)."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "fits",
        help=help_text,
        description="Which catalog models run on your GPU(s) or Mac with every layer on the "
        "GPU: the best GGUF type that fits (Q8_0 … Q2_K), the longest context, the estimated "
        "decode speed and the Ollama tag, grouped by size class.",
        **help_with_examples("fits"),
    )
    CommandFlags(p).add(FitsRequest)
    add_format_options(p, "print the FitsResult as JSON (bytes as integers)")
    return p


def fits_document(result: FitsResult) -> Document:
    """The lead line, then one table per size class."""
    count = f"{result.gpus}× " if result.gpus > 1 else ""
    doc = Document()
    doc.add(
        Line(
            f"{result.listed} catalog models run on {count}{result.hardware} with every layer "
            f"on the GPU ({to_unit(result.budget_bytes, 'GiB'):,.1f} GiB), at "
            f"{result.context_per_slot:,} tokens, ranked by {result.rank_by}.",
            lead="Fits:",
        )
    )
    columns = [
        Column("model"),
        Column("parameters", numeric=True, drop=3),
        Column("format"),
        Column("GPU memory (GiB)", numeric=True),
        Column("longest context (tokens)", numeric=True, drop=2),
        Column("decode (tokens/s)", numeric=True),
        Column("speed basis", drop=4),
        Column("Ollama / file", drop=1),
    ]
    every: list[list[str]] = []
    for group in result.groups:
        rows = [
            [
                m.model_name,
                format_count(m.params),
                m.weights_format.upper(),
                f"{to_unit(m.gpu_bytes, 'GiB'):,.1f}",
                "" if m.longest_context_tokens is None else f"{m.longest_context_tokens:,}",
                "" if m.decode_tokens_per_s is None else f"{m.decode_tokens_per_s:,.0f}",
                m.decode_label or "",
                m.ollama_reference,
            ]
            for m in group.models
        ]
        every += rows
        doc.add(Blank(), Table(columns, rows, title=group.name))
    if result.left_out:
        doc.add(Blank(), Line(f"{result.left_out} more fit: raise --limit to list them."))
    for note in result.assumptions:
        doc.add(Blank(), Line(note, lead="note:"))
    doc.data = Table(columns, every)
    return doc


def run(args: argparse.Namespace) -> int:
    """Validate, list, print. Bad input raises ToolInputError naming the flag."""
    req = request(FitsRequest, args)
    with working("planning every catalog model on this hardware"):
        result = fits_on_hardware(req)
    if output_format(args) == "json":
        print(json.dumps(result.model_dump(mode="json"), indent=2))
        return 0
    emit(fits_document(result), args)
    return 0
