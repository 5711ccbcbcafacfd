"""`gpu-sizer cost`: cloud cost per hour, month and million tokens; hosted API comparison.

Two ways in: `--model` (plus the workload flags) asks `tools.recommend` for the configurations
that fit and their throughput, then prices each; without a model, `--gpu`, `--count` and
`--tokens-per-s` describe one configuration directly. User prices come from `--prices PATH`,
else from `<user config dir>/gpu-sizer/prices.toml` when that file exists.
"""

from __future__ import annotations

import argparse
import json
from datetime import date
from pathlib import Path
from typing import Any

from assistant.clock import now
from assistant.commands._args import (
    flag_error,
    non_negative_int,
    positive_int,
    positive_number,
    token_count,
    validated,
)
from assistant.commands._table import render_table
from tools.catalog import get_catalog
from tools.cost import (
    PriceFilter,
    ServingCostInput,
    ServingCostResult,
    ServingCostRow,
    TrainingCostInput,
    TrainingCostResult,
    TrainingCostRow,
    UsageProfile,
    compare_costs,
    ranking_prices,
    serving_inputs,
    training_costs,
    training_inputs,
)
from tools.errors import ToolInputError
from tools.pricing import (
    DEFAULT_MAX_PRICE_AGE_DAYS,
    TIERS,
    PriceBook,
    staleness_warning,
)

ROWS_PER_TIER = 5


def add_parser(subparsers: Any, help_text: str) -> None:
    """Register the `cost` sub-command."""
    p = subparsers.add_parser("cost", help=help_text, description=help_text)
    w = p.add_argument_group("workload (priced through gpu-sizer recommend)")
    w.add_argument("--model", help="catalog model id or alias, e.g. llama-3.1-70b")
    w.add_argument(
        "--model-file",
        metavar="PATH",
        help="local model instead of --model: a GGUF file, model folder or safetensors index",
    )
    w.add_argument(
        "--weights", help="weight format (default bf16 with --model; the file's own with a file)"
    )
    w.add_argument(
        "--users",
        type=positive_int,
        help="concurrent sequences (default: 1, or planned by the recommender to reach "
        "--tokens-per-s when only that is given)",
    )
    w.add_argument("--prompt-tokens", type=token_count, help="input tokens per request")
    w.add_argument("--output-tokens", type=token_count, help="generated tokens per request")
    w.add_argument("--context", type=token_count, help="KV-cache length per sequence, tokens")
    w.add_argument("--ttft", type=positive_number, help="time-to-first-token target, seconds")
    w.add_argument("--task", choices=("inference", "full", "lora", "qlora"), default="inference")
    w.add_argument("--train-tokens", type=token_count, help="training tokens (training tasks)")
    w.add_argument(
        "--zero",
        type=int,
        choices=[0, 1, 2, 3],
        help="ZeRO / FSDP sharding stage for data-parallel training",
    )
    w.add_argument("--max-gpus", type=positive_int, help="most GPUs in one configuration")
    w.add_argument("--single-node", action="store_true", help="one server only")
    d = p.add_argument_group("one configuration given directly (no --model)")
    d.add_argument(
        "--count",
        type=positive_int,
        help="GPUs in the configuration (default 1; with --model and a training --task: the "
        "job's GPU count, priced at its fastest layout of exactly that many, or refused)",
    )
    d.add_argument(
        "--tokens-per-s",
        type=positive_number,
        help="aggregate output tokens/s (with --model: the target given to the recommender)",
    )
    d.add_argument(
        "--training-hours", type=positive_number, help="training wall-clock hours on --count"
    )
    f = p.add_argument_group("price filters")
    f.add_argument("--gpu", action="append", default=[], help="GPU id or alias (repeatable)")
    f.add_argument("--provider", action="append", default=[], help="provider (repeatable)")
    f.add_argument("--eu-only", action="store_true", help="only prices in EU regions")
    f.add_argument("--tier", action="append", default=[], choices=TIERS, help="repeatable")
    f.add_argument(
        "--max-usd-per-hour", type=positive_number, help="most USD/hour for a configuration"
    )
    f.add_argument(
        "--eur-usd",
        type=positive_number,
        help="US dollars per euro to compare EUR prices (default: GPU_SIZER_EUR_TO_USD or "
        "eur_to_usd in config.toml; none: EUR offers are listed but not compared)",
    )
    f.add_argument("--include-superseded", action="store_true", help="also historical prices")
    f.add_argument("--prices", type=Path, help="user price file (TOML, [[price]] entries)")
    u = p.add_argument_group("usage")
    u.add_argument("--utilization", type=float, default=1.0, help="average load, 0-1")
    u.add_argument("--active-hours", type=float, default=730.0, help="hours with traffic a month")
    u.add_argument("--scale-to-zero", action="store_true", help="bill active hours only")
    u.add_argument("--input-per-output", type=float, help="input tokens per output token")
    u.add_argument(
        "--deadline-hours", type=positive_number, help="training deadline, wall-clock hours"
    )
    u.add_argument("--spot-overhead", type=float, help="spot interruption overhead, fraction")
    u.add_argument(
        "--max-age-days",
        type=non_negative_int,
        default=DEFAULT_MAX_PRICE_AGE_DAYS,
        help="staleness limit",
    )
    p.add_argument("--all", action="store_true", help=f"all rows, not {ROWS_PER_TIER} per tier")
    p.add_argument("--json", action="store_true", help="print JSON")


