"""A named GPU count whose tensor parallelism cannot split the model's attention heads (3 or 5
GPUs; vLLM requires TP to divide the heads) is sized as the widest TP that can, times pipeline
stages — never 'could not size 3× A100'. Heads from the published config.json: Llama 3.1 70B
has 64 attention heads and 8 KV heads, Mistral 7B 32 and 8. So 3 GPUs are TP 1 × PP 3, 6 are
TP 2 × PP 3, 5 are TP 1 × PP 5."""

from __future__ import annotations

import asyncio

import pytest

from tests.offline_turns import answer, sizing


@pytest.mark.parametrize(
    ("question", "tp", "pp"),
    [
        ("Llama 3.1 70B on 3x A100 80GB for 20 users", 1, 3),
        ("Llama 3.1 70B on 6x L40S for 20 users", 2, 3),
        ("Serve Mistral 7B to 100 users on 5x L4", 1, 5),
    ],
)
def test_a_count_tp_cannot_split_is_sized_with_pipeline_stages(
    question: str, tp: int, pp: int
) -> None:
    text, conversation = asyncio.run(answer(question))
    assert "Could not size" not in text
    (named,) = [m for m in sizing(conversation).memory if m.gpu is not None]
    assert named.estimate is not None
    assert (named.estimate.tp, named.estimate.pp) == (tp, pp)
    assert any(f"sized as TP {tp} × PP {pp}" in a for a in named.estimate.assumptions)


def test_the_named_count_that_fits_the_load_is_not_said_to_hold_less() -> None:
    # 3× A100 80GB at TP 1 × PP 3 hold Llama 3.1 70B for 20 users: no 'what holds this load'
    # beyond them, and no 'hold N sequences, not the 20 users' from a smaller layout within.
    text, conversation = asyncio.run(answer("Llama 3.1 70B on 3x A100 80GB for 20 users"))
    assert "**Fits on 3× A100 80GB SXM4**" in text
    assert "not the 20 users asked" not in text
    assert sizing(conversation).scale_out is None
