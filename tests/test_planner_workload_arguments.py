"""`assistant.offline.planner.workload_arguments`: only what the text said reaches the
recommender, each reading under the `Workload` field that takes it (serving vs training)."""

from __future__ import annotations

from assistant.offline.planner import workload_arguments
from assistant.reading.parsed import GpuMention, ParsedWorkload


def test_a_serving_reading_passes_its_shape_targets_and_constraints() -> None:
    parsed = ParsedWorkload(
        model="llama-3.1-70b",
        prompt_tokens=3000,
        output_tokens=500,
        context=16384,
        batch=8,  # no users said: a serving batch is that many users
        tokens_per_s_per_user=20.0,
        ttft_s=0.5,
        deadline_hours=24.0,  # no data size: the recommender cannot use a deadline
        zero=3,  # a ZeRO stage means nothing to serving
        objective="cheapest",
        gpu_count=4,
        interconnects=["nvlink"],
        region="eu",
        budget_amount=30.0,
        budget_currency="USD",
        budget_period="hour",
    )
    assert workload_arguments(parsed) == {
        "model": "llama-3.1-70b",
        "prompt_tokens": 3000,
        "output_tokens": 500,
        "context": 16384,
        "users": 8,
        "tokens_per_s_per_user": 20.0,
        "ttft_s": 0.5,
        "objective": "cheapest",
        "constraints": {
            "max_gpus": 4,
            "require_fast_interconnect": True,
            "region": "eu",
            "budget_usd_per_hour": 30.0,
        },
    }


def test_a_training_reading_passes_its_batch_data_and_deadline() -> None:
    parsed = ParsedWorkload(
        model="llama-3.1-8b",
        task="full",
        tokens_per_example=2048,  # a training sequence, not a KV context
        batch=512,  # per GPU; the global batch is at least that (default 256 sequences)
        users=4,  # users mean nothing to a training job
        train_tokens=2e9,
        deadline_hours=48.0,
        zero=2,
        gpus=[GpuMention(gpu="h100-sxm", text="H100", count=8)],
        gpu_count=8,  # said with the GPU: bounds the search in tools.sizing, not here
        budget_amount=5000.0,
        budget_currency="USD",
        budget_period="month",  # only an hourly USD budget is a search constraint
    )
    assert workload_arguments(parsed) == {
        "model": "llama-3.1-8b",
        "task": "full",
        "sequence_length": 2048,
        "micro_batch_sequences": 512,
        "global_batch_sequences": 512,
        "deadline_hours": 48.0,
        "train_tokens": 2e9,
        "zero": 2,
        "constraints": {"only_gpus": ["h100-sxm"]},
    }
    small = parsed.model_copy(update={"batch": 4})
    args = workload_arguments(small)
    assert (args["micro_batch_sequences"], args["global_batch_sequences"]) == (4, 256)
