"""Choosing and ordering options: the best layout of one GPU type (`_best`) and the order of
GPU types by the objective (`_rank_key`: smallest, cheapest or fastest).
"""

from __future__ import annotations

import math
from typing import Any

from tools.pricing import RankingPrices
from tools.recommend.models import Option
from tools.workload import Workload


def _speed_key(o: Option) -> float:
    """Larger is faster: per-user decode tok/s when serving, −hours when training."""
    if o.training_hours is not None:
        return -o.training_hours
    return o.decode_tokens_per_s_per_seq or 0.0


def _best(w: Workload, options: list[Option]) -> Option:
    """The smallest option meeting targets (the cheapest one when ranking by price and one is
    priced: ten 1-GPU VMs can cost less than the one 8-GPU machine a TP 4 group needs; the
    fastest one — per-user decode speed, or training hours — for objective "fastest"); else a
    fitting one that misses the fewest targets (within max_gpus first; a training deadline
    missed by the least; then fewest GPUs); else the largest tried (short by the least)."""
    meeting = [o for o in options if o.meets_targets]
    if meeting and w.objective == "fastest":
        return max(meeting, key=lambda o: (_speed_key(o), -o.count))
    if meeting and w.objective == "cheapest" and any(o.usd_per_hour for o in meeting):
        return min(
            meeting,
            key=lambda o: (
                math.inf if o.usd_per_hour is None else o.usd_per_hour,
                o.count,
                -(o.decode_tokens_per_s_per_seq or 0),
            ),
        )
    if meeting:
        return min(meeting, key=lambda o: (o.count, -(o.decode_tokens_per_s_per_seq or 0)))
    fitting = [o for o in options if o.fits]
    if fitting:
        limit = w.constraints.max_gpus

        def hours(o: Option) -> float:
            # A missed deadline: the layout that misses it by the least comes nearest.
            if w.deadline_hours is None or o.training_hours is None:
                return 0.0
            return o.training_hours

        return min(fitting, key=lambda o: (o.count > limit, len(o.reasons), hours(o), o.count))
    return max(options, key=lambda o: o.headroom_bytes)


def _rank_key(objective: str, prices: RankingPrices) -> Any:
    speed = _speed_key

    def key(o: Option) -> tuple[Any, ...]:
        head = (not o.meets_targets, not o.fits)
        if objective == "fastest":
            return (*head, -speed(o), o.count)
        if objective == "cheapest" and prices.rows:
            cost = o.usd_per_hour if o.usd_per_hour is not None else math.inf
            return (*head, cost, o.count, -speed(o))
        return (*head, o.count, -speed(o))

    return key
