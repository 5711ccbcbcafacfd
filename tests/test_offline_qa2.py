"""Offline plans and answers for QA round 2 (findings 1, 6, 7, 12). Expected figures are hand
arithmetic written in each test over published counts: Llama 3.1 70B has 70,553,706,496
parameters (its config.json: 80 layers, hidden 8192, FFN 28672, vocab 128256, GQA 8 KV heads);
mixed-precision AdamW training keeps 18 bytes per parameter (Hugging Face 'Model training
anatomy': 4+2 weights, 4 gradients, 8 optimizer); bf16 serving weights are 2 bytes each."""

from __future__ import annotations

import pytest

from assistant.offline.parser import parse_workload
from assistant.offline.planner import plan_tool_calls, sizing_arguments
from tests.offline_turns import after_reading, answer, costs, recommendation, sizing, visible
from tools.memory import MemoryEstimate
from tools.sizing import SizedConfiguration, SizingRequest, price_load
from tools.units import GiB

LLAMA_70B_PARAMS = 70_553_706_496


def _estimate(sized: SizedConfiguration | None) -> MemoryEstimate:
    assert sized is not None and sized.estimate is not None
    return sized.estimate


def _optimizer_bytes(sized: SizedConfiguration) -> float:
    # AdamW's two fp32 moments: 8 B/param (HF 'Model training anatomy'); ZeRO-1+ shards them.
    # (Weights and gradients also carry ZeRO-3's all-gathered working set, so the optimizer
    # is the component whose sharding a hand calculation states exactly.)
    return float(_estimate(sized).breakdown["optimizer"])


def test_qa2_zero3_sentence_plans_zero_and_deadline() -> None:
    parsed = parse_workload(
        "full fine-tune of Llama 3.1 70B with ZeRO-3 on 32 H100s, 2B tokens, 4k sequences, "
        "deadline 24 hours"
    )
    (planned,) = plan_tool_calls(parsed)
    workload = planned.arguments["workload"]
    assert workload["zero"] == 3 and workload["deadline_hours"] == 24.0
    assert (
        planned.arguments["configurations"][0] | {"gpu": "h100-sxm", "count": 32}
        == (planned.arguments["configurations"][0])
    )


async def test_qa2_zero3_answer_fits_on_the_32_named() -> None:
    text, conversation = await answer(
        "full fine-tune of Llama 3.1 70B with ZeRO-3 on 32 H100s, 2B tokens, 4k sequences, "
        "deadline 24 hours"
    )
    assert after_reading(text).startswith("**Fits on 32× H100 SXM5 with ZeRO-3**")
    # ZeRO-3 shards the optimizer state over 32 GPUs; with a ZeRO stage it holds the fp32
    # master copy too (the paper's K = 12): 12 × 70,553,706,496 / 32 B = 24.64 GiB.
    (named,) = sizing(conversation).memory
    assert named.zero == 3 and _estimate(named).num_gpus == 32
    assert _optimizer_bytes(named) == pytest.approx(12 * LLAMA_70B_PARAMS / 32, rel=1e-3)


async def test_plain_data_parallelism_is_said_and_resized_with_zero3() -> None:
    text, conversation = await answer(
        "full fine-tune of Llama 3.1 70B on 4 nodes of 8 H100s, 2B tokens, 4k sequences"
    )
    shown = visible(conversation)
    assert "ZeRO / FSDP not stated: 32× H100 SXM5 sized as plain data parallelism" in shown
    report = sizing(conversation)
    (plain,) = report.memory
    (zero3,) = report.zero3_resize
    # Plain DP: every GPU holds the whole state; its optimizer alone is 8 B × 70.55e9 = 525.7
    # GiB, more than any 80 GB H100.
    assert plain.zero is None and plain.plain_data_parallel and plain.fits is False
    assert _optimizer_bytes(plain) == pytest.approx(8 * LLAMA_70B_PARAMS, rel=1e-3)
    # The same 32 GPUs with ZeRO-3: a 32nd of the optimizer state, now with the fp32 master
    # copy in it (the ZeRO paper's K = 12 = 4 + 8), and the whole fits.
    assert (zero3.gpu, zero3.count, zero3.zero) == (plain.gpu, 32, 3) and zero3.fits is True
    assert _optimizer_bytes(zero3) == pytest.approx(12 * LLAMA_70B_PARAMS / 32, rel=1e-3)
    assert "**Fits on 32× H100 SXM5 with ZeRO-3**" in shown
    # The 32 GPUs named lead (issue 18, class 7): the headline is a layout of exactly 32, its
    # GPU-hours are its hours × 32, its job cost the hourly price × its hours.
    headline = report.headline
    assert headline is not None and headline.rule == "named_configuration"
    option, price = headline.option, headline.price
    assert (option.gpu, option.count, option.tp * option.pp * option.dp) == ("h100-sxm", 32, 32)
    assert option.training_hours is not None and price is not None and price.usd_job is not None
    assert option.gpu_hours == pytest.approx(option.training_hours * 32, rel=1e-6)
    assert price.usd_job == pytest.approx(price.per_hour * option.training_hours, rel=1e-3)
    assert after_reading(text).startswith(
        f"**32× H100 SXM5 as TP {option.tp} × PP {option.pp} × DP {option.dp}"
    )
    assert "Memory per GPU (32× H100 SXM5, plain data parallelism)" in text


