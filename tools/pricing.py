"""The price catalog: cloud GPU prices and hosted LLM API prices, with user overrides.

Built-in prices live in `catalog/prices.toml` (`[[price]]`) and `catalog/api_prices.toml`
(`[[api_price]]`); each entry carries provider, tier, currency as published, `source` and
`as_of`. A user file (same tables, same schema) adds entries or replaces built-in ones with the
same `id` — negotiated rates, say. The caller passes its path (the assistant uses
`platformdirs.user_config_dir("gpu-sizer")/prices.toml`); this module never looks for it.

A bad user file fails with the file, the entry and the field named (`CatalogError`), and the
built-in catalog, loaded and cached separately, keeps working.

Refreshed prices (`gpu-sizer prices refresh` writes them from open price catalogs into the user
data directory) are a third layer, between the two: their rows are added to the built-in ones,
and where a refreshed row prices the same offer as an older row (`same_offer`: provider,
instance, tier and GPU, in at least the older row's regions), the older row is marked
superseded, so a cost or ranking always uses the fresher observation of an offer.

Age: every `as_of` reads as an instant (`as_of_instant`: a date alone counts from 00:00 UTC of
that day, so an age is never understated) and `price_age`/`format_age` say how old it is on
the caller's clock ("3 h old", "74 days old"). The clock is always passed in (`now`), never
read here, so results are reproducible.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from functools import cache, cached_property, lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from tools.catalog import CatalogError, Sourced, catalog_dir, get_catalog, load_entries
from tools.limits import FINITE, MAX_GPUS, MAX_PRICE_PER_GPU_HOUR, MAX_PRICE_PER_MTOK

Tier = Literal["on_demand", "spot", "reserved", "commitment", "serverless", "marketplace"]
# Display and grouping order: tiers are never merged into one ranking (spot can vanish
# mid-job, reserved and commitment need a term, marketplace hosts carry no SLA).
TIERS: tuple[Tier, ...] = (
    "on_demand",
    "spot",
    "reserved",
    "commitment",
    "serverless",
    "marketplace",
)
Currency = Literal["USD", "EUR"]

# Cloud GPU prices moved several times during 2026 (AWS cut p5 ~45% in June 2025; several
# neoclouds changed rates in 2026, per shared/research/README.md), so a price older than about
# six months is flagged. Callers may pass their own limit.
DEFAULT_MAX_PRICE_AGE_DAYS = 180

_ID_PATTERN = r"^[a-z0-9][a-z0-9.\-]*$"


class PriceEntry(Sourced):
    """One cloud GPU price: an instance type at one tier, in the currency published."""

    model_config = ConfigDict(extra="forbid", frozen=True, **FINITE)

    id: str = Field(pattern=_ID_PATTERN)
    provider: str = Field(min_length=1)
    instance: str | None = None
    gpu: str | None = Field(
        default=None, description="GPU catalog id; None when the published label has no match."
    )
    gpu_label: str = Field(min_length=1, description="The GPU as the provider labels it.")
    gpu_mapping: str | None = Field(
        default=None, description="Why an ambiguous label maps to `gpu`, or why there is none."
    )
    gpus_per_instance: int | None = Field(default=None, gt=0, le=MAX_GPUS)
    tier: Tier
    pricing_type: str = Field(min_length=1, description="The provider's own pricing term.")
    price_per_instance_hour: float | None = Field(
        default=None, gt=0, le=MAX_PRICE_PER_GPU_HOUR * MAX_GPUS
    )
    price_per_gpu_hour: float = Field(
        gt=0, le=MAX_PRICE_PER_GPU_HOUR, description="In `currency` per GPU-hour."
    )
    currency: Currency
    region: str | None = None
    eu: bool = Field(description="True only when the stated region is inside the EU.")
    source_type: str | None = None
    confidence: str | None = None
    superseded: str | None = Field(
        default=None, description="Why the row is historical; such rows are not compared."
    )
    notes: str | None = None

    @field_validator("as_of")
    @classmethod
    def _calendar_date(cls, value: str) -> str:
        return check_as_of(value)

    @model_validator(mode="after")
    def _instance_price_consistent(self) -> PriceEntry:
        # The per-GPU price is the instance price split evenly; a mismatch above rounding
        # (1%) is a transcription error.
        if self.price_per_instance_hour is not None and self.gpus_per_instance is not None:
            per_gpu = self.price_per_instance_hour / self.gpus_per_instance
            if abs(per_gpu - self.price_per_gpu_hour) > 0.01 * self.price_per_gpu_hour:
                raise ValueError(
                    f"price_per_gpu_hour {self.price_per_gpu_hour} differs from "
                    f"price_per_instance_hour / gpus_per_instance = {per_gpu:.4f}"
                )
        return self

    @property
    def instance_price_per_hour(self) -> float | None:
        """Price of one whole instance per hour in `currency` (None if GPUs are sold singly)."""
        if self.price_per_instance_hour is not None:
            return self.price_per_instance_hour
        if self.gpus_per_instance is not None:
            return self.price_per_gpu_hour * self.gpus_per_instance
        return None


class ApiPriceEntry(Sourced):
    """One hosted LLM API price per million tokens, in the currency published."""

    model_config = ConfigDict(extra="forbid", frozen=True, **FINITE)

    id: str = Field(pattern=_ID_PATTERN)
    provider: str = Field(min_length=1)
    model: str = Field(min_length=1, description="The model name as the provider lists it.")
    model_family: str | None = None
    model_id: str | None = Field(default=None, description="Our catalog model, when identical.")
    comparable_model_id: str | None = Field(
        default=None, description="Our catalog model of the same architecture or size class."
    )
    comparable_basis: str | None = None
    input_per_mtok: float = Field(
        ge=0, le=MAX_PRICE_PER_MTOK, description="Price per 1,000,000 input tokens."
    )
    output_per_mtok: float = Field(
        ge=0, le=MAX_PRICE_PER_MTOK, description="Price per 1,000,000 output tokens."
    )
    cached_input_per_mtok: float | None = Field(default=None, ge=0, le=MAX_PRICE_PER_MTOK)
    currency: Currency
    eu: bool = Field(
        default=False,
        description="True only when the provider serves this API from EU data centres.",
    )
    as_of_basis: str | None = None
    confidence: str | None = None
    superseded: str | None = None
    notes: str | None = None

    @field_validator("as_of")
    @classmethod
    def _calendar_date(cls, value: str) -> str:
        return check_as_of(value)

    @model_validator(mode="after")
    def _comparable_has_basis(self) -> ApiPriceEntry:
        if self.comparable_model_id is not None and not self.comparable_basis:
            raise ValueError("comparable_model_id needs comparable_basis (why it is comparable)")
        return self


class PriceBook(BaseModel):
    """Prices in force: the built-in catalog, plus refreshed prices and a user file's entries
    when they were given."""

    model_config = ConfigDict(frozen=True)

    prices: tuple[PriceEntry, ...]
    api_prices: tuple[ApiPriceEntry, ...]
    user_file: str | None = None
    user_ids: tuple[str, ...] = Field(default=(), description="Entries from the user file.")
    refreshed_file: str | None = Field(
        default=None, description="The refreshed price file whose rows were added, if any."
    )
    refreshed_ids: tuple[str, ...] = Field(default=(), description="Rows from that file.")
    superseded_ids: tuple[str, ...] = Field(
        default=(), description="Older rows a refreshed row of the same offer superseded."
    )


def book_notes(book: PriceBook) -> list[str]:
    """What a result priced from `book` must say when refreshed prices took part: the file,
    how many rows, and which older rows of the same offers they superseded."""
    if book.refreshed_file is None:
        return []
    note = f"refreshed prices from {book.refreshed_file}: {len(book.refreshed_ids)} rows"
    if book.superseded_ids:
        shown = ", ".join(book.superseded_ids[:5])
        more = ", …" if len(book.superseded_ids) > 5 else ""
        note += (
            f"; {len(book.superseded_ids)} older row(s) of the same offers superseded "
            f"({shown}{more})"
        )
    return [note]


def _check_references(path: Path, prices: list[PriceEntry], apis: list[ApiPriceEntry]) -> None:
    """Every gpu / model id must exist in the catalog, or it would silently never match."""
    catalog = get_catalog()
    for price in prices:
        if price.gpu is not None and price.gpu not in catalog.gpus:
            raise CatalogError(path, price.id, "gpu", f"unknown GPU id {price.gpu!r}")
    for api in apis:
        for field in ("model_id", "comparable_model_id"):
            value = getattr(api, field)
            if value is not None and value not in catalog.models:
                raise CatalogError(path, api.id, field, f"unknown model id {value!r}")


MAX_PRICE_FILE_BYTES = 16 * 2**20
"""A price file the user supplies or a refresh wrote: the built-in prices.toml (406 sourced
rows) is under 300 kB, about 700 bytes a row; 16 MiB holds some 24,000 rows, more than every
refresh source lists, and bounds what one file can make the app read."""


def _load_file(path: Path) -> tuple[list[PriceEntry], list[ApiPriceEntry]]:
    prices = load_entries(path, "price", PriceEntry, MAX_PRICE_FILE_BYTES)
    apis = load_entries(path, "api_price", ApiPriceEntry, MAX_PRICE_FILE_BYTES)
    _check_references(path, prices, apis)
    return prices, apis


@cache
def builtin_price_book(directory: Path | None = None) -> PriceBook:
    """The built-in price catalog, validated once per process."""
    root = directory or catalog_dir()
    prices = load_entries(root / "prices.toml", "price", PriceEntry)
    apis = load_entries(root / "api_prices.toml", "api_price", ApiPriceEntry)
    _check_references(root / "prices.toml", prices, [])
    _check_references(root / "api_prices.toml", [], apis)
    return PriceBook(prices=tuple(prices), api_prices=tuple(apis))


def load_price_book(
    user_file: Path | None = None,
    directory: Path | None = None,
    refreshed_file: Path | None = None,
) -> PriceBook:
    """Built-in prices, plus a refreshed price file's rows, overlaid with a user TOML file
    (`[[price]]`, `[[api_price]]` tables).

    Refreshed rows are added and supersede older rows of the same offer (`same_offer`); their
    ids must be new. A user entry with an existing `id` replaces it; new ids are added. A
    missing or invalid file raises `CatalogError` naming the file, entry and field; the
    built-in book stays cached and usable.
    """
    builtin = builtin_price_book(directory)
    prices: tuple[PriceEntry, ...] = builtin.prices
    refreshed: list[PriceEntry] = []
    if refreshed_file is not None:
        refreshed = load_refreshed_rows(refreshed_file, {p.id for p in prices})
    user_prices: list[PriceEntry] = []
    user_apis: list[ApiPriceEntry] = []
    if user_file is not None:
        if not user_file.is_file():
            raise CatalogError(user_file, "-", "-", "user price file not found")
        user_prices, user_apis = _load_file(user_file)
    if refreshed_file is None and user_file is None:
        return builtin
    replaced = {p.id for p in user_prices}
    replaced_api = {a.id for a in user_apis}
    refreshed = [p for p in refreshed if p.id not in replaced]
    others = [p for p in prices if p.id not in replaced] + user_prices
    marked = supersede_older(refreshed, others)
    superseded = tuple(
        new.id for old, new in zip(others, marked, strict=True) if new.superseded != old.superseded
    )
    return PriceBook(
        prices=(*marked, *refreshed),
        api_prices=(*(a for a in builtin.api_prices if a.id not in replaced_api), *user_apis),
        user_file=None if user_file is None else str(user_file),
        user_ids=tuple(sorted(replaced | replaced_api)),
        refreshed_file=None if refreshed_file is None else str(refreshed_file),
        refreshed_ids=tuple(p.id for p in refreshed),
        superseded_ids=superseded,
    )


def load_refreshed_rows(path: Path, existing_ids: set[str]) -> list[PriceEntry]:
    """The `[[price]]` rows of a refreshed price file, validated like the catalog's; an id the
    catalog already has, or a missing file, raises `CatalogError` naming it."""
    if not path.is_file():
        raise CatalogError(path, "-", "-", "refreshed price file not found")
    rows = load_entries(path, "price", PriceEntry, MAX_PRICE_FILE_BYTES)  # no API prices
    _check_references(path, rows, [])
    for row in rows:
        if row.id in existing_ids:
            raise CatalogError(path, row.id, "id", "id already used by the built-in catalog")
    return rows


_REGION_CODE = re.compile(r"\b[a-z]{2,}(?:-[a-z]+)+-\d+\b")


def region_codes(region: str | None) -> frozenset[str]:
    """The cloud region codes a row's `region` names ('us-east-1 (identical in
    us-east-2/us-west-2 per source)' → us-east-1, us-east-2, us-west-2); empty when none."""
    return frozenset(_REGION_CODE.findall((region or "").lower()))


