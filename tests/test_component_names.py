"""Memory components reach readers by one set of names (`tools.memory.component_name`): the
offline answer's breakdown table, the proposal and the app's cards never print `kv_cache`."""

from __future__ import annotations

import asyncio
import re

import pytest

from tests.offline_turns import answer
from tools.memory import COMPONENT_NAMES, component_name

QUESTIONS = [
    "serve Llama 3.1 8B to 8 users with 8k context on one L40S",
    "full fine-tune Llama 3.1 8B on 8x H100",
    "QLoRA Llama 3.1 70B on one A100 80GB",
    "Mixtral 8x7B in fp8 on 2x H100 for 16 users",
]
_ROW = re.compile(r"^\| ([^|]+?) \| [0-9][0-9,.]* \|$")


@pytest.mark.parametrize("question", QUESTIONS)
def test_breakdown_rows_use_the_component_names(question: str) -> None:
    text, _ = asyncio.run(answer(question))
    table = text.split("| component | per GPU (GiB) |", 1)
    assert len(table) == 2, "the answer has a memory breakdown table"
    rows = [m.group(1) for line in table[1].splitlines() if (m := _ROW.match(line))]
    readable = {label for label, _ in COMPONENT_NAMES.values()} | {"weights (base + adapters)"}
    assert rows and set(rows) <= readable, rows
    assert "_" not in "".join(rows)


def test_every_component_has_a_name_and_an_unknown_one_stays_readable() -> None:
    # The six components MemoryEstimate.breakdown can hold (tools/memory/estimate.py).
    for name in ("weights", "kv_cache", "activations", "gradients", "optimizer", "overhead"):
        assert "_" not in component_name(name) and component_name(name, described=True)
    assert component_name("kv_cache") == "KV cache"
    assert component_name("draft_model") == "draft model"
