"""Offers in a currency that cannot be compared in USD (a EUR price and no rate given): listed
with a one-line note instead of dropped, and the line saying how EUR prices were compared.
"""

from __future__ import annotations

from collections.abc import Iterable

from tools.cost.results import ServingCostRow, TrainingCostRow, UnconvertedPrice
from tools.pricing import TIERS


def unconverted_offers(rows: Iterable[ServingCostRow | TrainingCostRow]) -> list[UnconvertedPrice]:
    """The rows no USD figure could be given for (a EUR price and no rate), one per offer and
    configuration, by currency, then tier (on-demand first, as rankings read them), then price
    in their own currency."""
    out: dict[tuple[str, int], UnconvertedPrice] = {}
    for row in rows:
        training = isinstance(row, TrainingCostRow)
        usd = row.usd_cost if isinstance(row, TrainingCostRow) else row.usd_per_hour
        if usd is not None:
            continue
        out.setdefault(
            (row.price_id, row.count),
            UnconvertedPrice(
                price_id=row.price_id,
                provider=row.provider,
                instance=row.instance,
                gpu=row.gpu,
                count=row.count,
                billed_gpus=row.billed_gpus if row.billed_gpus > row.count else None,
                tier=row.tier,
                eu=row.eu,
                price=row.cost if isinstance(row, TrainingCostRow) else row.per_hour,
                per="job" if training else "hour",
                currency=row.currency,
                as_of=row.as_of,
            ),
        )
    return sorted(
        out.values(), key=lambda u: (u.currency, TIERS.index(u.tier), u.price, u.price_id)
    )


def unconverted_note(offers: list[UnconvertedPrice]) -> str | None:
    """One line saying how many offers were not compared in USD and the cheapest of the first
    tier in its own currency ('1 offer in EUR not compared (no EUR→USD rate set); cheapest
    on_demand OVHcloud h100-380 (1× h100-sxm) 2.80 EUR/hour'); None when all have USD."""
    if not offers:
        return None
    parts: list[str] = []
    for currency in sorted({o.currency for o in offers}):
        mine = [o for o in offers if o.currency == currency]
        offer_ids = {o.price_id for o in mine}
        eu = sum(1 for i in offer_ids if any(o.eu for o in mine if o.price_id == i))
        where = f" ({eu} in the EU)" if eu else ""
        best = mine[0]
        unit = "/hour" if best.per == "hour" else " for the job"
        billed = f", billed as {best.billed_gpus} GPUs" if best.billed_gpus else ""
        plural = "offer" if len(offer_ids) == 1 else "offers"
        parts.append(
            f"{len(offer_ids)} {plural} in {currency}{where} not compared (no {currency}→USD "
            f"rate set); cheapest {best.tier} {best.provider} {best.instance or best.price_id} "
            f"({best.count}× {best.gpu}{billed}) {best.price:,.2f} {currency}{unit}, as_of "
            f"{best.as_of}"
        )
    return "; ".join(parts)


def currency_assumption(eur_to_usd: float | None) -> str:
    """How EUR prices were compared: at the rate given (the caller says whose: the user's, or
    the catalog's reference rate, `tools.cost.exchange`), or not at all."""
    if eur_to_usd is None:
        return "EUR prices are not converted unless an exchange rate is given"
    return f"EUR prices converted at {eur_to_usd:g} USD per EUR"