def same_offer(newer: PriceEntry, older: PriceEntry) -> bool:
    """Whether `newer` prices the offer `older` priced: the same provider, instance, tier and
    GPU, stated for at least every region `older` names (a row naming no region matches only
    a row naming none: where it applied is not known)."""
    if newer.gpu is None or newer.gpu != older.gpu or newer.tier != older.tier:
        return False
    if newer.provider.casefold() != older.provider.casefold():
        return False
    if not newer.instance or not older.instance:
        return False
    if newer.instance.casefold() != older.instance.casefold():
        return False
    old_regions, new_regions = region_codes(older.region), region_codes(newer.region)
    if not old_regions:
        return not new_regions
    return old_regions <= new_regions


def supersede_older(newer_rows: list[PriceEntry], rows: list[PriceEntry]) -> list[PriceEntry]:
    """`rows` with each one that a strictly fresher row of `newer_rows` prices the same offer
    of (`same_offer`) marked superseded, naming that row; an undated row is older than any
    dated one. Rows already superseded are returned as they are."""
    by_offer: dict[tuple[str, str, str, str], list[PriceEntry]] = {}
    for new in newer_rows:
        if new.gpu is not None and new.instance:
            key = (new.provider.casefold(), new.instance.casefold(), new.tier, new.gpu)
            by_offer.setdefault(key, []).append(new)
    out: list[PriceEntry] = []
    for row in rows:
        if row.superseded or row.gpu is None or not row.instance:
            out.append(row)
            continue
        stated = as_of_instant(row.as_of)
        candidates = by_offer.get(
            (row.provider.casefold(), row.instance.casefold(), row.tier, row.gpu), []
        )
        fresher = [
            new
            for new in candidates
            if same_offer(new, row)
            and (instant := as_of_instant(new.as_of)) is not None
            and (stated is None or instant > stated)
        ]
        if not fresher:
            out.append(row)
            continue
        best = max(fresher, key=lambda p: (as_of_instant(p.as_of) or stated, p.id))
        reason = f"a fresher price for the same offer: {best.id} (as_of {best.as_of})"
        out.append(row.model_copy(update={"superseded": reason}))
    return out


