"""`gpu-sizer models`: list the model catalog, parameter counts computed from each architecture."""

from __future__ import annotations

import argparse
import json
from typing import Any

from assistant.commands._table import render_table
from tools.catalog import ModelEntry, get_catalog
from tools.units import format_count


def add_parser(subparsers: Any, help_text: str) -> None:
    """Register the `models` sub-command."""
    parser = subparsers.add_parser("models", help=help_text, description=help_text)
    parser.add_argument(
        "name", nargs="?", help="show one model in detail (id, alias or Hugging Face repo id)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON (counts as integers)")


def model_record(entry: ModelEntry) -> dict[str, Any]:
    """A JSON-ready record: catalog fields plus the computed parameter counts (integers)."""
    counts = entry.params
    return {
        "id": entry.id,
        "name": entry.name,
        "aliases": list(entry.aliases),
        "total_params": counts.total,
        "active_params": counts.active_per_token,
        "embedding_params": counts.embedding,
        "lm_head_params": counts.lm_head,
        "official_params": entry.official_params,
        "attention": entry.architecture.attention_kind,
        "max_context_tokens": entry.architecture.max_context,
        "checkpoint_format": entry.checkpoint_format,
        "architecture": entry.architecture.model_dump(mode="json"),
        "source": entry.source,
        "as_of": entry.as_of,
    }


def _row(entry: ModelEntry) -> list[str]:
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


HEADERS = (
    "id",
    "name",
    "params (computed)",
    "active/token",
    "experts/top-k",
    "attention",
    "max context (tokens)",
    "as_of",
)


def _detail(entry: ModelEntry) -> str:
    record = model_record(entry)
    lines = [f"{entry.name} ({entry.id})"]
    lines.append(f"  parameters (computed): {record['total_params']:,}")
    if entry.architecture.moe:
        lines.append(f"  active per token (computed): {record['active_params']:,}")
    lines.append(f"  publisher's size: {entry.official_params or 'not stated'}")
    lines.append(f"  attention: {record['attention']}")
    lines.append(f"  max context: {entry.architecture.max_context:,} tokens")
    if entry.aliases:
        lines.append(f"  aliases: {', '.join(entry.aliases)}")
    lines.append(f"  source: {entry.source}")
    lines.append(f"  as_of: {entry.as_of}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """List the models (or one model with `name`). Unknown names raise ToolInputError."""
    catalog = get_catalog()
    entries = [catalog.model(args.name)] if args.name else list(catalog.models.values())
    if args.json:
        records = [model_record(e) for e in entries]
        print(json.dumps(records[0] if args.name else records, indent=2))
    elif args.name:
        print(_detail(entries[0]))
    else:
        rows = [_row(e) for e in entries]
        print(render_table(HEADERS, rows, right_align=(2, 3, 4, 6)))
        print("\nParameter counts are computed from each architecture (tools/architecture.py).")
    return 0
