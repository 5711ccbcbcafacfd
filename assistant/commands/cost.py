"""`gpu-sizer cost`: cloud cost per hour, month and million tokens; hosted API comparison.

Two ways in: `--model` (plus the workload flags) asks `tools.sizing.size` — the same report
`recommend`, `ask` and the proposal present — and prints its costs, led by its headline (the
option, weight format and $/M tokens at the load the report states); without a model, `--gpu`,
`--count` and `--tokens-per-s` describe one configuration directly. User prices come from
`--prices PATH`, else from `<user config dir>/gpu-sizer/prices.toml` when that file exists.
"""

from __future__ import annotations

import argparse
import json
from datetime import date
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from assistant.cli_examples import help_with_examples
from assistant.clock import now
from assistant.commands._flags import CommandFlags, flagset, given, named, request
from assistant.commands._progress import working
from assistant.commands.recommend import headline_blocks, headline_record
from assistant.render.output import (
    Blank,
    Block,
    Cell,
    Column,
    Document,
    Line,
    Styled,
    Table,
    add_format_options,
    emit,
    output_format,
)
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
    training_costs,
    training_inputs,
)
from tools.cost.inputs import SPOT_INTERRUPTION_OVERHEAD
from tools.errors import ToolInputError
from tools.limits import FINITE, MAX_GPUS, MAX_HOURS, MIN_RATE
from tools.notes import texts
from tools.pricing import (
    DEFAULT_MAX_PRICE_AGE_DAYS,
    TIERS,
    PriceBook,
    staleness_warning,
)
from tools.sizing import PricingScope, SizingReport, SizingRequest
from tools.workload import Workload

ROWS_PER_TIER = 5

# The fields that say which model (give one): with one, the recommender proposes what to price.
_MODEL_CHOICE = ("model", "params", "config_path", "model_file")
# Workload fields the command decides itself: GPUs come from --gpu, the region from --eu-only.
# The objective and a budget per hour are the workload's, as `recommend` takes them, so the
# headline is chosen by the same rule for the same question.
_SET_BY_COST = (
    "constraints.only_gpus",
    "constraints.exclude_gpus",
    "constraints.region",
)


class CostCommandOptions(BaseModel):
    """What `gpu-sizer cost` takes beyond the workload, the price filter and the usage."""

    model_config = ConfigDict(extra="forbid", **FINITE)

    count: int | None = Field(
        default=None,
        ge=1,
        le=MAX_GPUS,
        description="GPUs in the configuration (default 1; with a model and a training task: "
        "the job's GPU count, priced at its fastest layout of exactly that many, or refused).",
    )
    deadline_hours: float | None = Field(
        default=None, ge=MIN_RATE, le=MAX_HOURS, description="Training deadline, wall-clock hours."
    )
    max_age_days: int = Field(
        default=DEFAULT_MAX_PRICE_AGE_DAYS,
        ge=0,
        le=36_500,
        description="Prices older than this many days are marked stale (at most 100 years).",
    )
    spot_interruption_overhead: float = Field(
        default=SPOT_INTERRUPTION_OVERHEAD,
        ge=0,
        lt=10,
        description="Wall-clock a spot job loses to interruptions, fraction (0.10 = 10%).",
    )


def add_parser(subparsers: Any, help_text: str) -> None:
    """Register the `cost` sub-command: flags from Workload, the direct configuration, the
    price filter, the usage profile and CostCommandOptions (assistant/commands/_flags.py)."""
    p = subparsers.add_parser(
        "cost", help=help_text, description=help_text, **help_with_examples("cost")
    )
    flags = CommandFlags(p)
    w = p.add_argument_group("workload (priced through gpu-sizer recommend; give a model)")
    flags.add(Workload, w, only=_MODEL_CHOICE)
    flags.add(Workload, w, exclude=(*_MODEL_CHOICE, *_SET_BY_COST))
    d = p.add_argument_group("one configuration given directly (no model)")
    flags.add(CostCommandOptions, d, only=("count",))
    flags.add(ServingCostInput, d, only=("count", "aggregate_tokens_per_s"))
    flags.add(TrainingCostInput, d, only=("count", "training_hours"))
    f = p.add_argument_group("price filters")
    flags.add(PriceFilter, f)
    f.add_argument("--prices", type=Path, help="user price file (TOML, [[price]] entries)")
    u = p.add_argument_group("usage")
    flags.add(UsageProfile, u)
    flags.add(CostCommandOptions, u, exclude=("count",))
    p.add_argument("--all", action="store_true", help=f"all rows, not {ROWS_PER_TIER} per tier")
    add_format_options(p, "print JSON")


