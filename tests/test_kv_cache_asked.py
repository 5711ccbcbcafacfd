"""A question that asks for the KV cache's size gets it first (issue 27 item 5: the asked figure
leads). Hand figures from the published configs (config.json of each model):

- Llama 3.1 70B: 80 layers x 8 KV heads x 128 head dim x 2 (K and V) x 2 bytes (bf16)
  = 327,680 bytes per token; 32 sequences x 8,192 tokens = 262,144 tokens
  -> 85,899,345,920 bytes = 80.0 GiB.
- Llama 3.1 8B: 32 x 8 x 128 x 2 x 2 = 131,072 bytes per token; 131,072 tokens -> 16 GiB,
  8.0 GiB per GPU at tensor parallel 2.
"""

from __future__ import annotations

import asyncio

import pytest

from assistant.offline.parser import parse_workload
from assistant.reading.of_parsed import reading_of
from tests.offline_turns import answer


@pytest.mark.parametrize(
    "question",
    [
        "How much KV cache does Llama 3.1 70B need for 32 users at 8k?",
        "what's the kv cache size for Llama 3.1 70B with 32 users at 8k context",
        "size of the KV cache for 32 concurrent 8k chats on Llama 3.1 70B?",
        "Llama 3.1 70B, 32 users at 8k context: how big is the kv-cache?",
    ],
)
def test_the_kv_cache_asked_leads_with_its_size(question: str) -> None:
    assert reading_of(parse_workload(question)).asked == "kv_cache"
    text, _ = asyncio.run(answer(question))
    first = next(line for line in text.splitlines() if line.startswith("**"))
    assert first.startswith("**KV cache: 80.0 GiB**"), first
    assert "327,680 bytes per token" in first


def test_the_kv_cache_on_several_gpus_is_per_gpu() -> None:
    text, _ = asyncio.run(answer("what is the kv cache size for Llama 3.1 8B at 128k on 2 H100?"))
    first = next(line for line in text.splitlines() if line.startswith("**"))
    assert first.startswith("**KV cache: 8.0 GiB** per GPU on 2× H100"), first
    assert "131,072 bytes per token" in first


def test_memory_asked_is_still_the_whole_need() -> None:
    assert reading_of(parse_workload("How much VRAM does Llama 3.1 70B need?")).asked == "memory"


def test_a_count_of_sequences_with_their_length_is_users_and_context() -> None:
    parsed = parse_workload("size of the KV cache for 32 concurrent 8k chats on Llama 3.1 70B?")
    assert (parsed.users, parsed.context) == (32, 8192)  # '8k' is 8 x 1,024 tokens here


def test_the_kv_cache_line_says_the_dtype_its_bytes_assume() -> None:
    # fp8: one byte per element, half of bf16's 327,680 -> 163,840 bytes per token, 40.0 GiB.
    question = "How much KV cache does Llama 3.1 70B need for 32 users at 8k with an fp8 kv cache?"
    text, _ = asyncio.run(answer(question))
    first = next(line for line in text.splitlines() if line.startswith("**"))
    assert first.startswith("**KV cache: 40.0 GiB**"), first
    assert "(fp8 cache, 163,840 bytes per token)" in first
