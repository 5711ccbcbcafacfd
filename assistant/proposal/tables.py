"""The proposal's second part: the tables behind page one — the options compared (memory and
speed, then prices), the memory per GPU of each configuration sized (GiB only), the costs of the
recommended configuration with the hosted-API comparison, and every risk the rules found.
Rows are fields of the report; nothing is computed.
"""

from __future__ import annotations

from typing import TypeVar

from assistant.proposal.document import Block, BulletList, Heading, Item, Paragraph, Table
from assistant.proposal.figures import (
    bytes_as_gib,
    format_count,
    money,
    text_value,
)
from assistant.proposal.labels import (
    LAYOUT_LEGEND,
    basis,
    component,
    gpus,
    layout_code,
    price_age,
    price_date,
    tier,
)
from assistant.proposal.quotes import (
    estimate_of,
    gpu_name,
    serving_row,
    unconverted,
)
from assistant.proposal.risk_text import RISK_TITLES, risk_text
from tools.cost.results import BreakEven, PricedRow
from tools.memory import MemoryEstimate
from tools.recommend import Option
from tools.sizing import SizingReport
from tools.sizing.headline import candidates
from tools.sizing.risks import TIGHT_HEADROOM_FRACTION, risks

MAX_COMPARED = 8
"""Options in the comparison tables (the recommended one first); Appendix C lists them all."""
ROWS_PER_TIER = 3
"""Prices shown per tier for the recommended configuration (`gpu-sizer cost` lists them all)."""
PER_TIER_WORDS = (
    f"the quoted price first, then at most {ROWS_PER_TIER} a tier in the cost tool's order"
)
MAX_APIS = 6
"""Hosted APIs listed (the cost tool's order)."""
MAX_UNCONVERTED = 5
"""Offers not compared in USD listed (cheapest first in their own currency)."""

BASIS_LEGEND = (
    "Speed basis: measured (a published run of this setup), calibrated (the performance model "
    "fitted to published runs of this engine and GPU class) or estimated (default "
    "efficiencies)."
)


def compared_options(report: SizingReport) -> list[Option]:
    """The options the tables compare: the headline, then each priced configuration's option
    (the report's price order), then any other option that fits and meets the targets is left
    to Appendix C."""
    rec = report.recommendation
    if rec is None:
        return []
    shown: list[Option] = [] if report.headline is None else [report.headline.option]
    for priced in report.priced:
        option = report.option_at(priced.gpu, priced.count)
        if option is not None and not any(option.same_layout(s) for s in shown):
            shown.append(option)
    if not shown:
        limit = (report.search or report.request.workload).constraints.max_gpus
        shown = candidates(rec, limit)[:1] or [o for o in rec.options if o.fits][:1]
    return shown[:MAX_COMPARED]


def _speed_basis(o: Option) -> str:
    if o.training_hours is not None:
        return basis(o.speed_basis)
    return " / ".join(basis(b) for b in (o.speed_basis, o.throughput_basis, o.ttft_basis))


def options_table(options: list[Option], training: bool) -> Table:
    """Memory and speed of `options`, one row each (training: hours and GPU-hours)."""
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    if training:
        headers = (
            "option",
            "layout",
            "needed per GPU (GiB)",
            "budget per GPU (GiB)",
            "training (h)",
            "GPU-hours",
            "speed basis",
        )
        rows = tuple(
            (
                gpus(o),
                layout_code(o),
                bytes_as_gib(o.per_gpu_bytes),
                bytes_as_gib(o.budget_bytes_per_gpu),
                text_value(o.training_hours),
                text_value(o.gpu_hours),
                _speed_basis(o),
            )
            for o in options
        )
        return Table(headers, rows, frozenset(range(2, 6)))
    headers = (
        "option",
        "layout",
        "needed per GPU (GiB)",
        "budget per GPU (GiB)",
        "KV tokens per replica",
        "tokens/s per user",
        "output tokens/s in total",
        "first token (s)",
        "speed basis (per user / total / first token)",
    )
    rows = tuple(
        (
            gpus(o),
            layout_code(o),
            bytes_as_gib(o.per_gpu_bytes),
            bytes_as_gib(o.budget_bytes_per_gpu),
            text_value(o.kv_cache_capacity_tokens),
            text_value(o.decode_tokens_per_s_per_seq),
            text_value(o.aggregate_tokens_per_s),
            text_value(o.ttft_s),
            _speed_basis(o),
        )
        for o in options
    )
    return Table(headers, rows, frozenset(range(2, 8)))


