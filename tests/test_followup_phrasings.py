"""Follow-ups said as people say them, over three-turn conversations (issue 27 item 4): a
variant picked with no question asked ('the 40GB one'), a new count of the same GPU ('what
about 4 of them?'), a bare GGUF width ('what about at q8?'), each keeping the rest of the
reading. Expected values are the ones said in the turns."""

from __future__ import annotations

import asyncio

from assistant.conversation import Conversation
from assistant.events import Done
from assistant.offline.engine import OfflineEngine
from assistant.offline.parser import parse_workload
from tests.offline_turns import sizing


def _turns(*texts: str) -> tuple[list[str], Conversation]:
    async def run() -> tuple[list[str], Conversation]:
        conversation, engine, out = Conversation(), OfflineEngine(), []
        for text in texts:
            events = [e async for e in engine.run_turn(conversation, text)]
            out.append(next(e for e in events if isinstance(e, Done)).text)
        return out, conversation

    return asyncio.run(run())


def _named(conversation: Conversation) -> list[tuple[str | None, int]]:
    return [(m.gpu, m.count) for m in sizing(conversation).memory if m.gpu is not None]


def test_a_variant_picked_without_a_question_keeps_the_rest() -> None:
    texts, conversation = _turns(
        "Can Llama 3.1 8B run on an A100?", "the 40GB one", "and with 16 users?"
    )
    assert "A100 40GB" in texts[1] and "Not read" not in texts[1]
    assert _named(conversation) == [("a100-40gb-sxm4", 1)]
    assert sizing(conversation).request.workload.users == 16
    assert sizing(conversation).request.workload.model == "llama-3.1-8b"


def test_a_new_count_of_the_same_gpu() -> None:
    texts, conversation = _turns(
        "Llama 3.3 70B on 2x L40S for 20 users", "what about 4 of them?", "and 8 of them?"
    )
    assert all("Not read" not in t for t in texts)
    assert _named(conversation) == [("l40s", 8)]
    workload = sizing(conversation).request.workload
    assert (workload.model, workload.users) == ("llama-3.3-70b", 20)


def test_a_bare_gguf_width_in_a_follow_up() -> None:
    texts, conversation = _turns("Qwen2.5 32B on my 4090", "what about at q8?", "and at q6?")
    assert "Not read" not in texts[1] and "q8_0" in texts[1]
    assert sizing(conversation).request.workload.weights == "q6_k"


def test_another_card_said_in_words() -> None:
    # 'add a second one' and 'two of them' after one 3090: 1 + 1 = 2, then 2 said outright.
    texts, conversation = _turns(
        "can I run qwen2.5 32b on my 3090?", "what if I add a second one?", "at 32k context?"
    )
    assert all("Not read" not in t for t in texts)
    assert _named(conversation) == [("rtx-3090", 2)]
    assert sizing(conversation).request.workload.context == 32 * 1024
    _, conversation = _turns("Qwen2.5 32B on a 3090", "with two of them?", "and with 16 users?")
    assert _named(conversation) == [("rtx-3090", 2)]
    assert sizing(conversation).request.workload.users == 16


def test_another_size_said_with_instead_keeps_the_family_and_the_gpus() -> None:
    # 'try the 14B instead': Qwen2.5 at 14B on the same 4× L40S, not a generic 14B on nothing.
    texts, conversation = _turns(
        "Qwen2.5 72B on 4x L40S for 10 users", "try the 14B instead", "switch to the 32B"
    )
    assert all("Not read" not in t for t in texts)
    workload = sizing(conversation).request.workload
    assert (workload.model, workload.users) == ("qwen2.5-32b", 10)
    assert _named(conversation) == [("l40s", 4)]


def test_how_many_do_i_need_after_a_gpu_named_asks_the_count() -> None:
    first = parse_workload("serve mistral 7b to 50 users on L4s")
    assert parse_workload("how many do I need?", first).asked == "gpu_count"