def _book(args: argparse.Namespace) -> PriceBook:
    """The prices the chat uses (catalog, refreshed file, user prices.toml), or --prices."""
    from assistant.cost_tool import price_book

    if args.prices is not None and not Path(args.prices).is_file():
        raise ToolInputError(
            "--prices",
            f"{args.prices}: user price file not found",
            "a TOML file of [[price]] / [[api_price]] entries in the catalog's schema",
        )
    return price_book(None if args.prices is None else Path(args.prices))


# Model field -> the flag that sets it, so a rejected value is reported under the flag typed.
_FLAGS = {
    "count": "--count",
    "aggregate_tokens_per_s": "--tokens-per-s",
    "training_hours": "--training-hours",
    "max_usd_per_hour": "--max-usd-per-hour",
    "eur_to_usd": "--eur-usd",
    "utilization": "--utilization",
    "active_hours_per_month": "--active-hours",
    "input_tokens_per_output_token": "--input-per-output",
    "spot_interruption_overhead": "--spot-overhead",
    "users": "--users",
    "prompt_tokens": "--prompt-tokens",
    "output_tokens": "--output-tokens",
    "context": "--context",
    "ttft_s": "--ttft",
    "tokens_per_s": "--tokens-per-s",
    "train_tokens": "--train-tokens",
    "deadline_hours": "--deadline-hours",
    "weights": "--weights",
    "model": "--model",
    "model_file": "--model-file",
    "constraints.max_gpus": "--max-gpus",
}


def _eur_to_usd(args: argparse.Namespace) -> float | None:
    """--eur-usd, else the settings' rate (GPU_SIZER_EUR_TO_USD, config.toml eur_to_usd)."""
    if args.eur_usd is not None:
        return float(args.eur_usd)
    from assistant.config import configured_eur_to_usd

    return configured_eur_to_usd()


def _filter(args: argparse.Namespace) -> PriceFilter:
    catalog = get_catalog()
    fields: dict[str, Any] = {
        "providers": args.provider,
        "gpus": [catalog.gpu(g).id for g in args.gpu],
        "eu_only": args.eu_only,
        "tiers": args.tier,
        "max_usd_per_hour": args.max_usd_per_hour,
        "eur_to_usd": _eur_to_usd(args),
        "include_superseded": args.include_superseded,
    }
    return validated(PriceFilter, fields, _FLAGS)


def _profile(args: argparse.Namespace) -> UsageProfile:
    fields: dict[str, Any] = {
        "utilization": args.utilization,
        "active_hours_per_month": args.active_hours,
        "scale_to_zero": args.scale_to_zero,
    }
    if args.input_per_output is not None:
        fields["input_tokens_per_output_token"] = args.input_per_output
    elif args.prompt_tokens and args.output_tokens:
        fields["input_tokens_per_output_token"] = args.prompt_tokens / args.output_tokens
    return validated(UsageProfile, fields, _FLAGS)