_FULL_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_MONTH = re.compile(r"(\d{4})-(\d{2})")
# An ISO 8601 time after the date: '2026-12-14T09:30:00Z', '2026-12-14 09:30+01:00'.
_TIME = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?"
    r"\s*(Z|[+-]\d{2}:?\d{2})?"
)


@lru_cache(maxsize=4096)  # a pure function of the text; the recommender asks per layout
def parse_as_of(as_of: str) -> date | None:
    """The date an `as_of` text states ('2026-09-19', '2026-07 (snapshot)'), or None if undated.

    A month without a day reads as the first of that month, so its age is never understated.
    """
    try:
        if m := _FULL_DATE.search(as_of):
            return date(int(m[1]), int(m[2]), int(m[3]))
        if m := _MONTH.search(as_of):
            return date(int(m[1]), int(m[2]), 1)
    except ValueError:  # '2026-13-45': no such day (entries refuse it at load: `check_as_of`)
        return None
    return None


def check_as_of(as_of: str) -> str:
    """`as_of` when every date it writes is a calendar date ('2026-09-19', '2026-07',
    '2026-12-14T09:30:00Z'); ValueError naming the text otherwise ('2026-13-45', '2026-02-30',
    '2026-12-14T25:00'). A price file validates its entries with it, so an impossible date is
    refused where it was written, never read later as 'undated'."""
    try:
        if m := _TIME.search(as_of):
            datetime(int(m[1]), int(m[2]), int(m[3]), int(m[4]), int(m[5]), int(m[6] or 0))
        elif m := _FULL_DATE.search(as_of):
            date(int(m[1]), int(m[2]), int(m[3]))
        elif m := _MONTH.search(as_of):
            date(int(m[1]), int(m[2]), 1)
    except ValueError:
        raise ValueError(
            f"as_of {as_of[:40]!r} is not a calendar date (YYYY-MM-DD, YYYY-MM or an ISO 8601 time)"
        ) from None
    return as_of


