"""`gpu-sizer recommend`: the smallest configuration on each GPU that fits and meets the targets.

It asks `tools.sizing.size` (through `assistant.sizing_tool.run_size`, the same call every
surface makes) and prints the report's recommendation, led by the report's headline: the option,
weight format and $/M tokens (at the load the report states) that `cost`, `ask` and the
proposal quote for the same workload. Its flags are the `Workload` fields
(assistant/commands/_flags.py), so they carry the same names, defaults, bounds and error
wording as `gpu-sizer memory` and `gpu-sizer cost`.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from assistant.commands._flags import CommandFlags, named, request
from tools.errors import ToolInputError
from tools.notes import texts
from tools.sizing import SizingReport, SizingRequest
from tools.units import format_bytes
from tools.workload import Workload

# The fields that say which model (give one), shown as their own group in --help.
_MODEL_CHOICE = ("model", "params", "config_path", "model_file")


def add_parser(subparsers: Any, help_text: str) -> None:
    parser = subparsers.add_parser("recommend", help=help_text, description=help_text)
    flags = CommandFlags(parser)
    flags.add(Workload, parser.add_argument_group("model (give one)"), only=_MODEL_CHOICE)
    flags.add(Workload, parser.add_argument_group("workload"), exclude=_MODEL_CHOICE)
    parser.add_argument("--json", action="store_true", help="print the options as JSON")
    parser.add_argument(
        "--all-layouts", action="store_true", help="also list every rejected layout"
    )


_JSON_FIELDS = (
    "gpu",
    "count",
    "tp",
    "pp",
    "dp",
    "fits",
    "meets_targets",
    "per_gpu_bytes",
    "kv_cache_capacity_bytes",
    "kv_cache_capacity_tokens",
    "max_concurrent_sequences",
    "sequences_per_replica",
    "decode_tokens_per_s_per_seq",
    "modelled_tokens_per_s_per_seq",
    "aggregate_tokens_per_s",
    "prefill_tokens_per_s",
    "prefill_s",
    "ttft_s",
    "full_load_tokens_per_s",
    "batch_cap",
    "speed_basis",
    "throughput_basis",
    "ttft_basis",
    "speed_source",
    "usd_per_hour",
    "price_id",
    "billed_gpus",
    "price_as_of",
    "price_age",
    "reasons",
    "notes",
)


def option_record(option: Any, training: bool) -> dict[str, Any]:
    """The public JSON form of one option (bytes as integers)."""
    record = {name: getattr(option, name) for name in _JSON_FIELDS}
    if training:
        record.update(
            training_step_s=option.training_step_s,
            training_hours=option.training_hours,
            gpu_hours=option.gpu_hours,
        )
    else:
        record["latency_curve"] = [p.model_dump() for p in option.latency_curve]
    return record


def headline_record(report: SizingReport) -> dict[str, Any] | None:
    """The JSON form of the report's headline: option, rule, weight format, quoted price."""
    headline = report.headline
    if headline is None:
        return None
    o = headline.option
    price = headline.price
    return {
        "gpu": o.gpu,
        "count": o.count,
        "tp": o.tp,
        "pp": o.pp,
        "dp": o.dp,
        "rule": headline.rule,
        "reason": headline.reason,
        "weights_format": headline.weights_format,
        "price": None if price is None else price.model_dump(mode="json"),
    }


def headline_lines(report: SizingReport) -> list[str]:
    """The report's headline in plain text: what leads, why, its format and price, and the
    load $/M tokens is priced at (the same on every surface)."""
    headline = report.headline
    if headline is None:
        rec = report.recommendation
        nearest = None if rec is None else rec.nearest_feasible
        return [f"headline: none fits and meets the targets{'; ' + nearest if nearest else ''}"]
    line = f"headline: {headline.label}, {headline.weights_format} weights ({headline.reason})"
    if headline.option.basis_label:
        line += f"; speeds {headline.option.basis_label}"
    price = headline.price
    if price is not None:
        tier = price.tier.replace("_", "-")
        if price.usd_job is not None:
            line += f"; {price.usd_job:,.2f} USD {tier} for the job"
        else:
            line += f"; {price.usd_per_hour or 0:,.2f} USD/h {tier}"
            if price.usd_per_million_tokens is not None:
                line += (
                    f", {price.usd_per_million_tokens:,.3f} USD/M output tokens"
                    f"{report.price_load.label}"
                )
                if price.throughput_basis:
                    line += f" ({price.throughput_basis} throughput)"
        doubt = ", low confidence" if price.low_confidence else ""
        line += f" ({price.provider}, {price.as_of}{doubt})"
    return [line, f"priced: {report.price_load.reason}"]


