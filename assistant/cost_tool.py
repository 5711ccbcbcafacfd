"""The `compare_costs` tool: one request model for the chat, priced by `tools.cost`.

`tools.cost` exposes its inputs as several models (`ServingCostInput`, `TrainingCostInput`,
`PriceFilter`, `UsageProfile`) and two functions (`compare_costs`, `training_costs`); a model
calling a tool needs one flat request. `CostRequest` is that request: an option with `hours`
is a training job, one without is a serving configuration. Its filter and usage fields are
`PriceFilter`'s and `UsageProfile`'s fields (type, bounds, default), with shorter
descriptions for the chat's schema; the request is validated again through those models,
which stay the source of truth for bounds and meaning.

Prices: the built-in catalog overlaid with the user's `prices.toml` in the platformdirs config
directory, as `gpu-sizer cost` does (tools/ never looks for that file itself).

EUR→USD rate: the request's `eur_to_usd`, else the one `gpu-sizer ask --eur-usd` set for this
run (`use_eur_to_usd`), else the settings' (`GPU_SIZER_EUR_TO_USD`, config.toml `eur_to_usd`),
else the catalog's dated ECB reference rate (`catalog/exchange_rates.toml`), the same one the
sizing report uses; the result's assumptions say which.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from assistant.clock import now
from tools.catalog import CatalogError, get_catalog
from tools.cost import (
    CostComparison,
    PriceFilter,
    ServingCostInput,
    TrainingCostInput,
    UsageProfile,
    price_configurations,
)
from tools.cost.exchange import reference_eur_to_usd
from tools.cost.inputs import Name
from tools.errors import ToolInputError
from tools.limits import (
    FINITE,
    MAX_GPUS,
    MAX_HOURS,
    MAX_NAME_CHARS,
    MAX_PARALLEL_DEGREE,
    MAX_TOKENS_PER_S,
    MIN_RATE,
)
from tools.pricing import DEFAULT_MAX_PRICE_AGE_DAYS, PriceBook, Tier, load_price_book

MAX_OPTIONS = 16
"""Configurations priced in one call (the recommender proposes a handful)."""

HOW_TO_SET_RATE = "set a rate with --eur-usd, GPU_SIZER_EUR_TO_USD or eur_to_usd in config.toml"
"""Appended to `unconverted_note`: the three ways a user gives the EUR→USD rate."""

# The rate `gpu-sizer ask --eur-usd` gives for one run; a ContextVar so that it reaches the tool
# calls of that run (asyncio.run copies the context into the turn's task) and nothing else.
_RUN_EUR_TO_USD: ContextVar[float | None] = ContextVar("run_eur_to_usd", default=None)


@contextmanager
def use_eur_to_usd(rate: float | None) -> Iterator[None]:
    """Price EUR offers at `rate` (US dollars per euro) in cost calls made inside the block."""
    token = _RUN_EUR_TO_USD.set(rate)
    try:
        yield
    finally:
        _RUN_EUR_TO_USD.reset(token)


def eur_to_usd_rate(
    requested: float | None, reference: bool = True
) -> tuple[float | None, str | None]:
    """(rate, where it came from): the request's, this run's `--eur-usd`, the settings', else
    (with `reference`) the catalog's dated ECB reference rate (`tools.cost.exchange`), so every
    surface compares EUR offers at the same rate `tools.sizing` uses."""
    if requested is not None:
        return requested, "given in the request"
    if (run_rate := _RUN_EUR_TO_USD.get()) is not None:
        return run_rate, "--eur-usd"
    from assistant.config import configured_eur_to_usd

    setting = configured_eur_to_usd()
    if setting is not None:
        return setting, "settings (GPU_SIZER_EUR_TO_USD / config.toml eur_to_usd)"
    if reference:
        ref = reference_eur_to_usd()
        return ref.rate, f"the ECB euro reference rate of {ref.as_of} (catalog/exchange_rates.toml)"
    return None, None


class CostOption(BaseModel):
    """One configuration: serving (with throughput) or a training job (with hours)."""

    model_config = ConfigDict(extra="forbid", **FINITE)

    gpu: str = Field(max_length=MAX_NAME_CHARS, description="GPU id or name.")
    count: int = Field(ge=1, le=MAX_GPUS, description="GPUs, all replicas.")
    aggregate_tokens_per_s: float | None = Field(
        default=None,
        ge=MIN_RATE,
        le=MAX_TOKENS_PER_S,
        description="Serving: output tokens/s of the whole configuration.",
    )
    tp: int | None = Field(
        default=None, ge=1, le=MAX_PARALLEL_DEGREE, description="Tensor-parallel group, GPUs."
    )
    hours: float | None = Field(
        default=None,
        ge=MIN_RATE,
        le=MAX_HOURS,
        description="Training: wall-clock hours on `count` GPUs.",
    )


PRICE_FILTER_FIELDS = (
    "providers",
    "eu_only",
    "tiers",
    "max_usd_per_hour",
    "eur_to_usd",
    "api_providers",
    "api_models",
)
"""The `CostRequest` fields that are `tools.cost.PriceFilter`'s (type, bounds, default)."""

