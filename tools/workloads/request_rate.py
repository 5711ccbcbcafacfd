"""Request rate and latency percentiles (issue 30 item 4): an arrival rate (per second or per
day, times a peak factor) ↔ concurrency by Little's law on the headline layout's latency curve,
p50 / p90 / p99 time to first token and inter-token time from a queueing approximation, and
the replica count that meets a percentile target. Every figure here is an *estimate*.

Per replica, requests arrive at λ = peak rate ÷ replicas (Poisson). Little's law: the
concurrency L = λ·W, W = TTFT(L) + output tokens × inter-token time(L), solved on the layout's
latency curve (`tools.performance.latency`: TTFT with its M/D/1 prefill queue, the steady-state
step). TTFT percentiles: prefills are served one at a time (deterministic service S, the
prefill at L), utilisation ρ = λ·S; the wait is M/D/1, whose distribution is Erlang's
(Crommelin 1932): P(W ≤ t) = (1 − ρ)·Σ_{k=0}^{⌊t/S⌋} [λ(kS − t)]^k / k! · e^{−λ(kS − t)},
inverted by bisection (past 40 S or λt = 20, where the alternating sum loses precision,
the exponential tail with the Pollaczek–Khinchine mean ρS / (2(1 − ρ)) stands in);
TTFT_p = S + W_p.
The rate's own rule evaluates every candidate layout's latency curve
(`tools.sizing.workloads.rate_headline`); a layout sized without one (past the recommender's
first three, led by another rule) takes the one-sequence decode speed as its inter-token time
(stated). Inter-token time: the decode step at L; a step
that also carries a prefill (a fraction ρ of steps) is longer by S, so a quantile p > 1 − ρ is
step + S.
"""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from tools.errors import ToolInputError
from tools.field_factories import empty_list
from tools.limits import FINITE, MAX_SECONDS

if TYPE_CHECKING:
    from tools.recommend import Option
    from tools.recommend.models import LatencyPoint

Percentile = Literal[50, 90, 95, 99]
PERCENTILES: tuple[Percentile, ...] = (50, 90, 95, 99)
MAX_REQUESTS_PER_S = 1e6
MAX_REPLICAS = 10_000
_FIXED_POINT_STEPS = 60


class RequestRate(BaseModel):
    """An arrival rate and an optional latency percentile target."""

    model_config = ConfigDict(extra="forbid", **FINITE)

    requests_per_s: float = Field(gt=0, le=MAX_REQUESTS_PER_S)
    peak_factor: float = Field(
        default=1.0, ge=1, le=100, description="Peak ÷ average rate (default 1: no peak)."
    )
    percentile: Percentile | None = None
    ttft_s: float | None = Field(default=None, gt=0, le=MAX_SECONDS)
    inter_token_s: float | None = Field(
        default=None, gt=0, le=MAX_SECONDS, description="Inter-token target at it, seconds."
    )


class LatencyQuantile(BaseModel):
    """One percentile of TTFT and inter-token time."""

    percentile: Percentile
    ttft_s: float
    inter_token_s: float


class RequestRateResult(BaseModel):
    """The rate on the headline layout: concurrency, utilisation, percentiles, replicas."""

    requests_per_s: float = Field(description="Peak arrival rate sized, requests/s.")
    average_requests_per_s: float
    peak_factor: float
    gpu: str
    gpu_name: str
    gpus_per_replica: int
    replicas: int = Field(description="Replicas the rate is spread over (at least the layout's).")
    gpus: int = Field(description="GPUs of those replicas.")
    concurrency_per_replica: float = Field(description="Little's law L = λ·W per replica.")
    concurrency: float = Field(description="Concurrent requests over all replicas.")
    request_s: float = Field(description="W: TTFT + output × inter-token time, seconds.")
    prefill_s: float
    utilisation: float = Field(description="ρ = λ·S of the prefill queue per replica.")
    quantiles: list[LatencyQuantile]
    target_met: bool | None = Field(default=None, description="The percentile target holds.")
    usd_per_hour: float | None = Field(
        default=None, description="On-demand USD per hour of all the replicas (as quoted)."
    )
    percentile: Percentile | None = None
    ttft_target_s: float | None = None
    inter_token_target_s: float | None = None
    modelled_curve: bool = Field(
        default=True,
        description="False: the layout had no latency curve; inter-token time at one sequence.",
    )
    basis: Literal["estimated"] = "estimated"
    assumptions: list[str] = Field(default_factory=empty_list)


