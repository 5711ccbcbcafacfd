"""Named GPUs with no user count ('Llama 3.1 70B on 2x L40S'): the answer says what the named
hardware holds — one sequence at a time, at its KV capacity — and, when they hold none, what
count does, without inventing a user count."""

from __future__ import annotations

import re

import pytest

from assistant.offline.parser import parse_workload
from assistant.offline.planner import sizing_arguments
from tests.offline_turns import answer, sizing
from tools.sizing import SizingRequest, size

# Llama 3.1 70B in bf16: 70,553,706,496 parameters (meta-device count) × 2 B = 131.4 GiB of
# weights. An L40S budget is 44.0 GiB usable × 0.90 = 39.6 GiB: two hold 79.2 GiB, short of
# the weights alone; three do not split its 64 query / 8 KV heads; four hold 32.9 GiB each.
NOT_HELD = [
    "Llama 3.1 70B on 2x L40S",
    "serve Llama 3.1 70B on two L40S",
    "Can Llama 3.1 70B run on 2× L40S?",
]


@pytest.mark.parametrize("question", NOT_HELD)
async def test_what_holds_one_sequence_is_said_without_a_user_count(question: str) -> None:
    text, conversation = await answer(question)
    report = sizing(conversation)
    assert not report.users_stated and report.request.workload.users == 1  # none invented
    scale = report.scale_out
    assert scale is not None and scale.holds is not None
    assert (scale.holds.gpu, scale.holds.count, scale.holds.tp) == ("l40s", 4, 4)
    assert scale.holds.per_gpu_bytes / 2**30 > 70_553_706_496 * 2 / 4 / 2**30  # 32.9 GiB
    assert "**What holds one sequence of 4,096 tokens (no user count given): 4× L40S**" in text
    assert "users asked" not in text


@pytest.mark.parametrize(
    "question",
    [
        "Llama 3.1 70B in fp8 on 2x L40S",
        "serve Llama 3.1 70B fp8 on two L40S",
        "Llama 3.1 8B on 4x L40S",
    ],
)
async def test_a_fitting_named_count_says_how_many_sequences_it_holds(question: str) -> None:
    text, conversation = await answer(question)
    report = sizing(conversation)
    assert report.scale_out is None
    rec = report.recommendation
    assert rec is not None and rec.context_tokens == 4096
    (named,) = report.memory
    option = next(
        o for o in [*rec.options, *rec.rejected] if (o.gpu, o.count) == (named.gpu, named.count)
    )
    held = re.search(r"so it holds ([\d,]+) sequences? of 4,096 tokens at once", text)
    assert held is not None, text
    # Whole 4,096-token sequences in the KV capacity (within one: vLLM's 16-token blocks).
    sequences = int(held.group(1).replace(",", ""))
    assert abs(sequences - option.kv_cache_capacity_tokens // 4096) <= 1


def test_a_user_count_keeps_the_load_wording() -> None:
    args = sizing_arguments(parse_workload("Llama 3.1 70B on 2x L40S for 10 users"))
    report = size(SizingRequest.model_validate(args))
    assert report.scale_out is not None and report.users_stated


def test_the_card_says_the_same_as_the_text() -> None:
    from assistant.app.verdict import verdict_lines

    for question in ("Llama 3.1 70B on 2x L40S", "Llama 3.1 70B in fp8 on 2x L40S"):
        report = size(SizingRequest.model_validate(sizing_arguments(parse_workload(question))))
        card = " | ".join(f"{line.head} {line.detail}" for line in verdict_lines(report))
        if report.scale_out is not None:
            assert "What holds one sequence of 4,096 tokens (no user count given)" in card
        else:
            assert re.search(r"[\d,]+ sequences? of 4,096 tokens at once", card), card
