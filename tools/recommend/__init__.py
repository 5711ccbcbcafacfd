"""The recommender: for each catalog GPU, the smallest layout that fits and meets the targets.

For every GPU allowed by the constraints it evaluates tensor-parallel sizes that divide the
attention heads and fit in one node (then pipeline stages across nodes when allowed), asks the
memory calculator (`tools.memory.estimate_memory`) what each layout needs per GPU, derives the
KV-cache capacity as budget − (per-GPU bytes − KV bytes) (the identity tools.memory keeps), and
asks the performance model (`tools.performance`) how fast it runs. Data-parallel replicas are
added to reach the users / throughput targets. Every layout evaluated is kept: the best per GPU
in `options`, the others in `rejected`, each with human reasons carrying numbers.

One job per file:
- `recommender.py`: `recommend()`, the per-GPU layout search, the memory calculator's warnings.
- `models.py`: the results, `Option` and `Recommendation`.
- `layouts.py`: the GPUs the constraints allow and the TP / PP layouts tried on each.
- `memory_calls.py`: calls into `tools.memory` (lazy) and the cached model facts.
- `inference.py`: one serving layout: KV capacity, concurrency, replicas, speed, TTFT.
- `training.py`: one training layout: memory, step time, hours, deadline.
- `prices.py`: a configuration's hourly price and the budget check.
- `ranking.py`: the best layout per GPU and the order of GPUs by the objective.
- `fit_notes.py`: notes on what does not fit and what would (engine reserve, one node, fp8,
  shorter training sequences).

Importers use this package (`from tools.recommend import recommend, Option`); the files'
underscore names are private to it.
"""

from __future__ import annotations

from tools.recommend.fit_notes import SEQUENCE_STEP
from tools.recommend.models import Option, Recommendation
from tools.recommend.recommender import (
    recommend,
    serving_layout_at,
    training_layouts_at,
    with_latency_curve,
)

__all__ = [
    "SEQUENCE_STEP",
    "Option",
    "Recommendation",
    "recommend",
    "serving_layout_at",
    "training_layouts_at",
    "with_latency_curve",
]
