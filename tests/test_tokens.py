"""Offline o200k_base token counting and history trimming (issue 6, scope 6)."""

from __future__ import annotations

import json
from typing import Any

from assistant.tokens import (
    REPLY_PRIMER_TOKENS,
    TOKENS_PER_MESSAGE,
    count_messages,
    count_text,
    get_encoding,
    shorten_json_text,
)


def test_encoding_matches_published_o200k_answers() -> None:
    enc = get_encoding()
    # Known answers for o200k_base used across independent ports of tiktoken (e.g. the
    # "o200k_known_answers" tests of Rust/Kotlin ports): "hello world" -> [24912, 2375],
    # vocabulary size 200,019 (max special token <|endofprompt|> = 200018).
    assert enc.encode("hello world") == [24912, 2375]
    assert enc.n_vocab == 200_019
    assert count_text("hello world") == 2


def test_special_token_text_does_not_raise() -> None:
    # Users may paste "<|endoftext|>"; counting must not crash (tiktoken raises by default).
    assert count_text("<|endoftext|>") > 1


def test_count_messages_framing() -> None:
    # OpenAI cookbook: 3 tokens per message + reply primer of 3. "user" is 1 token,
    # "hello world" 2 tokens -> 3 + 1 + 2 + 3 = 9.
    msgs = [{"role": "user", "content": "hello world"}]
    assert TOKENS_PER_MESSAGE == 3 and REPLY_PRIMER_TOKENS == 3
    assert count_messages(msgs) == 9


def test_tools_are_counted() -> None:
    msgs = [{"role": "user", "content": "hi"}]
    tools = [{"type": "function", "function": {"name": "x", "parameters": {"type": "object"}}}]
    assert count_messages(msgs, tools) > count_messages(msgs)


def _turn(i: int, result_size: int = 10) -> list[dict[str, Any]]:
    payload = json.dumps({"options": [{"gpu": f"g{j}", "count": j} for j in range(result_size)]})
    return [
        {"role": "user", "content": f"question {i}"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"c{i}",
                    "type": "function",
                    "function": {"name": "recommend", "arguments": "{}"},
                }
            ],
        },
        {"role": "tool", "tool_call_id": f"c{i}", "content": payload},
        {"role": "assistant", "content": f"answer {i}"},
    ]


def test_shorten_non_json_text() -> None:
    text = "word " * 2_000
    out = shorten_json_text(text, 50)
    assert count_text(out) <= 60
    assert out.endswith("[shortened]")
