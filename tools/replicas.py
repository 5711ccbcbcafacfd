"""How many concurrent sequences each serving replica runs, and how many replicas.

The recommender knows, for one tensor/pipeline-parallel group, how many full-context sequences
its KV cache holds (`capacity`) and how fast each sequence decodes at a given concurrency
(`speed(batch)`, from tools.performance). This module turns the workload's targets into a plan:

- users given: they are the concurrency. Replicas = ⌈users / capacity⌉, more if an aggregate
  target needs smaller batches (each sequence decodes faster at a lower batch), and the users are
  spread evenly: ⌈users / replicas⌉ sequences per replica.
- only an aggregate tokens/s target: concurrency is free. The fewest replicas at full batch that
  reach the target, then the smallest batch with which that many replicas still reach it.

Decode throughput per replica, batch × speed(batch), never falls as the batch grows (a decode
step reads the weights once for the whole batch), and speed(batch) never rises: both searches
below rely on that.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

Speed = Callable[[int], float]  # per-sequence decode tokens/s at a concurrency (batch)


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


def largest_batch_at_speed(speed: Speed, max_batch: int, target: float) -> int:
    """Largest concurrency ≤ max_batch whose per-sequence speed is ≥ target (0 if none)."""
    if max_batch < 1 or speed(1) < target:
        return 0
    lo, hi = 1, max_batch
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if speed(mid) >= target:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _smallest_batch_for_throughput(speed: Speed, max_batch: int, target: float) -> int:
    """Smallest concurrency ≤ max_batch whose replica throughput batch × speed ≥ target
    (max_batch when none reaches it)."""
    lo, hi = 1, max_batch
    while lo < hi:
        mid = (lo + hi) // 2
        if mid * speed(mid) >= target:
            hi = mid
        else:
            lo = mid + 1
    return lo


def full_load(
    speed: Speed,
    capacity: int,
    *,
    tokens_per_s_per_user: float | None = None,
    useful_share: float = 1.0,
) -> tuple[int, float]:
    """(sequences, output tokens/s) of ONE replica run as full as it can: every KV slot in use,
    or fewer when each sequence must decode at `tokens_per_s_per_user`. The figure $/M-token
    comparisons use; at least one sequence."""
    batch = capacity
    if tokens_per_s_per_user is not None:
        batch = largest_batch_at_speed(speed, capacity, tokens_per_s_per_user)
    batch = max(batch, 1)
    return batch, batch * speed(batch) * useful_share


def plan_replicas(
    speed: Speed,
    capacity: int,
    *,
    users: int | None,
    tokens_per_s: float | None = None,
    tokens_per_s_per_user: float | None = None,
    useful_share: float = 1.0,
) -> ReplicaPlan:
    """Plan the replicas of one parallel group that holds `capacity` (≥ 1) sequences.

    `users`: concurrent sequences the user asked for, or None when only `tokens_per_s` (the
    aggregate output target) is given. `tokens_per_s_per_user`: the speed each sequence must
    see. `useful_share`: decode slots doing useful work (static batching < 1, continuous 1).
    """
    if capacity < 1:
        raise ValueError("capacity must be at least one sequence")
    if users is None and tokens_per_s is None:
        raise ValueError("either users or tokens_per_s must be given")
    reasons: list[str] = []
    notes: list[str] = []
    meets = True
    cap = capacity
    if tokens_per_s_per_user is not None:
        cap = largest_batch_at_speed(speed, capacity, tokens_per_s_per_user)
        if cap == 0:
            meets = False
            reasons.append(
                f"decode {speed(1):.1f} tok/s per user even alone < target "
                f"{tokens_per_s_per_user:g} tok/s"
            )
            cap = 1

    if users is not None:
        replicas = math.ceil(users / cap)
        if tokens_per_s is not None:
            # Spreading the same users over more replicas lowers each batch and raises each
            # sequence's speed; the aggregate is at most users × speed(1).
            need_per_seq = tokens_per_s / (users * useful_share)
            batch_ok = largest_batch_at_speed(speed, min(cap, users), need_per_seq)
            if batch_ok == 0:
                meets = False
                best = users * speed(1) * useful_share
                reasons.append(
                    f"{users:,} users decode at most {best:,.0f} tok/s together (one sequence "
                    f"per replica) < target {tokens_per_s:,.0f} tok/s: more users (concurrency) "
                    "are needed to reach it"
                )
            else:
                replicas = max(replicas, math.ceil(users / batch_ok))
        batch = math.ceil(users / replicas)
        per_seq = speed(batch)
        aggregate = users * per_seq * useful_share
    else:
        assert tokens_per_s is not None
        replicas = math.ceil(tokens_per_s / (cap * speed(cap) * useful_share))
        batch = _smallest_batch_for_throughput(speed, cap, tokens_per_s / (replicas * useful_share))
        per_seq = speed(batch)
        aggregate = replicas * batch * per_seq * useful_share
        notes.append(
            f"No user count given: {replicas:,} replica(s) × {batch:,} concurrent sequences "
            f"deliver {aggregate:,.0f} tok/s ≥ the {tokens_per_s:,.0f} tok/s target"
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
