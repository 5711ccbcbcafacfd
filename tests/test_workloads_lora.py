"""Multi-LoRA serving (issue 30 item 1): vLLM's adapter slots sized by hand arithmetic from the
published Llama 3.1 8B config, the parser reading served adapters as serving (never as LoRA
training), and every surface showing the part."""

from __future__ import annotations

import json

import pytest

from assistant.app.results import card_view
from assistant.mcp.text import render_result
from assistant.offline.parser import parse_workload
from assistant.offline.planner import plan_tool_calls
from tests.fuzzing_cli import run_cli
from tests.offline_turns import answer, sizing
from tools.catalog import get_catalog
from tools.errors import ToolInputError
from tools.memory import MemoryRequest, estimate_memory
from tools.memory.lora_slots import slot_params_per_gpu, slot_rank
from tools.memory.request import validate_request
from tools.sizing import SizingRequest, size
from tools.workloads import LoraServing, size_lora_serving

# meta-llama/Llama-3.1-8B config.json: hidden_size 4096, 32 layers, 32 attention heads,
# 8 key-value heads (head_dim 128: k and v project to 1024), intermediate_size 14336.
H, KV, FFN, LAYERS = 4096, 1024, 14336, 32
# vLLM (base_linear.py create_lora_weights): per slice, A = rank × input, B = output × rank.
PER_RANK_PER_LAYER = (
    (H + H)  # q
    + 2 * (H + KV)  # k, v
    + (H + H)  # o
    + 2 * (H + FFN)  # gate, up
    + (FFN + H)  # down
)  # = 81,920
SLOT_16 = 16 * LAYERS * PER_RANK_PER_LAYER  # 41,943,040 parameters at rank 16


def _arch():  # type: ignore[no-untyped-def]
    return get_catalog().model("llama-3.1-8b").architecture


def test_a_rank_16_slot_is_rank_times_in_plus_out_over_every_projection() -> None:
    assert PER_RANK_PER_LAYER == 81_920
    assert slot_params_per_gpu(_arch(), 16) == SLOT_16 == 41_943_040


def test_twenty_bf16_slots_take_twenty_times_a_slot() -> None:
    result = size_lora_serving(LoraServing(adapters=20), _arch(), "meta-llama/Llama-3.1-8B", 2)
    assert result.max_lora_rank == 16  # vLLM's default --max-lora-rank
    assert result.max_loras == 20 and result.max_cpu_loras == 20
    assert result.gpu_bytes_per_gpu == 20 * SLOT_16 * 2 == 1_677_721_600
    assert result.cpu_cache_bytes == 20 * SLOT_16 * 2


