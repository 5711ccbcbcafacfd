"""The app with the real engines: the LLM engine against a respx-mocked endpoint, and offline.

respx intercepts openai>=3 because tests/conftest.py aliases httpx to httpx2 (engine helper's
file). No network: the endpoint is a loopback URL served only by respx.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import respx
from textual.widgets import Collapsible
from textual.widgets.collapsible import CollapsibleTitle

from assistant.answer import ANSWER_KEY, stored_answer
from assistant.app.app import GpuSizerApp
from assistant.app.widgets.memory_bar import MemoryBar
from assistant.app.widgets.message import AssistantMessage, NoticeLine
from assistant.app.widgets.prompt import PromptInput
from assistant.app.widgets.tool_card import ToolCard
from assistant.config import Settings
from assistant.llm import LlmEngine
from assistant.llm.planner import no_planner
from assistant.offline.engine import OfflineEngine
from assistant.sessions import load_session, read_session_file

BASE = "http://127.0.0.1:8080/v1"
SIZE = (80, 24)


def _sse(*chunks: dict[str, Any]) -> httpx.Response:
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    return httpx.Response(200, text=body, headers={"content-type": "text/event-stream"})


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _engine() -> LlmEngine:
    async def no_sleep(_: float) -> None:
        return None

    settings = Settings(base_url=BASE, model="m", max_retries=0)
    return LlmEngine(settings, planner=no_planner, env={}, system_prompt="SYS", sleep=no_sleep)


async def _ask(app: GpuSizerApp, pilot: Any, text: str) -> None:
    app.query_one(PromptInput).insert(text)
    await pilot.press("enter")
    await app.workers.wait_for_complete()
    await pilot.pause()


async def test_llm_conversation_tool_card_streamed_answer_and_saved_tool_calls(
    tmp_path: Path,
) -> None:
    tool_call = {
        "tool_calls": [
            {
                "index": 0,
                "id": "call_1",
                "type": "function",
                "function": {"name": "find_gpu", "arguments": '{"name": "h100-sxm"}'},
            }
        ]
    }
    answer_parts = ["The H100 SXM ", "has 80 GB ", "of HBM3."]
    with respx.mock(base_url=BASE) as mock:
        route = mock.post("/chat/completions").mock(
            side_effect=[
                _sse(_chunk(tool_call), _chunk({}, "tool_calls")),
                _sse(*(_chunk({"content": p}) for p in answer_parts), _chunk({}, "stop")),
            ]
        )
        app = GpuSizerApp(_engine(), sessions_directory=tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await _ask(app, pilot, "How much memory does an H100 SXM have?")
            card = app.query_one(ToolCard)
            assert card.tool_name == "find_gpu" and card.status == "done"
            assert card.table is not None
            # NVIDIA H100 SXM datasheet: 80 GB HBM3, quoted as the datasheet's label (not
            # converted: 80e9 B would read 74.51 GiB, less than the usable 79.65 GiB).
            assert ("memory (datasheet)", "80 GB") in card.table.rows
            answer = app.query_one(AssistantMessage)
            assert answer.text == "".join(answer_parts)
            assert answer.markdown.source == answer.text
        assert route.call_count == 2

    saved = read_session_file(tmp_path / f"{app.conversation.id}.json").conversation.model_dump()
    calls = [m for m in saved["messages"] if m.get("tool_calls")]
    assert calls[0]["tool_calls"][0]["function"]["name"] == "find_gpu"
    tool_messages = [m for m in saved["messages"] if m["role"] == "tool"]
    assert json.loads(tool_messages[0]["content"])["memory_GB"] == 80


async def test_llm_401_shows_notice_and_keeps_prompt(tmp_path: Path) -> None:
    with respx.mock(base_url=BASE) as mock:
        mock.post("/chat/completions").mock(
            return_value=httpx.Response(
                401, json={"error": {"message": "Invalid API key", "type": "auth"}}
            )
        )
        app = GpuSizerApp(_engine(), sessions_directory=tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await _ask(app, pilot, "Llama 3.1 70B on 2× H100?")
            assert app.prompt.text == "Llama 3.1 70B on 2× H100?"
            notice = app.query_one(NoticeLine)
            assert notice.has_class("error")
            assert notice.message in [n.message for n in app._notifications]
    # The question itself is saved even though the request failed.
    saved = read_session_file(tmp_path / f"{app.conversation.id}.json").conversation.model_dump()
    assert saved["messages"][0] == {"role": "user", "content": "Llama 3.1 70B on 2× H100?"}


async def test_offline_conversation_draws_cards_and_memory_bars(tmp_path: Path) -> None:
    app = GpuSizerApp(OfflineEngine(), sessions_directory=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        assert app.sub_title.startswith("offline")
        await _ask(app, pilot, "Llama 3.1 8B in FP16 on one L4 for 4 users")
        cards = list(app.query(ToolCard))
        assert cards and all(c.status in {"done", "error"} for c in cards)
        # One sizing report behind the answer, and a line per part of it under its card.
        assert cards[0].tool_name == "size"
        assert {c.tool_name for c in cards[1:]} >= {"estimate_memory", "recommend"}
        assert cards[0].table is not None and cards[0].table.rows
        # The verdict card leads with the memory bar of the configuration named.
        verdict = app.chat_log.current_turn.verdict
        assert verdict is not None and verdict.query(MemoryBar)
        assert app.query(MemoryBar)
        answer = app.query(AssistantMessage).last()
        # The offline answer folds what does not fit one screen; the visible Markdown is the
        # answer's visible sections, as stored with the message.
        stored = stored_answer(app.conversation.messages[-1])
        assert stored is not None and answer.text == stored.text
        assert answer.markdown.source == stored.visible_beside_card
    saved = read_session_file(tmp_path / f"{app.conversation.id}.json").conversation.model_dump()
    assert saved["mode"] == "offline"
    assert any(m.get("tool_calls") for m in saved["messages"])


async def test_offline_answer_folds_the_tool_assumptions_and_a_reopened_session_too(
    tmp_path: Path,
) -> None:
    question = "serve Llama 3.1 70B in 4-bit to 40 users with 16k context"
    app = GpuSizerApp(OfflineEngine(), sessions_directory=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _ask(app, pilot, question)
        answer = app.query(AssistantMessage).last()
        fold = answer.details
        assert fold is not None and fold.collapsed
        # The title names what is folded, from the answer's own sections.
        stored = stored_answer(app.conversation.messages[-1])
        assert stored is not None and fold.title == stored.details_title
        (tools,) = [s for s in stored.sections if (s.title or "").startswith("Tool assumptions")]
        assert tools.folded and f"{len(tools.lines)} tool assumptions" in fold.title
        visible = answer.markdown.source
        assert "cuda_context_bytes" in answer.text and "cuda_context_bytes" not in visible
        assert "'16k' read as 16,384 tokens" in answer.markdown.source

        title = fold.query_one(CollapsibleTitle)
        title.scroll_visible(animate=False)
        await pilot.pause()
        await pilot.click(title)
        await pilot.pause()
        assert not fold.collapsed  # one click opens it
        await pilot.press("enter")  # the focused title toggles with Enter
        await pilot.pause()
        assert fold.collapsed
        full_text = answer.text

    # The session keeps the full answer, and reopening it folds the same way.
    saved = load_session(app.conversation.id, tmp_path)
    assert saved.messages[-1] == {
        "role": "assistant",
        "content": full_text,
        ANSWER_KEY: stored.stored(),
    }
    reopened = GpuSizerApp(OfflineEngine(), sessions_directory=tmp_path, conversation=saved)
    async with reopened.run_test(size=SIZE) as pilot:
        await pilot.pause()
        answer = reopened.query(AssistantMessage).last()
        assert answer.text == full_text
        assert answer.details is not None and answer.details.collapsed
        assert answer.details.title == stored.details_title
        assert len(answer.query(Collapsible)) == 1  # one fold per answer, none nested
