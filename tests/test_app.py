"""Pilot tests of the chat app with a scripted engine (tests/app_fakes.py).

Deterministic: no sleeps; the turn worker is awaited with `app.workers.wait_for_complete()`,
and the cancellation test waits on the engine's own "hanging" event before pressing Esc.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assistant.app.app import GpuSizerApp
from assistant.app.screens.help import HelpScreen
from assistant.app.screens.sessions import SessionsScreen
from assistant.app.widgets.message import AssistantMessage, NoticeLine, UserMessage
from assistant.app.widgets.prompt import PromptInput
from assistant.app.widgets.tool_card import ToolCard
from assistant.app.widgets.turn_view import TurnView
from assistant.app.widgets.welcome import Welcome
from assistant.conversation import Conversation
from assistant.results import load_result, tool_message
from assistant.sessions import load_session, read_session_file, save_session
from assistant.wire import lean
from tests.app_fakes import (
    L4_USABLE_BYTES,
    LLAMA_8B_BF16_WEIGHT_BYTES,
    MEMORY_RESULT,
    FakeEngine,
)
from tools.memory import MemoryEstimate

SIZE = (80, 24)  # the app must work in a classic 80×24 terminal


def _notifications(app: GpuSizerApp) -> list[str]:
    return [n.message for n in app._notifications]


async def _type(pilot: object, app: GpuSizerApp, text: str) -> None:
    app.query_one(PromptInput).insert(text)


@pytest.fixture
def sessions_dir(tmp_path: Path) -> Path:
    return tmp_path / "sessions"


async def test_full_conversation_tool_card_streamed_answer_and_session_file(
    sessions_dir: Path,
) -> None:
    engine = FakeEngine(
        tool_calls=[("estimate_memory", {"model": "llama-3.1-8b", "gpu": "L4"}, MEMORY_RESULT)],
        sessions_dir=sessions_dir,
        unverified=("99 GB",),
    )
    app = GpuSizerApp(engine, sessions_directory=sessions_dir)
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, app, "Llama 3.1 8B on one L4?")
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()

        # The user's message was on disk before the engine's "request" went out.
        assert engine.on_disk_at_request == [{"role": "user", "content": "Llama 3.1 8B on one L4?"}]
        # One turn: the question, the answer, then "How this was computed" with the card.
        (turn,) = app.chat_log.children
        assert isinstance(turn, TurnView)
        kinds = [type(w).__name__ for w in turn.children]
        assert kinds == [
            "UserMessage",
            "Vertical",  # the lead: the verdict card of a sizing report
            "AssistantMessage",
            "Vertical",  # the notices, under the answer
            "Vertical",  # the charts
            "ComputedSection",
        ]
        assert turn.computed.query_one(ToolCard).call_id == "call_0"

        card = app.query_one(ToolCard)
        assert card.status == "done"
        assert card.collapsed  # one line by default
        # 16,060,522,496 + 2,147,483,648 B = 18,208,006,144 B / 2^30 = 16.96 GiB per GPU.
        assert card.title == "✓ Memory · Llama 3.1 8B bf16 · 1× L4 · 17.0 GiB per GPU, fits"
        assert card.table is not None
        rows = dict(card.table.rows)
        # An offline answer quotes GiB, so its card does: 8,030,261,248 params × 2 bytes =
        # 16,060,522,496 B / 2^30 = 14.96 GiB; headroom 5,791,993,856 B / 2^30 = 5.39 GiB.
        assert rows["weights"] == "14.96 GiB"
        assert rows["headroom per GPU"] == "5.39 GiB"

        answer = app.query_one(AssistantMessage)
        assert answer.text == "Fits on **1× L4** with room for KV cache."
        assert answer.markdown.source == answer.text
        flags = answer.query(".flags")
        assert flags and "99 GB" in str(flags.first().render())

        assert app.prompt.text == ""
        assert "1.20k in" in str(app.status.render())

    path = sessions_dir / f"{app.conversation.id}.json"
    saved = read_session_file(path).conversation.model_dump()
    roles = [m["role"] for m in saved["messages"]]
    assert roles == ["user", "assistant", "tool", "assistant"]
    call = saved["messages"][1]["tool_calls"][0]
    assert call["function"]["name"] == "estimate_memory"
    stored = load_result(saved["messages"][2], "estimate_memory")
    assert isinstance(stored, MemoryEstimate) and stored.headroom_bytes == 5_791_993_856


async def test_escape_cancels_keeps_partial_answer_and_restores_prompt(
    sessions_dir: Path,
) -> None:
    engine = FakeEngine(chunks=("First part. ", "second part", " never sent"), hang_after_chunks=2)
    app = GpuSizerApp(engine, sessions_directory=sessions_dir)
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, app, "70B on two H100?")
        await pilot.press("enter")
        await engine.hanging.wait()
        await pilot.pause()
        await pilot.press("escape")
        await app.workers.wait_for_complete()
        await pilot.pause()

        answer = app.query_one(AssistantMessage)
        assert answer.text == "First part. second part"
        assert answer.markdown.source == "First part. second part"
        assert answer.query(".cancelled")
        assert app.prompt.text == "70B on two H100?"
        assert app.status.state == "cancelled"

    saved = load_session(app.conversation.id, sessions_dir)
    assert saved.messages[-1] == {
        "role": "assistant",
        "content": "First part. second part",
        "cancelled": True,
    }


async def test_401_shows_notice_and_keeps_the_prompt(sessions_dir: Path) -> None:
    message = "The endpoint refused the API key (401). Check the variable named in api_key_env."
    engine = FakeEngine(error=message, mode="llm")
    app = GpuSizerApp(engine, sessions_directory=sessions_dir)
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, app, "Mixtral 8x7B in 4-bit?")
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.prompt.text == "Mixtral 8x7B in 4-bit?"
        assert message in _notifications(app)
        assert app.query_one(NoticeLine).message == message
        assert app.query_one(NoticeLine).has_class("error")


async def test_reopening_a_saved_session_restores_tool_cards(sessions_dir: Path) -> None:
    conversation = Conversation(id="saved1", title="8B on L4")
    conversation.add({"role": "user", "content": "8B on L4?"})
    conversation.add(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "estimate_memory", "arguments": '{"gpu": "L4"}'},
                }
            ],
        }
    )
    conversation.add(tool_message("c1", "estimate_memory", MEMORY_RESULT))
    conversation.add({"role": "assistant", "content": "It fits."})
    save_session(conversation, sessions_dir)

    app = GpuSizerApp(FakeEngine(), sessions_directory=sessions_dir)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert isinstance(app.screen, SessionsScreen)
        await pilot.press("enter")
        await pilot.pause()
        assert not isinstance(app.screen, SessionsScreen)

        assert app.conversation.id == "saved1"
        card = app.query_one(ToolCard)
        assert card.collapsed  # restored cards start folded
        assert card.arguments == {"gpu": "L4"}
        # 5,791,993,856 B / 2^30 = 5.39 GiB (the session's mode is offline: GiB, as its answer).
        assert card.table is not None and ("headroom per GPU", "5.39 GiB") in card.table.rows
        assert app.query_one(UserMessage).text == "8B on L4?"
        assert app.query_one(AssistantMessage).text == "It fits."


async def test_reopening_a_session_saved_by_an_older_version_degrades_with_a_notice(
    sessions_dir: Path,
) -> None:
    # Before typed storage (never released) a tool message held only its lean JSON: such a
    # session still opens; each card shows a notice saying why it has no table, never a crash.
    conversation = Conversation(id="old1", title="old session")
    conversation.add({"role": "user", "content": "8B on L4?"})
    calls = [
        {"id": c, "type": "function", "function": {"name": "estimate_memory", "arguments": "{}"}}
        for c in ("c1", "c2")
    ]
    conversation.add({"role": "assistant", "content": None, "tool_calls": calls})
    conversation.add(
        {"role": "tool", "tool_call_id": "c1", "content": json.dumps(lean(MEMORY_RESULT))}
    )
    conversation.add({"role": "tool", "tool_call_id": "c2", "content": '{"breakdown": 3}'})
    save_session(conversation, sessions_dir)
    app = GpuSizerApp(FakeEngine(), sessions_directory=sessions_dir)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+o")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        cards = list(app.query(ToolCard))
        assert len(cards) == 2
        for card in cards:
            assert card.status == "done" and card.table is not None and not card.table.rows
            card.collapsed = False  # its notice is drawn when the card is opened
        await pilot.pause()
        for card in cards:
            notices = [str(w.render()) for w in card.query(".warning")]
            assert any("saved by another version" in n for n in notices), notices


async def test_load_slash_command_and_unknown_command(sessions_dir: Path) -> None:
    save_session(Conversation(id="abc", messages=[{"role": "user", "content": "hi"}]), sessions_dir)
    app = GpuSizerApp(FakeEngine(), sessions_directory=sessions_dir)
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, app, "/lod abc")
        await pilot.press("enter")
        await pilot.pause()
        # Nothing typed is lost, and the error names the closest command.
        assert app.prompt.text == "/lod abc"
        assert any("/load" in n for n in _notifications(app))

        app.prompt.clear()
        await _type(pilot, app, "/load abc")
        await pilot.press("enter")
        await app.workers.wait_for_complete()  # the file is read in the background
        await pilot.pause()
        assert app.conversation.id == "abc"
        assert app.query_one(UserMessage).text == "hi"


async def test_prompt_history_and_newline_keys(sessions_dir: Path) -> None:
    app = GpuSizerApp(FakeEngine(), sessions_directory=sessions_dir)
    async with app.run_test(size=SIZE) as pilot:
        for question in ("first question", "second question"):
            await _type(pilot, app, question)
            await pilot.press("enter")
            await app.workers.wait_for_complete()
        await _type(pilot, app, "draft")
        await pilot.press("up")
        assert app.prompt.text == "second question"
        await pilot.press("up")
        assert app.prompt.text == "first question"
        await pilot.press("down", "down")
        assert app.prompt.text == "draft"  # the unsent draft comes back
        await pilot.press("ctrl+j")
        await pilot.press(*"more")
        assert app.prompt.text == "draft\nmore"


async def test_new_chat_help_and_export_notice(sessions_dir: Path) -> None:
    engine = FakeEngine(tool_calls=[("estimate_memory", {"gpu": "L4"}, MEMORY_RESULT)])
    app = GpuSizerApp(engine, sessions_directory=sessions_dir)
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, app, "question")
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        first_id = app.conversation.id
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert app.conversation.id != first_id
        # The new chat opens on the welcome screen, listing the chat just saved.
        (welcome,) = app.chat_log.children
        assert isinstance(welcome, Welcome)
        assert [s.id for s in welcome.sessions] == [first_id]
        assert (sessions_dir / f"{first_id}.json").exists()

        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert "/export" in app.screen.markdown
        assert "| `Ctrl+N` | New chat |" in app.screen.markdown
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)

        await pilot.press("ctrl+e")
        await pilot.pause()
        # The new chat has no tool results yet: export says so instead of writing nothing.
        assert any("Nothing to export" in n for n in _notifications(app))


async def test_export_writes_the_proposal_from_the_session(
    sessions_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPU_SIZER_DATA_DIR", str(tmp_path / "data"))
    engine = FakeEngine(tool_calls=[("estimate_memory", {"gpu": "L4"}, MEMORY_RESULT)])
    app = GpuSizerApp(engine, sessions_directory=sessions_dir)
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, app, "Llama 3.1 8B on one L4?")
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.press("ctrl+e")
        await pilot.pause()
        target = tmp_path / "data" / "proposals" / f"{app.conversation.id}.md"
        assert any(str(target) in n for n in _notifications(app))
        assert target.read_text(encoding="utf-8").strip()


async def test_copy_answer_and_card_table(sessions_dir: Path) -> None:
    engine = FakeEngine(
        tool_calls=[("estimate_memory", {"gpu": "L4"}, MEMORY_RESULT)],
    )
    app = GpuSizerApp(engine, sessions_directory=sessions_dir)
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, app, "q")
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.press("ctrl+y")
        assert app.clipboard == "Fits on **1× L4** with room for KV cache."
        app.query_one(ToolCard).action_copy_table()
        assert app.clipboard.splitlines()[0] == "| field | value |"
        # The scripted result's headroom: 24e9 − 16,060,522,496 − 2 GiB = 5,791,993,856 B.
        headroom = L4_USABLE_BYTES - LLAMA_8B_BF16_WEIGHT_BYTES - 2 * 2**30
        assert f"| headroom per GPU | {headroom / 2**30:.2f} GiB |" in app.clipboard  # 5.39


async def test_header_shows_mode_and_keymap_remap(sessions_dir: Path, tmp_path: Path) -> None:
    from assistant.config import Settings

    settings = Settings(keybindings={"new_session": "ctrl+b", "send": "enter"})
    app = GpuSizerApp(FakeEngine(), settings=settings, sessions_directory=sessions_dir)
    async with app.run_test(size=SIZE) as pilot:
        assert app.sub_title == "offline · scripted test engine"
        await _type(pilot, app, "q")
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        first_id = app.conversation.id
        await pilot.press("ctrl+b")  # remapped from ctrl+n in the config's keybindings table
        await pilot.pause()
        assert app.conversation.id != first_id


async def test_settings_screen_saves_config_without_the_key(
    sessions_dir: Path, tmp_path: Path
) -> None:
    from textual.widgets import Input

    from assistant.app.screens.settings import SettingsScreen
    from assistant.config import Settings, load_config

    config_file = tmp_path / "config.toml"
    built: list[Settings] = []

    def factory(settings: Settings) -> FakeEngine:
        built.append(settings)
        return FakeEngine(mode="llm", label="rebuilt")

    settings = Settings(base_url="http://127.0.0.1:8080/v1", model="old-model")
    app = GpuSizerApp(
        FakeEngine(mode="llm"),
        settings=settings,
        engine_factory=factory,
        sessions_directory=sessions_dir,
        config_file=config_file,
    )
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f2")
        await pilot.pause()
        assert isinstance(app.screen, SettingsScreen)
        app.screen.query_one("#model", Input).value = "qwen3-32b"
        app.screen.query_one("#api_key_env", Input).value = "MY_ENDPOINT_KEY"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert not isinstance(app.screen, SettingsScreen)
        assert app.sub_title == "LLM · qwen3-32b @ http://127.0.0.1:8080/v1"
    assert built and built[-1].model == "qwen3-32b"
    saved = load_config(env={}, path=config_file)
    assert saved.model == "qwen3-32b" and saved.api_key_env == "MY_ENDPOINT_KEY"
    assert "api_key =" not in config_file.read_text(encoding="utf-8")


async def test_llm_text_with_its_own_assumptions_section_is_shown_whole(
    sessions_dir: Path,
) -> None:
    # Only the offline renderer's exact fold heading folds; an LLM's sections stay as written.
    chunks = (
        "Fits on **1× L4**.\n\n",
        "**Assumptions**\n\n- bf16 weights\n\n",
        "**2 more assumptions (sources)**\n\n- a\n- b\n",
    )
    app = GpuSizerApp(FakeEngine(chunks=chunks, mode="llm"), sessions_directory=sessions_dir)
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, app, "q")
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        answer = app.query_one(AssistantMessage)
        assert answer.details is None
        assert answer.markdown.source == answer.text == "".join(chunks)