def _book(args: argparse.Namespace) -> PriceBook:
    """The prices the chat uses (catalog, refreshed file, user prices.toml), or --prices."""
    from assistant.cost_tool import price_book

    if args.prices is not None and not _is_file(Path(args.prices)):
        raise ToolInputError(
            "--prices",
            f"{args.prices}: user price file not found",
            "a TOML file of [[price]] / [[api_price]] entries in the catalog's schema",
        )
    return price_book(None if args.prices is None else Path(args.prices))


def _is_file(path: Path) -> bool:
    """Whether `path` is a regular file; False for a name the system refuses (too long)."""
    try:
        return path.is_file()
    except OSError:
        return False


def _eur_to_usd(args: argparse.Namespace) -> float | None:
    """--eur-usd (validated with the filter), else the settings' rate (GPU_SIZER_EUR_TO_USD,
    config.toml eur_to_usd), else the catalog's ECB reference rate (what the sizing uses)."""
    if given(args, PriceFilter, "eur_to_usd"):
        return None
    from assistant.cost_tool import eur_to_usd_rate

    return eur_to_usd_rate(None)[0]


def _filter(args: argparse.Namespace) -> PriceFilter:
    catalog = get_catalog()
    extra: dict[str, Any] = {"gpus": [catalog.gpu(g).id for g in args.gpu or []]}
    rate = _eur_to_usd(args)
    if rate is not None:
        extra["eur_to_usd"] = rate
    return request(PriceFilter, args, extra)


def _profile(args: argparse.Namespace, workload: Workload | None) -> UsageProfile:
    extra: dict[str, Any] = {}
    typed = ("prompt_tokens", "output_tokens")
    stated = workload is not None and all(given(args, Workload, name) for name in typed)
    if stated and workload and not given(args, UsageProfile, "input_tokens_per_output_token"):
        extra["input_tokens_per_output_token"] = workload.prompt_tokens / workload.output_tokens
    return request(UsageProfile, args, extra)


def _workload_only_flag(args: argparse.Namespace) -> str | None:
    """The first typed flag that only a workload uses (none may be typed without a model)."""
    typed = vars(args).get("_typed_flags", {})
    for flag in flagset(args).flags.values():
        if flag.dest in typed and all(model is Workload for model, _ in flag.fields):
            name: str = typed[flag.dest][0]
            return name
    return None


def _sizing_request(
    args: argparse.Namespace, flt: PriceFilter, profile: UsageProfile, options: CostCommandOptions
) -> SizingRequest:
    """The sizing question the flags ask (`tools.sizing.SizingRequest`): the workload flags,
    the price filters and usage as its pricing scope; a training `--count` sizes every layout
    up to it. Users are left unset when not given: with only --tokens-per-s the recommender
    plans the concurrency that reaches it (one user could never produce 1,000 tok/s)."""
    stated = request(Workload, args)
    extra: dict[str, Any] = {}
    if flt.gpus:
        extra["constraints.only_gpus"] = flt.gpus
    max_gpus = (
        stated.constraints.max_gpus if given(args, Workload, "constraints.max_gpus") else None
    )
    fixed_count = _fixed_training_count(options.count, stated.task, max_gpus)
    if fixed_count is not None:
        # Every layout up to the count is evaluated ("fastest" tries them all), so the ones of
        # exactly that many GPUs are among the recommender's options or rejected layouts.
        extra["constraints.max_gpus"] = fixed_count
        extra["objective"] = "fastest"
    workload = request(Workload, args, extra)
    scope = PricingScope(
        eu_only=flt.eu_only,
        eur_to_usd=flt.eur_to_usd,
        tiers=flt.tiers,
        providers=flt.providers,
        max_usd_per_hour=flt.max_usd_per_hour,
        include_superseded=flt.include_superseded,
        api_providers=flt.api_providers,
        api_models=flt.api_models,
        max_price_age_days=options.max_age_days,
        usage=profile,
        spot_interruption_overhead=options.spot_interruption_overhead,
    )
    return SizingRequest(workload=workload, pricing=scope)