USAGE_FIELDS = ("utilization", "active_hours_per_month", "scale_to_zero", "output_tokens_per_month")
"""The `CostRequest` fields that are `tools.cost.UsageProfile`'s (type, bounds, default)."""


def _lean(model: type[BaseModel], name: str, description: str) -> Any:
    """`model`'s field `name` as a `CostRequest` field: its bounds and default taken from the
    `tools.cost` model (they cannot drift), with a shorter description for the chat's tool
    schema (the prompt's token budget)."""
    info = copy.copy(model.model_fields[name])
    info.description = description
    return info


class CostRequest(BaseModel):
    """Configurations to price, the model for the API comparison, filters and usage. The
    filter and usage fields are `PriceFilter`'s and `UsageProfile`'s (`_lean`)."""

    model_config = ConfigDict(extra="forbid", **FINITE)

    options: list[CostOption] = Field(min_length=1, max_length=MAX_OPTIONS)
    model_id: str | None = Field(
        default=None, max_length=MAX_NAME_CHARS, description="Model id for the API comparison."
    )
    eu_only: bool = _lean(PriceFilter, "eu_only", "Only EU-region prices.")
    tiers: list[Tier] = _lean(PriceFilter, "tiers", "Tiers to include (default all).")
    providers: list[Name] = _lean(PriceFilter, "providers", "Provider name substrings.")
    max_usd_per_hour: float | None = _lean(
        PriceFilter, "max_usd_per_hour", "Most $/hour for the whole configuration."
    )
    eur_to_usd: float | None = _lean(
        PriceFilter, "eur_to_usd", "User's USD per EUR rate (EUR prices stay EUR without)."
    )
    utilization: float = _lean(
        UsageProfile, "utilization", "Fraction of the throughput used in active hours."
    )
    active_hours_per_month: float = _lean(
        UsageProfile, "active_hours_per_month", "Hours with traffic (730 = always)."
    )
    scale_to_zero: bool = _lean(UsageProfile, "scale_to_zero", "Bill active hours only.")
    api_providers: list[str] = _lean(
        PriceFilter, "api_providers", "Hosted API providers to compare with (substrings)."
    )
    api_models: list[Name] = _lean(
        PriceFilter, "api_models", "Hosted API models to compare with ('gpt-4o-mini')."
    )
    output_tokens_per_month: float | None = _lean(
        UsageProfile, "output_tokens_per_month", "Output tokens a month: self-hosted vs API at it."
    )
    deadline_hours: float | None = Field(
        default=None,
        ge=MIN_RATE,
        le=MAX_HOURS,
        description="Training deadline, wall-clock hours.",
    )


def user_price_file() -> Path | None:
    """The user's price overrides, `<platformdirs config>/gpu-sizer/prices.toml`, if present."""
    import platformdirs

    path = Path(platformdirs.user_config_dir("gpu-sizer")) / "prices.toml"
    return path if path.is_file() else None