def _prices_table(report: SizingReport, options: list[Option]) -> list[Block]:
    rows: list[tuple[str, ...]] = []
    for o in options:
        p = report.price_of(o.gpu, o.count)
        if p is None:
            rows.append((gpus(o), "not priced", *(["—"] * (2 if report.is_training else 5))))
            continue
        if p.usd_job is not None:
            rows.append(
                (
                    gpus(o),
                    f"{tier(p.tier)}, {p.provider}",
                    money(p.usd_job, ""),
                    price_date(p).removeprefix("as of "),
                )
            )
            continue
        row = serving_row(report, p)
        instance = (row.instance if row is not None else None) or "—"
        rows.append(
            (
                gpus(o),
                f"{tier(p.tier)}, {p.provider}",
                instance,
                money(p.usd_per_hour, ""),
                money(p.usd_per_month, ""),
                money(p.usd_per_million_tokens, ""),
                price_date(p).removeprefix("as of "),
            )
        )
    if not rows:
        return []
    headers: tuple[str, ...]
    if report.is_training:
        headers = ("option", "quoted price", "job (USD)", "as_of")
        return [Table(headers, tuple(rows), frozenset({2}))]
    per_m = f"USD per million output tokens{report.price_load.label}"
    headers = (
        "option",
        "quoted price",
        "instance",
        "USD per hour",
        "USD per month",
        per_m,
        "as_of",
    )
    return [Table(headers, tuple(rows), frozenset({3, 4, 5}))]


def options_blocks(report: SizingReport) -> list[Block]:
    """Memory and speed of the options compared, then their quoted prices."""
    options = compared_options(report)
    if not options:
        return [Paragraph("The recommender found no option to compare.")]
    first = "The recommended option" if report.headline is not None else "The nearest option"
    intro = (
        f"{first} first, then the configurations priced, in price order (at most "
        f"{MAX_COMPARED}; every option evaluated is in Appendix C). {LAYOUT_LEGEND} "
        f"{BASIS_LEGEND}"
    )
    blocks: list[Block] = [Paragraph(intro), options_table(options, report.is_training)]
    prices = _prices_table(report, options)
    if prices:
        blocks.append(
            Paragraph("Quoted prices (the cheapest fresh price of the quote tier, in USD):")
        )
        blocks += prices
    return blocks


# --- memory ----------------------------------------------------------------------------------


def _memory_columns(report: SizingReport) -> list[tuple[str, MemoryEstimate]]:
    def where(est: MemoryEstimate) -> str:
        return f"{est.num_gpus:,}× {gpu_name(report, est.gpu) if est.gpu else 'GPU'}"

    columns: list[tuple[str, MemoryEstimate]] = []
    headline = report.headline
    if headline is not None:
        est = estimate_of(report, headline.option)
        if est is not None:
            one = est.num_gpus < headline.option.count
            columns.append((where(est) + (", one replica" if one else "") + " (recommended)", est))
    for sized in report.memory:
        est = sized.estimate
        if est is None or any(e is est for _, e in columns):
            continue
        if sized.gpu is None and columns:
            continue  # the GPU-free estimate says nothing the recommended layout does not
        if sized.gpu is None:
            title = "one GPU, none named"
        elif sized.count_named:
            title = where(est) + " named"
        else:
            title = f"{gpu_name(report, sized.gpu)} named (one GPU sized)"
        if sized.plain_data_parallel:
            title += " (plain data parallel)"
        columns.append((title, est))
    for sized in report.zero3_resize:
        if sized.estimate is not None:
            columns.append((where(sized.estimate) + " with ZeRO-3", sized.estimate))
    for fit in report.lower_formats:
        if fit.estimate is not None:
            columns.append((where(fit.estimate) + f" in {fit.weights}", fit.estimate))
    return columns


