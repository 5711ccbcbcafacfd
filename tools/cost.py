"""Cost of a configuration: serving $/hour, $/month, $/million tokens, hosted-API comparison,
break-even volume, and training cost with a spot interruption overhead.

Inputs come from the recommender (`tools.recommend.Option`: gpu, count, aggregate_tokens_per_s,
training_hours); prices from `tools.pricing`. Prices stay in the currency published: a EUR
price is converted only with a rate the caller gives (`eur_to_usd`), and the row says so.
Tiers are never merged: every row is labelled with its tier and the cheapest row is reported
per tier.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from datetime import date
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from tools.catalog import get_catalog
from tools.errors import ToolInputError
from tools.pricing import (
    DEFAULT_MAX_PRICE_AGE_DAYS,
    TIERS,
    ApiPriceEntry,
    PriceBook,
    PriceEntry,
    RankingPrices,
    Tier,
    configuration_price_per_hour,
    hosts_group,
    on_demand_rows,
    per_gpu_quote_note,
    staleness_warning,
    to_usd,
)

# Billing month used by cloud providers' monthly estimates (AWS, GCP, Azure calculators):
# 730 hours = 8,760 hours a year / 12.
HOURS_PER_MONTH = 730.0
# Assumption (stated in every spot training row): a spot/preemptible job loses ~10% of its
# wall-clock to interruptions — the work since the last checkpoint plus re-provisioning and
# restart. The real figure depends on checkpoint interval and market; callers override it.
SPOT_INTERRUPTION_OVERHEAD = 0.10
# Assumption when the caller gives no ratio: 3 input tokens per output token, the ratio the
# blended "price per million tokens" of API benchmarks (e.g. Artificial Analysis) uses.
DEFAULT_INPUT_TOKENS_PER_OUTPUT_TOKEN = 3.0

MatchKind = Literal["same", "comparable"]
# (the caller's date, the most days a price may be old): what marks a price stale. Passed in,
# so a result is reproducible for a given date; the CLI and the chat pass today's.
Freshness = tuple[date, int]


class ServingCostInput(BaseModel):
    """One serving configuration to price (the recommender's Option carries these fields)."""

    model_config = ConfigDict(extra="forbid")

    gpu: str = Field(description="GPU catalog id, e.g. 'h100-sxm'.")
    count: int = Field(ge=1, description="GPUs in the configuration (all replicas), count.")
    aggregate_tokens_per_s: float | None = Field(
        default=None,
        gt=0,
        description="Output tokens per second of the whole configuration at the planned "
        "concurrency (recommender estimate); None prices hours only.",
    )
    tp: int | None = Field(
        default=None,
        ge=1,
        description="Tensor-parallel group size: GPUs that must sit in one instance.",
    )


class UsageProfile(BaseModel):
    """How the configuration is used over a month."""

    model_config = ConfigDict(extra="forbid")

    utilization: float = Field(
        default=1.0,
        gt=0,
        le=1,
        description="Average fraction of the estimated aggregate throughput in use during "
        "active hours, 0-1.",
    )
    active_hours_per_month: float = Field(
        default=HOURS_PER_MONTH,
        gt=0,
        le=HOURS_PER_MONTH,
        description="Hours a month with traffic, hours (730 = always on).",
    )
    scale_to_zero: bool = Field(
        default=False,
        description="True: instances are stopped outside active hours, so only active hours "
        "are billed. Serverless prices always bill active hours only.",
    )
    input_tokens_per_output_token: float = Field(
        default=DEFAULT_INPUT_TOKENS_PER_OUTPUT_TOKEN,
        ge=0,
        description="Input (prompt) tokens per generated token, for blended prices.",
    )


class PriceFilter(BaseModel):
    """Which prices to consider. Empty lists mean no restriction."""

    model_config = ConfigDict(extra="forbid")

    providers: list[str] = Field(
        default_factory=list, description="Provider names (case-insensitive substring match)."
    )
    gpus: list[str] = Field(default_factory=list, description="GPU catalog ids.")
    eu_only: bool = Field(default=False, description="Only prices in a stated EU region.")
    tiers: list[Tier] = Field(default_factory=list, description="Price tiers to include.")
    max_usd_per_hour: float | None = Field(
        default=None, gt=0, description="Most US dollars per hour for the whole configuration."
    )
    eur_to_usd: float | None = Field(
        default=None,
        gt=0,
        description="US dollars per euro, given by the user, to compare EUR prices in USD.",
    )
    include_superseded: bool = Field(
        default=False, description="Also price historical rows (marked superseded)."
    )


class ExcludedPrice(BaseModel):
    """A price that matched the GPU but was left out, and why."""

    id: str
    provider: str
    reason: str


class UnconvertedPrice(BaseModel):
    """An offer priced in a currency that could not be compared in USD (no rate given): kept
    in the rows, listed here so an answer can say it was not compared instead of dropping it."""

    price_id: str
    provider: str
    instance: str | None
    gpu: str
    count: int = Field(description="GPUs in the configuration priced.")
    tier: Tier
    eu: bool
    price: float = Field(description="Price of the whole configuration, in `currency`.")
    per: Literal["hour", "job"] = Field(description="'hour' for serving, 'job' for training.")
    currency: str
    as_of: str


class PricedRow(BaseModel):
    """What every cost row carries: the price it used (with provider, tier, region, as_of and
    source) and what is billed. Money in `currency` unless a field is named usd_."""

    price_id: str
    provider: str
    instance: str | None
    gpu: str
    count: int
    instances: int | None = Field(description="Whole instances billed; None if sold per GPU.")
    billed_gpus: int
    tier: Tier
    pricing_type: str
    region: str | None
    eu: bool
    currency: str
    per_hour: float
    as_of: str
    source: str
    stale: bool | None = Field(
        default=None,
        description="Undated or older than the staleness limit on the caller's date (None: "
        "no date given). Stale rows sort after fresh ones of the same tier.",
    )
    notes: list[str]


def _price_fields(price: PriceEntry) -> dict[str, Any]:
    """The fields of a cost row that come straight from the price entry."""
    assert price.gpu is not None  # only matched prices are ever priced
    return {
        "price_id": price.id,
        "provider": price.provider,
        "instance": price.instance,
        "gpu": price.gpu,
        "tier": price.tier,
        "pricing_type": price.pricing_type,
        "region": price.region,
        "eu": price.eu,
        "currency": price.currency,
        "as_of": price.as_of,
        "source": price.source,
    }


class ServingCostRow(PricedRow):
    """The cost of one configuration at one price."""

    gpu_label: str
    billed_hours_per_month: float
    per_month: float
    output_tokens_per_month: float | None
    per_million_output_tokens: float | None
    per_million_blended_tokens: float | None
    usd_per_hour: float | None
    usd_per_month: float | None
    usd_per_million_tokens: float | None = Field(description="Per million output tokens.")
    usd_per_million_blended_tokens: float | None
    confidence: str | None


class ApiComparisonRow(BaseModel):
    """A hosted API's price for the same (or a comparable) model at the same volume."""

    api_id: str
    provider: str
    model: str
    match: MatchKind
    basis: str | None
    currency: str
    input_per_mtok: float
    output_per_mtok: float
    blended_per_mtok: float = Field(description="(r·input + output) / (r + 1), r = in:out.")
    usd_blended_per_mtok: float | None
    as_of: str
    source: str


class BreakEven(BaseModel):
    """Monthly volume above which an always-on configuration costs less than an API."""

    price_id: str
    provider: str
    tier: Tier
    api_id: str
    api_provider: str
    self_hosted_usd_per_month: float
    api_usd_per_million_output_tokens: float = Field(
        description="API cost per million output tokens incl. r input tokens each."
    )
    break_even_output_tokens_per_month: float | None
    break_even_blended_tokens_per_month: float | None
    capacity_output_tokens_per_month: float | None = Field(
        description="Output tokens a month at 100% of the estimated throughput for 730 h."
    )
    reachable: bool | None
    explanation: str


class ServingCostResult(BaseModel):
    """Cost rows (grouped by tier), the API comparison and the break-even volumes."""

    rows: list[ServingCostRow]
    cheapest_by_tier: dict[str, str] = Field(description="tier -> price_id of cheapest row.")
    api_comparison: list[ApiComparisonRow]
    break_even: list[BreakEven]
    excluded: list[ExcludedPrice]
    unconverted: list[UnconvertedPrice] = Field(
        default_factory=list,
        description="Offers in another currency left out of every USD comparison (no exchange "
        "rate given), cheapest first in their own currency.",
    )
    unconverted_note: str | None = Field(
        default=None,
        description="One line to show next to any 'cheapest' claim when `unconverted` is not "
        "empty (how many, the cheapest native price, how to set a rate).",
    )
    assumptions: list[str]


def _matches(price: PriceEntry, gpu: str, flt: PriceFilter) -> str | None:
    """None if the price passes the filter for `gpu`, else the reason it does not."""
    if price.gpu != gpu:
        return "other GPU"
    if flt.gpus and gpu not in flt.gpus:
        return "GPU filter"
    if flt.providers and not any(p.lower() in price.provider.lower() for p in flt.providers):
        return "provider filter"
    if flt.eu_only and not price.eu:
        return "EU-only filter"
    if flt.tiers and price.tier not in flt.tiers:
        return "tier filter"
    return None


def billed_hours(profile: UsageProfile, tier: Tier) -> float:
    """Hours billed a month: active hours when scaled to zero or serverless, else 730."""
    if profile.scale_to_zero or tier == "serverless":
        return profile.active_hours_per_month
    return HOURS_PER_MONTH


def output_tokens_per_month(tokens_per_s: float, profile: UsageProfile) -> float:
    """Output tokens produced a month: tokens/s × utilization × 3,600 s × active hours."""
    return tokens_per_s * profile.utilization * 3600.0 * profile.active_hours_per_month


def staleness(price: PriceEntry, freshness: Freshness | None) -> tuple[bool | None, list[str]]:
    """(stale?, the warning as a note) on the caller's date; (None, []) without one."""
    if freshness is None:
        return None, []
    warning = staleness_warning(price, *freshness)
    return warning is not None, [] if warning is None else [f"stale: {warning}"]


def serving_row(
    price: PriceEntry,
    option: ServingCostInput,
    profile: UsageProfile,
    eur_to_usd: float | None,
    freshness: Freshness | None = None,
) -> ServingCostRow:
    """Price one configuration at one price (formulas in the field descriptions above).

    The tensor-parallel group (`option.tp`) sits in one instance; replicas may use others.
    """
    per_hour, instances, billed_gpus = configuration_price_per_hour(
        price, option.count, option.tp or 1
    )
    hours = billed_hours(profile, price.tier)
    per_month = per_hour * hours
    stale, notes = staleness(price, freshness)
    if billed_gpus > option.count:
        notes.append(
            f"billed for {billed_gpus} GPUs: sold as {price.gpus_per_instance}-GPU instances"
        )
    if price.gpus_per_instance is None and (option.tp or option.count) > 1:
        notes.append(per_gpu_quote_note(option.tp or option.count))
    if price.gpus_per_instance == 1 and option.count > 1 and option.tp is None:
        # No layout given: say what separate 1-GPU machines can and cannot run.
        notes.append(
            f"{option.count} separate 1-GPU instances: fine for data-parallel replicas, not "
            "for tensor parallelism across them"
        )
    if price.tier == "serverless":
        notes.append("serverless: billed for active hours only")
    tokens = per_mtok = per_mtok_blended = None
    if option.aggregate_tokens_per_s is not None:
        tokens = output_tokens_per_month(option.aggregate_tokens_per_s, profile)
        per_mtok = per_month / tokens * 1e6
        blended = tokens * (1.0 + profile.input_tokens_per_output_token)
        per_mtok_blended = per_month / blended * 1e6
    if price.currency != "USD":
        if eur_to_usd is None:
            notes.append(f"price in {price.currency}; not converted (no exchange rate given)")
        else:
            notes.append(f"converted at {eur_to_usd} USD per {price.currency} (user rate)")

    def usd(value: float | None) -> float | None:
        return None if value is None else to_usd(value, price.currency, eur_to_usd)

    return ServingCostRow(
        **_price_fields(price),
        gpu_label=price.gpu_label,
        count=option.count,
        instances=instances,
        billed_gpus=billed_gpus,
        per_hour=per_hour,
        billed_hours_per_month=hours,
        per_month=per_month,
        output_tokens_per_month=tokens,
        per_million_output_tokens=per_mtok,
        per_million_blended_tokens=per_mtok_blended,
        usd_per_hour=usd(per_hour),
        usd_per_month=usd(per_month),
        usd_per_million_tokens=usd(per_mtok),
        usd_per_million_blended_tokens=usd(per_mtok_blended),
        confidence=price.confidence,
        stale=stale,
        notes=notes,
    )


def _sort_key(row: ServingCostRow) -> tuple[int, int, bool, float]:
    # Within a tier: USD-comparable rows first, fresh before stale (a stale price must not be
    # "cheapest" while a fresh one exists), each by price; then unconverted ones.
    comparable = row.usd_per_hour is not None
    price = row.usd_per_hour or row.per_hour
    return (TIERS.index(row.tier), 0 if comparable else 1, bool(row.stale), price)


def price_options(
    options: list[ServingCostInput],
    book: PriceBook,
    flt: PriceFilter,
    profile: UsageProfile,
    freshness: Freshness | None = None,
) -> tuple[list[ServingCostRow], list[ExcludedPrice]]:
    """Serving cost rows for each option at every matching price that can host its
    tensor-parallel group, sorted by tier, then fresh before stale, then USD."""
    rows: list[ServingCostRow] = []
    excluded: list[ExcludedPrice] = []
    for option in options:
        for price in book.prices:
            if _matches(price, option.gpu, flt) is not None:
                continue
            if not hosts_group(price, option.tp or 1):
                reason = (
                    f"{price.gpus_per_instance}-GPU instance cannot hold the tensor-parallel "
                    f"group of {option.tp} GPUs (a group sits in one machine)"
                )
                excluded.append(ExcludedPrice(id=price.id, provider=price.provider, reason=reason))
                continue
            if price.superseded and not flt.include_superseded:
                excluded.append(
                    ExcludedPrice(id=price.id, provider=price.provider, reason=price.superseded)
                )
                continue
            row = serving_row(price, option, profile, flt.eur_to_usd, freshness)
            if flt.max_usd_per_hour is not None:
                if row.usd_per_hour is None:
                    excluded.append(
                        ExcludedPrice(
                            id=price.id,
                            provider=price.provider,
                            reason=f"price in {price.currency}: give an exchange rate to "
                            "compare with the USD per hour limit",
                        )
                    )
                    continue
                if row.usd_per_hour > flt.max_usd_per_hour:
                    continue
            rows.append(row)
    rows.sort(key=_sort_key)
    return rows, excluded


def unconverted_offers(rows: Iterable[ServingCostRow | TrainingCostRow]) -> list[UnconvertedPrice]:
    """The rows no USD figure could be given for (a EUR price and no rate), one per offer and
    configuration, by currency, then tier (on-demand first, as rankings read them), then price
    in their own currency."""
    out: dict[tuple[str, int], UnconvertedPrice] = {}
    for row in rows:
        training = isinstance(row, TrainingCostRow)
        usd = row.usd_cost if isinstance(row, TrainingCostRow) else row.usd_per_hour
        if usd is not None:
            continue
        out.setdefault(
            (row.price_id, row.count),
            UnconvertedPrice(
                price_id=row.price_id,
                provider=row.provider,
                instance=row.instance,
                gpu=row.gpu,
                count=row.count,
                tier=row.tier,
                eu=row.eu,
                price=row.cost if isinstance(row, TrainingCostRow) else row.per_hour,
                per="job" if training else "hour",
                currency=row.currency,
                as_of=row.as_of,
            ),
        )
    return sorted(
        out.values(), key=lambda u: (u.currency, TIERS.index(u.tier), u.price, u.price_id)
    )


def unconverted_note(offers: list[UnconvertedPrice]) -> str | None:
    """One line saying how many offers were not compared in USD and the cheapest of the first
    tier in its own currency ('1 offer in EUR not compared (no EUR→USD rate set); cheapest
    on_demand OVHcloud h100-380 (1× h100-sxm) 2.80 EUR/hour'); None when all have USD."""
    if not offers:
        return None
    parts: list[str] = []
    for currency in sorted({o.currency for o in offers}):
        mine = [o for o in offers if o.currency == currency]
        offer_ids = {o.price_id for o in mine}
        eu = sum(1 for i in offer_ids if any(o.eu for o in mine if o.price_id == i))
        where = f" ({eu} in the EU)" if eu else ""
        best = mine[0]
        unit = "/hour" if best.per == "hour" else " for the job"
        plural = "offer" if len(offer_ids) == 1 else "offers"
        parts.append(
            f"{len(offer_ids)} {plural} in {currency}{where} not compared (no {currency}→USD "
            f"rate set); cheapest {best.tier} {best.provider} {best.instance or best.price_id} "
            f"({best.count}× {best.gpu}) {best.price:,.2f} {currency}{unit}, as_of {best.as_of}"
        )
    return "; ".join(parts)


def cheapest_by_tier(rows: list[ServingCostRow]) -> dict[str, str]:
    """tier -> price_id of the cheapest USD-comparable row (rows sorted by `_sort_key`, so a
    fresh row wins over a cheaper stale one)."""
    best: dict[str, str] = {}
    for row in rows:
        if row.usd_per_hour is not None and row.tier not in best:
            best[row.tier] = row.price_id
    return best


def blended_per_mtok(input_per_mtok: float, output_per_mtok: float, ratio: float) -> float:
    """Blended price per million tokens at `ratio` input tokens per output token."""
    return (ratio * input_per_mtok + output_per_mtok) / (ratio + 1.0)


def api_prices_for(model_id: str, book: PriceBook) -> list[tuple[ApiPriceEntry, MatchKind]]:
    """Hosted API prices for the same model, then for comparable ones (superseded left out)."""
    same: list[tuple[ApiPriceEntry, MatchKind]] = [
        (a, "same") for a in book.api_prices if a.model_id == model_id and not a.superseded
    ]
    comparable: list[tuple[ApiPriceEntry, MatchKind]] = [
        (a, "comparable")
        for a in book.api_prices
        if a.comparable_model_id == model_id and not a.superseded
    ]
    return [*same, *comparable]


def api_comparison(
    model_id: str, book: PriceBook, profile: UsageProfile, eur_to_usd: float | None
) -> list[ApiComparisonRow]:
    """API rows for `model_id`, cheapest blended USD price first."""
    ratio = profile.input_tokens_per_output_token
    out: list[ApiComparisonRow] = []
    for api, match in api_prices_for(model_id, book):
        blended = blended_per_mtok(api.input_per_mtok, api.output_per_mtok, ratio)
        out.append(
            ApiComparisonRow(
                api_id=api.id,
                provider=api.provider,
                model=api.model,
                match=match,
                basis=api.comparable_basis,
                currency=api.currency,
                input_per_mtok=api.input_per_mtok,
                output_per_mtok=api.output_per_mtok,
                blended_per_mtok=blended,
                usd_blended_per_mtok=to_usd(blended, api.currency, eur_to_usd),
                as_of=api.as_of,
                source=api.source,
            )
        )
    out.sort(key=lambda r: (r.usd_blended_per_mtok is None, r.usd_blended_per_mtok or 0.0))
    return out


def break_even(
    row: ServingCostRow,
    api: ApiComparisonRow,
    tokens_per_s: float | None,
    profile: UsageProfile,
) -> BreakEven | None:
    """Output tokens a month at which `row`'s monthly bill equals the API's bill.

    API bill for V output tokens = V × (output + r × input) / 10⁶ (r input tokens per output);
    the self-hosted bill F is flat, so V* = F × 10⁶ / (output + r × input). V* is reachable
    only when the configuration can produce it: capacity = tokens/s × 3,600 × 730.
    """
    if row.usd_per_month is None or api.usd_blended_per_mtok is None:
        return None
    ratio = profile.input_tokens_per_output_token
    api_per_m_output = api.usd_blended_per_mtok * (ratio + 1.0)
    fixed = row.usd_per_month
    capacity = None if tokens_per_s is None else tokens_per_s * 3600.0 * HOURS_PER_MONTH
    common = {
        "price_id": row.price_id,
        "provider": row.provider,
        "tier": row.tier,
        "api_id": api.api_id,
        "api_provider": api.provider,
        "self_hosted_usd_per_month": fixed,
        "api_usd_per_million_output_tokens": api_per_m_output,
        "capacity_output_tokens_per_month": capacity,
    }
    if row.billed_hours_per_month < HOURS_PER_MONTH:
        # Billed by the active hour: both bills grow with volume, so there is no crossover.
        return BreakEven(
            **common,
            break_even_output_tokens_per_month=None,
            break_even_blended_tokens_per_month=None,
            reachable=None,
            explanation="billed per active hour: self-hosted cost per token is "
            f"${row.usd_per_million_tokens or float('nan'):.4g}/M output tokens vs the API's "
            f"${api_per_m_output:.4g}/M at any volume",
        )
    volume = fixed * 1e6 / api_per_m_output
    reachable = None if capacity is None else volume <= capacity
    if reachable is False:
        explanation = (
            f"the API stays cheaper: break-even needs {volume:.3g} output tokens a month, "
            f"above this configuration's capacity of {capacity:.3g}"
        )
    else:
        explanation = (
            f"self-hosting is cheaper above {volume:.3g} output tokens a month "
            f"(${fixed:,.0f}/month ÷ ${api_per_m_output:.4g} per million output tokens)"
        )
    return BreakEven(
        **common,
        break_even_output_tokens_per_month=volume,
        break_even_blended_tokens_per_month=volume * (ratio + 1.0),
        reachable=reachable,
        explanation=explanation,
    )


def currency_assumption(eur_to_usd: float | None) -> str:
    """How EUR prices were compared: at the user's rate, or not at all."""
    if eur_to_usd is None:
        return "EUR prices are not converted unless an exchange rate is given"
    return f"EUR prices converted at the user's rate of {eur_to_usd:g} USD per EUR"


def serving_assumptions(
    profile: UsageProfile, freshness: Freshness | None = None, eur_to_usd: float | None = None
) -> list[str]:
    """The assumptions every serving result states."""
    stale = (
        []
        if freshness is None
        else [
            f"prices undated or older than {freshness[1]} days on {freshness[0].isoformat()} are "
            "marked stale and listed after fresh ones of the same tier"
        ]
    )
    return [
        *stale,
        f"month = {HOURS_PER_MONTH:g} billed hours when always on (8,760 h / 12)",
        f"load: {profile.utilization:.0%} of the estimated aggregate throughput during "
        f"{profile.active_hours_per_month:g} active hours a month",
        "scale to zero: "
        + ("on (only active hours billed)" if profile.scale_to_zero else "off")
        + "; serverless prices always bill active hours only",
        f"blended tokens: {profile.input_tokens_per_output_token:g} input tokens per output token",
        "GPUs sold in instances are billed by whole instance; a tensor-parallel group sits in "
        "one instance, so a row whose instance holds fewer GPUs than the group is left out",
        currency_assumption(eur_to_usd),
    ]


def compare_costs(
    options: list[ServingCostInput],
    book: PriceBook,
    flt: PriceFilter | None = None,
    profile: UsageProfile | None = None,
    model_id: str | None = None,
    freshness: Freshness | None = None,
) -> ServingCostResult:
    """Serving cost of each option at every matching price, the API comparison for
    `model_id`, and break-even volumes of each tier's cheapest row against the cheapest API.

    `freshness` = (today, max age in days): rows past it are marked stale and a tier's
    cheapest is a fresh row whenever one exists.
    """
    flt = flt or PriceFilter()
    profile = profile or UsageProfile()
    if not options:
        raise ToolInputError("options", "no configuration to price", "at least one GPU + count")
    rows, excluded = price_options(options, book, flt, profile, freshness)
    best = cheapest_by_tier(rows)
    apis = [] if model_id is None else api_comparison(model_id, book, profile, flt.eur_to_usd)
    by_id = {r.price_id: r for r in rows}
    tps = {(o.gpu, o.count): o.aggregate_tokens_per_s for o in options}
    evens: list[BreakEven] = []
    cheapest_api = next((a for a in apis if a.usd_blended_per_mtok is not None), None)
    if cheapest_api is not None:
        for price_id in best.values():
            row = by_id[price_id]
            even = break_even(row, cheapest_api, tps.get((row.gpu, row.count)), profile)
            if even is not None:
                evens.append(even)
    unconverted = unconverted_offers(rows)
    return ServingCostResult(
        rows=rows,
        cheapest_by_tier=best,
        api_comparison=apis,
        break_even=evens,
        excluded=excluded,
        unconverted=unconverted,
        unconverted_note=unconverted_note(unconverted),
        assumptions=serving_assumptions(profile, freshness, flt.eur_to_usd),
    )


class TrainingCostInput(BaseModel):
    """One training configuration to price (the recommender's Option carries these fields)."""

    model_config = ConfigDict(extra="forbid")

    gpu: str = Field(description="GPU catalog id.")
    count: int = Field(ge=1, description="GPUs used by the job, count.")
    training_hours: float = Field(
        gt=0, description="Wall-clock hours of the job on `count` GPUs without interruptions."
    )


class TrainingCostRow(PricedRow):
    """Cost of one training job at one price."""

    machines: int | None = Field(
        description="Machines the job spans: whole instances billed, or for a per-GPU quote "
        "⌈count / the GPU's catalog gpus_per_node⌉ (None when neither is known)."
    )
    interconnect: str | None = Field(
        description="Network between machines as the offer names it ('Ethernet', 'InfiniBand', "
        "...); None: not stated in the price entry."
    )

    interruption_overhead: float = Field(description="Fraction of wall-clock added (spot only).")
    wall_hours: float
    gpu_hours: float = Field(description="Billed GPU-hours = billed GPUs × wall hours.")
    cost: float
    usd_cost: float | None
    meets_deadline: bool | None


class TrainingCostResult(BaseModel):
    """Training cost at every matching price, cheapest per tier and under the deadline."""

    rows: list[TrainingCostRow]
    cheapest_by_tier: dict[str, str]
    cheapest_meeting_deadline: TrainingCostRow | None
    excluded: list[ExcludedPrice]
    unconverted: list[UnconvertedPrice] = Field(
        default_factory=list,
        description="Offers in another currency left out of every USD comparison.",
    )
    unconverted_note: str | None = None
    assumptions: list[str]


# What a price entry's instance name or notes say about the network between machines, checked
# in this order (the first match names it). The catalog has no network field; offers that name
# their fabric do so in the instance name ('H100 Ethernet') or notes.
_FABRICS: tuple[tuple[str, re.Pattern[str]], ...] = (
    # Azure's ND96is_H100_v5 is labelled 'H100 SXM (no IB)': its machines share no InfiniBand.
    ("no InfiniBand", re.compile(r"\bno[\s-]+(?:ib|infiniband)\b", re.IGNORECASE)),
    ("InfiniBand", re.compile(r"infiniband|\bib\b", re.IGNORECASE)),
    ("RoCE (Ethernet)", re.compile(r"\broce", re.IGNORECASE)),
    ("EFA", re.compile(r"\befa\b", re.IGNORECASE)),
    ("Ethernet", re.compile(r"ethernet", re.IGNORECASE)),
)


_FABRIC_PHRASES = {
    "Ethernet": "an Ethernet network",
    "no InfiniBand": "machines without InfiniBand",
}


def stated_interconnect(price: PriceEntry) -> str | None:
    """The inter-machine network the offer names (instance, pricing term, notes), else None."""
    text = " ".join(
        t for t in (price.instance, price.gpu_label, price.pricing_type, price.notes) if t
    )
    return next((name for name, pattern in _FABRICS if pattern.search(text)), None)


def machines_spanned(price: PriceEntry, count: int, instances: int | None) -> int | None:
    """Machines a `count`-GPU job runs on: the whole instances billed, or for a per-GPU quote
    ⌈count / catalog gpus_per_node⌉ (the typical node of that GPU); None when unknown."""
    if instances is not None:
        return instances
    assert price.gpu is not None
    per_node = get_catalog().gpus[price.gpu].gpus_per_node
    return None if per_node is None else math.ceil(count / per_node)


def fabric_note(interconnect: str | None, machines: int | None, count: int) -> str | None:
    """A caveat for a job that spans machines: its gradient / ZeRO-3 traffic crosses the
    inter-machine network every step, which the price entry names or does not."""
    if machines is None or machines <= 1:
        return None
    span = f"{count} GPUs over {machines} machines"
    if interconnect is None:
        return (
            f"multi-node ({span}): interconnect not stated in the price entry; data-parallel "
            "and ZeRO/FSDP traffic crosses it every step, so ask the provider for its "
            "bandwidth per GPU before trusting the hours"
        )
    if interconnect in _FABRIC_PHRASES:
        return (
            f"multi-node ({span}) on {_FABRIC_PHRASES[interconnect]} (as the offer states): "
            "data-parallel and ZeRO/FSDP traffic crosses it every step; check its bandwidth "
            "per GPU, the hours assume the network keeps up"
        )
    return f"multi-node ({span}) over {interconnect} (as the offer names it)"


def training_row(
    price: PriceEntry,
    job: TrainingCostInput,
    deadline_hours: float | None,
    spot_overhead: float,
    eur_to_usd: float | None,
    freshness: Freshness | None = None,
) -> TrainingCostRow:
    """Cost = price per hour (whole instances) × wall hours; spot adds `spot_overhead`.

    wall hours = training_hours × (1 + overhead), overhead = `spot_overhead` on spot, else 0.
    """
    per_hour, instances, billed_gpus = configuration_price_per_hour(price, job.count)
    overhead = spot_overhead if price.tier == "spot" else 0.0
    wall = job.training_hours * (1.0 + overhead)
    cost = per_hour * wall
    stale, notes = staleness(price, freshness)
    machines = machines_spanned(price, job.count, instances)
    interconnect = stated_interconnect(price)
    if (fabric := fabric_note(interconnect, machines, job.count)) is not None:
        notes.append(fabric)
    if overhead:
        notes.append(f"spot: +{overhead:.0%} wall-clock assumed lost to interruptions")
    if billed_gpus > job.count:
        notes.append(f"billed for {billed_gpus} GPUs (whole instances)")
    if price.currency != "USD" and eur_to_usd is None:
        notes.append(f"price in {price.currency}; not converted (no exchange rate given)")
    return TrainingCostRow(
        **_price_fields(price),
        count=job.count,
        instances=instances,
        billed_gpus=billed_gpus,
        per_hour=per_hour,
        interruption_overhead=overhead,
        wall_hours=wall,
        gpu_hours=billed_gpus * wall,
        cost=cost,
        usd_cost=to_usd(cost, price.currency, eur_to_usd),
        meets_deadline=None if deadline_hours is None else wall <= deadline_hours,
        machines=machines,
        interconnect=interconnect,
        stale=stale,
        notes=notes,
    )


def training_costs(
    jobs: list[TrainingCostInput],
    book: PriceBook,
    flt: PriceFilter | None = None,
    deadline_hours: float | None = None,
    spot_interruption_overhead: float = SPOT_INTERRUPTION_OVERHEAD,
    freshness: Freshness | None = None,
) -> TrainingCostResult:
    """Training cost of each job at every matching price; the cheapest row per tier and the
    cheapest (in USD, any tier, labelled) that finishes within `deadline_hours`.

    `freshness` = (today, max age in days) marks stale rows as serving rows are marked: they
    sort after fresh ones of their tier, and a fresh row is "cheapest" whenever one exists.
    """
    flt = flt or PriceFilter()
    if not jobs:
        raise ToolInputError("jobs", "no training configuration to price", "GPU, count, hours")
    if not 0 <= spot_interruption_overhead < 10:
        raise ToolInputError(
            "spot_interruption_overhead",
            f"{spot_interruption_overhead} is out of range",
            "a fraction of wall-clock, 0 <= overhead < 10 (0.10 = 10%)",
        )
    rows: list[TrainingCostRow] = []
    excluded: list[ExcludedPrice] = []
    for job in jobs:
        for price in book.prices:
            if _matches(price, job.gpu, flt) is not None:
                continue
            if price.superseded and not flt.include_superseded:
                excluded.append(
                    ExcludedPrice(id=price.id, provider=price.provider, reason=price.superseded)
                )
                continue
            row = training_row(
                price, job, deadline_hours, spot_interruption_overhead, flt.eur_to_usd, freshness
            )
            per_hour_usd = to_usd(row.per_hour, row.currency, flt.eur_to_usd)
            if flt.max_usd_per_hour is not None and (
                per_hour_usd is None or per_hour_usd > flt.max_usd_per_hour
            ):
                continue
            rows.append(row)
    # Within a tier: USD-comparable rows first, fresh before stale, each by total cost (the
    # serving rows' rule, so a 257-day-old price is never ranked among fresh ones).
    rows.sort(
        key=lambda r: (TIERS.index(r.tier), r.usd_cost is None, bool(r.stale), r.usd_cost or r.cost)
    )
    best: dict[str, str] = {}
    for row in rows:
        if row.usd_cost is not None and row.tier not in best:
            best[row.tier] = row.price_id
    meeting = [r for r in rows if r.usd_cost is not None and r.meets_deadline is not False]
    cheapest = min(meeting, key=lambda r: (bool(r.stale), r.usd_cost or 0.0)) if meeting else None
    unconverted = unconverted_offers(rows)
    stale_rule = (
        []
        if freshness is None
        else [
            f"prices undated or older than {freshness[1]} days on {freshness[0].isoformat()} "
            "are marked stale and listed after fresh ones of the same tier"
        ]
    )
    return TrainingCostResult(
        rows=rows,
        cheapest_by_tier=best,
        cheapest_meeting_deadline=cheapest,
        excluded=excluded,
        unconverted=unconverted,
        unconverted_note=unconverted_note(unconverted),
        assumptions=[
            *stale_rule,
            f"spot interruption overhead: +{spot_interruption_overhead:.0%} wall-clock "
            "(assumption: work lost since the last checkpoint plus restarts)",
            "GPUs sold in instances are billed by whole instance",
            "a job on several machines runs over the network the offer names (instance name or "
            "notes); where none is named the row says 'interconnect not stated'",
            currency_assumption(flt.eur_to_usd),
        ],
    )


class RecommendedOption(Protocol):
    """The fields of `tools.recommend.Option` the cost tool reads (no import: layers stay
    independent of each other)."""

    @property
    def gpu(self) -> str: ...
    @property
    def count(self) -> int: ...
    @property
    def tp(self) -> int: ...
    @property
    def fits(self) -> bool: ...
    @property
    def meets_targets(self) -> bool: ...
    @property
    def aggregate_tokens_per_s(self) -> float | None: ...
    @property
    def training_hours(self) -> float | None: ...


def serving_inputs(options: Iterable[RecommendedOption]) -> list[ServingCostInput]:
    """Serving inputs from recommender options that fit AND meet the targets: a setup that
    misses the throughput, latency or budget asked for is not an offer to price (the caller
    says so when none is left, with the recommender's nearest option)."""
    return [
        ServingCostInput(
            gpu=o.gpu, count=o.count, aggregate_tokens_per_s=o.aggregate_tokens_per_s, tp=o.tp
        )
        for o in options
        if o.fits and o.meets_targets
    ]


def training_inputs(options: Iterable[RecommendedOption]) -> list[TrainingCostInput]:
    """Training inputs from recommender options that fit and carry a training time."""
    return [
        TrainingCostInput(gpu=o.gpu, count=o.count, training_hours=o.training_hours)
        for o in options
        if o.fits and o.training_hours is not None and o.training_hours > 0
    ]


def ranking_prices(
    book: PriceBook,
    flt: PriceFilter | None = None,
    today: date | None = None,
    max_age_days: int = DEFAULT_MAX_PRICE_AGE_DAYS,
) -> RankingPrices:
    """The on-demand rows under `flt` the recommender ranks "cheapest" and checks budgets by
    (spot and commitments are left out so the ranking is not skewed; EUR rows count only with
    the user's rate). Each configuration is then priced by `RankingPrices.configuration`."""
    flt = flt or PriceFilter()
    rows = tuple(
        p for p in on_demand_rows(book) if p.gpu is not None and _matches(p, p.gpu, flt) is None
    )
    scope = "under the price filters" + (" (user price file included)" if book.user_file else "")
    return RankingPrices(
        rows=rows,
        today=today or date.today(),
        eur_to_usd=flt.eur_to_usd,
        max_age_days=max_age_days,
        scope=scope,
    )
