"""Visual snapshots (pytest-textual-snapshot): the acceptance set of issue 22 — the welcome
screen, a fitting answer, a not-fitting answer, a training answer and a cost comparison — at
120×40 and at the 80×24 a classic terminal has.

Deterministic: the answers replay turns recorded from the offline engine
(`tests/record_app_turns.py`, which also says how to re-record), the sessions listed are
files written here with fixed dates, the conversation id is fixed and no endpoint is used.
Regenerate after an intended visual change: `pytest tests/test_app_snapshots.py
--snapshot-update`, then look at every SVG in tests/__snapshots__/ before committing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assistant.app.app import GpuSizerApp
from assistant.app.widgets.chat_log import ChatLog
from assistant.app.widgets.prompt import PromptInput
from assistant.conversation import Conversation
from tests.app_fakes import FakeEngine
from tests.record_app_turns import load_turn, recorded_answer, replay_calls

SIZES = {"wide": (120, 40), "narrow": (80, 24)}

SAVED_SESSIONS = (
    ("a1", "Serve Qwen3 32B to 50 users on H100s", "2026-11-28T16:20:00+00:00"),
    ("b2", "Llama 3.1 405B fp8 on one 8x H200 node?", "2026-11-30T09:05:00+00:00"),
)


def _write_sessions(directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for session_id, title, updated in SAVED_SESSIONS:
        # Sessions something was sized in (a tool result): the welcome screen lists only those.
        call = {"id": "c1", "type": "function", "function": {"name": "size", "arguments": "{}"}}
        record = {
            "id": session_id,
            "title": title,
            "updated": updated,
            "mode": "offline",
            "messages": [
                {"role": "user", "content": title},
                {"role": "assistant", "content": None, "tool_calls": [call]},
                {"role": "tool", "tool_call_id": "c1", "content": "{}"},
            ],
        }
        (directory / f"{session_id}.json").write_text(json.dumps(record), encoding="utf-8")


def _replay(name: str) -> tuple[str, FakeEngine]:
    turn = load_turn(name)
    calls = replay_calls(turn)
    # The answer's typed sections (what folds), as the offline engine sends them.
    return turn["question"], FakeEngine(tool_calls=calls, answer=recorded_answer(turn))


async def _settled(pilot: Any) -> None:
    """Refresh until the log's layout and scroll position stop changing and the view is where
    following puts it: widgets that draw for their width re-layout after the first refresh and
    the log follows after that, so a fixed number of pauses raced them on a loaded machine
    (the scrollbar's thumb came out one step apart). Bounded in refreshes, never in time."""
    log = pilot.app.query_one(ChatLog)
    last: tuple[object, ...] | None = None
    for _ in range(100):
        await pilot.pause()
        state = (log.virtual_size, round(log.scroll_y), log.follow_target(), log.size)
        if state == last and (not log.following or state[1] == state[2]):
            return
        last = state
    raise AssertionError(f"the chat log did not settle in 100 refreshes: {last}")


def _app(directory: Path, engine: FakeEngine) -> GpuSizerApp:
    # A fixed conversation id keeps the status bar ("saved <id>") identical between runs.
    return GpuSizerApp(engine, sessions_directory=directory, conversation=Conversation(id="snap"))


@pytest.mark.parametrize("size", SIZES)
def test_welcome_screen(snap_compare: Any, tmp_path: Path, size: str) -> None:
    _write_sessions(tmp_path)

    async def settle(pilot: Any) -> None:
        pilot.app.query_one(PromptInput).cursor_blink = False
        await pilot.pause()

    app = _app(tmp_path, FakeEngine())
    assert snap_compare(app, terminal_size=SIZES[size], run_before=settle)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("turn", ["fits", "does_not_fit", "training", "cost"])
def test_answer(snap_compare: Any, tmp_path: Path, turn: str, size: str) -> None:
    question, engine = _replay(turn)

    async def converse(pilot: Any) -> None:
        app = pilot.app
        app.query_one(PromptInput).cursor_blink = False
        app.query_one(PromptInput).insert(question)
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        # Bars and tables redraw for their width after the first layout, and the log follows
        # after a refresh: let both settle so the picture is the same on a loaded machine.
        await pilot.wait_for_scheduled_animations()
        await _settled(pilot)
        if turn == "cost":
            # The comparison's charts and "How this was computed" close the turn: show them.
            await pilot.press("end")
            await _settled(pilot)

    app = _app(tmp_path, engine)
    assert snap_compare(app, terminal_size=SIZES[size], run_before=converse)


# ---- issue 33: the screens its defects were on ------------------------------------------
@pytest.mark.parametrize("where", ["top", "end"])
def test_help_screen_scrolled_from_the_keyboard(
    snap_compare: Any, tmp_path: Path, where: str
) -> None:
    async def open_help(pilot: Any) -> None:
        pilot.app.query_one(PromptInput).cursor_blink = False
        await pilot.press("f1")
        await pilot.pause()
        if where == "end":
            await pilot.press("end")
        await pilot.pause()

    app = _app(tmp_path, FakeEngine())
    assert snap_compare(app, terminal_size=SIZES["narrow"], run_before=open_help)


@pytest.mark.parametrize("size", SIZES)
def test_gpus_listing_after_an_answer(snap_compare: Any, tmp_path: Path, size: str) -> None:
    question, engine = _replay("fits")

    async def listing(pilot: Any) -> None:
        app = pilot.app
        prompt = app.query_one(PromptInput)
        prompt.cursor_blink = False
        prompt.insert(question)
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await _settled(pilot)
        prompt.insert("/gpus")
        await pilot.press("enter")
        await pilot.wait_for_scheduled_animations()
        await _settled(pilot)

    app = _app(tmp_path, engine)
    assert snap_compare(app, terminal_size=SIZES[size], run_before=listing)