def memory_table(
    columns: list[tuple[str, MemoryEstimate]], recommended: Option | None = None
) -> list[Block]:
    """Per-GPU memory of each (configuration, estimate), one row each, GiB in every column;
    `recommended`: an option with no stored breakdown, first, with the recommender's totals."""
    names: dict[str, None] = {}
    for _, est in columns:
        names.update(
            dict.fromkeys(c.name for c in est.components if c.bytes_per_gpu)
        )  # gradients and optimizer state of a serving estimate: none, no column
    headers = (
        "configuration",
        *(component(n, short=True) for n in names),
        "total",
        "budget",
        "headroom",
        "fits",
    )
    rows: list[tuple[str, ...]] = []
    totals_only = ""
    if recommended is not None:
        o = recommended
        rows.append(
            (
                f"{gpus(o)} ({layout_code(o)}, recommended)",
                *("—" for _ in names),
                bytes_as_gib(o.per_gpu_bytes),
                bytes_as_gib(o.budget_bytes_per_gpu),
                bytes_as_gib(o.headroom_bytes),
                text_value(o.fits),
            )
        )
        totals_only = (
            " The recommended layout's row holds the recommender's totals (no per-component "
            "estimate of that layout is stored)."
        )
    rows += [
        (
            title,
            *(
                next((bytes_as_gib(c.bytes_per_gpu) for c in e.components if c.name == n), "—")
                for n in names
            ),
            bytes_as_gib(e.per_gpu_bytes),
            _gib_or_dash(e.budget_bytes_per_gpu),
            _gib_or_dash(e.headroom_bytes),
            text_value(e.fits),
        )
        for title, e in columns
    ]
    loads = "; ".join(
        f"{title}: {e.batch:,} × {e.context:,} tokens, {e.weights_format} weights, "
        f"{e.kv_dtype} KV cache, TP {e.tp} × PP {e.pp}"
        for title, e in columns
    )
    legend = "; ".join(f"{component(n, short=True)}: {component(n)}" for n in names)
    return [
        Paragraph(
            "GiB (binary gigabytes) on the most loaded GPU, the unit of the tools' notes; the "
            f"budget is usable memory × the engine's utilisation. Columns: {legend}. Sized at: "
            f"{loads}.{totals_only} Formulas in Appendix E."
        ),
        Table(headers, tuple(rows), frozenset(range(1, len(headers) - 1))),
    ]


def memory_blocks(report: SizingReport) -> list[Block]:
    """Per-GPU memory of each configuration the report sized."""
    columns = _memory_columns(report)
    headline = report.headline
    bare = None
    if headline is not None and estimate_of(report, headline.option) is None:
        bare = headline.option
    if not columns and bare is None:
        return [Paragraph("No memory estimate in this report.")]
    return memory_table(columns, bare)


def _gib_or_dash(value: int | None) -> str:
    return "—" if value is None else bytes_as_gib(value)


# --- costs -----------------------------------------------------------------------------------


def _break_even_item(b: BreakEven) -> Item:
    api = f"{b.api_provider} ({b.api_id})"
    if b.reachable is None and b.break_even_output_tokens_per_month is None:
        text = "billed per active hour: both bills grow with the volume, so there is no break-even"
    elif b.reachable is False:
        text = (
            f"the API stays cheaper: breaking even takes "
            f"{format_count(b.break_even_output_tokens_per_month)} output tokens a month, above "
            f"the {format_count(b.capacity_output_tokens_per_month)} this configuration produces"
        )
    else:
        text = (
            "self-hosting is cheaper above "
            f"{format_count(b.break_even_output_tokens_per_month)} output tokens a month"
        )
    if b.cheaper_at_volume is not None and b.api_usd_per_month_at_volume is not None:
        text += (
            f"; at your {format_count(b.volume_output_tokens_per_month)} output tokens a month "
            f"the API bills {money(b.api_usd_per_month_at_volume, 'USD')} against "
            f"{money(b.self_hosted_usd_per_month, 'USD')} ({b.cheaper_at_volume} cheaper)"
        )
    return Item(text + ".", lead=f"{b.provider} {tier(b.tier)} vs {api}:")


R = TypeVar("R", bound=PricedRow)


def per_tier(rows: list[R], quoted: str | None) -> list[R]:
    """At most `ROWS_PER_TIER` rows of each tier in the cost tool's order, the quoted price's
    row (`quoted`, a price id) first in its tier."""
    seen: dict[str, int] = {}
    out: list[R] = []
    ordered = sorted(rows, key=lambda r: r.price_id != quoted)  # stable: the tool's order
    tiers = list(dict.fromkeys(r.tier for r in rows))
    for row in sorted(ordered, key=lambda r: tiers.index(r.tier)):
        seen[row.tier] = seen.get(row.tier, 0) + 1
        if seen[row.tier] <= ROWS_PER_TIER:
            out.append(row)
    return out


def _serving_prices(report: SizingReport, o: Option, quoted: str | None) -> list[Block]:
    serving = None if report.costs is None else report.costs.serving
    if serving is None:
        return []
    rows = [r for r in serving.rows if (r.gpu, r.count) == (o.gpu, o.count) and r.usd_per_hour]
    if not rows:
        return []
    headers = (
        "tier",
        "provider",
        "instance",
        "region",
        "USD per hour",
        "USD per month",
        "USD per million output tokens",
        "as_of",
    )
    cells = tuple(
        (
            tier(r.tier),
            r.provider,
            r.instance or r.gpu_label,
            r.region or "—",
            money(r.usd_per_hour, ""),
            money(r.usd_per_month, ""),
            money(r.usd_per_million_tokens, ""),
            price_date(r).removeprefix("as of "),
        )
        for r in per_tier(rows, quoted)
    )
    return [
        Heading(f"Prices for {gpus(o)} ({PER_TIER_WORDS})", 3),
        Table(headers, cells, frozenset({4, 5, 6})),
    ]


