"""The verdict shows once in the app (the verdict card); `ask`'s text keeps its verdict lines.

Offline, the answer's visible text under the card leaves out the lines the card states (the
typed `AnswerSection.card_lines`, marked where the renderer makes them); in LLM mode the
engine's verdict segment does the same, and disappears when the card states all of it. The
copy / saved text keeps every line. Figures checked against hand arithmetic:

- Llama 3.1 8B: 8,030,261,248 parameters (meta-llama config, published count) × 2 bytes (bf16)
  = 16,060,522,496 B = 14.96 GiB of weights, shown as "weights 15.0" on the card's bar.
- Llama 3.1 70B: 70,553,706,496 parameters × 2 B = 141.1 GB = 131.42 GiB; TP 2 over 2× L40S is
  65.71 GiB of weights per GPU, more than an L40S's 48 GB (44.7 GiB) in all: does not fit.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from assistant.answer import Answer, AnswerSection, CardLine, stored_answer
from assistant.app.app import GpuSizerApp
from assistant.app.widgets.memory_bar import MemoryBar
from assistant.app.widgets.message import AssistantMessage
from assistant.app.widgets.prompt import PromptInput
from assistant.cli import main
from assistant.offline.engine import OfflineEngine
from assistant.sessions import load_session
from tests import offline_turns

SIZE = (120, 40)

QUESTIONS = [
    # (question, a words-of-the-card head, a hand-computed figure on the card)
    ("Does Llama 3.1 8B fit on one RTX 4090?", "Fits on 1× GeForce RTX 4090", "weights 15.0"),
    ("will Llama 3.1 8B run on a single 4090", "Fits on 1× GeForce RTX 4090", "weights 15.0"),
    ("Can I serve Llama 3.1 70B on 2x L40S?", "Does not fit on 2× L40S", None),
    ("serve Llama 3.1 8B to 50 users", "Cheapest priced option", None),
]

# A yes/no question on a consumer card leads with the local plan (issue 29): Llama 3.1 8B in
# Q8_0 is 8.03 B × 34/32 bytes ≈ 8.5 GB, far inside a 4090's 24 GiB, so the best type fits.
LOCAL_FIRST = {
    question: "Yes. llama.cpp (llama-server), q8_0, on NVIDIA GeForce RTX 4090: fits on the GPU"
    for question, *_ in QUESTIONS[:2]
}


async def _ask(app: GpuSizerApp, pilot: Any, text: str) -> None:
    app.query_one(PromptInput).insert(text)
    await pilot.press("enter")
    await app.workers.wait_for_complete()
    await pilot.pause()


def _card_text(app: GpuSizerApp) -> str:
    verdict = app.chat_log.current_turn.verdict
    assert verdict is not None
    lines = " ".join(str(w.render()) for w in verdict.query(".verdict").results(Static))
    bars = " ".join(str(w.render()) for w in verdict.query(MemoryBar))
    return f"{lines} {bars}"


def _card_lines(answer: Answer) -> list[str]:
    """The lines of the answer's visible sections that the card states (typed marks)."""
    return [s.lines[i] for s in answer.sections if not s.folded for i in s.card_lines]


@pytest.mark.parametrize(("question", "head", "figure"), QUESTIONS)
async def test_offline_answer_under_the_card_does_not_repeat_the_verdict(
    tmp_path: Path, question: str, head: str, figure: str | None
) -> None:
    app = GpuSizerApp(OfflineEngine(), sessions_directory=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _ask(app, pilot, question)
        card = _card_text(app)
        assert head in card
        if figure is not None:
            assert figure in card
        stored = stored_answer(app.conversation.messages[-1])
        assert stored is not None
        marked = _card_lines(stored)
        assert marked, "the verdict lines the card states are marked"
        (message,) = app.query(AssistantMessage)
        shown = message.markdown.source
        for line in marked:
            assert line not in shown  # once: in the card
            assert line in message.text  # copy and the saved session keep it
        assert shown == stored.visible_beside_card
    # Reopened, the same: the card leads, the text under it does not repeat it.
    saved = load_session(app.conversation.id, tmp_path)
    reopened = GpuSizerApp(OfflineEngine(), sessions_directory=tmp_path, conversation=saved)
    async with reopened.run_test(size=SIZE) as pilot:
        await pilot.pause()
        (message,) = reopened.query(AssistantMessage)
        assert head in _card_text(reopened)
        assert all(line not in message.markdown.source for line in marked)


async def test_seventy_b_on_two_l40s_is_the_hand_computed_does_not_fit() -> None:
    # 131.42 GiB of bf16 weights over TP 2: 65.71 GiB per GPU before KV cache and runtime.
    _, conversation = await offline_turns.answer("Can I serve Llama 3.1 70B on 2x L40S?")
    (named,) = [m for m in offline_turns.sizing(conversation).memory if m.gpu == "l40s"]
    assert named.estimate is not None and named.estimate.fits is False
    weights = named.estimate.breakdown["weights"] / 2**30
    assert weights == pytest.approx(70_553_706_496 * 2 / 2 / 2**30, rel=0.01)
    assert named.estimate.per_gpu_bytes > 65.71 * 2**30


@pytest.mark.parametrize(("question", "head", "figure"), QUESTIONS)
def test_ask_text_keeps_the_verdict_lines(
    capsys: pytest.CaptureFixture[str], question: str, head: str, figure: str | None
) -> None:
    """`ask` has no card: its text leads with the verdict lines, as before — on a consumer card
    the local plan's (issue 29), the card's datacenter line after it."""
    assert main(["ask", "--offline", question]) == 0
    out = capsys.readouterr().out
    assert out.startswith("*Read as: ")  # the reading first, then the verdict lines
    first = next(line for line in offline_turns.after_reading(out).splitlines() if line.strip())
    assert LOCAL_FIRST.get(question, head.split(":")[0]) in first.replace("**", "")
    assert head.split(":")[0] in out.replace("**", "")


def test_beside_card_drops_only_marked_lines_and_blank_edges() -> None:
    section = AnswerSection.of_lines(
        [CardLine("**Fits on 1× L4** — needs 9.0 of 20.3 GiB"), "", "- costs 0.80 USD/h", ""]
    )
    assert section.card_lines == (0,)
    answer = Answer.of([section])
    assert answer.visible_beside_card == "- costs 0.80 USD/h\n"
    assert answer.text.startswith("**Fits on 1× L4**")  # the text keeps every line
    # Round trip through the stored form keeps the marks (a reopened session folds alike).
    assert Answer.model_validate(answer.stored()).sections[0].card_lines == (0,)
    assert re.sub(r"\s", "", answer.visible) != re.sub(r"\s", "", answer.visible_beside_card)
