"""`buy_vs_rent`: buying GPUs against renting them — the purchase (the catalog's sourced price or
the user's), the power bill at a price per kWh and a PUE, the cheapest on-demand rental the
price catalog has for the same GPUs, the months until buying has paid for itself, and the
energy per million tokens at a stated throughput.

    power (kW)          = count × TDP (W) × load_fraction / 1000 + host_watts / 1000
    facility power (kW) = power × PUE
    energy per month    = facility power × 730 h
    break-even months   = purchase / (rent per month − power per month)   (none when renting
                          costs no more than the power)
    kWh per M tokens    = facility power / (tokens/s × 3,600) × 10⁶

TDP is the datasheet board power in the GPU catalog: an upper bound of what a GPU draws under
sustained load. The default PUE is the Uptime Institute's industry average; the default
electricity price is an assumption, stated, and both are overridable. Staff, space, networking,
financing and resale are not modelled (stated).
"""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tools.catalog import get_catalog
from tools.cost.exchange import rate_used
from tools.cost.inputs import HOURS_PER_MONTH
from tools.deployment.purchase_prices import PurchaseKind, purchase_prices
from tools.field_factories import empty_list
from tools.limits import FINITE, MAX_GPUS, MAX_NAME_CHARS, MIN_RATE
from tools.pricing import (
    PriceBook,
    builtin_price_book,
    configuration_price_per_hour,
    is_fresh,
    is_low_confidence,
    on_demand_rows,
    quote_order,
    to_usd,
)

DEFAULT_PUE = 1.56
PUE_SOURCE = (
    "Uptime Institute Global Data Center Survey 2024: operators reported an average annual PUE "
    "of 1.56 at their largest data center (Statista's record of the survey, found through "
    "https://datasetsearch.research.google.com/search?query=average+data+center+pue, read "
    "2026-12-02; 1.58 in 2023, Uptime Intelligence: https://intelligence.uptimeinstitute.com/"
    "resource/large-data-centers-are-mostly-more-efficient-analysis-confirms)"
)
DEFAULT_USD_PER_KWH = 0.15
KWH_NOTE = (
    "0.15 USD per kWh assumed (no price given; set usd_per_kwh to your tariff): a round "
    "figure for commercial electricity, not a quoted tariff"
)
NOT_MODELLED = (
    "Not counted: staff, space, networking, financing, depreciation beyond the purchase, "
    "resale value; the rental includes all of them."
)


class BuyOptions(BaseModel):
    """What buying costs beyond the catalog's figures: the card price, the server, the power
    tariff and facility (the `size` request carries these for its leading option)."""

    model_config = ConfigDict(extra="forbid", frozen=True, **FINITE)

    purchase_usd_per_gpu: float | None = Field(
        default=None, gt=0, le=10_000_000, description="Price of one card, USD (default catalog)."
    )
    server_usd: float = Field(
        default=0, ge=0, le=1e9, description="The server(s) beyond the cards, USD."
    )
    usd_per_kwh: float | None = Field(
        default=None, gt=0, le=10, description="Electricity price, USD per kWh (default 0.15)."
    )
    pue: float | None = Field(
        default=None, ge=1, le=5, description="Power usage effectiveness (default 1.56)."
    )
    load_fraction: float = Field(
        default=1.0, gt=0.0, le=1.0, description="Share of TDP drawn on average (default 1)."
    )
    host_watts: float = Field(
        default=0, ge=0, le=1e7, description="Host power (CPUs, fans) beyond the GPUs, W."
    )


class BuyVsRentRequest(BuyOptions):
    """Buy or rent `count` GPUs: purchase, power and the break-even against renting."""

    gpu: str = Field(max_length=MAX_NAME_CHARS, description="Catalog GPU id or name.")
    count: int = Field(default=1, ge=1, le=MAX_GPUS, description="GPUs, count.")
    rent_usd_per_gpu_hour: float | None = Field(
        default=None, ge=MIN_RATE, le=1000, description="A rental to compare with, USD/GPU-hour."
    )
    tokens_per_s: float | None = Field(
        default=None,
        ge=MIN_RATE,
        le=1e9,
        description="Output tokens/s of the GPUs, for energy/token.",
    )


class RentalUsed(BaseModel):
    """The rental compared with: the catalog's cheapest on-demand row, or the user's rate."""

    usd_per_hour: float = Field(description="USD per hour for all `count` GPUs.")
    provider: str | None = None
    price_id: str | None = None
    as_of: str | None = None
    stale: bool = False
    low_confidence: bool = False


class BuyVsRent(BaseModel):
    """Purchase, power and break-even for buying `count` GPUs instead of renting them."""

    model_config = ConfigDict(frozen=True)

    gpu: str
    gpu_name: str
    count: int
    purchase_usd_low: float | None = Field(description="Cards + server, low end, USD.")
    purchase_usd_high: float | None = Field(description="Cards + server, high end, USD.")
    purchase_kind: PurchaseKind | Literal["given"] | None = None
    purchase_source: str | None = None
    purchase_as_of: str | None = None
    tdp_w: float | None = Field(description="Board power of one GPU (datasheet), W.")
    power_kw: float | None = Field(description="GPUs (+ host) at the load fraction, kW.")
    pue: float
    facility_kw: float | None = Field(description="power_kw × PUE, kW.")
    usd_per_kwh: float
    energy_kwh_per_month: float | None = Field(description="facility_kw × 730 h.")
    power_usd_per_month: float | None
    rental: RentalUsed | None = None
    rent_usd_per_month: float | None = Field(description="rental × 730 h, USD.")
    break_even_months_low: float | None = Field(
        description="Months until buying at the low price costs less than renting."
    )
    break_even_months_high: float | None = None
    kwh_per_million_tokens: float | None = None
    usd_energy_per_million_tokens: float | None = None
    assumptions: list[str] = Field(default_factory=empty_list)
    warnings: list[str] = Field(default_factory=empty_list)