@lru_cache(maxsize=4096)  # a pure function of the text
def as_of_instant(as_of: str) -> datetime | None:
    """The instant (UTC) an `as_of` text states, or None if undated.

    A timestamp ('2026-12-14T09:30:00Z'; no offset reads as UTC) is that instant; a date alone
    is 00:00 UTC of that day and a month alone the first of the month, so an age computed from
    it is never understated.
    """
    if m := _TIME.search(as_of):
        try:
            stamp = datetime(
                int(m[1]), int(m[2]), int(m[3]), int(m[4]), int(m[5]), int(m[6] or 0), tzinfo=UTC
            )
        except ValueError:  # no such time ('2026-12-14T25:00'): `check_as_of` refuses it
            return None
        offset = m[7]
        if offset and offset != "Z":
            sign = 1 if offset[0] == "+" else -1
            digits = offset[1:].replace(":", "")
            stamp -= sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
        return stamp
    stated = parse_as_of(as_of)
    return None if stated is None else datetime(stated.year, stated.month, stated.day, tzinfo=UTC)


def as_instant(when: date) -> datetime:
    """`when` as an aware UTC instant: a date is its 00:00 UTC, a naive datetime reads as UTC."""
    if isinstance(when, datetime):
        return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)
    return datetime(when.year, when.month, when.day, tzinfo=UTC)