def _from_recommender(
    args: argparse.Namespace, book: PriceBook, flt: PriceFilter, today: date
) -> tuple[list[ServingCostInput], list[TrainingCostInput], str, list[str]]:
    from tools.recommend import recommend
    from tools.workload import validate_workload

    data: dict[str, Any] = {"model": args.model, "model_file": args.model_file}
    data["weights"] = args.weights or ("bf16" if args.model else None)
    data = {key: value for key, value in data.items() if value is not None}
    for key, value in (
        # Users left unset when not given: with only --tokens-per-s the recommender plans the
        # concurrency that reaches it (one user could never produce 1,000 tok/s).
        ("users", args.users),
        ("prompt_tokens", args.prompt_tokens),
        ("output_tokens", args.output_tokens),
        ("context", args.context),
        ("ttft_s", args.ttft),
        ("tokens_per_s", args.tokens_per_s),
        ("train_tokens", args.train_tokens),
        ("deadline_hours", args.deadline_hours),
        ("zero", args.zero),
    ):
        if value is not None:
            data[key] = value
    data["task"] = args.task
    constraints: dict[str, Any] = {"single_node": args.single_node}
    if flt.gpus:
        constraints["only_gpus"] = flt.gpus
    if args.max_gpus is not None:
        constraints["max_gpus"] = args.max_gpus
    fixed_count = _fixed_training_count(args)
    if fixed_count is not None:
        # Every layout up to the count is evaluated ("fastest" tries them all), so the ones of
        # exactly that many GPUs are among the recommender's options or rejected layouts.
        constraints["max_gpus"] = fixed_count
    data["constraints"] = constraints
    data["objective"] = "cheapest" if fixed_count is None else "fastest"
    prices = ranking_prices(book, flt, today, args.max_age_days)
    try:
        workload = validate_workload(data)
    except ToolInputError as exc:
        given = {**data, **{f"constraints.{k}": v for k, v in constraints.items()}}
        raise flag_error(exc, _FLAGS, given) from None
    rec = recommend(workload, prices)
    if fixed_count is not None:
        jobs = _training_at_count(fixed_count, rec.options + rec.rejected, args.zero)
        notes = [
            f"configurations from gpu-sizer recommend ({rec.model_id}): the fastest layout of "
            f"exactly {fixed_count} GPUs (--count) per GPU type",
            *(f"warning: {w}" for w in rec.warnings),
        ]
        return [], jobs, rec.model_id, notes
    notes = [f"configurations from gpu-sizer recommend ({rec.model_id})", *rec.notes]
    notes += [f"warning: {w}" for w in rec.warnings]
    serving = serving_inputs(rec.options)
    if args.task == "inference" and not serving:
        # A setup that misses the targets is not an offer: price none, say what comes closest.
        if any(o.fits for o in rec.options):
            notes.append(
                "no configuration meets the targets, so none is priced: "
                + (rec.nearest_feasible or "see `gpu-sizer recommend` for what each misses")
            )
        else:
            notes.append(rec.nearest_feasible or "no configuration fits")
    return serving, training_inputs(rec.options), rec.model_id, notes


def _fixed_training_count(args: argparse.Namespace) -> int | None:
    """--count with --model: the training job's GPU count. Serving sizes its own count from
    the load, so --count there is refused rather than ignored."""
    if args.count is None:
        return None
    if args.task == "inference":
        raise ToolInputError(
            "--count",
            f"{args.count} GPUs cannot be imposed on a serving workload: the recommender sizes "
            "the count from --users / --tokens-per-s",
            "--max-gpus N (at most N GPUs), or --gpu with --count without --model",
        )
    if args.max_gpus is not None and args.max_gpus < args.count:
        raise ToolInputError(
            "--count",
            f"{args.count} GPUs is more than --max-gpus {args.max_gpus}",
            f"--count at most {args.max_gpus}, or drop --max-gpus",
        )
    return int(args.count)


def _training_at_count(count: int, options: list[Any], zero: int | None) -> list[TrainingCostInput]:
    """Per GPU type, the fastest fitting layout (tp × pp × dp) of exactly `count` GPUs; a
    ToolInputError naming --count when no GPU type has one, with what fits and why not."""
    exact = [o for o in options if o.count == count and o.fits and o.training_hours]
    fastest: dict[str, Any] = {}
    for o in sorted(exact, key=lambda o: o.training_hours):
        fastest.setdefault(o.gpu, o)
    jobs = training_inputs(fastest.values())
    if jobs:
        return jobs
    short = [o for o in options if o.count == count and not o.fits]
    if short:
        why = "; ".join(dict.fromkeys(r for o in short for r in o.reasons[:1])) or "does not fit"
        problem = f"the job does not fit on {count} GPUs: {why}"
    else:
        tried = sorted({o.count for o in options if o.fits})
        problem = (
            f"no layout of exactly {count} GPUs (TP × PP × DP, DP doubling) was found; counts "
            f"that fit: {', '.join(map(str, tried)) or 'none'}"
        )
    allowed = "a count the job fits on" + (
        "" if zero == 3 else ", or --zero 3 to shard model state"
    )
    raise ToolInputError("--count", problem, allowed)