def _from_report(
    args: argparse.Namespace,
    report: SizingReport,
    book: PriceBook,
    flt: PriceFilter,
    today: date,
    options: CostCommandOptions,
) -> tuple[ServingCostResult | None, TrainingCostResult | None, list[str]]:
    """The report's costs and the notes that go with them. A training `--count` prices, per
    GPU type, the fastest layout of exactly that many GPUs the report's recommender sized."""
    rec = report.recommendation
    if rec is None:
        error = report.recommendation_error
        problem = "could not be sized" if error is None else error.problem
        raise named(ToolInputError("model" if error is None else error.field, problem), args)
    workload = report.request.workload
    # How a generic 4-bit spelling (int4, 4bit, q4) was read, as recommend and memory say it.
    reading = [workload.weights_reading] if workload.weights_reading else []
    warnings = [f"warning: {w}" for w in texts(rec.warnings)]
    max_gpus = (
        workload.constraints.max_gpus if given(args, Workload, "constraints.max_gpus") else None
    )
    fixed_count = _fixed_training_count(options.count, workload.task, max_gpus)
    if fixed_count is not None:
        jobs = _training_at_count(fixed_count, rec.options + rec.rejected, workload.zero)
        notes = [
            f"configurations from gpu-sizer recommend ({rec.model_id}): the fastest layout of "
            f"exactly {fixed_count} GPUs (--count) per GPU type",
            *reading,
            *warnings,
        ]
        train = training_costs(
            jobs,
            book,
            flt,
            deadline_hours=options.deadline_hours,
            freshness=(today, options.max_age_days),
            spot_interruption_overhead=options.spot_interruption_overhead,
        )
        return None, train, notes
    notes = [
        f"configurations from gpu-sizer recommend ({rec.model_id})",
        *reading,
        *texts(rec.notes),
    ]
    notes += warnings
    if report.costs_error is not None:
        error = report.costs_error
        refusal = ToolInputError(error.field, error.problem, error.allowed)
        raise named(refusal, args)
    costs = report.costs
    serving = None if costs is None or report.priced_nearest else costs.serving
    if workload.task == "inference" and serving is None:
        # A setup that misses the targets is not an offer: price none, say what comes closest.
        if any(o.fits for o in rec.options):
            notes.append(
                "no configuration meets the targets, so none is priced: "
                + (rec.nearest_feasible or "see `gpu-sizer recommend` for what each misses")
            )
        else:
            notes.append(rec.nearest_feasible or "no configuration fits")
    return serving, None if costs is None else costs.training, notes


def _fixed_training_count(count: int | None, task: str, max_gpus: int | None) -> int | None:
    """--count with a model: the training job's GPU count. Serving sizes its own count from
    the load, so --count there is refused rather than ignored."""
    if count is None:
        return None
    if task == "inference":
        raise ToolInputError(
            "--count",
            f"{count} GPUs cannot be imposed on a serving workload: the recommender sizes "
            "the count from --users / --tokens-per-s",
            "--max-gpus N (at most N GPUs), or --gpu with --count without --model",
        )
    if max_gpus is not None and max_gpus < count:
        raise ToolInputError(
            "--count",
            f"{count} GPUs is more than --max-gpus {max_gpus}",
            f"--count at most {max_gpus}, or drop --max-gpus",
        )
    return count


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
    args: argparse.Namespace, flt: PriceFilter, options: CostCommandOptions
) -> tuple[list[ServingCostInput], list[TrainingCostInput]]:
    workload_flag = _workload_only_flag(args)
    if workload_flag is not None:
        raise ToolInputError(
            workload_flag,
            "describes a workload, which needs a model to size",
            "--model (or --params, --config, --model-file) with the workload flags; "
            "--input-per-output for the blended price of a configuration given directly",
        )
    if not flt.gpus:
        raise ToolInputError(
            "gpu", "no configuration to price", "--model (and workload flags), or --gpu + --count"
        )
    count = {"count": options.count or 1}
    serving = [request(ServingCostInput, args, {"gpu": g, **count}) for g in flt.gpus]
    training = []
    if given(args, TrainingCostInput, "training_hours"):
        training = [request(TrainingCostInput, args, {"gpu": g, **count}) for g in flt.gpus]
    return serving, training


