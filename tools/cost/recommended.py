"""Cost inputs from the recommender's options (read through a Protocol, so the cost tool does
not import the recommender).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from tools.cost.inputs import ServingCostInput, TrainingCostInput


class RecommendedOption(Protocol):
    """The fields of `tools.recommend.Option` the cost tool reads (no import: layers stay
    independent of each other)."""

    @property
    def gpu(self) -> str: ...
    @property
    def count(self) -> int: ...
    @property
    def tp(self) -> int: ...
    @property
    def fits(self) -> bool: ...
    @property
    def meets_targets(self) -> bool: ...
    @property
    def aggregate_tokens_per_s(self) -> float | None: ...
    @property
    def training_hours(self) -> float | None: ...


def serving_inputs(options: Iterable[RecommendedOption]) -> list[ServingCostInput]:
    """Serving inputs from recommender options that fit AND meet the targets: a setup that
    misses the throughput, latency or budget asked for is not an offer to price (the caller
    says so when none is left, with the recommender's nearest option)."""
    return [
        ServingCostInput(
            gpu=o.gpu, count=o.count, aggregate_tokens_per_s=o.aggregate_tokens_per_s, tp=o.tp
        )
        for o in options
        if o.fits and o.meets_targets
    ]


def training_inputs(options: Iterable[RecommendedOption]) -> list[TrainingCostInput]:
    """Training inputs from recommender options that fit and carry a training time."""
    return [
        TrainingCostInput(gpu=o.gpu, count=o.count, training_hours=o.training_hours, tp=o.tp)
        for o in options
        if o.fits and o.training_hours is not None and o.training_hours > 0
    ]