def _day(when: date) -> date:
    """The calendar day (UTC) of `when`, a date or a datetime."""
    return as_instant(when).date() if isinstance(when, datetime) else when


FUTURE_SLACK = timedelta(hours=14)
"""How far a stated date may run ahead of the clock and still be today somewhere: UTC+14
(Line Islands, Kiribati) is the earliest time zone, so a price dated 'today' there is up to 14 h
ahead of UTC. Anything later is dated in the future: a typo (2099 for 2026) or a made-up
stamp, never a fresh observation."""

FUTURE = "dated in the future"
"""The age label of a price dated after the clock (plus `FUTURE_SLACK`)."""


def is_future(as_of: str, now: date) -> bool:
    """Whether `as_of` states an instant after `now` + `FUTURE_SLACK`."""
    stated = as_of_instant(as_of)
    return stated is not None and stated > as_instant(now) + FUTURE_SLACK


def price_age(as_of: str, now: date) -> timedelta | None:
    """How old a price is at `now` (a datetime, or a date read as its 00:00 UTC); None when
    its `as_of` carries no date. Never negative: a price stamped after `now` is 0 old (see
    `age_label` and `staleness_warning`, which flag one dated in the future)."""
    stated = as_of_instant(as_of)
    if stated is None:
        return None
    return max(as_instant(now) - stated, timedelta(0))


