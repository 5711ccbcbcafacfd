"""The workload parts of a sizing report (issue 30 items 1-4): each part the request carries,
sized on the report's headline layout (`tools.workloads`), so every surface shows one figure.

A request rate also chooses the headline (`rate_headline`, rule *request_rate*): under a price
objective with no configuration named, the layout that leads is the one whose replicas serve
the rate (and meet its percentile target) for the least USD an hour — a card that is cheapest
an hour is not the cheapest way to serve 40 requests/s when it takes ten times the replicas.
The rate part is then sized on that headline (`headline_rate`): one verdict."""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import date

from tools.catalog import get_catalog
from tools.errors import ToolInputError
from tools.memory.model import resolve_model
from tools.notes import Note
from tools.pricing import PriceBook, RankingPrices, quote_order
from tools.recommend import Option, Recommendation, serving_layout_at, with_latency_curve
from tools.sizing.headline import PRICE_OBJECTIVES, candidates
from tools.sizing.report import Headline, PricedConfiguration, SizingError, SizingReport
from tools.sizing.request import SizingRequest
from tools.workload import Workload, revalidated
from tools.workloads import size_lora_serving
from tools.workloads.batch import api_job_costs, size_batch_job
from tools.workloads.prices import hourly_quotes
from tools.workloads.request_rate import (
    RequestRate,
    RequestRateResult,
    curve_of,
    size_request_rate,
)

_FOUR_BYTE_FORMATS = frozenset({"fp32"})
"""Weight formats whose activations (and so vLLM's `lora_dtype auto`) are 4 bytes; every other
format — bf16, fp16 and the quantized ones, which compute in 16 bits — gives 2."""


def served_name(model_id: str) -> str:
    """The name `vllm serve` takes for a catalog model: its Hugging Face repo id (the first alias
    with an owner), else the id as given."""
    entry = get_catalog().models.get(model_id)
    if entry is None:
        return model_id
    return next((a for a in entry.aliases if "/" in a), model_id)


def size_workload_parts(
    request: SizingRequest, report: SizingReport, book: PriceBook, today: date
) -> SizingError | None:
    """Fill `report`'s workload parts from `request`'s; the error of a part that cannot be
    sized (the field, the problem, what is allowed), else None."""
    try:
        _size_parts(request, report, book, today)
    except ToolInputError as exc:
        return SizingError(
            field=exc.field,
            problem=exc.problem,
            allowed=exc.allowed,
            did_you_mean=list(exc.suggestions or []),
        )
    return None


def _size_parts(request: SizingRequest, report: SizingReport, book: PriceBook, today: date) -> None:
    arrivals = request.request_rate
    if arrivals is not None and report.headline is not None:
        report.request_rate = headline_rate(
            arrivals, report.headline, request.workload.output_tokens, report.request_rate
        )
        note = in_flight_note(report.request_rate, request.workload, report.users_stated)
        report.notes += [] if note is None else [note]
    job = request.batch_job
    if job is not None and report.headline is not None:
        option = report.headline.option
        w = request.workload
        quotes = hourly_quotes(
            book, option.gpu, option.count, today, request.pricing.eu_only, option.tp
        )
        serving = None if report.costs is None else report.costs.serving
        rate = None if report.exchange_rate is None else report.exchange_rate.usd_per_eur
        apis = [] if serving is None else api_job_costs(job, serving.api_comparison, rate)
        report.batch_job = size_batch_job(
            job, option, (w.prompt_tokens, w.output_tokens), quotes, apis
        )
    lora = request.lora_serving
    if lora is not None:
        w = request.workload
        resolved = resolve_model(w.model, w.params, w.config_path, w.model_file)
        headline = None if report.headline is None else report.headline.option
        fmt = report.weights_format or ""
        users = w.users if report.users_stated else None
        report.lora_serving = size_lora_serving(
            lora,
            resolved.architecture,
            served_name(resolved.id),
            4 if fmt in _FOUR_BYTE_FORMATS else 2,
            headline,
            users,
            included=w.lora_slots is not None,
        )


def headline_rate(
    arrivals: RequestRate,
    headline: Headline,
    output_tokens: int,
    sized: RequestRateResult | None = None,
) -> RequestRateResult:
    """`arrivals` on the headline's own layout: the replicas of it that keep up and meet the
    percentile target (`sized`: as `rate_deployment` already found them), priced at the
    headline's quoted row (per replica: the row ÷ its data parallel replicas), so the rate
    part never leads with another GPU or count than the answer does. ToolInputError when the
    headline does not hold the workload or has no speed."""
    option = headline.option
    if not option.fits:
        raise ToolInputError(
            "request_rate",
            f"{option.count}× {option.gpu_name} does not hold the workload, so no rate is "
            "served on it",
            "a layout that fits the model at this context",
        )
    result = sized or size_request_rate(arrivals, option, output_tokens)
    price = headline.price
    if price is None or price.usd_per_hour is None:
        return result
    hourly = price.usd_per_hour * result.replicas / max(1, option.dp)
    return result.model_copy(update={"usd_per_hour": hourly})


