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

from assistant.cli_examples import help_with_examples
from assistant.commands._flags import CommandFlags, named, request
from assistant.commands._progress import working
from assistant.render.output import (
    Blank,
    Cell,
    Column,
    Document,
    Line,
    Styled,
    Table,
    add_format_options,
    emit,
    lines,
    output_format,
)
from tools.errors import ToolInputError
from tools.notes import texts
from tools.sizing import SizingReport, SizingRequest
from tools.units import format_bytes
from tools.workload import Workload

# The fields that say which model (give one), shown as their own group in --help.
_MODEL_CHOICE = ("model", "params", "config_path", "model_file")


def add_parser(subparsers: Any, help_text: str) -> None:
    parser = subparsers.add_parser(
        "recommend", help=help_text, description=help_text, **help_with_examples("recommend")
    )
    flags = CommandFlags(parser)
    flags.add(Workload, parser.add_argument_group("model (give one)"), only=_MODEL_CHOICE)
    flags.add(Workload, parser.add_argument_group("workload"), exclude=_MODEL_CHOICE)
    add_format_options(parser, "print the options as JSON")
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


def _number(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def _status(option: Any) -> Styled:
    if option.meets_targets:
        return Styled("ok", "good")
    return Styled("misses targets", "warn") if option.fits else Styled("does not fit", "bad")


def options_table(options: list[Any], training: bool) -> Table:
    """The options (and rejected layouts) in one table: memory in GiB, speeds with their basis,
    the on-demand price; the most droppable column goes first on a narrow terminal."""
    columns = [
        Column("GPU"),
        Column("GPUs", numeric=True),
        Column("TP×PP×DP", drop=3),
        Column("per GPU GiB", numeric=True),
        Column("KV left GiB", numeric=True, drop=8),
        Column("KV tokens per replica", numeric=True, drop=7),
        Column("max seqs per replica", numeric=True, drop=6),
    ]
    if training:
        columns.append(Column("train hours", numeric=True))
    else:
        columns += [
            Column("tok/s per user", numeric=True, drop=2),
            Column("total tok/s", numeric=True, drop=5),
            Column("TTFT s", numeric=True, drop=4),
        ]
    columns += [
        Column("speed basis", drop=1),
        Column("USD/h on demand", numeric=True),
        Column("price age", drop=9),
        Column("status"),
    ]
    rows: list[list[Cell]] = []
    for o in options:
        row: list[Cell] = [
            o.gpu,
            str(o.count),
            f"{o.tp}×{o.pp}×{o.dp}",
            f"{o.per_gpu_bytes / 2**30:,.1f}",
            f"{o.kv_cache_capacity_bytes / 2**30:,.1f}",
            f"{o.kv_cache_capacity_tokens:,}",
            f"{o.max_concurrent_sequences:,}",
        ]
        if training:
            row.append(_number(o.training_hours, ",.1f"))
        else:
            row += [
                _number(o.decode_tokens_per_s_per_seq, ",.1f"),
                _number(o.aggregate_tokens_per_s, ",.0f"),
                _number(o.ttft_s, ".3f"),
            ]
        row += [o.basis_label or "-", _number(o.usd_per_hour, ",.2f"), o.price_age or "-"]
        rows.append([*row, _status(o)])
    return Table(columns, rows)


def option_notes(options: list[Any]) -> list[Line]:
    """What each option's row cannot hold: why it misses or does not fit, and its notes (how
    its price was found, layout caveats), under the table with the row they belong to."""
    out: list[Line] = []
    for o in options:
        who = f"{o.count}× {o.gpu}:"
        out += [Line(r, lead=who, lead_style="warn", bullet="-", indent=2) for r in o.reasons]
        out += [Line(n, lead=who, lead_style="dim", bullet="·", indent=2) for n in o.notes]
    return out


def recommendation_document(report: SizingReport, all_layouts: bool = False) -> Document:
    """`recommend`'s human output: the headline and price load first, what was sized, the
    options table with its notes, then warnings, notes and assumptions."""
    result = report.recommendation
    assert result is not None
    training = report.request.workload.is_training
    shown = result.options + (result.rejected if all_layouts else [])
    table = options_table(shown, training)
    doc = Document(data=table)
    doc.add(*headline_blocks(report))
    doc.line(
        f"{result.model_id}: {result.total_params:,} parameters ({result.active_params:,} "
        f"active), {result.weights_format} weights {format_bytes(result.weight_bytes, 'GiB')}, "
        f"KV cache {result.kv_cache_bytes_per_token:,} bytes per token, "
        f"context {result.context_tokens:,} tokens"
    )
    doc.add(Blank(), table)
    notes = option_notes(shown)
    if notes:
        doc.add(*notes)
    doc.add(Blank())
    doc.add(*lines(texts(result.warnings), lead="warning:", lead_style="warn"))
    doc.add(*lines(texts(result.notes), lead="note:", lead_style="dim"))
    if result.nearest_feasible:
        doc.line(result.nearest_feasible, style="warn")
    doc.add(Line("assumptions:", style="heading"))
    doc.add(*lines(result.assumptions, bullet="-", indent=2))
    return doc


def headline_blocks(report: SizingReport) -> list[Line]:
    """`headline_lines` as the CLI prints them: 'headline:' emphasised, 'priced:' dimmed."""
    lead, *rest = headline_lines(report)
    out = [Line(lead.removeprefix("headline: "), lead="headline:", lead_style="strong")]
    out += [Line(r.removeprefix("priced: "), lead="priced:", lead_style="dim") for r in rest]
    return out


def run(args: argparse.Namespace) -> int:
    from assistant.sizing_tool import run_size

    workload = request(Workload, args)
    with working(f"sizing {workload.model or 'the model'}"):
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
    if output_format(args) == "json":
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
    emit(recommendation_document(report, args.all_layouts), args)
    return 0
