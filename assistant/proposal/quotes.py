"""Selections from a sizing report that several parts of the proposal quote: the estimate behind
the headline, the cost row behind a quoted price, the engine and KV format sized. Selection
only (by id, GPU and count), never a computation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from assistant.proposal.figures import format_number
from assistant.proposal.labels import tier as tier_words
from tools.catalog import get_catalog
from tools.cost import ServingCostRow
from tools.cost.results import PricedRow, TrainingCostRow, UnconvertedPrice
from tools.memory import MemoryEstimate
from tools.recommend import Option
from tools.sizing import PricedConfiguration, SizingReport


def evaluated(report: SizingReport) -> list[Option]:
    """Every option the recommender evaluated: its best per GPU type, then the set-aside ones."""
    rec = report.recommendation
    return [] if rec is None else rec.evaluated()


def gpu_name(report: SizingReport, gpu: str) -> str:
    """A catalog GPU id as the recommender named it ('NVIDIA L40S'), else the catalog's name,
    else the id (a GPU since removed from the catalog)."""
    named = next((o.gpu_name for o in evaluated(report) if o.gpu == gpu), None)
    return named if named is not None else catalog_name(gpu)


def catalog_name(gpu: str) -> str:
    """A catalog GPU id's name ('NVIDIA L40S'), else the id (a GPU since removed)."""
    spec = get_catalog().gpus.get(gpu)
    return gpu if spec is None else spec.name


def estimate_of(report: SizingReport, option: Option) -> MemoryEstimate | None:
    """The memory estimate of `option`'s layout (same GPU, TP and PP; all its GPUs or one
    replica): the recommended layout's breakdown, else a named configuration sized that way."""
    sized = [*([report.layout_breakdown] if report.layout_breakdown else []), *report.memory]
    return next(
        (
            s.estimate
            for s in sized
            if s.estimate is not None
            and s.gpu == option.gpu
            and (s.estimate.tp, s.estimate.pp) == (option.tp, option.pp)
            and s.estimate.num_gpus in (option.count, option.tp * option.pp)
        ),
        None,
    )


def first_estimate(report: SizingReport) -> MemoryEstimate | None:
    """The first estimate the report holds (the configurations named, then the layout)."""
    sized = [*report.memory, *([report.layout_breakdown] if report.layout_breakdown else [])]
    return next((s.estimate for s in sized if s.estimate is not None), None)


def engine_of(report: SizingReport, option: Option | None) -> str | None:
    """The serving or training engine sized ('vllm'), from the estimate of `option`."""
    estimate = None if option is None else estimate_of(report, option)
    estimate = estimate or first_estimate(report)
    return None if estimate is None else estimate.engine


R = TypeVar("R", bound=PricedRow)


def _row_of(rows: Sequence[R], price: PricedConfiguration) -> R | None:
    """The cost row a quoted price was read from (same price id, GPU and count)."""
    key = (price.price_id, price.gpu, price.count)
    return next((r for r in rows if (r.price_id, r.gpu, r.count) == key), None)


def serving_row(report: SizingReport, price: PricedConfiguration) -> ServingCostRow | None:
    """The cost tool's row behind a quoted serving price (instance, region, hours billed)."""
    costs = report.costs
    if costs is None or costs.serving is None:
        return None
    return _row_of(costs.serving.rows, price)


def training_row(report: SizingReport, price: PricedConfiguration) -> TrainingCostRow | None:
    """The cost tool's row behind a quoted training price (wall hours, machines)."""
    costs = report.costs
    if costs is None or costs.training is None:
        return None
    return _row_of(costs.training.rows, price)


def unconverted(report: SizingReport) -> list[UnconvertedPrice]:
    """Offers in another currency the cost tool could not compare in USD (no exchange rate),
    cheapest first in their own currency, serving then training."""
    costs = report.costs
    if costs is None:
        return []
    parts = [p for p in (costs.serving, costs.training) if p is not None]
    return [u for part in parts for u in part.unconverted]


def unconverted_text(report: SizingReport) -> str | None:
    """One sentence on the offers not compared in USD, from the typed rows."""
    offers = unconverted(report)
    if not offers:
        return None
    first = offers[0]
    currencies = "/".join(dict.fromkeys(u.currency for u in offers))
    instance = f" {first.instance}" if first.instance else ""
    many = f"{len(offers):,} offers" if len(offers) > 1 else "1 offer"
    return (
        f"{many} priced in {currencies} (no exchange rate given); the cheapest, "
        f"{first.provider}{instance} ({first.count:,}× {first.gpu}, {tier_words(first.tier)}), "
        f"is {format_number(first.price)} {first.currency} per {first.per}, as of "
        f"{first.as_of}."
    )
