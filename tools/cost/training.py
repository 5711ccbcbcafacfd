"""Training cost: each job at every matching price, a spot interruption overhead on spot rows,
the cheapest row per tier and the cheapest that meets the deadline.
"""

from __future__ import annotations

from tools.cost.currency import currency_assumption, unconverted_note, unconverted_offers
from tools.cost.fabric import fabric_note, machines_spanned, stated_interconnect
from tools.cost.filters import (
    LOW_CONFIDENCE_RULE,
    age_fields,
    confidence_notes,
    eligible_prices,
    stale_rule,
    staleness,
)
from tools.cost.inputs import SPOT_INTERRUPTION_OVERHEAD, Freshness, PriceFilter, TrainingCostInput
from tools.cost.results import ExcludedPrice, TrainingCostResult, TrainingCostRow, price_fields
from tools.errors import ToolInputError
from tools.pricing import (
    TIERS,
    PriceBook,
    PriceEntry,
    book_notes,
    configuration_price_per_hour,
    per_gpu_quote_note,
    quote_order,
    to_usd,
)


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
    The tensor-parallel group (`job.tp`) sits in one instance (check `hosts_group` first).
    """
    group = job.tp or 1
    per_hour, instances, billed_gpus = configuration_price_per_hour(price, job.count, group)
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
    if price.gpus_per_instance is None and group > 1:
        notes.append(per_gpu_quote_note(group))
    notes += confidence_notes(price)
    if price.currency != "USD" and eur_to_usd is None:
        notes.append(f"price in {price.currency}; not converted (no exchange rate given)")
    return TrainingCostRow(
        **price_fields(price),
        count=job.count,
        tp=job.tp,
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
        **age_fields(price, freshness),
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
        for price in eligible_prices(book, job.gpu, job.tp or 1, flt, excluded):
            row = training_row(
                price, job, deadline_hours, spot_interruption_overhead, flt.eur_to_usd, freshness
            )
            per_hour_usd = to_usd(row.per_hour, row.currency, flt.eur_to_usd)
            if flt.max_usd_per_hour is not None and (
                per_hour_usd is None or per_hour_usd > flt.max_usd_per_hour
            ):
                continue
            rows.append(row)
    # Within a tier: USD-comparable rows first, then `quote_order` by total cost (the serving
    # rows' rule: a 257-day-old price is never ranked among fresh ones, an unconfirmed rate
    # never heads a confirmed one as fresh).
    rows.sort(
        key=lambda r: (
            TIERS.index(r.tier),
            r.usd_cost is None,
            *quote_order(r.stale, r.low_confidence, r.usd_cost or r.cost),
        )
    )
    best: dict[str, str] = {}
    for row in rows:
        if row.usd_cost is not None and row.tier not in best:
            best[row.tier] = row.price_id
    meeting = [r for r in rows if r.usd_cost is not None and r.meets_deadline is not False]
    cheapest = (
        min(meeting, key=lambda r: quote_order(r.stale, r.low_confidence, r.usd_cost or 0.0))
        if meeting
        else None
    )
    unconverted = unconverted_offers(rows)
    return TrainingCostResult(
        rows=rows,
        cheapest_by_tier=best,
        cheapest_meeting_deadline=cheapest,
        excluded=excluded,
        unconverted=unconverted,
        unconverted_note=unconverted_note(unconverted),
        assumptions=[
            *stale_rule(freshness),
            f"spot interruption overhead: +{spot_interruption_overhead:.0%} wall-clock "
            "(assumption: work lost since the last checkpoint plus restarts)",
            "GPUs sold in instances are billed by whole instance; a tensor-parallel group sits in "
            "one instance, so a row whose instance holds fewer GPUs than the group is left out",
            LOW_CONFIDENCE_RULE,
            "a job on several machines runs over the network the offer names (instance name or "
            "notes); where none is named the row says 'interconnect not stated'",
            currency_assumption(flt.eur_to_usd),
            *book_notes(book),
        ],
    )
