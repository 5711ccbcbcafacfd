"""Hosted API prices for the same (or a comparable) model, or for the API models the caller
named ('vs GPT-4o mini'), blended at the caller's input:output token ratio.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tools.cost.inputs import UsageProfile
from tools.cost.results import ApiComparisonRow, MatchKind
from tools.errors import ToolInputError
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


NAMED_BASIS = "named by the caller: another model than the one self-hosted, compared on price only"


def api_key(name: str) -> str:
    """A name as the API catalog is matched: lower case, every run of other characters one '-'
    ('Claude Sonnet 4.5' and 'claude-sonnet-4-5' are one key)."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def api_names(api: ApiPriceEntry) -> set[str]:
    """The keys an API row answers to: its price id, its model as the provider lists it (and
    the name in brackets after it), its family."""
    names = {api.id, api.model, *re.findall(r"\(([^)]*)\)", api.model)}
    names.add(re.sub(r"\s*\(.*\)\s*$", "", api.model))
    if api.model_family:
        names.add(api.model_family)
    return {key for n in names if (key := api_key(n))}


def named_api_prices(
    names: Sequence[str], book: PriceBook, eu_only: bool = False
) -> list[tuple[ApiPriceEntry, MatchKind]]:
    """The API rows of the models the caller named, each name matched against every row's
    `api_names` (a family names all its rows). A name no row answers to is an input error:
    the comparison asked for cannot be made, and no other model replaces it."""
    apis = [a for a in book.api_prices if not a.superseded and (a.eu or not eu_only)]
    out: list[tuple[ApiPriceEntry, MatchKind]] = []
    for name in names:
        key = api_key(name)
        rows = [a for a in apis if key and key in api_names(a)]
        if not rows:
            families = sorted({a.model_family or a.model for a in apis})
            raise ToolInputError(
                "api_models",
                f"no hosted API price for {name!r}" + (" served from the EU" if eu_only else ""),
                "a model, family or price id of the API catalog: " + ", ".join(families),
            )
        out += [(a, "named") for a in rows if all(a.id != b.id for b, _ in out)]
    return out


def api_comparison(
    model_id: str | None,
    book: PriceBook,
    profile: UsageProfile,
    eur_to_usd: float | None,
    eu_only: bool = False,
    named: Sequence[str] = (),
) -> list[ApiComparisonRow]:
    """API rows for `model_id` — or, when the caller named API models, for those — cheapest
    blended USD price first (EU-served only with `eu_only`)."""
    ratio = profile.input_tokens_per_output_token
    out: list[ApiComparisonRow] = []
    if named:
        matched = named_api_prices(named, book, eu_only)
    elif model_id is not None:
        matched = api_prices_for(model_id, book, eu_only)
    else:
        matched = []
    for api, match in matched:
        blended = blended_per_mtok(api.input_per_mtok, api.output_per_mtok, ratio)
        out.append(
            ApiComparisonRow(
                api_id=api.id,
                provider=api.provider,
                model=api.model,
                match=match,
                basis=NAMED_BASIS if match == "named" else api.comparable_basis,
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
