"""Offline answers for QA round 4 (findings 1, 2, 3, 4, 6, 7, 10, 11). Expected figures are hand
arithmetic over published configs, written in each test."""

from __future__ import annotations

import asyncio

from assistant.conversation import Conversation
from assistant.offline.render.verdict import about_headline
from tests.offline_turns import answer


def _ask(text: str) -> tuple[str, Conversation]:
    return asyncio.run(answer(text))


# --- 4: a note about one GPU is matched to its GPU by whole name, never by substring ----------


def test_4_a_note_about_the_l40s_is_not_read_as_one_about_the_l4() -> None:
    # tools/advice.py writes "Fits on 1× <catalog name> with …" for its first single-GPU option;
    # "NVIDIA L4" is a prefix of "NVIDIA L40S" and "NVIDIA A10" of "NVIDIA A100 80GB PCIe".
    note = "Fits on 1× NVIDIA L40S with 22.6 GiB left for KV cache: stop there."
    assert about_headline(note, {"gpu": "l40s", "count": 1}) == note
    note = "Fits on 1× NVIDIA A100 80GB PCIe with 54.7 GiB left for KV cache: stop there."
    assert about_headline(note, {"gpu": "a100-80gb-pcie", "count": 1}) == note


def test_4_a_note_about_another_gpu_still_says_which() -> None:
    note = "Fits on 1× NVIDIA L4 with 4.0 GiB left for KV cache: stop there."
    shown = about_headline(note, {"gpu": "l40s", "count": 1})
    assert shown.startswith("About 1× L4, not the 1× L40S recommended above: ")
    note = "Fits on 1× NVIDIA A10. Stop there."
    assert about_headline(note, {"gpu": "a100-80gb-pcie", "count": 1}).startswith("About 1× A10,")


def test_4_the_qa_question_has_no_wrong_about_label() -> None:
    reply, _ = _ask("serve Qwen2.5 7B to 20 users at 8k context in the EU, cheapest")
    assert "About 1× L4" not in reply
    assert "Fits on 1× NVIDIA L40S with" in reply
