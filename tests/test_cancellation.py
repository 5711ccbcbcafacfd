"""Cancellation contract of both real engines (assistant/engine_base.py, COMMON brief): on
`asyncio.CancelledError` the engine appends the partial answer marked `cancelled` and re-raises;
no `Done` follows. The app tests cover this only with a fake engine.

Cancellation is delivered with `athrow` at the point where the engine yielded an event — the
exact place a cancelled consumer task interrupts it — so the tests need no timing or sleeps.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import respx

from assistant.config import Settings
from assistant.conversation import Conversation
from assistant.events import Done, Event, TextDelta, ToolCallStarted
from assistant.llm import LlmEngine
from assistant.llm.planner import no_planner
from assistant.offline.engine import OfflineEngine

BASE = "http://127.0.0.1:8080/v1"


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    # Chunk shape of the llama.cpp captures in tests/data/llama-cpp/.
    return {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _sse(*chunks: dict[str, Any]) -> httpx.Response:
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    return httpx.Response(200, text=body, headers={"content-type": "text/event-stream"})


def _llm_engine() -> LlmEngine:
    async def no_sleep(_: float) -> None:
        return None

    settings = Settings(base_url=BASE, model="m")
    return LlmEngine(settings, planner=no_planner, env={}, system_prompt="SYS", sleep=no_sleep)


async def _cancel_after(turn: AsyncIterator[Event], stop: type[Event]) -> list[Event]:
    """Consume events up to and including the first `stop` event, then cancel the turn there.
    The engine must re-raise the CancelledError."""
    seen: list[Event] = []
    while True:
        event = await turn.__anext__()
        seen.append(event)
        if isinstance(event, stop):
            break
    with pytest.raises(asyncio.CancelledError):
        await turn.athrow(asyncio.CancelledError())  # type: ignore[attr-defined]
    return seen


def _history_is_valid(messages: list[dict[str, Any]]) -> bool:
    """Every assistant tool call has a tool message with its id (or the next request fails)."""
    answered = {m["tool_call_id"] for m in messages if m.get("role") == "tool"}
    called = {c["id"] for m in messages for c in m.get("tool_calls") or []}
    return called <= answered


@respx.mock
async def test_llm_engine_keeps_the_partial_answer_marked_cancelled() -> None:
    respx.post(f"{BASE}/chat/completions").mock(
        return_value=_sse(
            _chunk({"role": "assistant", "content": "You need "}),
            _chunk({"content": "two H100s."}),
            _chunk({}, "stop"),
        )
    )
    conversation = Conversation()
    events = await _cancel_after(_llm_engine().run_turn(conversation, "hi"), TextDelta)
    assert not any(isinstance(e, Done) for e in events)
    assert conversation.messages[0] == {"role": "user", "content": "hi"}
    assert conversation.messages[-1] == {
        "role": "assistant",
        "content": "You need ",
        "cancelled": True,
    }


@respx.mock
async def test_llm_engine_cancelled_at_a_tool_call_leaves_a_valid_history() -> None:
    args = json.dumps({"name": "h100"})
    respx.post(f"{BASE}/chat/completions").mock(
        return_value=_sse(
            _chunk(
                {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "find_gpu", "arguments": args},
                        }
                    ],
                }
            ),
            _chunk({}, "tool_calls"),
        )
    )
    conversation = Conversation()
    await _cancel_after(_llm_engine().run_turn(conversation, "h100?"), ToolCallStarted)
    assert any(m.get("tool_calls") for m in conversation.messages)
    assert _history_is_valid(conversation.messages)


async def test_offline_engine_keeps_the_partial_answer_marked_cancelled() -> None:
    conversation = Conversation()
    turn = OfflineEngine().run_turn(conversation, "Llama 3.1 8B on an L4 for 10 users")
    events = await _cancel_after(turn, TextDelta)
    first_paragraph = events[-1]
    assert isinstance(first_paragraph, TextDelta)
    assert not any(isinstance(e, Done) for e in events)
    assert conversation.messages[-1] == {
        "role": "assistant",
        "content": first_paragraph.text,
        "cancelled": True,
    }
    assert _history_is_valid(conversation.messages)