def _interpolate(curve: list[LatencyPoint], load: float) -> tuple[float, float, float]:
    """(TTFT, queue, inter-token time) at concurrency `load`, linear between curve points."""
    points = sorted(curve, key=lambda p: p.concurrency)
    if load <= points[0].concurrency:
        p = points[0]
        return p.ttft_s, p.queue_s, p.inter_token_s
    for lo, hi in itertools.pairwise(points):
        if load <= hi.concurrency:
            f = (load - lo.concurrency) / (hi.concurrency - lo.concurrency)
            return (
                lo.ttft_s + f * (hi.ttft_s - lo.ttft_s),
                lo.queue_s + f * (hi.queue_s - lo.queue_s),
                lo.inter_token_s + f * (hi.inter_token_s - lo.inter_token_s),
            )
    p = points[-1]
    return p.ttft_s, p.queue_s, p.inter_token_s


_EXACT_SPAN = 40
_EXACT_RATE_SPAN = 20.0
"""Erlang's alternating sum is summed up to 40 service times and λ·t ≤ 20 (its terms reach
e^(λt): past that, double precision loses the result to cancellation)."""


def md1_wait_cdf(rate: float, service: float, t: float) -> float:
    """P(W ≤ t) of the M/D/1 queueing wait (module docstring; Crommelin 1932)."""
    rho = rate * service
    if t < 0:
        return 0.0
    total = 0.0
    for k in range(math.floor(t / service) + 1):
        x = rate * (k * service - t)  # ≤ 0
        total += x**k / math.factorial(k) * math.exp(-x)
    return min(1.0, max(0.0, (1 - rho) * total))


def wait_quantile(rate: float, service: float, p: float) -> float:
    """The p-quantile of the M/D/1 wait: 0 when p ≤ 1 − ρ (no wait), else by bisection on
    Erlang's distribution, or the exponential tail past `_EXACT_SPAN` service times."""
    rho = rate * service
    if rho <= 0 or p <= 1 - rho:
        return 0.0
    hi = min(_EXACT_SPAN * service, _EXACT_RATE_SPAN / rate)
    if md1_wait_cdf(rate, service, hi) < p:
        mean_wait = rho * service / (2 * (1 - rho))
        return mean_wait / rho * math.log(rho / (1 - p))
    lo = 0.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if md1_wait_cdf(rate, service, mid) < p:
            lo = mid
        else:
            hi = mid
    return hi


class _Load(BaseModel):
    rate: float
    concurrency: float
    request_s: float
    prefill_s: float
    inter_token_s: float
    rho: float


def curve_of(option: Option) -> list[LatencyPoint]:
    """The layout's latency curve, or one point at one sequence (prefill alone, the
    one-sequence decode speed) for a layout the recommender gave none; empty: no speed."""
    from tools.recommend.models import LatencyPoint

    if option.latency_curve:
        return list(option.latency_curve)
    speed = option.decode_tokens_per_s_per_seq
    if option.prefill_s is None or not speed:
        return []
    return [
        LatencyPoint(
            concurrency=1,
            ttft_s=option.prefill_s,
            queue_s=0.0,
            inter_token_s=1 / speed,
            tokens_per_s_per_user=speed,
            output_tokens_per_s=speed,
        )
    ]


def _littles_fixed_point(
    curve: list[LatencyPoint], rate: float, output_tokens: int, cap: int
) -> float | None:
    """The concurrency L with L = λ·W(L) on the curve (W = TTFT + output × inter-token time,
    which never falls as L grows); None when past `cap` sequences are needed. From one
    sequence the iteration L ← λ·W(L) rises to the smallest such L; near the curve's knee, where
    λ·W'(L) is close to 1, it crawls, and the rest is found by bisection between the last
    iterate (λ·W above L) and the first point past the fixed point (`_FIXED_POINT_STEPS` of
    each), so Little's law holds to 1e-6 of L."""

    def arrivals_in_flight(load: float) -> float:
        ttft, _, itl = _interpolate(curve, load)
        return rate * (ttft + output_tokens * itl)

    load = lo = 1.0
    for _ in range(_FIXED_POINT_STEPS):
        nxt = arrivals_in_flight(load)
        if nxt > cap:
            return None
        if abs(nxt - load) <= 1e-6 * max(1.0, load):
            return nxt
        if nxt < load:
            if load == 1.0:  # under one sequence: W is one sequence's, L = λ·W(1)
                return nxt
            break  # past the fixed point (a curve that dips): bisection from the last below
        lo, load = load, nxt
    hi = float(cap)
    if arrivals_in_flight(hi) > hi:
        return None
    for _ in range(_FIXED_POINT_STEPS):
        mid = (lo + hi) / 2
        if arrivals_in_flight(mid) > mid:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-7 * hi:
            break
    return hi