def test_tensor_parallel_splits_b_of_column_layers_and_a_of_row_layers() -> None:
    # TP 2: q, k, v, gate, up keep A whole and halve B; o and down halve A and keep B.
    per_layer = (
        (H + H // 2) + 2 * (H + KV // 2) + (H // 2 + H) + 2 * (H + FFN // 2) + (FFN // 2 + H)
    )
    assert per_layer == 55_296
    assert slot_params_per_gpu(_arch(), 16, tp=2) == 16 * LAYERS * per_layer


@pytest.mark.parametrize(("rank", "slot"), [(8, 8), (16, 16), (24, 32), (100, 128), (1, 1)])
def test_a_rank_is_served_in_the_next_slot_vllm_accepts(rank: int, slot: int) -> None:
    assert slot_rank(rank) == slot


def test_bad_slot_counts_are_refused_naming_the_field() -> None:
    with pytest.raises(ToolInputError) as caught:
        size_lora_serving(LoraServing(adapters=4, max_loras=8), _arch(), "m", 2)
    assert caught.value.field == "lora_serving.max_loras"
    with pytest.raises(ToolInputError) as caught:
        size_lora_serving(LoraServing(adapters=8, max_loras=8, max_cpu_loras=4), _arch(), "m", 2)
    assert caught.value.field == "lora_serving.max_cpu_loras"


def test_the_report_sizes_the_slots_on_its_headline_with_one_slot_per_user_at_most() -> None:
    request = SizingRequest.model_validate(
        {"workload": {"model": "llama-3.1-8b", "users": 10}, "lora_serving": {"adapters": 20}}
    )
    report = size(request)
    lora = report.lora_serving
    assert lora is not None and report.headline is not None
    assert lora.max_loras == 10  # 10 users use at most 10 adapters in a batch
    assert lora.gpu == report.headline.option.gpu and lora.tp == report.headline.option.tp
    option = report.headline.option
    # The headline was sized with the slots: its headroom is after them, the part's before.
    assert lora.fits and option.headroom_bytes >= 0
    assert lora.headroom_bytes == option.headroom_bytes + lora.gpu_bytes_per_gpu
    assert "--enable-lora --max-loras 10 --max-lora-rank 16" in lora.launch
    assert lora.launch.startswith("vllm serve meta-llama/Llama-3.1-8B ")


SERVING = [
    ("Llama 3.1 8B with 20 LoRA adapters for 50 users", 20, 50),
    ("serve llama 3.1 8b with twenty LoRAs to 50 users", 20, 50),
    ("how much memory to serve 100 adapters on Llama 3.1 8B for 20 users", 100, 20),
    ("deploy Llama 3.1 8B with 8 PEFT adapters, 30 concurrent users", 8, 30),
    ("multi-LoRA inference: Llama 3.1 8B, 12 LoRA fine-tunes, 40 users", 12, 40),
]


@pytest.mark.parametrize(("text", "adapters", "users"), SERVING)
def test_served_adapters_are_read_as_serving_not_lora_training(
    text: str, adapters: int, users: int
) -> None:
    parsed = parse_workload(text)
    assert parsed.lora_adapters == adapters and parsed.task == "inference"
    assert parsed.users == users and not parsed.questions
    size_call = next(c for c in plan_tool_calls(parsed) if c.name == "size")
    assert size_call.arguments["lora_serving"] == {"adapters": adapters}
    assert size_call.arguments["workload"].get("task") == "inference"


@pytest.mark.parametrize(
    "text",
    ["fine-tune Llama 3.1 8B with LoRA rank 16", "train 4 LoRA adapters on Llama 3.1 8B"],
)
def test_a_fine_tune_with_adapters_stays_lora_training(text: str) -> None:
    parsed = parse_workload(text)
    assert parsed.task == "lora" and parsed.lora_adapters is None


def test_the_rank_said_goes_to_the_slots_not_to_a_training_job() -> None:
    parsed = parse_workload("serve Llama 3.1 8B with 20 LoRA adapters of rank 64 to 10 users")
    size_call = next(c for c in plan_tool_calls(parsed) if c.name == "size")
    assert size_call.arguments["lora_serving"] == {"adapters": 20, "max_lora_rank": 64}
    assert "lora_rank" not in size_call.arguments["workload"]


QUESTION = "Llama 3.1 8B with 20 LoRA adapters for 50 users"


async def test_every_surface_shows_the_adapters_and_the_launch_line() -> None:
    from assistant.proposal import render_proposal

    text, conversation = await answer(QUESTION)
    report = sizing(conversation)
    lora = report.lora_serving
    assert lora is not None
    # 20 slots × 41,943,040 parameters × 2 B = 1,677,721,600 B = 1.5625 GiB.
    assert "1.6 GiB per GPU" in text and "--enable-lora --max-loras 20" in text
    assert "serving 20 LoRA adapters" in text  # the reading says it
    card = card_view(lora)
    assert any("--max-lora-rank 16" in line for line in card.lines)
    assert "--enable-lora" in render_result(report)
    assert "## LoRA adapters served" in render_proposal(conversation)


def test_ask_json_carries_the_typed_part() -> None:
    run = run_cli(["ask", "--offline", "--json", "--no-save", QUESTION])
    assert run.code == 0, run.err
    part = json.loads(run.out)["sizing"]["workloads"]["lora_serving"]
    assert part["max_loras"] == 20 and part["gpu_bytes_per_gpu"] == 20 * SLOT_16 * 2


def test_the_memory_calculator_counts_the_slots_with_the_weights() -> None:
    # 20 slots of rank 16 in bf16 on one GPU: 20 × 16 × 32 layers × 81,920 (Σ in + out of
    # q, k, v, o, gate, up, down) × 2 B = 20 × 41,943,040 × 2 = 1,677,721,600 B.
    plain = estimate_memory(MemoryRequest(model="llama-3.1-8b"))
    served = estimate_memory(MemoryRequest(model="llama-3.1-8b", lora_slots=20))
    assert served.breakdown["weights"] - plain.breakdown["weights"] == 1_677_721_600
    # At TP 2 each GPU holds 20 × 16 × 32 × 55,296 × 2 B (B of q, k, v, gate, up and A of
    # o, down halved) = 1,132,462,080 B more than its half of the weights.
    plain2 = estimate_memory(MemoryRequest(model="llama-3.1-8b", gpus=2, tp=2))
    served2 = estimate_memory(MemoryRequest(model="llama-3.1-8b", gpus=2, tp=2, lora_slots=20))
    assert served2.breakdown["weights"] - plain2.breakdown["weights"] == 1_132_462_080
    with pytest.raises(ToolInputError) as caught:
        validate_request({"model": "llama-3.1-8b", "task": "lora", "lora_slots": 4})
    assert caught.value.field == "lora_slots"


def test_the_recommender_sizes_every_layout_with_the_adapter_slots() -> None:
    """100 slots of rank 64 on Llama 3.1 8B in bf16: 100 × 64 × 32 × 81,920 × 2 B =
    33,554,432,000 B (33.6 GB) of adapters on one GPU, more than an L4's 24 GB. The recommended
    L4 layout is one that holds weights + slots + the load (more GPUs than without them), and
    the part says it fits there."""
    slots_bytes_one_gpu = 100 * 64 * LAYERS * PER_RANK_PER_LAYER * 2
    assert slots_bytes_one_gpu == 33_554_432_000
    workload = {"model": "llama-3.1-8b", "users": 100, "prompt_tokens": 1000,
                "output_tokens": 200}  # fmt: skip
    only_l4 = [{"gpu": "l4"}]
    plain = size(SizingRequest.model_validate({"workload": workload, "configurations": only_l4}))
    served = size(
        SizingRequest.model_validate(
            {
                "workload": workload,
                "configurations": only_l4,
                "lora_serving": {"adapters": 100, "max_lora_rank": 64},
            }
        )
    )
    assert plain.headline is not None and served.headline is not None
    lora = served.lora_serving
    assert lora is not None and lora.max_loras == 100 and lora.max_lora_rank == 64
    option = served.headline.option
    assert option.gpu == "l4" and option.tp > plain.headline.option.tp
    # What each GPU of the layout holds includes its share of the slots, within the budget.
    assert lora.fits and option.headroom_bytes >= 0
    assert lora.gpu_bytes_per_gpu == 100 * slot_params_per_gpu(_arch(), 64, option.tp) * 2
    # Without adapters fewer L4s lead (TP 2 for 100 users), and their headroom could not take
    # the slots at that TP: 100 × 64 × 32 × 55,296 (the TP-2 sum above) × 2 B = 22.6 GB.
    plain_option = plain.headline.option
    assert plain_option.tp == 2
    assert plain_option.headroom_bytes < 100 * 64 * LAYERS * 55_296 * 2 == 22_649_241_600


def test_a_named_gpus_memory_verdict_counts_the_slots_too() -> None:
    """'on one L4' with 100 adapters for 4 users: 4 slots (one per user) of rank 64 =
    4 × 64 × 32 × 81,920 × 2 B = 1,342,177,280 B on top of the weights, in the named L4's own
    estimate — the same need the recommender sized, so the two never disagree on the fit."""
    workload = {"model": "llama-3.1-8b", "users": 4}
    one_l4 = [{"gpu": "l4", "count": 1}]
    plain = size(SizingRequest.model_validate({"workload": workload, "configurations": one_l4}))
    served = size(
        SizingRequest.model_validate(
            {
                "workload": workload,
                "configurations": one_l4,
                "lora_serving": {"adapters": 100, "max_lora_rank": 64},
            }
        )
    )
    before, after = plain.memory[0].estimate, served.memory[0].estimate
    assert before is not None and after is not None
    slots = 4 * 64 * LAYERS * PER_RANK_PER_LAYER * 2
    assert slots == 1_342_177_280
    assert after.breakdown["weights"] - before.breakdown["weights"] == slots
    lora = served.lora_serving
    assert (
        lora is not None and lora.max_loras == 4 and lora.gpu_bytes_per_gpu * lora.tp >= slots / 2
    )
