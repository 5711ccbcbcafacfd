"""Visual snapshots (pytest-textual-snapshot) of the main screen and a tool card at 80×24.

Regenerate after an intended visual change: `pytest tests/test_app_snapshots.py
--snapshot-update`, then review the SVGs in tests/__snapshots__/ before committing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from assistant.answer import Answer, AnswerSection
from assistant.app.app import GpuSizerApp
from assistant.app.widgets.prompt import PromptInput
from assistant.conversation import Conversation
from tests.app_fakes import MEMORY_RESULT, FakeEngine

SIZE = (80, 24)


def _app(tmp_path: Path, engine: FakeEngine) -> GpuSizerApp:
    # A fixed conversation id keeps the status bar ("saved <id>") identical between runs.
    return GpuSizerApp(
        engine, sessions_directory=tmp_path, conversation=Conversation(id="snapshot")
    )


def test_main_screen_empty(snap_compare: Any, tmp_path: Path) -> None:
    async def settle(pilot: Any) -> None:
        pilot.app.query_one(PromptInput).cursor_blink = False
        await pilot.pause()

    assert snap_compare(_app(tmp_path, FakeEngine()), terminal_size=SIZE, run_before=settle)


def test_tool_card_with_table_and_memory_bar(snap_compare: Any, tmp_path: Path) -> None:
    engine = FakeEngine(
        tool_calls=[("estimate_memory", {"model": "llama-3.1-8b", "gpu": "L4"}, MEMORY_RESULT)],
        unverified=("99 GB",),
    )

    async def converse(pilot: Any) -> None:
        app = pilot.app
        app.query_one(PromptInput).cursor_blink = False
        app.query_one(PromptInput).insert("Llama 3.1 8B on one L4?")
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()

    assert snap_compare(_app(tmp_path, engine), terminal_size=SIZE, run_before=converse)


def test_answer_with_folded_assumptions(snap_compare: Any, tmp_path: Path) -> None:
    # The shape of an offline answer: verdict, the readings, then the fold (collapsed).
    sections = [
        AnswerSection(lines=("**Fits on 1× L4** — needs 19.6 GiB of 19.8 GiB per GPU.",)),
        AnswerSection(lines=("**Assumptions**", "", "- '8B' read as Llama 3.1 8B")),
        AnswerSection(
            lines=("- cuda_context_bytes = 1.31 GiB", "- KV cache bf16: 131,072 bytes per token"),
            folded=True,
        ),
    ]
    engine = FakeEngine(
        answer=Answer.of(sections, "2 more assumptions (model sources, formulas, constants)")
    )

    async def converse(pilot: Any) -> None:
        app = pilot.app
        app.query_one(PromptInput).cursor_blink = False
        app.query_one(PromptInput).insert("Llama 3.1 8B on one L4?")
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()

    assert snap_compare(_app(tmp_path, engine), terminal_size=SIZE, run_before=converse)
