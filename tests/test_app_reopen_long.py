"""Reopening a long session keeps the app's layout bounded (issue 34: a 50 MB session held the
app for seconds at every layout pass after it was drawn).

What a layout pass costs grows with the widgets shown in the log, so these tests check the
structure that bounds it — the last `SHOWN_TURNS` turns shown, the earlier restored ones hidden
behind one line, folded details not drawn until opened — on sessions of several lengths; the
latency itself is measured by `bench/bench_reliability.py` (keys during the open of a 50 MB
session)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from textual.widget import Widget
from textual.widgets import Markdown

from assistant.app.app import GpuSizerApp
from assistant.app.widgets.chat_log import RESTORED_TURNS, SHOWN_TURNS, EarlierTurns
from assistant.app.widgets.message import FoldedDetails
from assistant.app.widgets.turn_view import TurnView
from assistant.conversation import Conversation
from assistant.offline.engine import OfflineEngine

QUESTION = "serve Llama 3.1 70B to 40 users with 16k context"


def _one_turn() -> list[dict[str, object]]:
    conversation = Conversation(id="one")

    async def turn() -> None:
        async for _ in OfflineEngine().run_turn(conversation, QUESTION):
            pass

    asyncio.run(turn())
    return conversation.messages


@pytest.fixture(scope="module")
def one_turn() -> list[dict[str, object]]:
    return _one_turn()


def _session(one: list[dict[str, object]], turns: int) -> Conversation:
    """`turns` copies of one offline turn, each with its own tool call ids."""
    messages: list[dict[str, object]] = []
    for number in range(turns):
        for message in json.loads(json.dumps(one)):
            for call in message.get("tool_calls") or []:
                call["id"] = f"{call['id']}-{number}"
            if message.get("tool_call_id"):
                message["tool_call_id"] = f"{message['tool_call_id']}-{number}"
            messages.append(message)
    return Conversation(id=f"long-{turns}", messages=messages)


def _shown(widget: Widget) -> int:
    """Widgets a layout pass visits under `widget`: hidden subtrees are skipped."""
    if not widget.display:
        return 0
    return 1 + sum(_shown(child) for child in widget.children)


@pytest.mark.parametrize("turns", [SHOWN_TURNS + 2, RESTORED_TURNS + 5])
async def test_a_reopened_long_session_shows_its_last_turns_and_hides_the_earlier_ones(
    tmp_path: Path, one_turn: list[dict[str, object]], turns: int
) -> None:
    conversation = _session(one_turn, turns)
    app = GpuSizerApp(OfflineEngine(), sessions_directory=tmp_path, conversation=conversation)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        views = [v for v in app.chat_log.query(TurnView) if v.question is not None]
        # At most RESTORED_TURNS drawn (the rest named by the notice), the last SHOWN_TURNS shown.
        assert len(views) == min(turns, RESTORED_TURNS)
        shown = [v for v in views if v.display]
        assert shown == views[-SHOWN_TURNS:]
        (line,) = app.chat_log.query(EarlierTurns)
        assert line.count == len(views) - SHOWN_TURNS
        assert f"{line.count:,} more turns hidden" in str(line.render())
        # What a layout pass visits does not grow with the session's length: only the shown
        # turns count (each as a turn of its own, the same question and answer).
        per_turn = [_shown(v) for v in shown]
        assert len(set(per_turn)) == 1
        assert _shown(app.chat_log) <= SHOWN_TURNS * per_turn[0] + 10

        line.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert all(v.display for v in views)
        assert not app.chat_log.query(EarlierTurns)


async def test_a_short_session_has_no_hidden_turns(
    tmp_path: Path, one_turn: list[dict[str, object]]
) -> None:
    app = GpuSizerApp(
        OfflineEngine(), sessions_directory=tmp_path, conversation=_session(one_turn, SHOWN_TURNS)
    )
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        assert all(v.display for v in app.chat_log.query(TurnView))
        assert len(app.chat_log.query(TurnView)) == SHOWN_TURNS
        assert not app.chat_log.query(EarlierTurns)


async def test_folded_details_are_drawn_only_when_opened(
    tmp_path: Path, one_turn: list[dict[str, object]]
) -> None:
    app = GpuSizerApp(
        OfflineEngine(), sessions_directory=tmp_path, conversation=_session(one_turn, 1)
    )
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        (fold,) = app.chat_log.query(FoldedDetails)
        assert fold.collapsed and not fold.query(Markdown)
        fold.collapsed = False
        await pilot.pause()
        (body,) = fold.query(Markdown)
        # The folded part is the answer's own text: its tool assumptions are in it.
        assert "cuda_context_bytes" in fold.text
        assert body.source == fold.text
