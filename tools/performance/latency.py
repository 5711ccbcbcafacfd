"""Latency under load: TTFT and inter-token time as functions of concurrency.

N users each keep one request in flight (a closed loop: the next request follows the last
token), so requests arrive at λ = N / R, R = TTFT + OSL × inter-token time. Running sequences
are capped by the replica's batch capacity C (KV cache, engine max_num_seqs).

- Inter-token time at N: the steady-state step with min(N, C) sequences (tools/performance/
  serving.py: decode plus the prefill of replacing requests).
- TTFT at N = queue + prefill. The prompt's prefill runs in one step beside the decode batch
  (S = that step's time, not an extra decode step). Prefills are served one after another,
  so the wait for earlier ones is an M/D/1 queue (Pollaczek–Khinchine: Wq = ρ·S / (2(1 − ρ)),
  ρ = λ·S; Kleinrock, Queueing Systems vol. 1 §5.6). Past C, a request also waits for a
  running one to finish: in a closed loop N = X·(W + R) with X = C / R, so W = R·(N/C − 1).
"""

from __future__ import annotations

from dataclasses import dataclass

from tools.performance.basis import SpeedBasis
from tools.performance.roofline import ModelOnGpus
from tools.performance.serving import ServingPoint, steady_state
from tools.performance.steps import forward_step


@dataclass(frozen=True)
class LatencyAtLoad:
    """TTFT and decode speed seen by every user at one concurrency."""

    concurrency: int
    running_sequences: int
    ttft_s: float
    prefill_s: float
    queue_s: float
    inter_token_s: float
    output_tokens_per_s: float


def latency_at(
    m: ModelOnGpus,
    concurrency: int,
    capacity: int,
    prompt_tokens: int,
    output_tokens: int,
    max_num_batched_tokens: int | None = None,
    point: ServingPoint | None = None,
) -> LatencyAtLoad:
    """TTFT and inter-token time with `concurrency` users on a replica that runs at most
    `capacity` sequences at once (see the module docstring). `point`: the steady state at
    min(concurrency, capacity) when the caller has it."""
    n = max(1, concurrency)
    running = max(1, min(n, capacity))
    if point is None or point.sequences != running:
        point = steady_state(m, running, prompt_tokens, output_tokens, max_num_batched_tokens)
    itl = point.inter_token_s
    passes = 1.0
    if max_num_batched_tokens:
        passes = max(1.0, (prompt_tokens + running - 1) / max_num_batched_tokens)
    prefill = forward_step(
        m,
        running - 1,
        prompt_tokens + output_tokens / 2,
        prefill_tokens=float(prompt_tokens),
        prefill_context=prompt_tokens / 2,
        passes=passes,
    ).seconds
    request_s = prefill + output_tokens * itl
    queue = prefill_queue_s(prefill, request_s, running)
    if n > running:
        queue += request_s * (n / running - 1)
    return LatencyAtLoad(
        concurrency=n,
        running_sequences=running,
        ttft_s=prefill + queue,
        prefill_s=prefill,
        queue_s=queue,
        inter_token_s=itl,
        output_tokens_per_s=running / itl,
    )


def prefill_queue_s(prefill_s: float, request_s: float, running: int) -> float:
    """M/D/1 wait for the prefills of the other `running − 1` users (each with one request in
    flight every `request_s`), capped at all of them ahead: ρ·S / (2(1 − ρ)), ρ = λ·S."""
    others = max(0, running - 1)
    if others == 0:
        return 0.0
    rho = others * prefill_s / request_s
    worst = others * prefill_s
    if rho >= 1.0:
        return worst
    return min(worst, rho * prefill_s / (2 * (1 - rho)))


MAX_CURVE_POINTS = 10


def concurrency_grid(users: int, capacity: int) -> list[int]:
    """Concurrencies a latency curve is evaluated at: 1, powers of two up to past the larger
    of the users and the capacity, and both of those."""
    top = max(users, capacity, 1)
    points = {1, users, capacity}
    c = 2
    while c <= 2 * top:
        points.add(c)
        c *= 2
    grid = sorted(p for p in points if p >= 1)
    if len(grid) > MAX_CURVE_POINTS:  # keep the ends, users and capacity; thin the rest
        keep = {1, users, capacity, grid[-1]}
        step = len(grid) / (MAX_CURVE_POINTS - len(keep))
        keep |= {grid[int(i * step)] for i in range(MAX_CURVE_POINTS - len(keep))}
        grid = sorted(keep)
    return grid


@dataclass(frozen=True)
class CurvePoint:
    """One point of a latency curve, for charts and answers."""

    concurrency: int
    ttft_s: float
    inter_token_s: float
    tokens_per_s_per_user: float
    output_tokens_per_s: float
    queue_s: float


def latency_curve(
    m: ModelOnGpus,
    users: int,
    capacity: int,
    prompt_tokens: int,
    output_tokens: int,
    max_num_batched_tokens: int | None = None,
) -> list[CurvePoint]:
    """TTFT and inter-token time over `concurrency_grid(users, capacity)`."""
    out = []
    for n in concurrency_grid(users, capacity):
        p = latency_at(m, n, capacity, prompt_tokens, output_tokens, max_num_batched_tokens)
        out.append(
            CurvePoint(
                concurrency=n,
                ttft_s=p.ttft_s,
                inter_token_s=p.inter_token_s,
                tokens_per_s_per_user=1.0 / p.inter_token_s,
                output_tokens_per_s=p.output_tokens_per_s,
                queue_s=p.queue_s,
            )
        )
    return out


__all__ = [
    "CurvePoint",
    "LatencyAtLoad",
    "SpeedBasis",
    "concurrency_grid",
    "latency_at",
    "latency_curve",
]
