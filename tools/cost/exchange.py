"""The dated currency reference rate the cost figures compare EUR prices in USD with.

`catalog/exchange_rates.toml` ships the European Central Bank's euro reference rate (USD per
EUR) with its date and source. `rate_used` says which rate a sizing used: the one the user gave
(it overrides the reference) or the reference, so an answer can state it next to any price it
converted. No conversion ever happens silently: the rate used is part of the report.
"""

from __future__ import annotations

from functools import cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tools.catalog import Sourced, catalog_dir, load_entries
from tools.limits import FINITE, MAX_EXCHANGE_RATE, MIN_EXCHANGE_RATE


class ReferenceRate(Sourced):
    """One published reference rate: `rate` units of `quote` per one `base`."""

    model_config = ConfigDict(extra="forbid", frozen=True, **FINITE)

    id: str = Field(min_length=1)
    base: Literal["EUR"]
    quote: Literal["USD"]
    rate: float = Field(ge=MIN_EXCHANGE_RATE, le=MAX_EXCHANGE_RATE)


class RateUsed(BaseModel):
    """The EUR→USD rate a report's USD figures used, and where it came from."""

    usd_per_eur: float
    basis: Literal["given", "reference"] = Field(
        description="'given': the user's (or the caller's) rate; 'reference': the catalog's."
    )
    origin: str | None = Field(
        default=None, description="Where a given rate was set (a flag, the settings)."
    )
    as_of: str | None = Field(default=None, description="The reference rate's date.")
    source: str | None = Field(default=None, description="The reference rate's source.")

    @property
    def statement(self) -> str:
        """One line an answer shows wherever a EUR price was converted."""
        if self.basis == "given":
            where = f" ({self.origin})" if self.origin else ""
            rate = f"{self.usd_per_eur:g} USD per EUR"
            return f"EUR prices compared in USD at your rate of {rate}{where}"
        return (
            f"EUR prices compared in USD at the ECB euro reference rate of {self.as_of}: "
            f"{self.usd_per_eur:g} USD per EUR (catalog/exchange_rates.toml; give your own with "
            "--eur-usd)"
        )


@cache
def reference_eur_to_usd() -> ReferenceRate:
    """The catalog's EUR→USD reference rate (validated once per process)."""
    rates = load_entries(catalog_dir() / "exchange_rates.toml", "rate", ReferenceRate)
    return next(r for r in rates if (r.base, r.quote) == ("EUR", "USD"))


def rate_used(given: float | None) -> RateUsed:
    """The rate a sizing uses: `given` when the caller gave one, else the reference."""
    if given is not None:
        return RateUsed(usd_per_eur=given, basis="given")
    ref = reference_eur_to_usd()
    return RateUsed(usd_per_eur=ref.rate, basis="reference", as_of=ref.as_of, source=ref.source)