def _per_replica(option: Option, rate: float, output_tokens: int) -> _Load | None:
    """Little's fixed point on one replica at `rate` requests/s; None: it cannot keep up."""
    curve = curve_of(option)
    load = _littles_fixed_point(curve, rate, output_tokens, option.batch_cap)
    if load is None:
        return None
    ttft, queue, itl = _interpolate(curve, max(load, 1.0))
    queue = max(queue, 0.0)
    prefill = max(ttft - queue, 1e-9)
    rho = rate * prefill
    if rho >= 1:
        return None
    return _Load(
        rate=rate,
        concurrency=load,
        request_s=ttft + output_tokens * itl,
        prefill_s=prefill,
        inter_token_s=itl,
        rho=rho,
    )


def _quantiles(load: _Load) -> list[LatencyQuantile]:
    out = []
    for p in PERCENTILES:
        q = p / 100
        itl = load.inter_token_s + (load.prefill_s if q > 1 - load.rho else 0.0)
        out.append(
            LatencyQuantile(
                percentile=p,
                ttft_s=load.prefill_s + wait_quantile(load.rate, load.prefill_s, q),
                inter_token_s=itl,
            )
        )
    return out


def _meets(request: RequestRate, quantiles: list[LatencyQuantile]) -> bool:
    if request.percentile is None:
        return True
    q = next(x for x in quantiles if x.percentile == request.percentile)
    ttft_ok = request.ttft_s is None or q.ttft_s <= request.ttft_s
    itl_ok = request.inter_token_s is None or q.inter_token_s <= request.inter_token_s
    return ttft_ok and itl_ok


def size_request_rate(
    request: RequestRate, option: Option, output_tokens: int
) -> RequestRateResult:
    """`request` on `option`'s layout: the fewest replicas (at least the layout's) that keep up
    and meet the percentile target (module docstring); ToolInputError when none does."""
    if not curve_of(option):
        raise ToolInputError(
            "request_rate", f"no speed for {option.gpu_name}", "a ranked serving option"
        )
    peak = request.requests_per_s * request.peak_factor
    per_replica_gpus = max(1, option.count // max(1, option.dp))
    found: tuple[int, _Load, list[LatencyQuantile]] | None = None
    replicas = max(1, option.dp)
    while replicas <= MAX_REPLICAS:
        load = _per_replica(option, peak / replicas, output_tokens)
        if load is not None:
            quantiles = _quantiles(load)
            if _meets(request, quantiles):
                found = (replicas, load, quantiles)
                break
        replicas = replicas + 1 if replicas < 64 else math.ceil(replicas * 1.25)
    if found is None:
        floor = _interpolate(curve_of(option), 1.0)
        raise ToolInputError(
            "request_rate",
            f"no count of up to {MAX_REPLICAS:,} replicas of {option.gpu_name} meets it (one "
            f"prompt's prefill alone takes {floor[0] - floor[1]:.3f} s there)",
            "a lower rate, a looser target or a faster GPU",
        )
    replicas, load, quantiles = found
    target = None if request.percentile is None else True
    modelled = bool(option.latency_curve)
    return RequestRateResult(
        requests_per_s=peak,
        average_requests_per_s=request.requests_per_s,
        peak_factor=request.peak_factor,
        gpu=option.gpu,
        gpu_name=option.gpu_name,
        gpus_per_replica=per_replica_gpus,
        replicas=replicas,
        gpus=replicas * per_replica_gpus,
        concurrency_per_replica=load.concurrency,
        concurrency=load.concurrency * replicas,
        request_s=load.request_s,
        prefill_s=load.prefill_s,
        utilisation=load.rho,
        quantiles=quantiles,
        target_met=target,
        modelled_curve=modelled,
        percentile=request.percentile,
        ttft_target_s=request.ttft_s,
        inter_token_target_s=request.inter_token_s,
        assumptions=[
            "Arrivals Poisson at the peak rate, spread evenly over the replicas; TTFT "
            "percentiles from the M/D/1 prefill queue's waiting-time distribution (estimated)."
        ]
        + (
            []
            if modelled
            else [
                f"{option.gpu_name} has no latency curve: inter-token time at one sequence "
                "(slower at higher concurrency)."
            ]
        )
        + (
            []
            if request.peak_factor != 1.0
            else ["No peak factor stated: sized at the average rate (a peak adds replicas)."]
        ),
    )
