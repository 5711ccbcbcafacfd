"""What the cost tool returns: priced rows (serving, training), the hosted-API comparison, the
break-even volumes, and the prices left out (excluded, or not comparable in USD).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from tools.field_factories import empty_list
from tools.pricing import PriceEntry, Tier, as_of_instant, is_low_confidence

MatchKind = Literal["same", "comparable", "named"]
"""How an API row relates to the self-hosted model: the same model, a comparable one (same
architecture or size class), or another model the caller named (compared on price only)."""

MATCH_WORDS: dict[MatchKind, str] = {
    "same": "the same model",
    "comparable": "a comparable model, not the same one",
    "named": "another model, compared on price only",
}
"""How every surface says what an API row's price is of (`ApiComparisonRow.match`)."""


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
    billed_gpus: int | None = Field(
        default=None, description="GPUs billed (whole instances), when more than `count`."
    )
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
    low_confidence: bool = Field(
        default=False,
        description="The price entry's research confidence is 'low' (e.g. a rate stated only "
        "in a provider article; tools.pricing.is_low_confidence): ranked after the confirmed "
        "rows of its tier as fresh (tools.pricing.quote_order), with a note.",
    )
    confidence: str | None = Field(
        default=None, description="The price entry's research confidence, as written."
    )
    price_notes: str | None = Field(
        default=None,
        description="The price entry's own notes (the research's caveats about the rate).",
    )
    as_of_time: datetime | None = Field(
        default=None,
        description="The instant (UTC) the age counts from: `as_of` read as a timestamp; a "
        "date alone is 00:00 UTC of that day. None when the price is undated.",
    )
    age_hours: float | None = Field(
        default=None,
        description="Hours from `as_of_time` to the caller's clock (None: undated, or no clock "
        "given).",
    )
    age: str | None = Field(
        default=None,
        description="The age as shown next to the price: '3 h old', '74 days old', 'undated' "
        "(None: no clock given).",
    )
    notes: list[str]


def price_fields(price: PriceEntry) -> dict[str, Any]:
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
        "low_confidence": is_low_confidence(price),
        "as_of_time": as_of_instant(price.as_of),
        "source": price.source,
        "confidence": price.confidence,
        "price_notes": price.notes,
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


class ApiComparisonRow(BaseModel):
    """A hosted API's price for the same (or a comparable, or a named other) model at the same
    volume."""

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
    age: str | None = Field(
        default=None,
        description="How old the API price is on the caller's clock ('74 days old', "
        "'undated'; None: no clock given).",
    )
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
    volume_output_tokens_per_month: float | None = Field(
        default=None, description="The user's volume (UsageProfile), output tokens a month."
    )
    api_usd_per_month_at_volume: float | None = Field(
        default=None, description="The API's bill at that volume, USD a month."
    )
    cheaper_at_volume: Literal["self-hosted", "api"] | None = Field(
        default=None, description="Which side costs less at that volume (None: no volume)."
    )
    volume_within_capacity: bool | None = Field(
        default=None,
        description="Whether the configuration can produce that volume (None: throughput "
        "or volume unknown).",
    )
    explanation: str


class ServingCostResult(BaseModel):
    """Cost rows (grouped by tier), the API comparison and the break-even volumes."""

    rows: list[ServingCostRow]
    cheapest_by_tier: dict[str, str] = Field(description="tier -> price_id of cheapest row.")
    api_comparison: list[ApiComparisonRow]
    break_even: list[BreakEven]
    excluded: list[ExcludedPrice]
    unconverted: list[UnconvertedPrice] = Field(
        default_factory=empty_list,
        description="Offers in another currency left out of every USD comparison (no exchange "
        "rate given), cheapest first in their own currency.",
    )
    unconverted_note: str | None = Field(
        default=None,
        description="One line to show next to any 'cheapest' claim when `unconverted` is not "
        "empty (how many, the cheapest native price, how to set a rate).",
    )
    assumptions: list[str]


class TrainingCostRow(PricedRow):
    """Cost of one training job at one price."""

    tp: int | None = Field(
        default=None,
        description="Tensor-parallel group size the price had to host in one instance (None: "
        "not given).",
    )
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
        default_factory=empty_list,
        description="Offers in another currency left out of every USD comparison.",
    )
    unconverted_note: str | None = None
    assumptions: list[str]
