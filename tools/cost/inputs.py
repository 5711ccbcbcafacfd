"""What a caller gives the cost tool: the configurations to price (serving and training), how
they are used over a month, which prices to consider, and the figures assumed when the caller
gives none (billing month, spot interruption overhead, input:output token ratio).
"""

from __future__ import annotations

from datetime import date
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from tools.field_factories import empty_list
from tools.limits import (
    FINITE,
    MAX_EXCHANGE_RATE,
    MAX_GPUS,
    MAX_HOURS,
    MAX_LIST_ITEMS,
    MAX_NAME_CHARS,
    MAX_PARALLEL_DEGREE,
    MAX_TOKEN_RATIO,
    MAX_TOKENS_PER_S,
    MAX_USD_PER_HOUR,
    MIN_EXCHANGE_RATE,
    MIN_RATE,
)
from tools.pricing import Tier

Name = Annotated[str, Field(max_length=MAX_NAME_CHARS)]
"""A GPU or provider name as given (longer text is not a name)."""

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

# (the caller's clock, the most days a price may be old): what marks a price stale and what
# each row's age is counted to. The clock is a datetime (a date reads as its 00:00 UTC); it is
# passed in, so a result is reproducible; the CLI and the chat pass the current time.
Freshness = tuple[date, int]


class ServingCostInput(BaseModel):
    """One serving configuration to price (the recommender's Option carries these fields)."""

    model_config = ConfigDict(extra="forbid", **FINITE)

    gpu: str = Field(max_length=MAX_NAME_CHARS, description="GPU catalog id, e.g. 'h100-sxm'.")
    count: int = Field(
        ge=1, le=MAX_GPUS, description="GPUs in the configuration (all replicas), count."
    )
    aggregate_tokens_per_s: float | None = Field(
        default=None,
        ge=MIN_RATE,
        le=MAX_TOKENS_PER_S,
        description="Output tokens per second of the whole configuration at the planned "
        "concurrency (recommender estimate); None prices hours only.",
    )
    tp: int | None = Field(
        default=None,
        ge=1,
        le=MAX_PARALLEL_DEGREE,
        description="Tensor-parallel group size: GPUs that must sit in one instance.",
    )


class UsageProfile(BaseModel):
    """How the configuration is used over a month."""

    model_config = ConfigDict(extra="forbid", **FINITE)

    utilization: float = Field(
        default=1.0,
        ge=MIN_RATE,
        le=1,
        description="Average fraction of the estimated aggregate throughput in use during "
        "active hours, 0-1.",
    )
    active_hours_per_month: float = Field(
        default=HOURS_PER_MONTH,
        ge=MIN_RATE,
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
        le=MAX_TOKEN_RATIO,
        description="Input (prompt) tokens per generated token, for blended prices.",
    )
    output_tokens_per_month: float | None = Field(
        default=None,
        gt=0,
        le=1e15,
        description="The volume the user expects to serve, output tokens a month: the "
        "break-even then says which side is cheaper at it (None: volumes are not compared).",
    )


class PriceFilter(BaseModel):
    """Which prices to consider. Empty lists mean no restriction."""

    model_config = ConfigDict(extra="forbid", **FINITE)

    providers: list[Name] = Field(
        default_factory=empty_list,
        max_length=MAX_LIST_ITEMS,
        description="Provider names (case-insensitive substring match).",
    )
    gpus: list[Name] = Field(
        default_factory=empty_list, max_length=MAX_LIST_ITEMS, description="GPU catalog ids."
    )
    eu_only: bool = Field(default=False, description="Only prices in a stated EU region.")
    tiers: list[Tier] = Field(
        default_factory=empty_list, max_length=MAX_LIST_ITEMS, description="Price tiers to include."
    )
    max_usd_per_hour: float | None = Field(
        default=None,
        gt=0,
        le=MAX_USD_PER_HOUR,
        description="Most US dollars per hour for the whole configuration.",
    )
    eur_to_usd: float | None = Field(
        default=None,
        ge=MIN_EXCHANGE_RATE,
        le=MAX_EXCHANGE_RATE,
        description="US dollars per euro, given by the user, to compare EUR prices in USD.",
    )
    include_superseded: bool = Field(
        default=False, description="Also price historical rows (marked superseded)."
    )
    api_providers: list[str] = Field(
        default_factory=empty_list,
        description="Hosted API providers to compare against (case-insensitive substring "
        "match, e.g. 'groq'); empty: every provider with a price for the model.",
    )
    api_models: list[Name] = Field(
        default_factory=empty_list,
        max_length=MAX_LIST_ITEMS,
        description="Hosted API models to compare against instead of the self-hosted model's "
        "own hosted prices (a model, family or price id of the API catalog, e.g. "
        "'gpt-4o-mini', 'Claude Sonnet 4.5'): another model, compared on price only.",
    )


class TrainingCostInput(BaseModel):
    """One training configuration to price (the recommender's Option carries these fields)."""

    model_config = ConfigDict(extra="forbid", **FINITE)

    gpu: str = Field(max_length=MAX_NAME_CHARS, description="GPU catalog id.")
    count: int = Field(ge=1, le=MAX_GPUS, description="GPUs used by the job, count.")
    training_hours: float = Field(
        ge=MIN_RATE,
        le=MAX_HOURS,
        description="Wall-clock hours of the job on `count` GPUs without interruptions.",
    )
    tp: int | None = Field(
        default=None,
        ge=1,
        le=MAX_PARALLEL_DEGREE,
        description="Tensor-parallel group size: GPUs that must sit in one instance.",
    )
