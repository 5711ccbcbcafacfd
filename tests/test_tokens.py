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
    trim_messages,
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


def test_trim_keeps_everything_under_budget() -> None:
    msgs = _turn(1) + _turn(2)
    assert trim_messages(msgs, 10_000) == msgs


def test_trim_drops_oldest_whole_turns_never_splitting_tool_calls() -> None:
    msgs = _turn(1) + _turn(2) + _turn(3)
    budget = count_messages(_turn(3)) + 5
    out = trim_messages(msgs, budget)
    assert out == _turn(3)
    # Every tool message still follows the assistant message that called it.
    ids = {c["id"] for m in out for c in m.get("tool_calls") or []}
    assert all(m["tool_call_id"] in ids for m in out if m["role"] == "tool")


def test_trim_shortens_large_old_tool_results_before_dropping_turns() -> None:
    big = _turn(1, result_size=400)
    small = _turn(2)
    full = count_messages(big + small)
    out = trim_messages(big + small, full - 100)
    assert len(out) == len(big + small)  # nothing dropped
    shortened = out[2]["content"]
    assert len(shortened) < len(big[2]["content"])
    data = json.loads(shortened)  # still valid JSON
    # The first items are kept verbatim (figures untouched), the rest counted: 400 options,
    # cut to the first 5 (the largest cut tried) → 400 − 5 = 395 omitted.
    original = json.loads(big[2]["content"])["options"]
    assert data["options"][:-1] == original[:5]
    assert data["options"][-1] == {"omitted_items": 400 - 5}


def test_latest_turn_is_kept_even_over_budget() -> None:
    msgs = _turn(1) + _turn(2)
    assert trim_messages(msgs, 1) == _turn(2)


def test_shorten_non_json_text() -> None:
    text = "word " * 2_000
    out = shorten_json_text(text, 50)
    assert count_text(out) <= 60
    assert out.endswith("[shortened]")