def _training_prices(report: SizingReport, o: Option, quoted: str | None) -> list[Block]:
    training = None if report.costs is None else report.costs.training
    if training is None:
        return []
    rows = [r for r in training.rows if (r.gpu, r.count) == (o.gpu, o.count) and r.usd_cost]
    if not rows:
        return []
    headers = ("tier", "provider", "wall-clock (h)", "job (USD)", "deadline met", "as_of")
    cells = tuple(
        (
            tier(r.tier),
            r.provider,
            text_value(r.wall_hours),
            money(r.usd_cost, ""),
            text_value(r.meets_deadline),
            price_date(r).removeprefix("as of "),
        )
        for r in per_tier(rows, quoted)
    )
    return [
        Heading(f"Prices for {gpus(o)} ({PER_TIER_WORDS})", 3),
        Table(headers, cells, frozenset({2, 3})),
    ]


def _price_rows(report: SizingReport) -> list[Block]:
    """The recommended configuration's prices, the quoted one first (serving or training)."""
    headline = report.headline
    if headline is None:
        return []
    quoted = None if headline.price is None else headline.price.price_id
    option = headline.option
    return _serving_prices(report, option, quoted) + _training_prices(report, option, quoted)


def cost_blocks(report: SizingReport) -> list[Block]:
    """The recommended configuration's prices, the hosted APIs, break-even, what was not
    compared."""
    blocks: list[Block] = [Paragraph(report.price_load.reason)]
    blocks += _price_rows(report)
    serving = None if report.costs is None else report.costs.serving
    apis = [] if serving is None else serving.api_comparison
    if apis:
        named = all(a.match == "named" for a in apis)
        title = (
            "Hosted APIs named for comparison"
            if named
            else "Hosted APIs for the same or a comparable model"
        )
        blocks.append(Heading(title, 3))
        headers = (
            "provider",
            "model",
            "match",
            "input per million tokens",
            "output per million tokens",
            "blended per million tokens",
            "as_of",
        )
        rows = tuple(
            (
                a.provider,
                a.model,
                a.match,
                money(a.input_per_mtok, a.currency),
                money(a.output_per_mtok, a.currency),
                money(a.blended_per_mtok, a.currency),
                price_age(a).removeprefix("as of "),
            )
            for a in apis[:MAX_APIS]
        )
        blocks.append(Table(headers, rows, frozenset({3, 4, 5})))
    price = None if report.headline is None else report.headline.price
    evens = [
        b
        for b in ([] if serving is None else serving.break_even)
        if price is not None and b.price_id == price.price_id
    ]
    if evens:
        blocks.append(Heading("Break-even against the hosted APIs", 3))
        blocks.append(BulletList(tuple(_break_even_item(b) for b in evens)))
    offers = unconverted(report)[:MAX_UNCONVERTED]
    if offers:
        blocks.append(Heading("Offers not compared in USD (no exchange rate given)", 3))
        headers = ("provider", "instance", "configuration", "tier", "price", "EU", "as_of")
        rows_u = tuple(
            (
                u.provider,
                u.instance or "—",
                f"{u.count:,}× {u.gpu}",
                tier(u.tier),
                f"{money(u.price, u.currency)} per {u.per}",
                text_value(u.eu),
                u.as_of,
            )
            for u in offers
        )
        blocks.append(Table(headers, rows_u, frozenset({4})))
    return blocks


# --- risks -----------------------------------------------------------------------------------


RULE_ORDER = (
    "The rules, in order (the first that applies is the main risk): a question still open; "
    "nothing meets the targets; "
    "over budget; a tool warning about the request or the GPU; memory headroom under "
    f"{TIGHT_HEADROOM_FRACTION:.0%} of the per-GPU budget; a stale price; an unconfirmed "
    "(low-confidence) price; a hosted API cheaper; "
    "a speed target checked against an estimated speed; one replica (serving); an estimated "
    "speed behind the cost."
)


def risk_table_blocks(report: SizingReport) -> list[Block]:
    """Every risk the rules found, the main one first, with its severity."""
    items = tuple(
        Item(f"{risk_text(r, report)} ({r.severity})", lead=RISK_TITLES[r.code])
        for r in risks(report)
    )
    return [Paragraph(RULE_ORDER), BulletList(items)]


def tables_blocks(report: SizingReport) -> list[Block]:
    """The whole second part: options, memory, costs, risks."""
    blocks: list[Block] = [Heading("Options compared", 2), *options_blocks(report)]
    blocks += [Heading("Memory per GPU", 2), *memory_blocks(report)]
    blocks += [Heading("Costs", 2), *cost_blocks(report)]
    blocks += [Heading("Risks", 2), *risk_table_blocks(report)]
    return blocks
