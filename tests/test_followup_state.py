"""Conversations as typed state (issue 27, point 4): a follow-up changes slots of the previous
reading — a count doubled or one more, the users, the context, a format —; a clarifying answer
fills the slot asked about and keeps everything else. Three-turn conversations, each turn's
reading checked by its typed slots and where each came from."""

from __future__ import annotations

import asyncio

from assistant.conversation import Conversation
from assistant.events import Done
from assistant.offline.engine import OfflineEngine
from assistant.offline.parser import parse_workload
from assistant.reading.of_parsed import reading_of
from assistant.reading.parsed import ParsedWorkload, previous_workload
from tests.offline_turns import sizing


def _turns(*texts: str) -> tuple[list[ParsedWorkload], list[str], Conversation]:
    """Each turn's stored workload and answer text, and the conversation."""
    conversation = Conversation()
    engine = OfflineEngine()
    workloads: list[ParsedWorkload] = []
    answers: list[str] = []

    async def run() -> None:
        for text in texts:
            events = [e async for e in engine.run_turn(conversation, text)]
            done = events[-1]
            assert isinstance(done, Done)
            answers.append(done.text)
            workload = previous_workload(conversation)
            assert workload is not None
            workloads.append(workload)

    asyncio.run(run())
    return workloads, answers, conversation


def test_a_variant_answer_then_double_the_cards() -> None:
    (_asked, chosen, doubled), texts, conversation = _turns(
        "Does Llama 3.1 70B fit on 2 A100?", "the 80 GB one", "double the cards"
    )
    assert "Which 'A100' do you mean?" in texts[0]
    # The clarifying answer picks the variant; the model and the count stay.
    assert chosen.model == "llama-3.1-70b"
    assert [(g.gpu, g.count) for g in chosen.gpus] in (
        [("a100-80gb-sxm4", 2)],
        [("a100-80gb-pcie", 2)],
    )
    # 'double the cards': 2 × 2 = 4 of the same GPU, the model kept from the first turn.
    gpu = chosen.gpus[0].gpu
    assert [(g.gpu, g.count) for g in doubled.gpus] == [(gpu, 4)]
    reading = reading_of(doubled)
    model = reading.slot("model")
    assert model is not None and model.source.origin == "conversation"
    gpus = reading.slot("gpus")
    assert gpus is not None and gpus.source.origin == "question"
    assert gpus.source.spans[0].text == "double the cards"
    assert any(m.gpu == gpu and m.count == 4 for m in sizing(conversation).memory)


def test_a_model_answer_keeps_the_load_then_one_more_card() -> None:
    (asked, named, more), texts, _ = _turns(
        "what do I need to serve 40 users with 16k context on 2x L40S?",
        "Llama 3.1 70B in 4-bit",
        "and with one more?",
    )
    assert asked.asks("model", "missing") and "Which model?" in texts[0]
    # The reply fills the model and keeps the users, the context and the GPUs.
    assert (named.model, named.weights) == ("llama-3.1-70b", "int4-awq")
    assert (named.users, named.context) == (40, 16_384)
    assert [(g.gpu, g.count) for g in named.gpus] == [("l40s", 2)]
    # 'with one more': 2 + 1 = 3 L40S, everything else kept.
    assert [(g.gpu, g.count) for g in more.gpus] == [("l40s", 3)]
    assert (more.model, more.users, more.context) == ("llama-3.1-70b", 40, 16_384)


def test_the_users_and_the_context_change_relative_to_the_previous_turn() -> None:
    (first, twice, half), _, conversation = _turns(
        "Llama 3.1 8B for 20 users at 8k context on an H100",
        "twice as many users",
        "what about half the context?",
    )
    assert (first.users, first.context) == (20, 8_192)
    assert (twice.users, twice.context) == (40, 8_192)  # 20 × 2
    assert (half.users, half.context) == (40, 4_096)  # 8,192 / 2
    assert sizing(conversation).request.workload.users == 40


def test_a_count_change_without_a_count_said_changes_the_answers_count() -> None:
    (first, more), _, _ = _turns(
        "how many H100s to serve Llama 3.1 70B to 200 users?", "with two more"
    )
    assert first.answered_gpu == "h100-sxm" and first.answered_count is not None
    # Nothing counted in the question: the count the answer led with, plus two.
    assert [(g.gpu, g.count) for g in more.gpus] == [("h100-sxm", first.answered_count + 2)]


def test_a_relative_change_with_nothing_before_is_asked() -> None:
    parsed = parse_workload("double the cards")
    assert parsed.asks("figure", "missing")
    assert any("there is none to change" in q.text for q in parsed.questions)


def test_a_count_named_after_a_count_question_is_no_longer_a_count_question() -> None:
    (first, doubled), _, _ = _turns(
        "we need 3000 tokens/s from Mistral 7B, how many A10G?", "double the cards"
    )
    assert first.asked == "gpu_count" and first.answered_count is not None
    assert [(g.gpu, g.count) for g in doubled.gpus] == [("a10g", 2 * first.answered_count)]
    assert doubled.asked is None  # the count is said now: what it holds is answered
