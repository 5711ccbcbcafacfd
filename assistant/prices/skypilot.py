"""One SkyPilot `vms.csv` → price rows of catalog GPUs (pure: text in, rows out).

A row of the CSV is one instance type in one region (AWS: one availability zone) with its
on-demand `Price` and, where the cloud has one, `SpotPrice`, both in USD per instance-hour.
What becomes a price row:
- on-demand: the region's price (the same in every zone of a region), where one is listed;
- spot: the lowest zone's spot price in the region (zones differ; which zone has capacity
  is not known), said in `pricing_type`;
- regions with the same price (and the same EU status) are one row listing them all, so a
  cloud that prices alike everywhere (Lambda) gives one row per instance and tier.
What is skipped, and counted by reason: instances without an accelerator (CPU-only),
fractional GPUs (AWS g6f: an eighth of an L4), accelerators the mapping table does not cover
or covers ambiguously (`gpu_names`), stated memory that disagrees with the mapped GPU, rows
without a usable price, and unreadable rows (a value that is not a number, a name with
characters no instance or region name has).

The CSV comes from the network: every value is checked before it reaches a row, names are
held to the characters cloud names use (so nothing can write control sequences to a
terminal), and a response that is empty or not this layout raises `SourceFormatError`.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field

from assistant.prices.gpu_names import map_accelerator
from assistant.prices.sources import PriceSource
from tools.catalog import GpuSpec
from tools.pricing import PriceEntry, Tier

REQUIRED_COLUMNS = ("InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "Region")
"""Columns every SkyPilot vms.csv has (schema v5 to v8); the others are optional."""

MAX_INSTANCE_USD_PER_HOUR = 10_000.0
"""A price above this per instance-hour is a data error (the dearest 8-GPU instances list
near 150 USD/h), so the row is skipped rather than priced."""

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_REGION = re.compile(r"^[a-z0-9][a-z0-9-]{1,39}$")
_ACCELERATOR = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._ -]{0,39}$")
_MEMORY_MIB = re.compile(r"'SizeInMiB':\s*(\d{1,9})")

NO_ACCELERATOR = "no accelerator (CPU-only instance)"
FRACTIONAL = "fractional GPU"
NO_PRICE = "no usable price"
UNREADABLE = "unreadable row"


class SourceFormatError(ValueError):
    """A response that is not a SkyPilot vms.csv, or holds no row at all."""


@dataclass
class ParsedSource:
    """The price rows read from one source and what was left out."""

    rows: list[PriceEntry]
    rows_read: int
    skipped: Counter[str] = field(default_factory=Counter)
    """Reason → source rows skipped for it."""
    unmapped: Counter[str] = field(default_factory=Counter)
    """Accelerator name → source rows skipped because no rule maps it (or maps it
    ambiguously, or to a GPU the catalog lacks)."""


@dataclass(frozen=True)
class _Instance:
    name: str
    accelerator: str
    count: int
    gpu: str
    why: str


def parse_vms_csv(
    text: str, source: PriceSource, as_of: str, gpus: Mapping[str, GpuSpec], notes: str
) -> ParsedSource:
    """Price rows (USD) of the catalog GPUs in one SkyPilot `vms.csv`, dated `as_of`.

    Raises `SourceFormatError` when `text` is empty, is not CSV, or lacks a required column.
    """
    if not text.strip():
        raise SourceFormatError("empty response")
    try:
        records = list(csv.DictReader(io.StringIO(text)))
        header = records[0].keys() if records else next(csv.reader(io.StringIO(text)), [])
    except csv.Error as exc:
        raise SourceFormatError(f"not CSV ({exc})") from None
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        raise SourceFormatError(f"not a SkyPilot vms.csv (missing columns: {', '.join(missing)})")
    result = ParsedSource(rows=[], rows_read=len(records))
    instances: dict[str, _Instance] = {}
    on_demand: dict[str, dict[str, float]] = defaultdict(dict)
    spot: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for record in records:
        instance = _read_row(record, source, gpus, result)
        if instance is None:
            continue
        known = instances.setdefault(instance.name, instance)
        if known != instance:
            result.skipped[UNREADABLE] += 1  # one instance type stated two ways
            continue
        region = str(record["Region"])
        price = _price(record.get("Price"))
        spot_price = _price(record.get("SpotPrice"))
        if price is None and spot_price is None:
            result.skipped[NO_PRICE] += 1
            continue
        if price is not None:
            # Zones of one region share the on-demand price; keep the lowest if a file differs.
            known_price = on_demand[instance.name].get(region, price)
            on_demand[instance.name][region] = min(price, known_price)
        if spot_price is not None:  # spot can be listed where on-demand is not (AWS p5e)
            spot[instance.name][region].append(spot_price)
    for name, instance in sorted(instances.items()):
        result.rows += _rows(instance, "on_demand", on_demand[name], source, as_of, notes)
        lowest = {region: min(prices) for region, prices in spot[name].items()}
        result.rows += _rows(instance, "spot", lowest, source, as_of, notes)
    return result


def _read_row(
    record: Mapping[str | None, object],
    source: PriceSource,
    gpus: Mapping[str, GpuSpec],
    result: ParsedSource,
) -> _Instance | None:
    """The instance a CSV row describes, or None (its reason counted in `result`)."""
    if None in record or any(record.get(c) is None for c in REQUIRED_COLUMNS):
        result.skipped[UNREADABLE] += 1  # more or fewer fields than the header
        return None
    name = str(record["InstanceType"]).strip()
    accelerator = str(record["AcceleratorName"]).strip()
    region = str(record["Region"]).strip()
    if not accelerator:
        result.skipped[NO_ACCELERATOR] += 1
        return None
    if not (_NAME.match(name) and _REGION.match(region) and _ACCELERATOR.match(accelerator)):
        result.skipped[UNREADABLE] += 1
        return None
    try:
        count_value = float(str(record["AcceleratorCount"]))
    except ValueError:
        result.skipped[UNREADABLE] += 1
        return None
    if not math.isfinite(count_value) or count_value <= 0 or count_value > 64:
        result.skipped[UNREADABLE] += 1
        return None
    if not count_value.is_integer():
        result.skipped[FRACTIONAL] += 1
        return None
    memory = _MEMORY_MIB.search(str(record.get("GpuInfo") or ""))
    mapped = map_accelerator(
        source.cloud, accelerator, name, gpus, int(memory[1]) if memory else None
    )
    if mapped.gpu is None:
        result.skipped[mapped.why] += 1
        result.unmapped[accelerator] += 1
        return None
    return _Instance(name, accelerator, int(count_value), mapped.gpu, mapped.why)


def _price(value: object) -> float | None:
    """A USD per instance-hour figure, or None when absent, not a number or out of range."""
    text = str(value or "").strip()
    if not text:
        return None
    try:
        price = float(text)
    except ValueError:
        return None
    if not math.isfinite(price) or price <= 0 or price > MAX_INSTANCE_USD_PER_HOUR:
        return None
    return price


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-.")


def _rows(
    instance: _Instance,
    tier: Tier,
    by_region: Mapping[str, float],
    source: PriceSource,
    as_of: str,
    notes: str,
) -> list[PriceEntry]:
    """One row per group of regions with the same price and EU status, cheapest first."""
    groups: dict[tuple[float, bool], list[str]] = defaultdict(list)
    for region, price in by_region.items():
        groups[(round(price, 6), region in source.eu_regions)].append(region)
    pricing_type = (
        "on_demand" if tier == "on_demand" else "spot (lowest availability-zone price per region)"
    )
    rows = []
    for (price, eu), regions in sorted(groups.items()):
        regions.sort()
        rows.append(
            PriceEntry(
                id=f"{source.name}-{_slug(instance.name)}-{tier.replace('_', '-')}-"
                f"{_slug(regions[0])}",
                provider=source.provider,
                instance=instance.name,
                gpu=instance.gpu,
                gpu_label=instance.accelerator,
                gpu_mapping=instance.why,
                gpus_per_instance=instance.count,
                tier=tier,
                pricing_type=pricing_type,
                price_per_instance_hour=price,
                price_per_gpu_hour=round(price / instance.count, 6),
                currency="USD",
                region=", ".join(regions),
                eu=eu,
                as_of=as_of,
                source=f"SkyPilot price catalog {source.url}",
                source_type=f"refreshed: {source.name}",
                notes=notes,
            )
        )
    return rows
