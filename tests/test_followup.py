"""Conversation state (issue 17): a new question that names its own model starts fresh; only a
follow-up merges with the previous workload — in the parser both engines use, in the offline
engine and in the LLM engine's pre-computed calls."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
import respx

from assistant.config import Settings
from assistant.conversation import Conversation
from assistant.llm import LlmEngine
from assistant.offline.engine import OfflineEngine
from assistant.offline.parser import parse_workload
from assistant.offline.parser.followup import is_follow_up
from assistant.results import stored_calls
from tests.offline_turns import after_reading
from tools.sizing import SizingReport

FIRST = "serve Llama 3.1 70B in 4-bit to 40 users with 16k context"


@pytest.fixture(scope="module")
def first():  # type: ignore[no-untyped-def]
    return parse_workload(FIRST)


@pytest.mark.parametrize(
    "text",
    [
        "Does Llama 3.1 8B fit on a single RTX 4090?",
        "Can my 3090 run Qwen3 32B?",
        "Mixtral 8x7B on two A100 80GB",
        "How much memory does a 13B model need?",
        "Llama 3.1 405B in fp8 with 128k context for 8 users",
        "So, does Llama 3.1 8B fit on a single RTX 4090?",
        "Now: Mixtral 8x7B on one H100?",
    ],
)
def test_a_question_naming_its_own_model_starts_fresh(first: Any, text: str) -> None:
    assert first.users == 40 and first.context == 16384  # what must not leak
    fresh = parse_workload(text)
    merged = parse_workload(text, first)
    assert not is_follow_up(text, fresh, first)
    assert merged.users == fresh.users and merged.context == fresh.context
    assert merged.weights == fresh.weights
    assert merged.model == fresh.model and merged.model != first.model


@pytest.mark.parametrize(
    "text,changed",
    [
        ("what about fp8?", {"weights": "fp8"}),
        ("and 64 users?", {"users": 64}),
        ("and with 32k context?", {"context": 32768}),
        ("on two H100s?", {}),
        ("What about Qwen2.5 72B?", {"model": "qwen2.5-72b"}),
        ("how about 8 users", {"users": 8}),
        ("Same for Llama 3.1 8B?", {"model": "llama-3.1-8b"}),
        ("with fp8 KV cache", {"kv_dtype": "fp8"}),
    ],
)
def test_a_follow_up_keeps_what_it_does_not_restate(
    first: Any, text: str, changed: dict[str, Any]
) -> None:
    merged = parse_workload(text, first)
    assert is_follow_up(text, parse_workload(text), first)
    expected = {"model": first.model, "users": 40, "context": 16384, "weights": first.weights}
    expected |= changed
    assert {k: getattr(merged, k) for k in expected} == expected


def test_an_answer_to_a_clarifying_question_merges() -> None:
    asked = parse_workload("serve a Mixtral on an H100 for 40 users")
    assert asked.questions  # 'Which Mixtral model?'
    answer = parse_workload("Mixtral 8x7B", asked)
    assert answer.model == "mixtral-8x7b" and answer.users == 40


# A size alone in a follow-up is that size of the previous model's family where the catalog
# has it: Meta released Llama 3.1 in 8B, 70B and 405B; Qwen3 in 0.6B to 32B dense and 235B-A22B.
@pytest.mark.parametrize(
    ("text", "model"),
    [
        ("what about 405B?", "llama-3.1-405b"),
        ("how about the 405B one?", "llama-3.1-405b"),
        ("and 405B in fp8?", "llama-3.1-405b"),
        ("what about 8B?", "llama-3.1-8b"),
    ],
)
def test_a_size_alone_in_a_follow_up_stays_in_the_family(first: Any, text: str, model: str) -> None:
    merged = parse_workload(text, first)
    assert (merged.model, merged.params, merged.users) == (model, None, 40)
    assert any("the previous question's Llama 3.1 70B" in n for n in merged.notes)


def test_a_size_the_family_lacks_stays_a_model_of_that_size(first: Any) -> None:
    # There is no Llama 3.1 13B: the 13B is sized as a generic 13B model, not as a Llama.
    merged = parse_workload("what about 13B?", first)
    assert (merged.model, merged.params) == (None, 13e9)


def test_the_family_follows_the_previous_model() -> None:
    previous = parse_workload("Qwen3 32B on an H100")
    assert parse_workload("what about 8B?", previous).model == "qwen3-8b"


async def test_offline_engine_sizes_the_follow_up_size_in_the_family() -> None:
    engine, conv = OfflineEngine(), Conversation()
    for text in ("Llama 3.1 70B on 8x H100 for 32 users", "what about 405B?"):
        _ = [e async for e in engine.run_turn(conv, text)]
    reports = [c.value for c in stored_calls(conv.messages) if isinstance(c.value, SizingReport)]
    assert reports[-1].request.workload.model == "llama-3.1-405b"
    assert reports[-1].request.workload.users == 32


def _users(conversation: Conversation) -> list[Any]:
    """The users the last turn's sizing report was computed for (unset: none stated)."""
    last = sum(1 for m in conversation.messages if m["role"] == "user")
    return [
        c.value.request.workload.users
        for c in stored_calls(conversation.messages)
        if c.turn == last
        and isinstance(c.value, SizingReport)
        and "users" in c.value.request.workload.model_fields_set
    ]


async def test_offline_engine_new_question_starts_fresh_follow_up_merges() -> None:
    engine, conv = OfflineEngine(), Conversation()
    for text in (FIRST, "Does Llama 3.1 8B fit on a single RTX 4090?", "and 64 users?"):
        _ = [e async for e in engine.run_turn(conv, text)]
        if text == FIRST:
            assert _users(conv) and set(_users(conv)) == {40}
        elif after_reading(text).startswith("Does"):
            assert 40 not in _users(conv)
        else:
            assert set(_users(conv)) == {64}


async def test_llm_engine_precomputes_a_new_question_fresh() -> None:
    base = "http://127.0.0.1:8080/v1"
    chunk = {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "delta": {"content": "ok"}, "finish_reason": "stop"}],
    }
    reply = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n"
    engine = LlmEngine(Settings(base_url=base, model="m"), env={}, system_prompt="S")
    conv = Conversation()
    with respx.mock(base_url=base, assert_all_called=False) as mock:
        mock.get("/models").mock(return_value=httpx.Response(404))
        mock.post("/chat/completions").mock(
            side_effect=lambda request: httpx.Response(
                200, text=reply, headers={"content-type": "text/event-stream"}
            )
        )
        _ = [e async for e in engine.run_turn(conv, FIRST)]
        assert set(_users(conv)) == {40}
        _ = [e async for e in engine.run_turn(conv, "Does Llama 3.1 8B fit on a single RTX 4090?")]
        assert 40 not in _users(conv)
        _ = [e async for e in engine.run_turn(conv, "and 64 users?")]
        assert set(_users(conv)) == {64}
