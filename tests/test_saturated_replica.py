"""One saturated replica is expressible (issue 31 point 4): with `replicas` fixed, the users past
the replica's batch cap wait for a slot instead of adding replicas, the full-load throughput is
the answer and the batch cap is stated with what sets it."""

from __future__ import annotations

import json

import pytest

from assistant.cli import main
from tools.replicas import plan_replicas


def speed(b: int) -> float:
    """A replica whose per-user speed falls with the batch: 100 / (1 + b/20) tok/s."""
    return 100.0 / (1 + b / 20)


def test_a_fixed_replica_runs_full_and_the_rest_wait() -> None:
    plan = plan_replicas(speed, 10, users=50, replicas=1)
    # 50 users, cap 10: one replica runs 10, 40 wait. 10 × 100/1.5 = 666.7 tok/s.
    assert (plan.replicas, plan.sequences_per_replica) == (1, 10)
    assert plan.aggregate_tokens_per_s == pytest.approx(10 * 100 / 1.5)
    assert any("40 of the 50 users wait" in n for n in plan.notes)
    assert plan.meets
    # Without the fixed count the same users take ceil(50 / 10) = 5 replicas.
    assert plan_replicas(speed, 10, users=50).replicas == 5


def test_a_fixed_replica_misses_a_throughput_it_cannot_reach() -> None:
    plan = plan_replicas(speed, 10, users=None, tokens_per_s=1000.0, replicas=1)
    assert plan.sequences_per_replica == 10  # saturated: every slot in use
    # 10 × 100 / (1 + 10/20) = 666.7 tok/s, under the 1,000 asked.
    assert plan.aggregate_tokens_per_s == pytest.approx(10 * 100 / 1.5)
    assert not plan.meets
    assert f"{10 * 100 / 1.5:,.0f} tok/s at full load < target 1,000" in plan.reasons[0]
    assert plan_replicas(speed, 10, users=None, tokens_per_s=1000.0, replicas=2).meets


def _option(capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, object]:
    argv = ["recommend", "--model", "llama-3.1-8b", "--gpu", "h200-sxm", "--users", "5000"]
    assert main([*argv, "--json", *extra]) == 0
    data = json.loads(capsys.readouterr().out)
    option: dict[str, object] = data["options"][0]
    return option


def test_the_cli_answers_the_full_load_throughput_of_one_h200(
    capsys: pytest.CaptureFixture[str],
) -> None:
    one = _option(capsys, "--replicas", "1")
    assert (one["count"], one["dp"]) == (1, 1)
    cap = one["batch_cap"]
    assert isinstance(cap, int) and one["sequences_per_replica"] == cap
    # The cap is the KV capacity in 4,096-token sequences (vLLM's max_num_seqs 1,024 on an
    # H200 does not bind): floor(KV tokens / 4,096).
    tokens = one["kv_cache_capacity_tokens"]
    assert isinstance(tokens, int) and cap == min(tokens // 4096, 1024)
    assert one["aggregate_tokens_per_s"] == pytest.approx(one["full_load_tokens_per_s"])
    notes = one["notes"]
    assert isinstance(notes, list)
    assert any(f"Batch cap {cap:,} sequences per replica: the KV cache" in n for n in notes)
    assert any(f"{5000 - cap:,} of the 5,000 users wait for a free slot" in n for n in notes)
    # Left free, the recommender scales out until every user has a slot.
    free = _option(capsys)
    dp, per_replica = free["dp"], free["sequences_per_replica"]
    assert isinstance(dp, int) and isinstance(per_replica, int)
    assert dp > 1 and dp * per_replica >= 5000