def _direct(
    args: argparse.Namespace, flt: PriceFilter
) -> tuple[list[ServingCostInput], list[TrainingCostInput]]:
    if not flt.gpus:
        raise ToolInputError(
            "gpu", "no configuration to price", "--model (and workload flags), or --gpu + --count"
        )
    serving = [
        validated(
            ServingCostInput,
            {"gpu": g, "count": args.count or 1, "aggregate_tokens_per_s": args.tokens_per_s},
            _FLAGS,
        )
        for g in flt.gpus
    ]
    training = []
    if args.training_hours is not None:
        training = [
            validated(
                TrainingCostInput,
                {"gpu": g, "count": args.count or 1, "training_hours": args.training_hours},
                _FLAGS,
            )
            for g in flt.gpus
        ]
    return serving, training


def run(args: argparse.Namespace) -> int:
    """Price the configurations and print tables (or JSON). Exit 0, or 2 on bad input."""
    book = _book(args)
    flt = _filter(args)
    profile = _profile(args)
    model_id: str | None = None
    notes: list[str] = []
    today = now()
    if args.model or args.model_file:
        serving, training, model_id, notes = _from_recommender(args, book, flt, today)
    else:
        serving, training = _direct(args, flt)
        if args.tokens_per_s is None:
            notes.append("no --tokens-per-s: hours and months priced, not tokens")
    training_only = args.task != "inference" and bool(training)
    freshness = (today, args.max_age_days)
    result = compare_costs(serving, book, flt, profile, model_id, freshness) if serving else None
    train = None
    if training:
        kwargs: dict[str, Any] = {"deadline_hours": args.deadline_hours, "freshness": freshness}
        if args.spot_overhead is not None:
            kwargs["spot_interruption_overhead"] = args.spot_overhead
        try:
            train = training_costs(training, book, flt, **kwargs)
        except ToolInputError as exc:
            raise flag_error(exc, _FLAGS, {exc.field: args.spot_overhead}) from None
    if training_only:
        result = None
    warnings = _staleness(result, train, book, today, args.max_age_days)
    if book.user_file:
        notes.append(f"user prices from {book.user_file}: {', '.join(book.user_ids)}")
    if args.json:
        print(json.dumps(_json(result, train, notes, warnings), indent=2))
    else:
        print(_text(result, train, notes, warnings, args.all))
    return 0


def _staleness(
    result: ServingCostResult | None,
    train: TrainingCostResult | None,
    book: PriceBook,
    today: date,
    max_age_days: int,
) -> list[str]:
    ids = {r.price_id for r in (result.rows if result else [])}
    ids |= {r.price_id for r in (train.rows if train else [])}
    out = [staleness_warning(p, today, max_age_days) for p in book.prices if p.id in ids]
    api_ids = {a.api_id for a in (result.api_comparison if result else [])}
    out += [staleness_warning(a, today, max_age_days) for a in book.api_prices if a.id in api_ids]
    return [w for w in out if w]


def _json(
    result: ServingCostResult | None,
    train: TrainingCostResult | None,
    notes: list[str],
    warnings: list[str],
) -> dict[str, Any]:
    out: dict[str, Any] = {"notes": notes, "warnings": warnings}
    if result is not None:
        out.update(result.model_dump(mode="json"))
    if train is not None:
        out["training"] = train.model_dump(mode="json")
    return out


def _money(value: float | None, currency: str = "USD", digits: int = 2) -> str:
    if value is None:
        return ""
    return f"{value:,.{digits}f}" if currency == "USD" else f"{value:,.{digits}f} {currency}"


def _text(
    result: ServingCostResult | None,
    train: TrainingCostResult | None,
    notes: list[str],
    warnings: list[str],
    show_all: bool,
) -> str:
    parts: list[str] = []
    if result is not None:
        parts.append(_serving_text(result, show_all))
    if train is not None:
        parts.append(_training_text(train, show_all))
    parts += [f"note: {n}" for n in notes]
    if warnings:
        parts.append(f"{len(warnings)} price(s) past the staleness limit or undated:")
        parts += [f"  warning: {w}" for w in warnings]
    return "\n".join(parts)


def _age(row: ServingCostRow | TrainingCostRow) -> str:
    """The row's age, and 'stale' when it is past the limit (the rule is in the assumptions)."""
    age = row.age or "-"
    return f"{age}, stale" if row.stale else age


def _billed(billed_gpus: int, instance: str | None) -> str:
    """Billed GPUs, with the instance when it is sold whole (8× L4 billed for a 1× need)."""
    return f"{billed_gpus} ({instance})" if instance else str(billed_gpus)


