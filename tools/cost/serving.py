"""Serving cost: each configuration at every matching price ($/hour, $/month, $/million
tokens), sorted by tier, the cheapest row per tier, and `compare_costs`, which adds the
hosted-API comparison and the break-even volumes.
"""

from __future__ import annotations

from tools.cost.breakeven import break_even
from tools.cost.currency import currency_assumption, unconverted_note, unconverted_offers
from tools.cost.filters import (
    LOW_CONFIDENCE_RULE,
    age_fields,
    confidence_notes,
    eligible_prices,
    stale_rule,
    staleness,
)
from tools.cost.hosted_api import api_comparison
from tools.cost.inputs import (
    HOURS_PER_MONTH,
    Freshness,
    PriceFilter,
    ServingCostInput,
    UsageProfile,
)
from tools.cost.results import (
    BreakEven,
    ExcludedPrice,
    ServingCostResult,
    ServingCostRow,
    price_fields,
)
from tools.errors import ToolInputError
from tools.pricing import (
    TIERS,
    PriceBook,
    PriceEntry,
    Tier,
    age_label,
    book_notes,
    configuration_price_per_hour,
    per_gpu_quote_note,
    quote_order,
    to_usd,
)


def billed_hours(profile: UsageProfile, tier: Tier) -> float:
    """Hours billed a month: active hours when scaled to zero or serverless, else 730."""
    if profile.scale_to_zero or tier == "serverless":
        return profile.active_hours_per_month
    return HOURS_PER_MONTH


def output_tokens_per_month(tokens_per_s: float, profile: UsageProfile) -> float:
    """Output tokens produced a month: tokens/s × utilization × 3,600 s × active hours."""
    return tokens_per_s * profile.utilization * 3600.0 * profile.active_hours_per_month


def serving_row(
    price: PriceEntry,
    option: ServingCostInput,
    profile: UsageProfile,
    eur_to_usd: float | None,
    freshness: Freshness | None = None,
) -> ServingCostRow:
    """Price one configuration at one price (formulas in the `ServingCostRow` field descriptions).

    The tensor-parallel group (`option.tp`) sits in one instance; replicas may use others.
    """
    per_hour, instances, billed_gpus = configuration_price_per_hour(
        price, option.count, option.tp or 1
    )
    hours = billed_hours(profile, price.tier)
    per_month = per_hour * hours
    stale, notes = staleness(price, freshness)
    notes += confidence_notes(price)
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
            notes.append(f"converted at {eur_to_usd:g} USD per {price.currency}")

    def usd(value: float | None) -> float | None:
        return None if value is None else to_usd(value, price.currency, eur_to_usd)

    return ServingCostRow(
        **price_fields(price),
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
        stale=stale,
        **age_fields(price, freshness),
        notes=notes,
    )


def _sort_key(row: ServingCostRow) -> tuple[int, int, bool, bool, float]:
    # Within a tier: USD-comparable rows first by `quote_order` (a stale price must not be
    # "cheapest" while a fresh one exists, nor an unconfirmed rate while a confirmed one as
    # fresh does); then unconverted ones.
    comparable = row.usd_per_hour is not None
    price = row.usd_per_hour or row.per_hour
    return (
        TIERS.index(row.tier),
        0 if comparable else 1,
        *quote_order(row.stale, row.low_confidence, price),
    )


def price_options(
    options: list[ServingCostInput],
    book: PriceBook,
    flt: PriceFilter,
    profile: UsageProfile,
    freshness: Freshness | None = None,
) -> tuple[list[ServingCostRow], list[ExcludedPrice]]:
    """Serving cost rows for each option at every matching price that can host its
    tensor-parallel group, sorted by tier, then by `quote_order` (fresh before stale,
    confirmed before low confidence, then USD)."""
    rows: list[ServingCostRow] = []
    excluded: list[ExcludedPrice] = []
    for option in options:
        for price in eligible_prices(book, option.gpu, option.tp or 1, flt, excluded):
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


def cheapest_by_tier(rows: list[ServingCostRow]) -> dict[str, str]:
    """tier -> price_id of the first USD-comparable row (rows sorted by `_sort_key`, so a
    fresh row wins over a cheaper stale one, a confirmed row over a cheaper low-confidence
    one)."""
    best: dict[str, str] = {}
    for row in rows:
        if row.usd_per_hour is not None and row.tier not in best:
            best[row.tier] = row.price_id
    return best


def serving_assumptions(
    profile: UsageProfile, freshness: Freshness | None = None, eur_to_usd: float | None = None
) -> list[str]:
    """The assumptions every serving result states."""
    return [
        *stale_rule(freshness),
        LOW_CONFIDENCE_RULE,
        f"month = {HOURS_PER_MONTH:g} billed hours when always on (8,760 h / 12)",
        f"load: {profile.utilization:.0%} of the estimated aggregate throughput during "
        f"{profile.active_hours_per_month:g} active hours a month",
        "scale to zero: "
        + ("on (only active hours billed)" if profile.scale_to_zero else "off")
        + "; serverless prices always bill active hours only",
        f"blended tokens: {profile.input_tokens_per_output_token:g} input tokens per output token",
        *(
            []
            if profile.output_tokens_per_month is None
            else [
                f"volume: {profile.output_tokens_per_month:,.0f} output tokens a month, "
                "billed at the API's price and against each configuration's monthly bill"
            ]
        ),
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
    `model_id` (or for the API models the filter names), and break-even volumes of each
    tier's cheapest row against the cheapest API.

    `freshness` = (today, max age in days): rows past it are marked stale and a tier's
    cheapest is a fresh row whenever one exists.
    """
    flt = flt or PriceFilter()
    profile = profile or UsageProfile()
    if not options:
        raise ToolInputError("options", "no configuration to price", "at least one GPU + count")
    rows, excluded = price_options(options, book, flt, profile, freshness)
    best = cheapest_by_tier(rows)
    apis = api_comparison(
        model_id, book, profile, flt.eur_to_usd, flt.eu_only, named=flt.api_models
    )
    if flt.api_providers:
        # The API the caller named is the one compared, never a cheaper other one.
        named = [p.lower() for p in flt.api_providers]
        apis = [a for a in apis if any(n in a.provider.lower() for n in named)]
    if freshness is not None:
        clock = freshness[0]
        apis = [a.model_copy(update={"age": age_label(a.as_of, clock)}) for a in apis]
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
        assumptions=[
            *serving_assumptions(profile, freshness, flt.eur_to_usd),
            *book_notes(book),
        ],
    )
