"""How many concurrent sequences each serving replica runs, and how many replicas.

The recommender knows, for one tensor/pipeline-parallel group, how many sequences it can run at
once (`capacity`: its KV cache, capped by the engine's max_num_seqs) and, from
tools.performance's steady-state model, at a concurrency b:
- `speed(b)`: the decode tokens/s each sequence sees (1 / inter-token time);
- `throughput(b)`: the replica's output tokens/s (b sequences, with the prefill of the
  requests that replace finished ones; b × speed(b) when not given);
- `ttft(b)`: the time to first token a new request sees (queue + prefill), when a TTFT target
  must hold at that load.

This module turns the workload's targets into a plan:
- users given: they are the concurrency. Replicas = ⌈users / cap⌉, where cap is the largest
  concurrency within capacity that still meets the per-user speed and TTFT targets; more if an
  aggregate target needs smaller batches; the users are spread evenly: ⌈users / replicas⌉ per
  replica.
- only an aggregate tokens/s target: concurrency is free. The fewest replicas at the cap that
  reach the target, then the smallest batch with which that many replicas still reach it.

speed(b) never rises and throughput(b) never falls as the batch grows (a step reads the weights
once for the whole batch), and ttft(b) never falls: the searches below rely on that.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

Speed = Callable[[int], float]  # per-sequence decode tokens/s at a concurrency (batch)
Rate = Callable[[int], float]  # replica output tokens/s at a concurrency
Latency = Callable[[int], float]  # TTFT seconds at a concurrency


@dataclass(frozen=True)
class ReplicaPlan:
    """Concurrency per replica, replicas, the speeds they give, and why targets are missed."""

    sequences_per_replica: int
    replicas: int
    tokens_per_s_per_seq: float
    aggregate_tokens_per_s: float
    meets: bool = True
    reasons: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def largest_batch_where(ok: Callable[[int], bool], max_batch: int) -> int:
    """Largest concurrency ≤ max_batch for which `ok` holds (`ok` true up to some b, false
    after), 0 if none."""
    if max_batch < 1 or not ok(1):
        return 0
    lo, hi = 1, max_batch
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if ok(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def largest_batch_at_speed(speed: Speed, max_batch: int, target: float) -> int:
    """Largest concurrency ≤ max_batch whose per-sequence speed is ≥ target (0 if none)."""
    return largest_batch_where(lambda b: speed(b) >= target, max_batch)


def _smallest_batch_for_throughput(rate: Rate, max_batch: int, target: float) -> int:
    """Smallest concurrency ≤ max_batch whose replica throughput ≥ target (max_batch when none
    reaches it)."""
    lo, hi = 1, max_batch
    while lo < hi:
        mid = (lo + hi) // 2
        if rate(mid) >= target:
            hi = mid
        else:
            lo = mid + 1
    return lo


def _rate(speed: Speed, throughput: Rate | None) -> Rate:
    return throughput if throughput is not None else (lambda b: b * speed(b))


def target_cap(
    speed: Speed,
    capacity: int,
    *,
    tokens_per_s_per_user: float | None = None,
    ttft: Latency | None = None,
    ttft_s: float | None = None,
) -> int:
    """Largest concurrency ≤ capacity meeting the per-user speed and TTFT targets (0: none)."""

    def ok(b: int) -> bool:
        if tokens_per_s_per_user is not None and speed(b) < tokens_per_s_per_user:
            return False
        return not (ttft is not None and ttft_s is not None and ttft(b) > ttft_s)

    return largest_batch_where(ok, capacity)


def full_load(
    speed: Speed,
    capacity: int,
    *,
    tokens_per_s_per_user: float | None = None,
    useful_share: float = 1.0,
    throughput: Rate | None = None,
    ttft: Latency | None = None,
    ttft_s: float | None = None,
) -> tuple[int, float]:
    """(sequences, output tokens/s) of ONE replica run as full as it can: every slot in use, or
    fewer when each sequence must decode at `tokens_per_s_per_user` or see its first token
    within `ttft_s`. The figure $/M-token comparisons use; at least one sequence."""
    batch = capacity
    if tokens_per_s_per_user is not None or (ttft is not None and ttft_s is not None):
        batch = target_cap(
            speed,
            capacity,
            tokens_per_s_per_user=tokens_per_s_per_user,
            ttft=ttft,
            ttft_s=ttft_s,
        )
    batch = max(batch, 1)
    return batch, _rate(speed, throughput)(batch) * useful_share


def plan_replicas(
    speed: Speed,
    capacity: int,
    *,
    users: int | None,
    tokens_per_s: float | None = None,
    tokens_per_s_per_user: float | None = None,
    useful_share: float = 1.0,
    throughput: Rate | None = None,
    ttft: Latency | None = None,
    ttft_s: float | None = None,
    replicas: int | None = None,
) -> ReplicaPlan:
    """Plan the replicas of one parallel group that runs at most `capacity` (≥ 1) sequences.

    `replicas`: a fixed replica count (the user's `replicas`): see `fixed_replicas`.

    `users`: concurrent sequences the user asked for, or None when only `tokens_per_s` (the
    aggregate output target) is given. `tokens_per_s_per_user`: the speed each sequence must
    see; `ttft_s` with `ttft(b)`: the time to first token each request must see at the load.
    `useful_share`: decode slots doing useful work (static batching < 1, continuous 1).
    """
    if capacity < 1:
        raise ValueError("capacity must be at least one sequence")
    if users is None and tokens_per_s is None:
        raise ValueError("either users or tokens_per_s must be given")
    if replicas is not None:
        return fixed_replicas(
            speed,
            capacity,
            replicas,
            users=users,
            tokens_per_s=tokens_per_s,
            tokens_per_s_per_user=tokens_per_s_per_user,
            useful_share=useful_share,
            throughput=throughput,
            ttft=ttft,
            ttft_s=ttft_s,
        )
    rate = _rate(speed, throughput)
    reasons: list[str] = []
    notes: list[str] = []
    meets = True
    cap = capacity
    if tokens_per_s_per_user is not None or (ttft is not None and ttft_s is not None):
        cap = target_cap(
            speed, capacity, tokens_per_s_per_user=tokens_per_s_per_user, ttft=ttft, ttft_s=ttft_s
        )
        if cap == 0:
            meets = False
            if tokens_per_s_per_user is not None and speed(1) < tokens_per_s_per_user:
                reasons.append(
                    f"decode {speed(1):.1f} tok/s per user even alone < target "
                    f"{tokens_per_s_per_user:g} tok/s"
                )
            if ttft is not None and ttft_s is not None and ttft(1) > ttft_s:
                reasons.append(
                    f"TTFT {ttft(1) * 1000:,.0f} ms even for one user alone > target "
                    f"{ttft_s * 1000:,.0f} ms"
                )
            cap = 1

    if users is not None:
        replicas = math.ceil(users / cap)
        if tokens_per_s is not None:
            # Spreading the same users over more replicas lowers each batch and raises each
            # sequence's speed; the aggregate is at most users × speed(1).
            if throughput is None:
                need_per_seq = tokens_per_s / (users * useful_share)
                batch_ok = largest_batch_at_speed(speed, min(cap, users), need_per_seq)
            else:
                # The replica throughput includes prefill work: check the aggregate directly.
                batch_ok = largest_batch_where(
                    lambda b: users / b * rate(b) * useful_share >= tokens_per_s,
                    min(cap, users),
                )
            if batch_ok == 0:
                meets = False
                best = users * rate(1) * useful_share
                reasons.append(
                    f"{users:,} users decode at most {best:,.0f} tok/s together (one sequence "
                    f"per replica) < target {tokens_per_s:,.0f} tok/s: more users (concurrency) "
                    "are needed to reach it"
                )
            else:
                replicas = max(replicas, math.ceil(users / batch_ok))
        batch = math.ceil(users / replicas)
        per_seq = speed(batch)
        aggregate = users / batch * rate(batch) * useful_share
    else:
        assert tokens_per_s is not None
        replicas = math.ceil(tokens_per_s / (rate(cap) * useful_share))
        batch = _smallest_batch_for_throughput(rate, cap, tokens_per_s / (replicas * useful_share))
        per_seq = speed(batch)
        aggregate = replicas * rate(batch) * useful_share
        notes.append(
            f"No user count given: {replicas:,} replica(s) × {batch:,} concurrent sequences "
            f"deliver {aggregate:,.0f} tok/s ≥ the {tokens_per_s:,.0f} tok/s target"
        )
    if ttft is not None and ttft_s is not None and meets and ttft(batch) > ttft_s:
        meets = False
        reasons.append(
            f"TTFT {ttft(batch) * 1000:,.0f} ms at {batch:,} concurrent users per replica > "
            f"target {ttft_s * 1000:,.0f} ms"
        )
    return ReplicaPlan(
        sequences_per_replica=batch,
        replicas=replicas,
        tokens_per_s_per_seq=per_seq,
        aggregate_tokens_per_s=aggregate,
        meets=meets,
        reasons=reasons,
        notes=notes,
    )


def fixed_replicas(
    speed: Speed,
    capacity: int,
    replicas: int,
    *,
    users: int | None,
    tokens_per_s: float | None = None,
    tokens_per_s_per_user: float | None = None,
    useful_share: float = 1.0,
    throughput: Rate | None = None,
    ttft: Latency | None = None,
    ttft_s: float | None = None,
) -> ReplicaPlan:
    """The plan of exactly `replicas` replicas of a group that runs at most `capacity`
    sequences: the users spread evenly up to the cap, those past it waiting for a slot (no
    scale-out); with no user count, every replica full (the saturated throughput). The targets
    are checked at that load, never met by adding replicas."""
    rate = _rate(speed, throughput)
    reasons: list[str] = []
    meets = True
    offered = users if users is not None else replicas * capacity
    per_replica = math.ceil(offered / replicas)
    batch = max(1, min(per_replica, capacity))
    per_seq = speed(batch)
    aggregate = replicas * rate(batch) * useful_share
    notes = [
        f"{replicas:,} replica(s), fixed (replicas): each runs at most {capacity:,} sequences "
        f"(its batch cap: KV capacity and the engine's max_num_seqs); at {batch:,} per replica "
        f"they deliver {aggregate:,.0f} tok/s"
        + (" — the full-load throughput" if batch == capacity else "")
    ]
    if per_replica > capacity:
        waiting = offered - replicas * capacity
        notes.append(
            f"{waiting:,} of the {offered:,} users wait for a free slot (past {replicas:,} × "
            f"{capacity:,} sequences): their time to first token includes that wait"
        )
    if tokens_per_s is not None and aggregate < tokens_per_s:
        meets = False
        reasons.append(
            f"{replicas:,} replica(s) deliver {aggregate:,.0f} tok/s at full load < target "
            f"{tokens_per_s:,.0f} tok/s"
        )
    if tokens_per_s_per_user is not None and per_seq < tokens_per_s_per_user:
        meets = False
        reasons.append(
            f"decode {per_seq:.1f} tok/s per user at {batch:,} per replica < target "
            f"{tokens_per_s_per_user:g} tok/s"
        )
    if ttft is not None and ttft_s is not None and ttft(per_replica) > ttft_s:
        meets = False
        reasons.append(
            f"TTFT {ttft(per_replica) * 1000:,.0f} ms with {per_replica:,} users per replica > "
            f"target {ttft_s * 1000:,.0f} ms"
        )
    return ReplicaPlan(
        sequences_per_replica=batch,
        replicas=replicas,
        tokens_per_s_per_seq=per_seq,
        aggregate_tokens_per_s=aggregate,
        meets=meets,
        reasons=reasons,
        notes=notes,
    )