def _serving_text(result: ServingCostResult, show_all: bool) -> str:
    headers = (
        "provider", "gpu", "count", "billed GPUs", "region", "USD/hour", "USD/month",
        "USD/M out tok", "USD/M blended", "per hour (published)", "as_of", "age",
    )  # fmt: skip
    parts: list[str] = []
    for tier in TIERS:
        rows = [r for r in result.rows if r.tier == tier]
        if not rows:
            continue
        shown = rows if show_all else rows[:ROWS_PER_TIER]
        cells = [
            [
                r.provider, r.gpu, str(r.count), _billed(r.billed_gpus, r.instance),
                r.region or "-", _money(r.usd_per_hour),
                _money(r.usd_per_month, digits=0), _money(r.usd_per_million_tokens, digits=3),
                _money(r.usd_per_million_blended_tokens, digits=3),
                _money(r.per_hour, r.currency), r.as_of, _age(r),
            ]
            for r in shown
        ]  # fmt: skip
        more = "" if len(shown) == len(rows) else f" (cheapest {len(shown)} of {len(rows)})"
        parts.append(f"\n{tier} prices{more}:")
        parts.append(render_table(headers, cells, right_align=(2, 5, 6, 7, 8, 9)))
        parts += _row_notes(shown)
    if not parts:
        parts.append("no price matches these filters")
    parts += _unconverted_line(result.unconverted_note)
    if result.api_comparison:
        parts.append("\nhosted APIs (USD per million tokens):")
        api_cells = [
            [
                a.provider, a.model, a.match, _money(a.input_per_mtok, a.currency, 3),
                _money(a.output_per_mtok, a.currency, 3), _money(a.usd_blended_per_mtok, digits=3),
                a.as_of, a.age or "-",
            ]
            for a in result.api_comparison
        ]  # fmt: skip
        parts.append(
            render_table(
                ("provider", "model", "match", "input", "output", "USD blended", "as_of", "age"),
                api_cells,
                right_align=(3, 4, 5),
            )
        )
    for even in result.break_even:
        parts.append(f"break-even ({even.tier}, {even.provider} vs {even.api_provider}): "
                     f"{even.explanation}")  # fmt: skip
    parts += [f"assumption: {a}" for a in result.assumptions]
    if result.excluded:
        parts.append(f"{len(result.excluded)} matching price(s) left out (see --json 'excluded')")
    return "\n".join(parts)


def _unconverted_line(note: str | None) -> list[str]:
    """The offers no USD figure could be given for, shown under the table they would rank in."""
    from assistant.cost_tool import HOW_TO_SET_RATE

    return [] if note is None else [f"not compared in USD: {note}; {HOW_TO_SET_RATE}"]


def _row_notes(rows: list[ServingCostRow] | list[TrainingCostRow]) -> list[str]:
    """What a buyer must check about the rows shown (a per-GPU quote for a group that needs one
    machine, a stale price, an unconverted currency); billed GPUs are in the table already."""
    return [
        f"  {r.provider} {r.gpu} ×{r.count}: {note}"
        for r in rows
        for note in r.notes
        if not note.startswith("billed for")
    ]


def _training_text(train: TrainingCostResult, show_all: bool) -> str:
    headers = ("provider", "gpu", "count", "TP", "tier", "wall h", "GPU-h", "USD",
               "cost (published)", "deadline", "as_of", "age")  # fmt: skip
    parts = ["\ntraining cost:"]
    for tier in TIERS:
        rows = [r for r in train.rows if r.tier == tier]
        shown = rows if show_all else rows[:ROWS_PER_TIER]
        if not shown:
            continue
        cells = [
            [
                r.provider, r.gpu, str(r.count), "-" if r.tp is None else str(r.tp), r.tier,
                f"{r.wall_hours:,.1f}",
                f"{r.gpu_hours:,.0f}", _money(r.usd_cost, digits=0),
                _money(r.cost, r.currency, 0),
                "-" if r.meets_deadline is None else ("meets" if r.meets_deadline else "misses"),
                r.as_of, _age(r),
            ]
            for r in shown
        ]  # fmt: skip
        parts.append(render_table(headers, cells, right_align=(2, 3, 5, 6, 7, 8)))
        parts += _row_notes(shown)
    parts += _unconverted_line(train.unconverted_note)
    best = train.cheapest_meeting_deadline
    if best is not None:
        parts.append(
            f"cheapest that meets the deadline: {best.provider} {best.gpu} ×{best.count} "
            f"({best.tier}) {_money(best.usd_cost, digits=0)} USD, as_of {best.as_of} "
            f"({_age(best)})"
        )
    parts += [f"assumption: {a}" for a in train.assumptions]
    return "\n".join(parts)
