"""What a report quotes for each priced configuration: its cheapest row in the quote tier.

The cost tool lists every matching price; an answer quotes one per configuration — the first
USD-comparable row of the quote tier by `tools.pricing.quote_order`, serving and training
alike (a fresh price before any stale one, a confirmed rate before a low-confidence one, then
by USD per hour for serving, by the job's total USD for training), so the quote is the row the
cost table leads with and the row the recommender ranked the option by.
"""

from __future__ import annotations

from collections.abc import Sequence

from tools.cost import CostComparison
from tools.cost.results import PricedRow
from tools.pricing import quote_order
from tools.recommend import Option
from tools.sizing.report import PricedConfiguration, PriceLoad


def _quote(row: PricedRow, **figures: float | None) -> PricedConfiguration:
    """A cost row as quoted: its price entry's fields and the USD figures given."""
    return PricedConfiguration(
        gpu=row.gpu,
        count=row.count,
        tier=row.tier,
        price_id=row.price_id,
        provider=row.provider,
        as_of=row.as_of,
        age=row.age,
        stale=bool(row.stale),
        low_confidence=row.low_confidence,
        source=row.source,
        confidence=row.confidence,
        price_notes=row.price_notes,
        billed_gpus=row.billed_gpus,
        per_hour=row.per_hour,
        currency=row.currency,
        region=row.region,
        eu=row.eu,
        **figures,
    )


def quoted_prices(costs: CostComparison | None, tier: str) -> list[PricedConfiguration]:
    """One `PricedConfiguration` per (GPU, count) priced in `tier`, in the cost tool's order."""
    if costs is None:
        return []
    # Ranked by the one rule (`quote_order`): fresh before stale, confirmed before
    # low-confidence, then USD — so the quote is the row the cost table leads with for that
    # configuration, whatever order the rows come in.
    candidates: list[tuple[tuple[bool, bool, float], PricedConfiguration]] = []
    if costs.serving is not None:
        for r in costs.serving.rows:
            if r.tier == tier and r.usd_per_hour is not None:
                priced = _quote(
                    r,
                    usd_per_hour=r.usd_per_hour,
                    usd_per_month=r.usd_per_month,
                    billed_hours_per_month=r.billed_hours_per_month,
                    usd_per_million_tokens=r.usd_per_million_tokens,
                )
                candidates.append((quote_order(r.stale, r.low_confidence, priced.usd), priced))
    if costs.training is not None:
        for t in costs.training.rows:
            if t.tier == tier and t.usd_cost is not None:
                priced = _quote(t, usd_job=t.usd_cost)
                candidates.append((quote_order(t.stale, t.low_confidence, priced.usd), priced))
    best: dict[tuple[str, int], tuple[tuple[bool, bool, float], PricedConfiguration]] = {}
    for rank, priced in candidates:
        key = (priced.gpu, priced.count)
        if key not in best or rank < best[key][0]:
            best[key] = (rank, priced)
    return [priced for _, priced in best.values()]


def with_load(
    priced: PricedConfiguration, options: Sequence[Option], load: PriceLoad
) -> PricedConfiguration:
    """`priced` with the load it was priced at: the throughput at the price load (full load:
    every KV slot in use; else the stated load) of the first of `options` (the options the
    searches evaluated: the recommender's, a scale-out's) with its GPU and count, its concurrent
    sequences per replica and the decode speed each sequence then sees. Training jobs are
    priced by hours: unchanged."""
    if priced.usd_job is not None or load.basis == "training_job":
        return priced
    option = next((o for o in options if (o.gpu, o.count) == (priced.gpu, priced.count)), None)
    if option is None:
        return priced
    if load.basis == "full_load":
        tokens, sequences = option.full_load_tokens_per_s, option.full_load_sequences_per_replica
        # Every sequence of every replica decodes at the same step rate.
        each = None if not tokens or not sequences else tokens / (sequences * max(option.dp, 1))
    else:
        tokens, sequences = option.aggregate_tokens_per_s, option.sequences_per_replica
        each = option.decode_tokens_per_s_per_seq
    return priced.model_copy(
        update={
            "tokens_per_s": tokens,
            "sequences_per_replica": sequences or None,
            "tokens_per_s_per_sequence": each,
            "throughput_basis": option.throughput_basis,
        }
    )