def run(args: argparse.Namespace) -> int:
    """Price the configurations and print tables (or JSON). Exit 0, or 2 on bad input."""
    options = request(CostCommandOptions, args)
    book = _book(args)
    flt = _filter(args)
    notes: list[str] = []
    today = now()
    report: SizingReport | None = None
    result: ServingCostResult | None
    train: TrainingCostResult | None
    if given(args, Workload, *_MODEL_CHOICE):
        from assistant.sizing_tool import run_size

        profile = _profile(args, request(Workload, args))
        sizing = _sizing_request(args, flt, profile, options)
        with working(f"sizing and pricing {sizing.workload.model or 'the model'}"):
            report = run_size(sizing, book, today)
        result, train, notes = _from_report(args, report, book, flt, today, options)
        notes += _throughput_notes(report)
        if report.request.workload.task != "inference" and train is not None:
            result = None
    else:
        profile = _profile(args, None)
        serving, training = _direct(args, flt, options)
        if not given(args, ServingCostInput, "aggregate_tokens_per_s"):
            notes.append("no --tokens-per-s: hours and months priced, not tokens")
        else:
            notes.append(
                "USD/M tokens divide by the --tokens-per-s you gave (stated, not modelled)"
            )
        freshness = (today, options.max_age_days)
        result = compare_costs(serving, book, flt, profile, None, freshness) if serving else None
        train = None
        if training:
            train = training_costs(
                training,
                book,
                flt,
                deadline_hours=options.deadline_hours,
                freshness=freshness,
                spot_interruption_overhead=options.spot_interruption_overhead,
            )
    warnings = _staleness(result, train, book, today, options.max_age_days)
    if book.user_file:
        notes.append(f"user prices from {book.user_file}: {', '.join(book.user_ids)}")
    if output_format(args) == "json":
        out = _json(result, train, notes, warnings)
        if report is not None:
            out["headline"] = headline_record(report)
            out["price_load"] = report.price_load.model_dump(mode="json")
        print(json.dumps(out, indent=2))
        return 0
    doc = Document()
    if report is not None:
        doc.add(*headline_blocks(report))
    # The report's cost notes already say how to set a EUR rate (assistant.sizing_tool).
    _cost_blocks(doc, result, train, notes, warnings, args.all, rate_hint=report is None)
    emit(doc, args)
    return 0


def _throughput_notes(report: SizingReport) -> list[str]:
    """What the USD/M figures divide by: each priced configuration's throughput at the price
    load and how it was obtained (measured / calibrated / estimated)."""
    parts = [
        f"{p.count}× {p.gpu} {p.tokens_per_s:,.0f} tok/s ({p.throughput_basis})"
        for p in report.priced
        if p.tokens_per_s and p.throughput_basis
    ]
    if not parts:
        return []
    return [f"USD/M tokens{report.price_load.label} divide by: " + "; ".join(parts)]


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


