"""LLM mode leads with the same answer parts as the offline answer (issue 28, point 4): the
llama.cpp / Ollama plan for the user's own GPU before any cloud price, the ways out when the
named GPUs do not hold the job, and on a clarifying turn the figures of the default reading
before the question. Measured before: LLM mode dropped the local plan and led with a cloud
rental price for the user's own GPU, and dropped the default reading's figures.

The scripted model calls no tool, so the verdict is the parser's (the rule); it must be the
offline answer's lead, line for line."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from assistant.config import Settings
from assistant.conversation import Conversation
from assistant.events import Done, Verdict
from assistant.llm import LlmEngine
from assistant.offline.engine import OfflineEngine
from tests import scripted_server as ss
from tests.offline_turns import answer, sizing


@pytest.fixture(scope="module")
def server() -> Iterator[ss.ScriptedServer]:
    srv = ss.ScriptedServer().start()
    yield srv
    srv.stop()


async def _llm_verdict(server: ss.ScriptedServer, question: str) -> str:
    server.reset(ss.text("Explained."))
    engine = LlmEngine(
        Settings(base_url=server.base_url, model="scripted", max_retries=0),
        env={},
        system_prompt="SYS",
    )
    events = [e async for e in engine.run_turn(Conversation(), question)]
    verdicts = [e for e in events if isinstance(e, Verdict)]
    assert verdicts and not verdicts[-1].provisional
    return verdicts[-1].text


async def _offline_lead(question: str) -> list[str]:
    events = [e async for e in OfflineEngine().run_turn(Conversation(), question)]
    done = events[-1]
    assert isinstance(done, Done) and done.answer is not None
    return [line for line in done.answer.sections[0].lines]


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


LOCAL = "Can I run Llama 3.1 8B on my RTX 4090 with llama.cpp?"
OLLAMA = "Run Qwen2.5 32B on my M2 Ultra 192GB with Ollama"
WAYS_OUT = "Fine-tune Llama 3.1 70B on one A100 80GB"
CLARIFYING = "Long-context Llama 3.1 8B on an L40S, how many users?"


@pytest.mark.parametrize("question", [LOCAL, OLLAMA, WAYS_OUT, CLARIFYING])
async def test_the_llm_verdict_is_the_offline_lead(
    server: ss.ScriptedServer, question: str
) -> None:
    verdict = _lines(await _llm_verdict(server, question))
    assert verdict == _lines("\n".join(await _offline_lead(question)))


async def test_the_local_plan_comes_before_any_cloud_price(server: ss.ScriptedServer) -> None:
    verdict = await _llm_verdict(server, LOCAL)
    assert "llama.cpp (llama-server)" in verdict and "-ngl" in verdict
    assert "Launch: `llama-server" in verdict
    assert verdict.index("llama-server") < verdict.index("USD per hour")


async def test_a_clarifying_turn_shows_the_default_readings_figures_then_asks(
    server: ss.ScriptedServer,
) -> None:
    verdict = await _llm_verdict(server, CLARIFYING)
    # 'long context' is sized at 32,768 tokens (2^15) while its length is asked.
    _, conversation = await answer(CLARIFYING)
    assert sizing(conversation).request.workload.context == 2**15
    assert f"For the default reading (long context read as {2**15:,} tokens):" in verdict
    assert verdict.index("Fits on 1× L40S") < verdict.index("One question before I size")


async def test_ways_out_lead_when_the_named_gpu_does_not_hold_it(
    server: ss.ScriptedServer,
) -> None:
    # Full fine-tuning 70.55e9 parameters needs ~16 bytes each (bf16 weights and gradients,
    # fp32 Adam moments and master weights): ~1,130 GB, far over one 80 GB A100.
    verdict = await _llm_verdict(server, WAYS_OUT)
    assert "Does not fit on 1× A100 80GB" in verdict and "A way out on 1× A100 80GB" in verdict
