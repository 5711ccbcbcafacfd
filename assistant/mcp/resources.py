"""Catalog listings an MCP client can read (and attach to a conversation) as resources.

Each is one JSON document built from the catalog the tools compute from: the same records
`gpu-sizer models --json` and `gpu-sizer gpus --json` print (bytes as integers, every entry
with `source` and `as_of`), and the prices in force — the built-in catalog, the newest
refreshed price file and the user's prices.toml, as `gpu-sizer cost` loads them — each with
its age on the clock at read time and whether it is stale or superseded.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tools.catalog import get_catalog
from tools.pricing import (
    DEFAULT_MAX_PRICE_AGE_DAYS,
    age_label,
    book_notes,
    is_fresh,
)

MIME_TYPE = "application/json"


@dataclass(frozen=True)
class CatalogResource:
    """One listing: its URI, a name and description for clients, and how to build it."""

    uri: str
    name: str
    description: str
    build: Callable[[], dict[str, Any]]


def _models() -> dict[str, Any]:
    from assistant.render.catalog import model_record

    records = [model_record(m) for m in get_catalog().models.values()]
    return {"models": records, "count": len(records)}


def _gpus() -> dict[str, Any]:
    from assistant.render.catalog import gpu_record

    records = [gpu_record(g) for g in get_catalog().gpus.values()]
    return {"gpus": records, "count": len(records)}


def _prices() -> dict[str, Any]:
    from assistant.clock import now
    from assistant.cost_tool import price_book

    book = price_book()
    clock = now()
    rows = []
    for price in book.prices:
        record = price.model_dump(mode="json", exclude_none=True)
        record["age"] = age_label(price.as_of, clock)
        record["stale"] = not is_fresh(price, clock)
        rows.append(record)
    return {
        "prices": rows,
        "count": len(rows),
        "units": "price_per_gpu_hour and price_per_instance_hour in `currency` per hour",
        "stale_rule": f"undated or older than {DEFAULT_MAX_PRICE_AGE_DAYS} days on "
        f"{clock.date().isoformat()}; superseded rows are history, never compared",
        "notes": book_notes(book),
    }


def _api_prices() -> dict[str, Any]:
    from assistant.cost_tool import price_book

    rows = [a.model_dump(mode="json", exclude_none=True) for a in price_book().api_prices]
    return {"api_prices": rows, "count": len(rows), "units": "USD or EUR per 1,000,000 tokens"}


RESOURCES: tuple[CatalogResource, ...] = (
    CatalogResource(
        "gpu-sizer://catalog/models",
        "models",
        "LLM architectures in the catalog: exact parameter counts, shape, source, as_of.",
        _models,
    ),
    CatalogResource(
        "gpu-sizer://catalog/gpus",
        "gpus",
        "GPUs in the catalog: memory (bytes), bandwidth, TFLOPS, interconnect, source, as_of.",
        _gpus,
    ),
    CatalogResource(
        "gpu-sizer://catalog/prices",
        "prices",
        "Cloud GPU prices in force (catalog, refreshed, user) with tier, region, as_of, age.",
        _prices,
    ),
    CatalogResource(
        "gpu-sizer://catalog/api-prices",
        "api-prices",
        "Hosted LLM API prices per million tokens, with source and as_of.",
        _api_prices,
    ),
)


def read_resource(uri: str) -> str | None:
    """The JSON text of the listing at `uri`, or None when there is none."""
    resource = next((r for r in RESOURCES if r.uri == uri), None)
    if resource is None:
        return None
    return json.dumps(resource.build(), ensure_ascii=False, separators=(",", ":"))