def _cost_blocks(
    doc: Document,
    result: ServingCostResult | None,
    train: TrainingCostResult | None,
    notes: list[str],
    warnings: list[str],
    show_all: bool,
    rate_hint: bool = True,
) -> None:
    """The price tables and what goes with them, into `doc`; its data table (`--format csv`)
    is every row shown, the tier a column."""
    if result is not None:
        doc.add(*_serving_blocks(result, show_all, rate_hint))
        doc.data = _serving_table(_shown_rows(result.rows, show_all), with_tier=True)
    if train is not None:
        doc.add(*_training_blocks(train, show_all, rate_hint))
        if doc.data is None:
            doc.data = _training_table(_shown_rows(train.rows, show_all))
    if doc.data is None:
        doc.data = _serving_table([], with_tier=True)
    doc.add(Blank())
    doc.add(*(Line(n, lead="note:", lead_style="dim") for n in notes))
    if warnings:
        doc.line(f"{len(warnings)} price(s) past the staleness limit or undated:", style="warn")
        doc.add(*(Line(w, lead="warning:", lead_style="warn", indent=2) for w in warnings))


def _shown_rows(rows: list[Any], show_all: bool) -> list[Any]:
    """The rows shown: all, or the cheapest `ROWS_PER_TIER` of each tier (in the tool's order)."""
    shown: list[Any] = []
    for tier in TIERS:
        in_tier = [r for r in rows if r.tier == tier]
        shown += in_tier if show_all else in_tier[:ROWS_PER_TIER]
    return shown


def _age(row: ServingCostRow | TrainingCostRow) -> Cell:
    """The row's age, 'stale' when it is past the limit and 'low confidence' for an
    unconfirmed rate (the rules are in the assumptions)."""
    age = row.age or "-"
    age = f"{age}, stale" if row.stale else age
    age = f"{age}, low confidence" if row.low_confidence else age
    return Styled(age, "warn") if row.stale or row.low_confidence else age


def _billed(billed_gpus: int, instance: str | None) -> str:
    """Billed GPUs, with the instance when it is sold whole (8× L4 billed for a 1× need)."""
    return f"{billed_gpus} ({instance})" if instance else str(billed_gpus)


def _serving_table(rows: list[ServingCostRow], with_tier: bool = False) -> Table:
    columns = [
        Column("provider"),
        Column("GPU"),
        Column("count", numeric=True),
        Column("billed GPUs", drop=7),
        Column("region", drop=5),
        Column("USD/hour", numeric=True),
        Column("USD/month", numeric=True, drop=2),
        Column("USD/M out tok", numeric=True),
        Column("USD/M blended", numeric=True, drop=4),
        Column("per hour (published)", numeric=True, drop=6),
        Column("as_of", drop=3),
        Column("age", drop=1),
    ]
    cells: list[list[Cell]] = [
        [
            r.provider, r.gpu, str(r.count), _billed(r.billed_gpus, r.instance),
            r.region or "-", _money(r.usd_per_hour), _money(r.usd_per_month, digits=0),
            _money(r.usd_per_million_tokens, digits=3),
            _money(r.usd_per_million_blended_tokens, digits=3),
            _money(r.per_hour, r.currency), r.as_of, _age(r),
        ]
        for r in rows
    ]  # fmt: skip
    if with_tier:
        columns.insert(0, Column("tier"))
        cells = [[r.tier, *row] for r, row in zip(rows, cells, strict=True)]
    return Table(columns, cells)


def _serving_blocks(result: ServingCostResult, show_all: bool, rate_hint: bool) -> list[Block]:
    parts: list[Block] = []
    for tier in TIERS:
        rows = [r for r in result.rows if r.tier == tier]
        if not rows:
            continue
        shown = rows if show_all else rows[:ROWS_PER_TIER]
        more = "" if len(shown) == len(rows) else f" (cheapest {len(shown)} of {len(rows)})"
        parts += [
            Blank(),
            _titled(_serving_table(shown), f"{tier.replace('_', '-')} prices{more}:"),
        ]
        parts += _row_notes(shown)
    if not parts:
        parts.append(Line("no price matches these filters", style="warn"))
    parts += _unconverted_line(result.unconverted_note, rate_hint)
    if result.api_comparison:
        api_cells: list[list[Cell]] = [
            [
                a.provider, a.model, a.match, _money(a.input_per_mtok, a.currency, 3),
                _money(a.output_per_mtok, a.currency, 3), _money(a.usd_blended_per_mtok, digits=3),
                a.as_of, a.age or "-",
            ]
            for a in result.api_comparison
        ]  # fmt: skip
        columns = (
            Column("provider"),
            Column("model"),
            Column("match", drop=3),
            Column("input", numeric=True, drop=2),
            Column("output", numeric=True),
            Column("USD blended", numeric=True),
            Column("as_of", drop=4),
            Column("age", drop=1),
        )
        parts += [
            Blank(),
            Table(columns, api_cells, title="hosted APIs (USD per million tokens):"),
        ]
    for even in result.break_even:
        parts.append(
            Line(
                even.explanation,
                lead=f"break-even ({even.tier}, {even.provider} vs {even.api_provider}):",
                lead_style="strong",
            )
        )
    parts += [Line(a, lead="assumption:", lead_style="dim") for a in result.assumptions]
    if result.excluded:
        parts.append(
            Line(f"{len(result.excluded)} matching price(s) left out (see --json 'excluded')")
        )
    return parts


