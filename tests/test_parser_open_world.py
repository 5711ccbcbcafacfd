"""How the offline parser reads names and hardware the catalog lacks or sells in several forms
(issue 15, item 5): a named model with a size is a generic model of that size, said so, never
another model offered; a unified-memory RAM size picks the bin sold with it; a multi-device
board counts boards; quantized repo names carry their format."""

from __future__ import annotations

import pytest

from assistant.offline.parser import parse_workload


@pytest.mark.parametrize(
    ("text", "params", "name"),
    [
        ("Can I run Foo-32B on a 4090?", 32e9, "Foo-32B"),
        ("serve acme_bar-7b-instruct on an L4", 7e9, "acme_bar-7b-instruct"),
        ("MyModel13B on a 3090, 8k context", 13e9, "MyModel13B"),
        ("Falcon 40B on an A100 80GB", 40e9, "Falcon 40B"),
        ("falcon-40b in fp16 on 2x A100", 40e9, "falcon-40b"),
        ("Yi-34B on 2x RTX 3090", 34e9, "Yi-34B"),
        ("will Foo-30B-A3B fit a 24 GB card", 30e9, "Foo-30B-A3B"),
    ],
)
def test_a_named_size_is_a_generic_model_said_so(text: str, params: float, name: str) -> None:
    parsed = parse_workload(text)
    assert parsed.model is None and parsed.params == params
    assert parsed.model_text == name
    assert not parsed.questions and not parsed.unplaced
    assert any(n.startswith(f"'{name}' is not in the catalog: sized as a generic") for n in
               parsed.notes)  # fmt: skip


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("lama 3.1 70b on an H100", "llama-3.1-70b"),  # a misspelt family: the catalog model
        ("Qwen3-32B-AWQ on a 4090", "qwen3-32b"),
        ("mixtral-8x22b on 4 H100", "mixtral-8x22b"),
    ],
)
def test_catalog_names_are_not_read_as_generic(text: str, expected: str) -> None:
    assert parse_workload(text).model == expected


def test_a_misspelling_without_a_size_unit_is_still_a_question() -> None:
    parsed = parse_workload("llama3.1-70 on h100")
    assert parsed.params is None and "Did you mean" in parsed.questions[0].text


@pytest.mark.parametrize(
    ("text", "gpu"),
    [
        # 36 GB is sold with the 30-core M3 Max only; 64 GB with the 40-core one.
        ("Llama 3.3 70B on an M3 Max with 36 GB", "apple-m3-max-30c-36gb"),
        ("Qwen3 32B on my MacBook Pro M3 Max 36GB", "apple-m3-max-30c-36gb"),
        ("Qwen3 14B on a Mac Studio M4 Max with 36 GB", "apple-m4-max-32c"),
        ("Qwen3 32B on an M3 Max with 64 GB", "apple-m3-max-40c-64gb"),
        ("Qwen3 32B on an M3 Max 128GB", "apple-m3-max-40c"),
    ],
)
def test_unified_memory_ram_picks_the_bin_sold_with_it(text: str, gpu: str) -> None:
    parsed = parse_workload(text)
    assert [m.gpu for m in parsed.gpus] == [gpu]
    if "-30c" in gpu or "-32c" in gpu:
        assert any("is sold with that bin only" in n for n in parsed.notes)


@pytest.mark.parametrize(
    ("text", "devices", "said"),
    [
        ("Llama 3.3 70B on 2x MI250X", 4, "read as 2 boards = 4 devices"),
        ("Llama 3.3 70B on 2 MI250X boards", 4, "read as 2 boards = 4 devices"),
        ("Mixtral 8x7B on one MI250X", 2, "read as 1 board = 2 devices"),
        ("Mixtral 8x7B on an MI250X", 2, "read as 1 board = 2 devices"),
        ("Llama 3.3 70B on 4 MI250X GCDs", 4, "read as 4 devices (GCDs; 2 boards)"),
        ("Llama 3.1 8B on an MI250X GCD", 1, "read as 1 device"),
    ],
)
def test_a_two_device_board_counts_boards(text: str, devices: int, said: str) -> None:
    parsed = parse_workload(text)
    (mention,) = parsed.gpus
    assert (mention.gpu, mention.count) == ("mi250x", devices)
    assert any(said in n for n in parsed.notes)
    assert not parsed.unplaced


@pytest.mark.parametrize(
    ("text", "model", "weights"),
    [
        ("Qwen3-32B-AWQ on a 4090", "qwen3-32b", "int4-awq"),
        ("Qwen/Qwen3-32B-FP8 on an L40S", "qwen3-32b", "fp8"),
        ("Llama-3.3-70B-Instruct-AWQ on 2x 4090", "llama-3.3-70b", "int4-awq"),
        ("Qwen3-30B-A3B-GPTQ-Int4 on a 4090", "qwen3-30b-a3b", "int4-gptq"),
        ("Qwen2.5-72B AWQ 4-bit on 2x 3090", "qwen2.5-72b", "int4-awq"),
    ],
)
def test_quantized_repo_names_carry_their_format(text: str, model: str, weights: str) -> None:
    parsed = parse_workload(text)
    assert (parsed.model, parsed.weights) == (model, weights)
    assert not any("Several weight formats" in n for n in parsed.notes)
