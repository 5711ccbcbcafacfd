"""Hosted API prices for the same (or a comparable) model, blended at the caller's
input:output token ratio.
"""

from __future__ import annotations

from tools.cost.inputs import UsageProfile
from tools.cost.results import ApiComparisonRow, MatchKind
from tools.pricing import ApiPriceEntry, PriceBook, to_usd


def blended_per_mtok(input_per_mtok: float, output_per_mtok: float, ratio: float) -> float:
    """Blended price per million tokens at `ratio` input tokens per output token."""
    return (ratio * input_per_mtok + output_per_mtok) / (ratio + 1.0)


def api_prices_for(
    model_id: str, book: PriceBook, eu_only: bool = False
) -> list[tuple[ApiPriceEntry, MatchKind]]:
    """Hosted API prices for the same model, then for comparable ones (superseded left out;
    with `eu_only`, only APIs served from the EU, as the GPU prices are filtered)."""
    apis = [a for a in book.api_prices if not a.superseded and (a.eu or not eu_only)]
    same: list[tuple[ApiPriceEntry, MatchKind]] = [
        (a, "same") for a in apis if a.model_id == model_id
    ]
    comparable: list[tuple[ApiPriceEntry, MatchKind]] = [
        (a, "comparable") for a in apis if a.comparable_model_id == model_id
    ]
    return [*same, *comparable]


def api_comparison(
    model_id: str,
    book: PriceBook,
    profile: UsageProfile,
    eur_to_usd: float | None,
    eu_only: bool = False,
) -> list[ApiComparisonRow]:
    """API rows for `model_id`, cheapest blended USD price first (EU-served only with
    `eu_only`)."""
    ratio = profile.input_tokens_per_output_token
    out: list[ApiComparisonRow] = []
    for api, match in api_prices_for(model_id, book, eu_only):
        blended = blended_per_mtok(api.input_per_mtok, api.output_per_mtok, ratio)
        out.append(
            ApiComparisonRow(
                api_id=api.id,
                provider=api.provider,
                model=api.model,
                match=match,
                basis=api.comparable_basis,
                currency=api.currency,
                input_per_mtok=api.input_per_mtok,
                output_per_mtok=api.output_per_mtok,
                blended_per_mtok=blended,
                usd_blended_per_mtok=to_usd(blended, api.currency, eur_to_usd),
                as_of=api.as_of,
                source=api.source,
            )
        )
    out.sort(key=lambda r: (r.usd_blended_per_mtok is None, r.usd_blended_per_mtok or 0.0))
    return out