def _titled(table: Table, title: str) -> Table:
    return Table(table.columns, table.rows, title=title)


def _unconverted_line(note: str | None, rate_hint: bool = True) -> list[Block]:
    """The offers no USD figure could be given for, shown under the table they would rank in."""
    from assistant.cost_tool import HOW_TO_SET_RATE

    if note is None:
        return []
    text = note + (f"; {HOW_TO_SET_RATE}" if rate_hint else "")
    return [Line(text, lead="not compared in USD:", lead_style="warn")]


def _row_notes(rows: list[ServingCostRow] | list[TrainingCostRow]) -> list[Block]:
    """What a buyer must check about the rows shown (a per-GPU quote for a group that needs one
    machine, whole instances billed, a stale price, an unconverted currency)."""
    return [
        Line(note, lead=f"{r.provider} {r.gpu} ×{r.count}:", indent=2, bullet="·")
        for r in rows
        for note in r.notes
    ]


def _training_table(rows: list[TrainingCostRow]) -> Table:
    columns = [
        Column("provider"),
        Column("GPU"),
        Column("count", numeric=True),
        Column("TP", numeric=True, drop=4),
        Column("tier", drop=7),
        Column("wall h", numeric=True),
        Column("GPU-h", numeric=True, drop=3),
        Column("USD", numeric=True),
        Column("cost (published)", numeric=True, drop=5),
        Column("deadline", drop=2),
        Column("as_of", drop=6),
        Column("age", drop=1),
    ]
    cells: list[list[Cell]] = [
        [
            r.provider, r.gpu, str(r.count), "-" if r.tp is None else str(r.tp), r.tier,
            f"{r.wall_hours:,.1f}", f"{r.gpu_hours:,.0f}", _money(r.usd_cost, digits=0),
            _money(r.cost, r.currency, 0),
            "-" if r.meets_deadline is None else ("meets" if r.meets_deadline else "misses"),
            r.as_of, _age(r),
        ]
        for r in rows
    ]  # fmt: skip
    return Table(columns, cells)


def _training_blocks(train: TrainingCostResult, show_all: bool, rate_hint: bool) -> list[Block]:
    parts: list[Block] = [Blank(), Line("training cost:", style="heading")]
    for tier in TIERS:
        rows = [r for r in train.rows if r.tier == tier]
        shown = rows if show_all else rows[:ROWS_PER_TIER]
        if not shown:
            continue
        parts.append(_training_table(shown))
        parts += _row_notes(shown)
    parts += _unconverted_line(train.unconverted_note, rate_hint)
    best = train.cheapest_meeting_deadline
    if best is not None:
        parts.append(
            Line(
                f"{best.provider} {best.gpu} ×{best.count} ({best.tier}) "
                f"{_money(best.usd_cost, digits=0)} USD, as_of {best.as_of} ({_age_text(best)})",
                lead="cheapest that meets the deadline:",
                lead_style="good",
            )
        )
    parts += [Line(a, lead="assumption:", lead_style="dim") for a in train.assumptions]
    return parts


def _age_text(row: ServingCostRow | TrainingCostRow) -> str:
    age = _age(row)
    return age.text if isinstance(age, Styled) else age
