"""Record the offline engine's turns that the app's snapshot tests replay.

The snapshots must not move when a catalog price or a formula changes elsewhere, so they replay
recorded turns (tool calls, results, answer) through `tests.app_fakes.FakeEngine` instead of
running the engine. Re-record after a change to what the tools return or how answers read:

    .venv/bin/python -m tests.record_app_turns
    .venv/bin/python -m pytest tests/test_app_snapshots.py --snapshot-update

then look at every SVG in tests/__snapshots__/ before committing. `--screenshots` also
redraws the README's screenshots (docs/screenshots/*.svg) with the app's own
`save_screenshot`, from the same recorded turns.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from assistant.answer import Answer, AnswerSection
from assistant.conversation import Conversation
from assistant.events import Done, ToolCallStarted, ToolResult
from assistant.offline.engine import OfflineEngine
from assistant.results import load_stored, stored

TURNS = Path(__file__).parent / "data" / "app_turns"

QUESTIONS = {
    "fits": "Can I serve Llama 3.1 8B to 10 users with 8k context on one L40S?",
    "does_not_fit": "Can I serve Llama 3.1 70B in 4-bit to 20 users with 8k context on 2x L40S?",
    "training": "Full fine-tune of Llama 3.1 8B on H100s: how many GPUs?",
    "cost": "Is an L40S cheaper than an H100 per million tokens for Llama 3.1 8B?",
}


async def record(question: str) -> dict[str, Any]:
    """One offline turn as data: the question, each call with its result, the answer."""
    calls: list[dict[str, Any]] = []
    answer = ""
    sections: dict[str, Any] | None = None
    async for event in OfflineEngine().run_turn(Conversation(), question):
        if isinstance(event, ToolCallStarted):
            calls.append({"name": event.name, "arguments": dict(event.arguments)})
        elif isinstance(event, ToolResult):
            calls[-1]["result"] = stored(event.value)  # typed: schema + data, as sessions keep it
        elif isinstance(event, Done):
            answer = event.text
            sections = None if event.answer is None else event.answer.stored()
    return {"question": question, "calls": calls, "answer": answer, "sections": sections}


def recorded_answer(turn: dict[str, Any]) -> Answer:
    """A recorded turn's answer as its typed sections (what shows, what folds)."""
    sections = turn.get("sections")
    if sections is None:  # recorded before answers were typed: shown whole
        return Answer.of([AnswerSection(lines=tuple(str(turn["answer"]).splitlines()))])
    return Answer.model_validate(sections)


def load_turn(name: str) -> dict[str, Any]:
    """A recorded turn (see the module docstring)."""
    data: dict[str, Any] = json.loads((TURNS / f"{name}.json").read_text(encoding="utf-8"))
    return data


SCREENSHOTS = Path(__file__).parent.parent / "docs" / "screenshots"


async def screenshots(size: tuple[int, int] = (110, 36)) -> None:
    """The welcome screen and an answer, as the app draws them (SVG)."""
    import tempfile

    from assistant.app.app import GpuSizerApp
    from assistant.app.widgets.prompt import PromptInput
    from tests.app_fakes import FakeEngine

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    turn = load_turn("does_not_fit")
    engine = FakeEngine(
        tool_calls=replay_calls(turn), answer=recorded_answer(turn), label="built-in parser + tools"
    )
    with tempfile.TemporaryDirectory() as folder:
        # A fixed id: the status bar's "saved <id>" is the same at every redraw.
        app = GpuSizerApp(
            engine, sessions_directory=Path(folder), conversation=Conversation(id="readme")
        )
        async with app.run_test(size=size) as pilot:
            app.query_one(PromptInput).cursor_blink = False
            await pilot.pause()
            app.save_screenshot("welcome.svg", str(SCREENSHOTS))
            app.query_one(PromptInput).insert(turn["question"])
            await pilot.press("enter")
            await app.workers.wait_for_complete()
            await pilot.pause()
            app.save_screenshot("answer.svg", str(SCREENSHOTS))


def replay_calls(turn: dict[str, Any]) -> list[tuple[str, dict[str, Any], BaseModel]]:
    """A recorded turn's calls with their typed results, for `FakeEngine(tool_calls=...)`."""
    return [(c["name"], c["arguments"], load_stored(c["result"], c["name"])) for c in turn["calls"]]


def main() -> None:
    if "--screenshots" in sys.argv:
        asyncio.run(screenshots())
        print(f"{SCREENSHOTS}: welcome.svg, answer.svg")
        return
    TURNS.mkdir(parents=True, exist_ok=True)
    for name, question in QUESTIONS.items():
        turn = asyncio.run(record(question))
        path = TURNS / f"{name}.json"
        path.write_text(json.dumps(turn, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"{path}: {len(turn['calls'])} calls, {len(turn['answer'])} characters")


if __name__ == "__main__":
    main()
