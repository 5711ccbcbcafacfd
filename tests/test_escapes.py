"""Issue 21, escapes: an endpoint answering with OSC 52 / OSC 0 / OSC 8 / CSI 2J, and a session
file holding them, write nothing to the terminal — checked on what the app would send to the
terminal (the compositor's full update, byte for byte) and on `ask`'s stdout and stderr.

The endpoint is respx (tests/conftest.py routes openai's httpx2 through it); its stream splits
the sequences across chunks, as a real stream may.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx

from assistant.app.app import GpuSizerApp
from assistant.app.widgets.message import AssistantMessage, UserMessage
from assistant.app.widgets.prompt import PromptInput
from assistant.app.widgets.tool_card import ToolCard
from assistant.cli import main
from assistant.config import Settings
from assistant.llm import LlmEngine
from assistant.llm.planner import no_planner
from tests.test_engine import chunk, sse

BASE = "http://127.0.0.1:8080/v1"
OSC52 = "\x1b]52;c;cm0gLXJmIH4=\x07"  # writes "rm -rf ~" to the clipboard
OSC0 = "\x1b]0;pwned\x1b\\"  # sets the window title
OSC8 = ("\x1b]8;;http://evil.example/\x1b\\", "\x1b]8;;\x1b\\")  # hyperlink on, off
CSI_2J = "\x1b[2J"  # clears the screen
# The answer, cut so that each sequence straddles two chunks.
ANSWER_CHUNKS = [
    f"Fits on {OSC52[:9]}",
    f"{OSC52[9:]}**1× L4**. {OSC0[:5]}",
    f"{OSC0[5:]}{CSI_2J[:2]}",
    f"{CSI_2J[2:]}See {OSC8[0]}the table{OSC8[1]}.",
]
CLEAN_ANSWER = "Fits on **1× L4**. See the table."
# What Textual itself writes: SGR colours and cursor moves. Anything else is injected.
_TEXTUAL_CSI = re.compile(r"\x1b\[[0-9;]*[mH]")
_FORBIDDEN = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _answer_stream() -> httpx.Response:
    return sse(*(chunk({"content": c}) for c in ANSWER_CHUNKS), chunk({}, "stop"))


def _tool_call_stream(arguments: dict[str, Any]) -> httpx.Response:
    call = {
        "index": 0,
        "id": "call_1",
        "type": "function",
        "function": {"name": "find_gpu", "arguments": json.dumps(arguments)},
    }
    return sse(chunk({"tool_calls": [call]}), chunk({}, "tool_calls"))


def terminal_output(app: GpuSizerApp) -> str:
    """Exactly what the app would write to a real terminal for its current screen."""
    return app.screen._compositor.render_full_update().render_segments(app.console)


def assert_terminal_safe(output: str) -> None:
    for injected in ("\x1b]", "\x1bP", "\x1b_", "\x1b^", "\x1bX", "\x1bc", CSI_2J, "\x07"):
        assert injected not in output
    rest = _TEXTUAL_CSI.sub("", output)
    assert _FORBIDDEN.search(rest) is None, repr(_FORBIDDEN.search(rest))


def _no_control_bytes(raw: bytes) -> None:
    text = raw.decode("utf-8")
    assert _FORBIDDEN.search(text.replace("\n", "").replace("\t", "")) is None
    # Nor encoded inside JSON strings, where they would come back on parsing.
    assert re.search(r"\\u00(?:[01][0-9a-fA-F]|7[fF]|[89][0-9a-fA-F])", text) is None


def _engine() -> LlmEngine:
    async def no_sleep(_: float) -> None:
        return None

    settings = Settings(base_url=BASE, model="m", max_retries=0)
    return LlmEngine(settings, planner=no_planner, env={}, system_prompt="SYS", sleep=no_sleep)


async def test_llm_answer_and_tool_strings_with_escapes_reach_no_widget_or_file(
    tmp_path: Path,
) -> None:
    # The model also calls a tool with an argument holding an escape and markup that would
    # raise if parsed ('[/]'): the card shows it literally, the result error echoes it clean.
    hostile = {"name": f"h100{OSC0}[/][@click=app.quit]x"}
    with respx.mock(base_url=BASE) as mock:
        mock.post("/chat/completions").mock(
            side_effect=[_tool_call_stream(hostile), _answer_stream()]
        )
        app = GpuSizerApp(_engine(), sessions_directory=tmp_path)
        async with app.run_test(size=(120, 50)) as pilot:
            app.query_one(PromptInput).insert(f"Which GPU?{CSI_2J}")
            await pilot.press("enter")
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert app.query_one(UserMessage).text == "Which GPU?"
            answer = app.query(AssistantMessage).last()
            assert answer.text == CLEAN_ANSWER
            card = app.query_one(ToolCard)
            assert card.status == "error"
            assert "[/][@click=app.quit]x" in card.title and "\x1b" not in card.title
            assert_terminal_safe(terminal_output(app))
    _no_control_bytes((tmp_path / f"{app.conversation.id}.json").read_bytes())


def _dirty_session(path: Path) -> None:
    arguments = json.dumps({"name": f"l4{OSC52}"})  # ESC inside JSON: written as \u001b
    session = {
        "id": "dirty",
        "title": f"{OSC0}Title",
        "mode": "llm",
        "messages": [
            {"role": "user", "content": f"Q{CSI_2J}?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "find_gpu", "arguments": arguments},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": json.dumps({"name": f"L4{OSC8[0]}"})},
            {"role": "assistant", "content": "".join(ANSWER_CHUNKS)},
        ],
    }
    path.write_text(json.dumps(session), encoding="utf-8")


async def test_a_session_file_holding_escapes_replays_none(tmp_path: Path) -> None:
    _dirty_session(tmp_path / "dirty.json")
    app = GpuSizerApp(_engine(), sessions_directory=tmp_path)
    async with app.run_test(size=(120, 50)) as pilot:
        app.action_open_sessions()
        await pilot.pause()
        assert_terminal_safe(terminal_output(app))  # the list shows the title
        await pilot.press("enter")
        await app.workers.wait_for_complete()  # the file is read in the background
        await pilot.pause()
        assert app.conversation.title == "Title"
        assert app.query(AssistantMessage).last().text == CLEAN_ANSWER
        assert app.query_one(UserMessage).text == "Q?"
        assert app.query_one(ToolCard).arguments == {"name": "l4"}
        assert_terminal_safe(terminal_output(app))
        await pilot.press("ctrl+s")
        await pilot.pause()
    _no_control_bytes((tmp_path / "dirty.json").read_bytes())


def test_ask_stdout_and_stderr_carry_no_escape(capsys: pytest.CaptureFixture[str]) -> None:
    with respx.mock(base_url=BASE) as mock:
        mock.post("/chat/completions").mock(side_effect=[_answer_stream()])
        code = main(["ask", "--base-url", BASE, "--model", "m", f"hello{OSC52}"])
    captured = capsys.readouterr()
    assert code == 0
    # Byte for byte: every sequence gone. The answer's "1×" is no tool's figure (the question
    # sized nothing), so `ask` flags it under the answer (issue 17).
    flag = "⚠ Unverified: 1× — not found in this turn's tool results.\n"
    assert captured.out == CLEAN_ANSWER + "\n" + flag
    with respx.mock(base_url=BASE) as mock:
        mock.post("/chat/completions").mock(
            return_value=httpx.Response(400, json={"error": {"message": f"bad{CSI_2J}{OSC0}!"}})
        )
        code = main(["ask", "--base-url", BASE, "--model", "m", "hello"])
    captured = capsys.readouterr()
    assert code == 1 and "bad!" in captured.err
    assert _FORBIDDEN.search(captured.err.replace("\n", "")) is None


def test_offline_ask_does_not_echo_escape_from_the_question(
    capsys: pytest.CaptureFixture[str],
) -> None:
    question = f"Llama 3.1 8B{OSC0} on one L4 for {CSI_2J}4 users\x1b"
    assert main(["ask", "--offline", question]) == 0
    out = capsys.readouterr().out
    assert "Fits on 1× L4" in out  # the question was read despite the sequences
    assert _FORBIDDEN.search(out.replace("\n", "").replace("\t", "")) is None
    assert main(["ask", "--offline", "--json", question]) == 0
    report = capsys.readouterr().out
    _no_control_bytes(report.encode())
    assert json.loads(report)["question"] == "Llama 3.1 8B on one L4 for 4 users"
