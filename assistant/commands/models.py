"""`gpu-sizer models`: list the model catalog, parameter counts computed from each architecture.

MoE active counts are shown in two conventions because publishers differ: ours counts every
parameter a token touches, the input embedding included; some publishers leave the embedding
out (a row lookup, no matmul; gpt-oss's "5.1B active" is our count minus its input embedding).
"""

from __future__ import annotations

import argparse
import json
import math
import re
from typing import Any

from assistant.cli_examples import help_with_examples
from assistant.render.catalog import model_record, model_table
from assistant.render.output import (
    Document,
    add_format_options,
    emit,
    output_format,
    text_lines,
)
from tools.catalog import ModelEntry, get_catalog
from tools.memory.kv_cache import kv_cache_bytes_per_token


def add_parser(subparsers: Any, help_text: str) -> None:
    """Register the `models` sub-command."""
    parser = subparsers.add_parser(
        "models", help=help_text, description=help_text, **help_with_examples("models")
    )
    parser.add_argument(
        "name",
        nargs="?",
        metavar="MODEL",  # errors about it say "model: …"
        help="show one model in detail (id, alias or Hugging Face repo id)",
    )
    add_format_options(parser, "print JSON (counts as integers)")


_PUBLISHED_ACTIVE = re.compile(r"([0-9]+(?:\.[0-9]+)?)B (?:active|activated)")


def _states(published: str, count: int) -> bool:
    """Whether `published` ("5.1", in billions) is `count` rounded or truncated to the
    published precision (Qwen3-30B-A3B's "3.3B activated" truncates 3.35B)."""
    decimals = len(published.partition(".")[2])
    value, scale = count / 1e9, 10**decimals
    shown = {round(value, decimals), math.floor(value * scale) / scale}
    return float(published) in shown


def _publisher_active_convention(entry: ModelEntry) -> str:
    """Which of the two active counts the publisher's active figure agrees with."""
    match = _PUBLISHED_ACTIVE.search(entry.official_params or "")
    if match is None:
        return "(the publisher's size states no active count to compare)"
    published = match.group(1)
    counts = entry.params
    with_embedding = _states(published, counts.active_per_token)
    without = _states(published, counts.active_per_token - counts.embedding)
    if with_embedding and without:
        return f"(the publisher's {published}B active agrees with both counts at its rounding)"
    if without:
        return f"(the publisher's {published}B active is the count without the input embedding)"
    if with_embedding:
        return f"(the publisher's {published}B active is the count with the input embedding)"
    return f"(the publisher's {published}B active matches neither count at its rounding)"


def _detail(entry: ModelEntry) -> str:
    record = model_record(entry)
    lines = [f"{entry.name} ({entry.id})"]
    lines.append(f"  parameters (computed): {record['total_params']:,}")
    if entry.architecture.moe:
        lines.append(
            f"  active per token (computed, input embedding counted): {record['active_params']:,}"
        )
        lines.append(
            "  active per token without the input embedding (a row lookup, no matmul): "
            f"{record['active_params_without_input_embedding']:,}"
        )
    lines.append(f"  publisher's size: {entry.official_params or 'not stated'}")
    if entry.architecture.moe:
        lines.append(f"  {_publisher_active_convention(entry)}")
    lines.append(f"  attention: {record['attention']}")
    lines.extend(_shape_lines(entry))
    lines.append(f"  max context: {entry.architecture.max_context:,} tokens")
    if entry.same_architecture_as:
        lines.append(f"  architecture: the same as {entry.same_architecture_as} (its own sources)")
    for ckpt in entry.checkpoints:
        lines.append(f"  checkpoint {ckpt.repo}: {ckpt.weights} ({ckpt.source})")
    if entry.aliases:
        lines.append(f"  aliases: {', '.join(entry.aliases)}")
    for label, text in (
        ("notes", entry.notes),
        ("conflicts", entry.conflicts),
        ("gaps", entry.gaps),
    ):
        if text:
            lines.append(f"  {label}: {text}")
    lines.append(f"  source: {entry.source}")
    lines.append(f"  as_of: {entry.as_of}")
    return "\n".join(lines)


def _shape_lines(entry: ModelEntry) -> list[str]:
    """KV cache per token and its capped layers, vision tower, MTP modules, disk vs memory."""
    arch, counts = entry.architecture, entry.params
    lines = [f"  KV cache (bf16): {kv_cache_bytes_per_token(arch):,} bytes per token, all layers"]
    for layers, cap in arch.kv_layer_groups()[1:]:
        lines.append(f"    {layers} of {arch.num_layers} layers keep at most {cap:,} tokens")
    if counts.vision:
        lines.append(
            f"  vision tower: {counts.vision:,} parameters (in the total; text only "
            f"{counts.text_only:,}): vLLM and Transformers load it, llama.cpp only with --mmproj"
        )
    if counts.mtp:
        lines.append(
            f"  MTP modules: {arch.mtp_layers} (about {counts.mtp:,} parameters) on disk, not "
            "in memory for plain serving (speculative decoding loads them)"
        )
    if entry.checkpoint_params != counts.total:
        lines.append(f"  parameters in the checkpoint files: {entry.checkpoint_params:,}")
    return lines


NOTE = (
    "Parameter counts are computed from each architecture (tools/architecture.py); "
    "active/token counts the input embedding (`gpu-sizer models NAME` also shows it without, "
    "the convention some publishers use)."
)


def run(args: argparse.Namespace) -> int:
    """List the models (or one model with `name`). Unknown names raise ToolInputError."""
    catalog = get_catalog()
    entries = [catalog.model(args.name)] if args.name else list(catalog.models.values())
    if output_format(args) == "json":
        records = [model_record(e) for e in entries]
        print(json.dumps(records[0] if args.name else records, indent=2))
        return 0
    table = model_table(entries)
    if args.name:
        doc = Document(text_lines(_detail(entries[0])), data=table)
    else:
        doc = Document([table], data=table).line(NOTE, style="dim")
    emit(doc, args)
    return 0