def rate_deployment(
    request: SizingRequest,
    search: Workload,
    headline: Headline,
    prices: RankingPrices,
    users_stated: bool,
) -> tuple[Option, RequestRateResult] | None:
    """The headline a request rate chose, at the replicas the rate needs: the rate sized on
    the headline's layout takes more replicas than the recommender's option has (it sized
    the users, not the arrivals), so that layout is evaluated again with the rate's replica
    count — holding the rate's requests in flight (Little's law), or the users stated
    (`users_stated`) when they are more — and the headline, its price, the verdict and the
    rate part state one count (a 70B at 69 requests/s: 9 replicas of TP 4, not the 2 that
    hold its users).

    The layout evaluated again has its own latency curve at its load, so the rate is sized
    on it again; when that needs more replicas still, it is evaluated at those (at most
    `_DEPLOY_ROUNDS` times), else the first evaluation is kept with the rate as the
    headline's layout gave it. None when no rate chose the headline, its layout already has
    the replicas, or the layout evaluated again does not hold them."""
    arrivals = request.request_rate
    if arrivals is None or headline.rule != "request_rate":
        return None
    output_tokens = request.workload.output_tokens
    try:
        first = size_request_rate(arrivals, headline.option, output_tokens)
    except ToolInputError:
        return None
    if first.replicas <= headline.option.dp:
        return None
    kept: tuple[Option, RequestRateResult] | None = None
    rate = first
    for _ in range(_DEPLOY_ROUNDS):
        deployed = _deployed(search, headline.option, rate, prices, users_stated)
        if deployed is None:
            break
        kept = kept or (deployed, first)
        try:
            again = size_request_rate(arrivals, deployed, output_tokens)
        except ToolInputError:
            break
        if again.replicas == deployed.dp:
            return deployed, again
        rate = again
    return kept


_DEPLOY_ROUNDS = 3
"""Evaluations of a rate's deployment (`rate_deployment`): its replica count settles in one
or two on the workloads tested (tests/test_workloads_request_rate.py)."""


def _deployed(
    search: Workload,
    option: Option,
    rate: RequestRateResult,
    prices: RankingPrices,
    users_stated: bool,
) -> Option | None:
    """`option`'s layout with `rate`'s replicas (see `rate_deployment`); None when the
    workload at that count is not valid or the layout does not hold it."""
    data = search.model_dump(mode="json", exclude_unset=True) | {"replicas": rate.replicas}
    in_flight = max(1, math.ceil(rate.concurrency))
    if not users_stated or search.users < in_flight:
        data["users"] = in_flight  # memory for what is in flight (`in_flight_note`)
    try:
        workload = revalidated(search, data)
    except ToolInputError:
        return None
    deployed = serving_layout_at(workload, option.gpu, option.tp, option.pp, prices)
    return deployed if deployed.fits and deployed.dp == rate.replicas else None


def in_flight_note(rate: RequestRateResult, w: Workload, users_stated: bool) -> Note | None:
    """When the users stated are fewer than the requests the rate keeps in flight (Little's
    law on the headline's layout), the note that says so: the rate, not the user count, sets
    the memory and the replicas ('200 users at 10 requests/s' of 1,024-token answers keep
    ≈1,600 in flight). None otherwise."""
    in_flight = math.ceil(rate.concurrency)
    if not users_stated or w.users >= in_flight:
        return None
    return Note(
        code="rate_exceeds_users",
        text=f"{w.users:,} concurrent users stated, but {rate.requests_per_s:,.2f} requests/s "
        f"of {w.prompt_tokens:,} + {w.output_tokens:,} tokens keep ≈{in_flight:,} in flight "
        f"(Little's law: {rate.request_s:,.2f} s each): the replicas and their memory are "
        "sized for the requests in flight. Shorter answers, or the rate the users make, "
        "would need fewer.",
    )


PriceOf = Callable[[str, int], PricedConfiguration | None]
"""The priced row quoted for (GPU, count) — `SizingReport.price_of`."""


def rate_headline(
    request: SizingRequest,
    rec: Recommendation | None,
    headline: Headline | None,
    price_of: PriceOf,
    search: Workload | None = None,
) -> Headline | None:
    """The headline for a request rate (module docstring): `headline` unless the request has a
    rate, a price objective and no configuration or count named (those lead by their own
    rules), else the fitting option that meets the targets whose replicas meeting the rate
    cost least an hour by `quote_order` (priced before unpriced, then the recommender's rank);
    `headline` when no option can serve the rate."""
    arrivals = request.request_rate
    objective = request.workload.objective
    if (
        arrivals is None
        or rec is None
        or headline is None
        or headline.rule not in ("cheapest", "recommender_first")
        or headline.gpus_named is not None
        or objective not in PRICE_OBJECTIVES
    ):
        return headline
    limit = (search or request.workload).constraints.max_gpus
    keyed: list[tuple[tuple[bool, tuple[bool, bool, float], int], Option]] = []
    for rank, listed in enumerate(candidates(rec, limit)):
        option = with_latency_curve(search or request.workload, listed)
        if not curve_of(option):
            continue
        try:
            result = size_request_rate(arrivals, option, request.workload.output_tokens)
        except ToolInputError:
            continue
        priced = price_of(option.gpu, option.count)
        if priced is None or priced.usd_per_hour is None:
            keyed.append(((True, (False, False, 0.0), rank), option))
            continue
        hourly = priced.usd_per_hour * result.replicas / max(1, option.dp)
        keyed.append(
            ((False, quote_order(priced.stale, priced.low_confidence, hourly), rank), option)
        )
    if not keyed:
        return headline
    _, option = min(keyed, key=lambda pair: pair[0])
    peak = arrivals.requests_per_s * arrivals.peak_factor
    return Headline(
        option=option,
        rule="request_rate",
        reason=f"the layout whose replicas serve {peak:,.2f} requests/s"
        + ("" if arrivals.percentile is None else f" within the p{arrivals.percentile} target")
        + " for the least USD per hour, of the priced options that fit and meet the targets",
        weights_format=headline.weights_format,
    )
