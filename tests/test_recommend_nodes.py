"""Servers a serving layout needs (QA round 4, 9): data-parallel replicas whose TP×PP group fits
one node pack into nodes; a group larger than a node spans several per replica.

QA's case: "Recommended: 4× H100 SXM5 (TP=2, DP=2), 2 node(s)": four H100s are half of one
8-GPU node (catalog/gpus.toml h100-sxm gpus_per_node = 8: AWS p5.48xlarge, GCP a3-highgpu-8g).
"""

from __future__ import annotations

import pytest

from tools.recommend import recommend
from tools.recommend.layouts import serving_nodes
from tools.workload import Workload

H100_PER_NODE = 8  # AWS p5.48xlarge: 8× H100 SXM


@pytest.mark.parametrize(
    ("tp", "pp", "dp", "nodes"),
    [
        (2, 1, 2, 1),  # 4 GPUs in one 8-GPU node
        (2, 1, 4, 1),  # 8 GPUs: exactly one node
        (2, 1, 5, 2),  # 10 GPUs: ceil(10 / 8)
        (8, 1, 3, 3),  # one whole node per replica
        (8, 2, 2, 4),  # a TP 8 × PP 2 group spans 2 nodes; replicas do not share them
        (3, 1, 5, 3),  # a TP 3 group cannot straddle nodes: 2 per node (6 GPUs), 5 → 3 nodes
    ],
)
def test_serving_nodes_by_hand(tp: int, pp: int, dp: int, nodes: int) -> None:
    assert serving_nodes(tp, pp, dp, H100_PER_NODE) == nodes


def test_two_tp2_replicas_of_70b_on_h100_need_one_node() -> None:
    # Llama 3.1 70B bf16 (config.json: 70,553,706,496 params → 141.1 GB of weights) needs TP 2
    # on 80 GB H100s. KV per token: 80 layers × 8 KV heads × 128 × 2 (K, V) × 2 B = 327,680 B,
    # 1.25 GiB per 4,096-token sequence; what 2 × 79.65 GiB usable × 0.9 leaves after the
    # weights and vLLM's sampler reserve (max_num_seqs 1,024 × 128,256 × 16 B = 2.1 GB per
    # GPU) holds 2 sequences per TP-2 pair, so 8 users would need 4 pairs (8 > max_gpus 4);
    # one TP-4 group holds all 8: 4 GPUs, one node.
    rec = recommend(
        Workload(
            model="llama-3.1-70b",
            users=8,
            constraints={"only_gpus": ["h100-sxm"], "max_gpus": 4},
        )
    )
    best = rec.options[0]
    assert (best.count, best.tp, best.pp, best.dp) == (4, 4, 1, 1)
    assert best.max_concurrent_sequences >= 8
    pair = next(o for o in rec.rejected if o.tp == 2)
    assert pair.max_concurrent_sequences == 2
    assert best.nodes == 1