def run(args: argparse.Namespace) -> int:
    from assistant.sizing_tool import run_size

    workload = request(Workload, args)
    report = run_size(SizingRequest(workload=workload))
    if report.recommendation is None:
        error = report.recommendation_error
        field = "model" if error is None else error.field
        raise named(
            ToolInputError(field, "could not be sized" if error is None else error.problem), args
        )
    result = report.recommendation
    training = workload.is_training
    assumptions = result.assumptions  # the defaulted request lengths lead them
    if args.json:
        out: dict[str, Any] = {
            "headline": headline_record(report),
            "price_load": report.price_load.model_dump(mode="json"),
            "model_id": result.model_id,
            "total_params": result.total_params,
            "active_params": result.active_params,
            "weights_format": result.weights_format,
            "weight_bytes": result.weight_bytes,
            "kv_cache_bytes_per_token": result.kv_cache_bytes_per_token,
            "options": [option_record(o, training) for o in result.options],
            "notes": texts(result.notes),
            "nearest_feasible": result.nearest_feasible,
            "warnings": texts(result.warnings),
            "assumptions": assumptions,
        }
        if args.all_layouts:
            out["rejected"] = [option_record(o, training) for o in result.rejected]
        print(json.dumps(out, indent=2))
        return 0
    for line in headline_lines(report):
        print(line)
    print(
        f"{result.model_id}: {result.total_params:,} parameters ({result.active_params:,} "
        f"active), {result.weights_format} weights {format_bytes(result.weight_bytes, 'GiB')}, "
        f"KV cache {result.kv_cache_bytes_per_token:,} bytes per token, "
        f"context {result.context_tokens:,} tokens"
    )
    header = (
        "GPU | count | TP×PP×DP | per GPU (GiB) | KV left (GiB) | KV tokens per replica"
        " | max seqs per replica"
    )
    header += " | train h" if training else " | tok/s/seq | aggregate tok/s | TTFT s"
    header += " | speed basis | on-demand USD/h | price age"
    print(header)
    shown = result.options + (result.rejected if args.all_layouts else [])
    for o in shown:
        row = (
            f"{o.gpu} | {o.count} | {o.tp}×{o.pp}×{o.dp} | "
            f"{o.per_gpu_bytes / 2**30:,.1f} | {o.kv_cache_capacity_bytes / 2**30:,.1f} | "
            f"{o.kv_cache_capacity_tokens:,} | {o.max_concurrent_sequences:,}"
        )
        if training:
            row += f" | {'-' if o.training_hours is None else f'{o.training_hours:,.1f}'}"
        else:
            speed = o.decode_tokens_per_s_per_seq
            agg = o.aggregate_tokens_per_s
            row += f" | {'-' if speed is None else f'{speed:,.1f}'}"
            row += f" | {'-' if agg is None else f'{agg:,.0f}'}"
            row += f" | {'-' if o.ttft_s is None else f'{o.ttft_s:.3f}'}"
        row += f" | {o.basis_label or '-'}"
        row += f" | {'-' if o.usd_per_hour is None else f'{o.usd_per_hour:,.2f}'}"
        row += f" | {o.price_age or '-'}"
        status = "ok" if o.meets_targets else ("misses targets" if o.fits else "does not fit")
        print(f"{row} | {status}")
        for reason in o.reasons:
            print(f"    - {reason}")
        for note in o.notes:
            print(f"    · {note}")
    for warning in result.warnings:
        print(f"warning: {warning}")
    for line in texts(result.notes):
        print(f"note: {line}")
    if result.nearest_feasible:
        print(result.nearest_feasible)
    print("assumptions:")
    for line in assumptions:
        print(f"  - {line}")
    return 0
