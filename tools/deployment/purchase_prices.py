"""The purchase-price catalog (`catalog/purchase_prices.toml`): what a card costs to buy, as a
sourced, dated list price or street range."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from tools.limits import FINITE
from tools.nesting import loads_toml

CATALOG = Path(__file__).resolve().parents[2] / "catalog" / "purchase_prices.toml"
PurchaseKind = Literal["msrp", "street", "used"]


class PurchasePrice(BaseModel):
    """One card's purchase price in USD: a list price (low = high) or a range."""

    model_config = ConfigDict(extra="forbid", frozen=True, **FINITE)

    gpu: str = Field(description="Catalog GPU id.")
    usd_low: float = Field(gt=0, le=10_000_000, description="Low end, USD per card.")
    usd_high: float = Field(gt=0, le=10_000_000, description="High end, USD per card.")
    kind: PurchaseKind
    source: str = Field(min_length=3)
    as_of: str = Field(min_length=4)

    @model_validator(mode="after")
    def _ordered(self) -> PurchasePrice:
        if self.usd_high < self.usd_low:
            raise ValueError(f"{self.gpu}: usd_high below usd_low")
        return self


@functools.cache
def purchase_prices(path: Path = CATALOG) -> dict[str, PurchasePrice]:
    """Catalog GPU id → its purchase price."""
    data = loads_toml(path.read_text(encoding="utf-8"))
    entries = [PurchasePrice.model_validate(e) for e in data.get("purchase", [])]
    return {e.gpu: e for e in entries}
