"""The app in LLM mode (issue 17): the tools' verdict leads, contradictions and invented
figures are flagged (also after reopening), a broken stream leaves the partial answer marked
and saved and the status on "error", and new answers are followed unless the user scrolled
away. The endpoint is the scripted server of tests/scripted_server.py, over loopback sockets."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from assistant.app.app import GpuSizerApp
from assistant.app.widgets.message import AssistantMessage
from assistant.app.widgets.prompt import PromptInput
from assistant.config import Settings
from assistant.llm import LlmEngine
from assistant.sessions import load_session
from tests import scripted_server as ss
from tests.app_fakes import FakeEngine

SIZE = (90, 30)
QUESTION = "Does Llama 3.1 70B fit on one H100?"


@pytest.fixture(scope="module")
def server() -> Iterator[ss.ScriptedServer]:
    srv = ss.ScriptedServer().start()
    yield srv
    srv.stop()


def _engine(server: ss.ScriptedServer) -> LlmEngine:
    # The default planner: the offline parser plans the tools, run before the model is asked.
    settings = Settings(base_url=server.base_url, model="scripted", max_retries=0)
    return LlmEngine(settings, env={}, system_prompt="S")


async def _ask(app: GpuSizerApp, pilot: Any, text: str) -> None:
    app.query_one(PromptInput).insert(text)
    await pilot.press("enter")
    await app.workers.wait_for_complete()
    await pilot.pause()


def _card(app: GpuSizerApp) -> str:
    """The verdict card's text."""
    return " ".join(str(w.render()) for w in app.query(".verdict").results(Static))


def _flags(app: GpuSizerApp) -> str:
    return " ".join(str(w.render()) for w in app.query(".flags").results(Static))


async def test_verdict_leads_and_flags_are_shown_and_survive_reopening(
    server: ss.ScriptedServer, tmp_path: Path
) -> None:
    claim = "Yes, it fits comfortably on a single H100, for $73 per hour."
    server.reset(ss.text(claim))
    app = GpuSizerApp(_engine(server), sessions_directory=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _ask(app, pilot, QUESTION)
        # The verdict leads once, in the card: the verdict segment would only repeat it.
        assert "Does not fit on 1× H100" in _card(app)
        answers = list(app.query(AssistantMessage))
        # What the card does not say (the lower formats that fit) leads the model's text.
        assert answers[0].has_class("verdict") and answers[-1].text == claim
        assert "int4-awq fits" in answers[0].markdown.source
        assert "Does not fit on" not in answers[0].markdown.source
        flags = _flags(app)
        assert "Contradicts the tools" in flags and "does not fit" in flags
        assert "Unverified: $73" in flags
        assert app.status.state == "ready"
    saved = load_session(app.conversation.id, tmp_path)
    reopened = GpuSizerApp(_engine(server), sessions_directory=tmp_path, conversation=saved)
    async with reopened.run_test(size=SIZE) as pilot:
        await pilot.pause()
        answers = list(reopened.query(AssistantMessage))
        assert "Does not fit on 1× H100" in _card(reopened)
        assert answers[0].has_class("verdict") and answers[-1].text == claim
        assert "Does not fit on" not in answers[0].markdown.source
        assert _flags(reopened) == flags


async def test_a_broken_stream_leaves_the_partial_answer_marked_saved_and_status_error(
    server: ss.ScriptedServer, tmp_path: Path
) -> None:
    server.reset(ss.malformed("So far the weights"))
    app = GpuSizerApp(_engine(server), sessions_directory=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _ask(app, pilot, QUESTION)
        assert app.status.state == "error"
        answer = app.query(AssistantMessage).last()
        assert answer.text == "So far the weights"
        marks = [str(w.render()) for w in answer.query(".interrupted").results(Static)]
        assert marks and "malformed" in marks[0] and "partial answer" in marks[0]
        assert app.prompt.text == QUESTION  # given back to ask again
    saved = load_session(app.conversation.id, tmp_path)
    last = saved.messages[-1]
    assert last["content"] == "So far the weights" and last["error"] is True
    assert last["checks"]["error"] == "malformed" and "Does not fit" in last["verdict"]


async def test_new_answers_are_followed_unless_the_user_scrolled_away(tmp_path: Path) -> None:
    long_answer = [f"Line {i} of a long answer.\n\n" for i in range(60)]
    engine = FakeEngine(chunks=long_answer)
    app = GpuSizerApp(engine, sessions_directory=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _ask(app, pilot, "first question")
        log = app.chat_log
        # Followed as far as the answer's first line (issue 22): the question stays on top.
        assert log.max_scroll_y > 0 and log.scroll_y == log.follow_target() < log.max_scroll_y
        pinned = log.scroll_y
        await pilot.press("pagedown")
        await pilot.pause()
        away = log.scroll_y
        assert away > pinned and not log.following
        await log.add_notice("something new arrived")
        await pilot.pause()
        assert log.scroll_y == away  # not pulled back while the user reads
        await _ask(app, pilot, "second question")  # sending follows again
        second = log.current_turn
        assert second is not None and log.scroll_y == second.virtual_region.y
        await pilot.press("pageup")
        await pilot.press("ctrl+end")  # and the follow key goes to the end
        await pilot.pause()
        assert log.scroll_y == log.max_scroll_y
        # The keys are documented where the others are (F1 lists the app's bindings).
        described = {b.description for b in app.active_bindings_for_help()}
        assert {"Scroll up", "Scroll down", "Follow new answers"} <= described


@pytest.mark.parametrize(
    "question",
    [
        "Can I serve Llama 3.1 70B in 4-bit to 20 users with 8k context on 2x L40S?",
        "serve Llama 3.1 70B in 4-bit to 20 users with 8k context on two L40S",
    ],
)
async def test_verdict_segment_leaves_out_what_the_card_states(
    server: ss.ScriptedServer, tmp_path: Path, question: str
) -> None:
    server.reset(ss.text("The named GPUs are too small for this load."))
    app = GpuSizerApp(_engine(server), sessions_directory=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _ask(app, pilot, question)
        card = _card(app)
        assert "Does not fit on 2× L40S" in card and "What holds this load" in card
        verdicts = [a for a in app.query(AssistantMessage) if a.has_class("verdict")]
        # The verdict's other lines (what 2× L40S hold at this load) still lead the answer.
        assert len(verdicts) == 1
        shown = verdicts[0].markdown.source
        assert "2× L40S hold" in shown
        assert "Does not fit on" not in shown and "What holds this load" not in shown
        # Copied or saved, the verdict is whole (ask prints it so).
        assert "Does not fit on 2× L40S" in verdicts[0].text
        assert "What holds this load" in verdicts[0].text
    saved = load_session(app.conversation.id, tmp_path)
    reopened = GpuSizerApp(_engine(server), sessions_directory=tmp_path, conversation=saved)
    async with reopened.run_test(size=SIZE) as pilot:
        await pilot.pause()
        verdicts = [a for a in reopened.query(AssistantMessage) if a.has_class("verdict")]
        assert len(verdicts) == 1 and "Does not fit on" not in verdicts[0].markdown.source