def age_label(as_of: str, now: date) -> str:
    """How old a price is, as people read it (`format_age`), or `FUTURE` for a price dated
    after the clock: never 'under 1 h old' for a date that has not come yet."""
    if is_future(as_of, now):
        return FUTURE
    return format_age(price_age(as_of, now))


def format_age(age: timedelta | None) -> str:
    """An age as people read it: 'under 1 h old', '3 h old' (below two days), '74 days old';
    'undated' for None. Whole units, rounded down (a 47 h 59 min old price is '47 h old')."""
    if age is None:
        return "undated"
    hours = int(age.total_seconds() // 3600)
    if hours < 1:
        return "under 1 h old"
    if hours < 48:
        return f"{hours} h old"
    return f"{age.days} days old"


def price_age_days(as_of: str, today: date) -> int | None:
    """Age of a price in whole days on `today`'s calendar day; None when its `as_of` carries
    no date."""
    stated = parse_as_of(as_of)
    return None if stated is None else (_day(today) - stated).days


def staleness_warning(
    entry: PriceEntry | ApiPriceEntry,
    today: date,
    max_age_days: int = DEFAULT_MAX_PRICE_AGE_DAYS,
) -> str | None:
    """A warning when a price is undated or older than `max_age_days`, else None. `today` may
    be a datetime (its UTC calendar day counts)."""
    age = price_age_days(entry.as_of, today)
    if age is None:
        return f"{entry.provider} {entry.id}: price is undated ({entry.as_of}); verify it"
    if is_future(entry.as_of, today):
        return (
            f"{entry.provider} {entry.id}: price is {FUTURE} (as_of {entry.as_of}, after "
            f"{_day(today).isoformat()}); verify it"
        )
    if age > max_age_days:
        return (
            f"{entry.provider} {entry.id}: price is {age} days old (as_of {entry.as_of}, "
            f"limit {max_age_days} days); verify it"
        )
    return None


def to_usd(amount: float, currency: str, eur_to_usd: float | None) -> float | None:
    """`amount` in US dollars, or None when it is in EUR and no rate was given."""
    if currency == "USD":
        return amount
    if currency == "EUR" and eur_to_usd is not None:
        return amount * eur_to_usd
    return None


def hosts_group(price: PriceEntry, group_gpus: int) -> bool:
    """Whether one rented unit of `price` can hold a group of `group_gpus` GPUs that must sit
    in one machine (a tensor-parallel group: its all-reduce runs every layer over NVLink/PCIe).

    A row with `gpus_per_instance` is a machine of that size: a 1-GPU VM SKU (AWS g6.xlarge,
    GCP g2-standard-4) cannot host TP 4. A row without one is a per-GPU quote (the provider
    rents several GPUs per machine at that rate), kept with `per_gpu_quote_note`. The catalog
    sets `gpus_per_instance` only where the instance name fixes the machine size (its header
    says which rows are per-GPU rates of products sold in several sizes).
    """
    return price.gpus_per_instance is None or price.gpus_per_instance >= group_gpus


def per_gpu_quote_note(group_gpus: int) -> str:
    """What a buyer must check when a per-GPU quote prices a group that needs one machine."""
    return f"priced per GPU: check the provider rents {group_gpus} GPUs in one machine"


def configuration_price_per_hour(
    price: PriceEntry, count: int, group_gpus: int = 1
) -> tuple[float, int | None, int]:
    """(price per hour in the price's currency, instances billed, GPUs billed) for `count`
    GPUs made of groups of `group_gpus` that must each sit in one instance.

    GPUs sold in instances are billed by whole instance, and a group never straddles two:
    instances = ⌈(count / group) / ⌊gpus_per_instance / group⌋⌉ (= ⌈count / gpus_per_instance⌉
    for a group of 1). Per-GPU quotes bill `count` GPUs. Raises ValueError when one instance
    is smaller than the group (check `hosts_group` first).
    """
    instance_price = price.instance_price_per_hour
    if price.gpus_per_instance is None or instance_price is None:
        return price.price_per_gpu_hour * count, None, count
    groups_per_instance = price.gpus_per_instance // group_gpus
    if groups_per_instance < 1:
        raise ValueError(
            f"{price.id}: a {price.gpus_per_instance}-GPU instance cannot hold a group of "
            f"{group_gpus} GPUs"
        )
    instances = math.ceil(math.ceil(count / group_gpus) / groups_per_instance)
    return instance_price * instances, instances, instances * price.gpus_per_instance


def is_fresh(
    price: PriceEntry, today: date, max_age_days: int = DEFAULT_MAX_PRICE_AGE_DAYS
) -> bool:
    """True when the price is dated and at most `max_age_days` old (`staleness_warning`'s rule)."""
    return staleness_warning(price, today, max_age_days) is None


LOW_CONFIDENCE = "low"
"""The `confidence` the research gave a rate it could not confirm: a 'from' price, a rate
stated only in the provider's own article, a code constant, a figure a second source
contradicts (catalog/prices.toml: Voltage Park's 1.99 USD/h H100, TensorWave's MI300X, Lyceum).
The catalog's other grades (high, medium-high, medium, low-medium) are rates read from a price
page, API or compilation with no such doubt recorded."""


def is_low_confidence(price: PriceEntry) -> bool:
    """Whether the research marks `price` low confidence (`LOW_CONFIDENCE`)."""
    return price.confidence == LOW_CONFIDENCE


LOW_CONFIDENCE_NOTE = (
    "low-confidence price (the research could not confirm this rate); quoted only where no "
    "confirmed price as fresh hosts the configuration"
)


def quote_order(stale: bool | None, low_confidence: bool, usd: float) -> tuple[bool, bool, float]:
    """The one rule for which price a configuration is quoted at, within a tier: a fresh price
    before a stale (undated or too old) one, then a confirmed rate before a low-confidence one,
    then the lower USD figure (per hour for serving, the job's total for training). The
    recommender's ranking price, the cost tool's row order, `cheapest_by_tier` and break-even
    rows, and the sizing report's quote all sort by it, so every surface quotes the same row."""
    return (bool(stale), low_confidence, usd)


def on_demand_rows(book: PriceBook, eu_only: bool = False) -> tuple[PriceEntry, ...]:
    """Current on-demand rows of catalog GPUs (the ones a ranking may compare): spot and
    commitments would skew it, superseded rows are history, unmatched labels price nothing."""
    return tuple(
        p
        for p in book.prices
        if p.gpu is not None
        and p.tier == "on_demand"
        and not p.superseded
        and (p.eu or not eu_only)
    )


@dataclass(frozen=True)
class ConfigurationPrice:
    """The cheapest rentable price of one configuration, and what the buyer must know."""

    price: PriceEntry
    usd_per_hour: float
    instances: int | None = None
    billed_gpus: int = 0
    notes: tuple[str, ...] = ()
    stale: bool = False
    """No fresh row hosts the configuration: the price is undated or past the age limit."""
    low_confidence: bool = False
    """The price is a low-confidence rate (`is_low_confidence`): no confirmed row as fresh
    hosts the configuration."""


@dataclass(frozen=True)
class RankingPrices:
    """Price rows the recommender ranks "cheapest" and checks budgets with.

    `rows` are candidate on-demand rows (see `on_demand_rows`); EUR rows count only with the
    user's `eur_to_usd` rate. Each configuration is priced by `quote_order`: rows past
    `max_age_days` on `today` (or undated) are used only when no fresh row can host it, and
    low-confidence rows only when no confirmed row as fresh can.
    """

    rows: tuple[PriceEntry, ...]
    today: date  # or a datetime: ages are then counted to that instant
    eur_to_usd: float | None = None
    max_age_days: int = DEFAULT_MAX_PRICE_AGE_DAYS
    scope: str = "in the catalog"

    @property
    def day(self) -> date:
        """The calendar day (UTC) of this ranking's clock, for the staleness rule's wording."""
        return _day(self.today)

    def age(self, price: PriceEntry) -> str:
        """How old `price` is on this ranking's clock ('3 h old', '74 days old', 'undated'),
        found once per `as_of` (the recommender asks for every layout it prices)."""
        found = self._ages.get(price.as_of)
        if found is None:
            found = self._ages[price.as_of] = age_label(price.as_of, self.today)
        return found

    @cached_property
    def _ages(self) -> dict[str, str]:
        return {}

    @cached_property
    def _rows_by_gpu(self) -> dict[str, tuple[tuple[PriceEntry, bool], ...]]:
        """Each GPU's rows with whether each is fresh, found once: the recommender asks
        `configuration` for every layout it evaluates."""
        by_gpu: dict[str, list[tuple[PriceEntry, bool]]] = {}
        for price in self.rows:
            if price.gpu is not None:
                fresh = is_fresh(price, self.today, self.max_age_days)
                by_gpu.setdefault(price.gpu, []).append((price, fresh))
        return {gpu: tuple(rows) for gpu, rows in by_gpu.items()}

    @cached_property
    def _priced(self) -> frozenset[str]:
        return frozenset(
            p.gpu
            for p in self.rows
            if p.gpu is not None and to_usd(1.0, p.currency, self.eur_to_usd) is not None
        )

    def priced_gpus(self) -> set[str]:
        """GPU ids with at least one USD-comparable row."""
        return set(self._priced)

    def configuration(self, gpu: str, count: int, group_gpus: int) -> ConfigurationPrice | None:
        """The USD price per hour of `count` GPUs of `gpu` in groups of `group_gpus` that must
        each sit in one machine, first by `quote_order` (fresh, confirmed, cheapest; the row
        id breaks ties); None when no row can host a group."""
        quoted: list[tuple[tuple[bool, bool, float], str, PriceEntry, int | None, int]] = []
        for price, is_fresh_row in self._rows_by_gpu.get(gpu, ()):
            if not hosts_group(price, group_gpus):
                continue
            per_hour, instances, billed = configuration_price_per_hour(price, count, group_gpus)
            usd = to_usd(per_hour, price.currency, self.eur_to_usd)
            if usd is not None:
                rank = quote_order(not is_fresh_row, is_low_confidence(price), usd)
                quoted.append((rank, price.id, price, instances, billed))
        if not quoted:
            return None
        (stale, low_confidence, usd), _, price, instances, billed = min(
            quoted, key=lambda q: (q[0], q[1])
        )
        notes: list[str] = []
        if billed > count:
            notes.append(
                f"billed for {billed} GPUs, {count} used: {price.provider} sells "
                f"{price.instance or price.id} only as a whole {price.gpus_per_instance}-GPU "
                "instance"
            )
        if price.gpus_per_instance is None and group_gpus > 1:
            notes.append(f"{price.provider}: {per_gpu_quote_note(group_gpus)}")
        if low_confidence:
            notes.append(f"{price.provider}: {LOW_CONFIDENCE_NOTE}")
        if stale:
            warning = staleness_warning(price, self.today, self.max_age_days)
            notes.append(f"no fresh price hosts this layout, so a stale one is used: {warning}")
        return ConfigurationPrice(
            price=price,
            usd_per_hour=usd,
            instances=instances,
            billed_gpus=billed,
            notes=tuple(notes),
            stale=stale,
            low_confidence=low_confidence,
        )


def catalog_ranking_prices(eu_only: bool = False, today: date | None = None) -> RankingPrices:
    """The built-in catalog's current on-demand rows (EU regions only when asked), USD only."""
    return RankingPrices(
        rows=on_demand_rows(builtin_price_book(), eu_only=eu_only),
        today=today or date.today(),
        scope="in the catalog's EU regions" if eu_only else "in the catalog",
    )
