"""'On 4 GPUs' (a count without a GPU type) is respected: the headline is 4 GPUs, or the
reading says why not — in `size` (the tool the model and MCP call) and the offline answer.

Hand arithmetic: Llama 3.1 70B has 70,553,706,496 parameters; bf16 weights are 141.1 GB =
131.42 GiB, 32.85 GiB per GPU over TP 4 (a 48 GB L40S holds that, a 24 GB RTX 4090 does not);
Llama 3.1 8B (8,030,261,248) is 14.96 GiB, 7.48 GiB per GPU over TP 2.
"""

from __future__ import annotations

import pytest

from tests import offline_turns
from tools.sizing import SizingRequest, size


@pytest.mark.parametrize(
    ("model", "users", "count"),
    [("llama-3.1-70b", 1, 4), ("llama-3.1-8b", 50, 4), ("llama-3.1-8b", 1, 2)],
)
def test_size_with_an_unnamed_count_leads_with_that_many_gpus(
    model: str, users: int, count: int
) -> None:
    request = SizingRequest.model_validate(
        {"workload": {"model": model, "users": users}, "configurations": [{"count": count}]}
    )
    report = size(request)
    assert report.headline is not None
    assert report.headline.option.count == count
    assert report.headline.gpus_named == count
    assert f"on {count} GPUs" in report.headline.reason
    # Every option searched stays within the count the user gave.
    assert report.search is not None and report.search.constraints.max_gpus == count


def test_seventy_b_over_four_gpus_is_sized_per_gpu_by_hand() -> None:
    request = SizingRequest.model_validate(
        {"workload": {"model": "llama-3.1-70b"}, "configurations": [{"count": 4}]}
    )
    report = size(request)
    (sized,) = report.memory
    assert sized.estimate is not None and sized.estimate.tp == 4
    weights = sized.estimate.breakdown["weights"] / 2**30
    assert weights == pytest.approx(70_553_706_496 * 2 / 4 / 2**30, rel=0.01)  # 32.85 GiB
    assert report.headline is not None
    # 32.85 GiB of weights per GPU: a 24 GB card cannot be the headline.
    assert report.headline.option.budget_bytes_per_gpu > 32.85 * 2**30


@pytest.mark.parametrize(
    "question",
    [
        "serve Llama 3.1 70B on 4 GPUs",
        "Llama 3.1 70B with 4 GPUs",
        "I have 4 GPUs: can they serve Llama 3.1 70B?",
    ],
)
async def test_offline_answer_leads_with_the_count_given(question: str) -> None:
    text, conversation = await offline_turns.answer(question)
    report = offline_turns.sizing(conversation)
    assert any(m.gpu is None and m.count == 4 for m in report.memory)
    first = offline_turns.after_reading(text).splitlines()[0]
    assert "on 4 GPUs" in first and "**" in first
    assert report.headline is not None and report.headline.option.count == 4
    assert f"{report.headline.option.count}× " in first
    # The one-GPU wording is gone where four were sized.
    assert "on a single GPU" not in offline_turns.after_reading(text).split("\n\n")[0]
    assert "per GPU on 4 GPUs (TP 4)" in text