def cheapest_rental(gpu: str, count: int, book: PriceBook, today: date) -> RentalUsed | None:
    """The catalog's cheapest on-demand price for `count` × `gpu`, by the one quote rule
    (`tools.pricing.quote_order`: fresh before stale, confirmed before low confidence, then
    the lower USD figure); EUR rows at the catalog's reference rate."""
    rate = rate_used(None).usd_per_eur
    best: tuple[tuple[bool, bool, float], RentalUsed] | None = None
    for row in on_demand_rows(book):
        if row.gpu != gpu:
            continue
        per_hour, _, _ = configuration_price_per_hour(row, count)
        usd = to_usd(per_hour, row.currency, rate)
        if usd is None:
            continue
        stale = not is_fresh(row, today)
        low = is_low_confidence(row)
        key = quote_order(stale, low, usd)
        if best is None or key < best[0]:
            used = RentalUsed(
                usd_per_hour=usd,
                provider=row.provider,
                price_id=row.id,
                as_of=row.as_of,
                stale=stale,
                low_confidence=low,
            )
            best = (key, used)
    return None if best is None else best[1]


def buy_vs_rent(
    req: BuyVsRentRequest,
    book: PriceBook | None = None,
    today: date | None = None,
    rental: RentalUsed | None = None,
) -> BuyVsRent:
    """Purchase, power, break-even and energy per token (see the module). `rental`: the
    price to compare with when the caller has quoted one (the sizing report's); otherwise the
    request's rate or the catalog's cheapest. Raises ToolInputError for a GPU the catalog
    lacks."""
    spec = get_catalog().gpu(req.gpu)
    today = today or date.today()
    notes: list[str] = [NOT_MODELLED]
    warnings: list[str] = []
    low = high = None
    kind: PurchaseKind | Literal["given"] | None = None
    source = as_of = None
    if req.purchase_usd_per_gpu is not None:
        low = high = req.purchase_usd_per_gpu * req.count + req.server_usd
        kind, source = "given", "the price you gave"
    else:
        entry = purchase_prices().get(spec.id)
        if entry is None:
            warnings.append(
                f"No purchase price of the {spec.name} in the catalog: give "
                "purchase_usd_per_gpu for the break-even."
            )
        else:
            low = entry.usd_low * req.count + req.server_usd
            high = entry.usd_high * req.count + req.server_usd
            kind, source, as_of = entry.kind, entry.source, entry.as_of
    if kind in ("msrp", "street", "used") and req.server_usd == 0:
        notes.append(
            "Cards only: a server (chassis, CPUs, memory, networking) adds to the purchase; "
            "give server_usd."
        )
    pue = req.pue or DEFAULT_PUE
    if req.pue is None:
        notes.append(f"PUE {DEFAULT_PUE} ({PUE_SOURCE}); set pue for your facility.")
    kwh_price = req.usd_per_kwh or DEFAULT_USD_PER_KWH
    if req.usd_per_kwh is None:
        notes.append(KWH_NOTE)
    power_kw = facility = energy = power_usd = None
    if spec.tdp_w is None:
        warnings.append(f"The {spec.name}'s board power is not published: no power figure.")
    else:
        power_kw = (req.count * spec.tdp_w * req.load_fraction + req.host_watts) / 1000
        facility = power_kw * pue
        energy = facility * HOURS_PER_MONTH
        power_usd = energy * kwh_price
        notes.append(
            f"Power: {req.count} × {spec.tdp_w:,.0f} W (datasheet TDP, an upper bound) × "
            f"{req.load_fraction:g} load"
            + (f" + {req.host_watts:,.0f} W host" if req.host_watts else "")
            + f", × PUE {pue:g}, {HOURS_PER_MONTH:.0f} h a month."
        )
    if rental is not None:
        pass
    elif req.rent_usd_per_gpu_hour is not None:
        rental = RentalUsed(usd_per_hour=req.rent_usd_per_gpu_hour * req.count)
    else:
        rental = cheapest_rental(spec.id, req.count, book or builtin_price_book(), today)
        if rental is None:
            warnings.append(f"No on-demand rental of the {spec.name} in the price catalog.")
    rent_month = None if rental is None else rental.usd_per_hour * HOURS_PER_MONTH
    be_low = be_high = None
    if rent_month is not None and low is not None and high is not None:
        saving = rent_month - (power_usd or 0.0)
        if saving > 0:
            be_low, be_high = low / saving, high / saving
        else:
            warnings.append("Renting costs no more than the power alone: buying never pays off.")
    kwh_m = usd_m = None
    if facility is not None and req.tokens_per_s is not None:
        kwh_m = facility / (req.tokens_per_s * 3600) * 1e6
        usd_m = kwh_m * kwh_price
    return BuyVsRent(
        gpu=spec.id,
        gpu_name=spec.name,
        count=req.count,
        purchase_usd_low=low,
        purchase_usd_high=high,
        purchase_kind=kind,
        purchase_source=source,
        purchase_as_of=as_of,
        tdp_w=spec.tdp_w,
        power_kw=power_kw,
        pue=pue,
        facility_kw=facility,
        usd_per_kwh=kwh_price,
        energy_kwh_per_month=energy,
        power_usd_per_month=power_usd,
        rental=rental,
        rent_usd_per_month=rent_month,
        break_even_months_low=be_low,
        break_even_months_high=be_high,
        kwh_per_million_tokens=kwh_m,
        usd_energy_per_million_tokens=usd_m,
        assumptions=notes,
        warnings=warnings,
    )