def price_book(user_file: Path | None = None) -> PriceBook:
    """The built-in price catalog, plus the newest refreshed price file (`gpu-sizer prices
    refresh`), overlaid with the user's prices: `user_file`, else the user's prices.toml when
    it exists. An invalid file → ToolInputError naming it and how to recover."""
    from assistant.prices.store import latest_refreshed_file

    refreshed = latest_refreshed_file()
    user = user_file or user_price_file()
    try:
        return _cached_book(user, _stamp(user), refreshed, _stamp(refreshed))
    except CatalogError as exc:
        if refreshed is not None and exc.file == refreshed:
            raise ToolInputError(
                "prices",
                f"the refreshed price file is invalid ({exc})",
                "run `gpu-sizer prices refresh` again, or delete that file; built-in prices "
                "work without it",
            ) from None
        raise ToolInputError(
            "prices",
            f"the user price file is invalid ({exc})",
            "fix or remove the user prices.toml; built-in prices work without it",
        ) from None


def _stamp(path: Path | None) -> tuple[int, int] | None:
    """(modification time in ns, size) of a price file: a changed file is loaded again."""
    if path is None:
        return None
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size


@lru_cache(maxsize=8)
def _cached_book(
    user: Path | None,
    user_stamp: tuple[int, int] | None,
    refreshed: Path | None,
    refreshed_stamp: tuple[int, int] | None,
) -> PriceBook:
    """The price book for these files as they are now (a long-running chat or MCP server
    loads a refreshed file of ~1,500 rows once, not on every tool call)."""
    return load_price_book(user, refreshed_file=refreshed)


def _gpu_ids(options: list[CostOption]) -> list[str]:
    """Catalog ids of the options' GPUs; an unknown name is reported as `options.N.gpu`."""
    catalog = get_catalog()
    ids: list[str] = []
    for index, option in enumerate(options):
        try:
            ids.append(catalog.gpu(option.gpu).id)
        except ToolInputError as exc:
            raise exc.renamed(f"options.{index}.gpu") from None
    return ids


def run_cost_request(req: CostRequest) -> CostComparison:
    """Price every option: an option without `hours` as a serving configuration (rows, API
    comparison, break-even), one with `hours` as a training job.

    GPU names are resolved through the catalog (unknown names → ToolInputError with
    suggestions). Money is in the published currency, USD fields named `usd_*`.
    """
    gpus = _gpu_ids(req.options)
    rate, rate_origin = eur_to_usd_rate(req.eur_to_usd)
    flt = PriceFilter(
        **{name: getattr(req, name) for name in PRICE_FILTER_FIELDS} | {"eur_to_usd": rate}
    )
    profile = UsageProfile(**{name: getattr(req, name) for name in USAGE_FIELDS})
    serving = [
        ServingCostInput(
            gpu=gpu, count=o.count, aggregate_tokens_per_s=o.aggregate_tokens_per_s, tp=o.tp
        )
        for gpu, o in zip(gpus, req.options, strict=True)
        if o.hours is None
    ]
    jobs = [
        TrainingCostInput(gpu=gpu, count=o.count, training_hours=o.hours, tp=o.tp)
        for gpu, o in zip(gpus, req.options, strict=True)
        if o.hours is not None
    ]
    # The clock marks stale prices (a tier's cheapest is a fresh row when one exists) and
    # dates every row's age.
    freshness = (now(), DEFAULT_MAX_PRICE_AGE_DAYS)
    comparison = price_configurations(
        serving,
        jobs,
        price_book(),
        flt,
        profile,
        req.model_id,
        freshness,
        deadline_hours=req.deadline_hours,
    )
    return label_rate(comparison, rate_origin)


def label_rate(comparison: CostComparison, rate_origin: str | None) -> CostComparison:
    """Say where the EUR→USD rate came from, or how to give one when offers were left out."""
    for part in (comparison.serving, comparison.training):
        if part is None:
            continue
        if rate_origin is not None:
            part.assumptions.append(f"EUR→USD rate from {rate_origin}")
        if part.unconverted_note:
            part.unconverted_note += f"; {HOW_TO_SET_RATE}"
    return comparison
