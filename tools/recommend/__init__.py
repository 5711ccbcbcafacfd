"""The recommender: for each catalog GPU, the smallest layout that fits and meets the targets.

For every GPU allowed by the constraints it evaluates tensor-parallel sizes that divide the
attention heads and fit in one node (then pipeline stages across nodes when allowed), asks the
memory calculator (`tools.memory.estimate_memory`) what each layout needs per GPU, derives the
KV-cache capacity as budget − (per-GPU bytes − KV bytes) (the identity tools.memory keeps), and
asks the performance model (`tools.performance`) how fast it runs. Data-parallel replicas are
added to reach the users / throughput targets. Every layout evaluated is kept: the best per GPU
in `options`, the others in `rejected`, each with human reasons carrying numbers.
"""

from __future__ import annotations

from tools.recommend.models import Option, Recommendation
from tools.recommend.recommender import SEQUENCE_STEP, recommend

__all__ = ["SEQUENCE_STEP", "Option", "Recommendation", "recommend"]