def test_a_stated_batch_is_the_load() -> None:
    parsed = parse_workload("batch 64 of Qwen2.5 7B at 8k")
    request = SizingRequest.model_validate(sizing_arguments(parsed))
    assert parsed.batch == 64 and price_load(request).basis == "stated_load"
    assert request.workload.users == 64


async def test_batch_answer_prices_the_stated_load() -> None:
    text, conversation = await answer("batch 64 of Qwen2.5 7B at 8k")
    assert "No load stated" not in text and "at full load" not in text
    rates = {
        (o.gpu, o.count): o.aggregate_tokens_per_s for o in recommendation(conversation).options
    }
    rows = [
        r
        for r in costs(conversation).rows
        if (r.gpu, r.count) in rates and r.usd_per_million_tokens is not None
    ]
    assert rows
    for row in rows:
        # $/M = USD/h ÷ (tok/s × 3,600) × 10⁶ at the option's load of 64 sequences.
        rate = rates[(row.gpu, row.count)]
        assert rate is not None and row.usd_per_hour is not None
        expected = row.usd_per_hour / (rate * 3600) * 1e6
        assert row.usd_per_million_tokens == pytest.approx(expected, rel=1e-2)


async def test_ttft_names_the_default_prompt_when_only_the_context_is_said() -> None:
    _, conversation = await answer("can I serve Llama 3.1 8B with 128k context on one GPU?")
    # tools/defaults.py: the default request is 4,096 tokens split 3:1, a 3,072-token prompt
    # + 1,024 output tokens.
    search = sizing(conversation).search
    assert search is not None and search.prompt_tokens == 4096 * 3 // 4
    said = f"Prompt length not stated: TTFT for a {4096 * 3 // 4:,}-token prompt"
    assert said in visible(conversation)


async def test_no_prompt_line_when_the_prompt_is_said() -> None:
    text, _ = await answer("serve Llama 3.1 8B with 32k context and 20k-token prompts")
    assert "Prompt length not stated" not in text


async def test_table_shows_the_recommended_layout_when_no_gpu_is_named() -> None:
    text, conversation = await answer("full fine-tune of Llama 3.1 70B")
    report = sizing(conversation)
    single, layout = _estimate(report.memory[0]), _estimate(report.layout_breakdown)
    assert "— the recommended layout)**" in text
    assert layout.num_gpus == layout.tp * layout.pp > 1
    # TP × PP shards the 6 B/param of weights (bf16 copy + fp32 master) over the group.
    shards = layout.tp * layout.pp
    weights = layout.breakdown["weights"]
    assert weights == pytest.approx(6 * LLAMA_70B_PARAMS / shards, rel=1e-3)
    assert single.breakdown["weights"] == pytest.approx(6 * LLAMA_70B_PARAMS, rel=1e-3)
    row = f"| weights | {weights / GiB:,.2f} |"
    table = text.split("the recommended layout)**", 1)[1]
    assert row in table.split("**Best option", 1)[0]


async def test_named_multi_gpu_serving_is_tensor_parallel() -> None:
    text, conversation = await answer("serve Llama 3.1 70B on 8 H100s")
    result = _estimate(sizing(conversation).memory[0])
    assert (result.num_gpus, result.tp) == (8, 8)
    # bf16: 2 B × 70,553,706,496 / 8 = 17.64 GB = 16.43 GiB per GPU, not the whole 131.4 GiB.
    assert result.breakdown["weights"] == pytest.approx(2 * LLAMA_70B_PARAMS / 8, rel=1e-3)
    assert "| weights | 16.43 |" in text
