"""Context-window learning and request fitting (issue 17), against the llama.cpp captures in
tests/data/llama-cpp (copied from shared/fixtures) and hand-written Ollama / vLLM bodies."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
import respx

from assistant.llm.window import (
    MIN_OUTPUT_TOKENS,
    OLLAMA_DEFAULT_NUM_CTX,
    TokenScale,
    context_exceeded,
    fit_request,
    ollama_root,
    output_budget,
    window_from_models,
    window_from_ollama_show,
)
from assistant.tokens import count_messages

FIXTURES = Path(__file__).resolve().parent / "data" / "llama-cpp"


def _fixture_json(name: str) -> Any:
    # The .txt captures end with an "HTTP <status>" line after the body.
    return json.loads((FIXTURES / name).read_text().split("\nHTTP ")[0])


def test_llama_cpp_models_meta_gives_the_running_context_not_the_training_one() -> None:
    body = _fixture_json("models.json.txt")
    # The capture: meta n_ctx 4096 (the -c the server runs with), n_ctx_train 8192.
    found = window_from_models(body, "any-name-llama-cpp-accepts")
    assert found is not None and found.tokens == 4096 and "n_ctx" in found.source


def test_vllm_max_model_len_and_unknown_bodies() -> None:
    vllm = {"object": "list", "data": [{"id": "qwen", "max_model_len": 32768}]}
    assert window_from_models(vllm, "qwen") == window_from_models(vllm, "other")
    found = window_from_models(vllm, "qwen")
    assert found is not None and found.tokens == 32768
    openai_like = {"object": "list", "data": [{"id": "gpt-4o"}, {"id": "gpt-4o-mini"}]}
    assert window_from_models(openai_like, "gpt-4o") is None
    assert window_from_models("not json", "m") is None


def test_ollama_show_num_ctx_default_and_cap() -> None:
    info = {"model_info": {"llama.context_length": 131072}}
    with_param = {**info, "parameters": "stop <|eot_id|>\nnum_ctx 8192"}
    found = window_from_ollama_show(with_param)
    assert found is not None and found.tokens == 8192
    # No num_ctx in the model file: Ollama's smallest default (4,096), never above the model's.
    found = window_from_ollama_show(info)
    assert found is not None and found.tokens == OLLAMA_DEFAULT_NUM_CTX
    small = window_from_ollama_show({"model_info": {"gemma.context_length": 2048}})
    assert small is not None and small.tokens == 2048
    assert window_from_ollama_show({"error": "model not found"}) is None
    assert ollama_root("http://localhost:11434/v1/") == "http://localhost:11434"


def _bad_request(body: Any) -> openai.BadRequestError:
    request = httpx.Request("POST", "http://x/v1/chat/completions")
    response = httpx.Response(400, json=body, request=request)
    return openai.BadRequestError("Error code: 400", response=response, body=body)


def test_context_exceeded_bodies() -> None:
    llama = _fixture_json("error-context-exceeded.txt")
    found = context_exceeded(_bad_request(llama["error"]))
    assert found is not None and (found.window, found.prompt_tokens) == (4096, 5031)
    vllm = {
        "message": "This model's maximum context length is 8192 tokens. However, you requested "
        "9,000 tokens (8000 in the messages, 1000 in the completion).",
        "type": "BadRequestError",
    }
    found = context_exceeded(_bad_request(vllm))
    assert found is not None and (found.window, found.prompt_tokens) == (8192, 9000)
    assert context_exceeded(_bad_request({"message": "bad temperature"})) is None


def _turn(i: int, result_chars: int = 400) -> list[dict[str, Any]]:
    call = {"id": f"c{i}", "type": "function", "function": {"name": "t", "arguments": "{}"}}
    return [
        {"role": "user", "content": f"question {i}"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": f"c{i}", "content": json.dumps({"x": "y" * result_chars})},
        {"role": "assistant", "content": f"answer {i} " * 20},
    ]


SYSTEM = [{"role": "system", "content": "You size GPUs."}]


def test_whole_turns_are_dropped_oldest_first_and_the_answer_is_capped() -> None:
    history = [m for i in range(12) for m in _turn(i)]
    scale = TokenScale(1.0)
    fitted = fit_request(SYSTEM, history, [], 1024, 2048, scale)
    assert fitted.fits and fitted.dropped_turns > 0
    # What is sent starts at a user message and every tool call keeps its result.
    assert fitted.messages[0]["role"] == "user"
    ids = [c["id"] for m in fitted.messages for c in m.get("tool_calls") or []]
    assert ids == [m["tool_call_id"] for m in fitted.messages if m["role"] == "tool"]
    assert fitted.messages[-4:] == _turn(11)
    # A quarter of the 1,024-token window for the answer; the prompt leaves room for it.
    assert fitted.max_tokens == output_budget(1024, 2048) == 256
    assert count_messages([*SYSTEM, *fitted.messages]) + fitted.max_tokens <= 1024


def test_trimming_keeps_a_stable_prefix_between_requests() -> None:
    scale = TokenScale(1.0)
    history: list[dict[str, Any]] = []
    starts: list[str] = []
    dropped = 0
    for i in range(14):
        history += _turn(i)
        fitted = fit_request(SYSTEM, history, [], 1024, 2048, scale, already_dropped=dropped)
        dropped = fitted.dropped_turns
        starts.append(fitted.messages[0]["content"])
        assert count_messages([*SYSTEM, *fitted.messages]) + fitted.max_tokens <= 1024
    # Turns go in batches, so most requests start where the previous one did.
    same = sum(a == b for a, b in itertools.pairwise(starts))
    assert same >= len(starts) // 2, starts


def test_a_latest_turn_too_long_alone_has_its_results_shortened() -> None:
    history = _turn(0, result_chars=20_000)
    fitted = fit_request(SYSTEM, history, [], 2048, 2048, TokenScale(1.0))
    assert fitted.fits
    assert count_messages([*SYSTEM, *fitted.messages]) + fitted.max_tokens <= 2048
    assert json.loads(fitted.messages[2]["content"])  # still valid JSON


def test_scale_is_learned_from_reported_usage_and_never_below_one() -> None:
    scale = TokenScale()
    scale.learn(1000, 1300)
    assert scale.factor == pytest.approx(1.3 * 1.05)
    scale.learn(1000, 400)  # a template that drops the tool schemas
    assert scale.factor == 1.0
    scale.learn(1000, None)
    assert scale.factor == 1.0


def test_the_answer_budget_respects_a_small_setting() -> None:
    assert output_budget(4096, 32) == 32
    assert output_budget(100_000, 2048) == 2048
    assert output_budget(512, 2048) == MIN_OUTPUT_TOKENS * 2  # 512 // 4


def test_older_large_results_are_shortened_before_turns_are_dropped() -> None:
    options = [{"gpu": f"g{i}", "count": i, "per_gpu_GB": i + 0.5} for i in range(400)]
    big: list[dict[str, Any]] = [
        {"role": "user", "content": "old"},
        {"role": "tool", "tool_call_id": "x", "content": json.dumps({"options": options})},
    ]
    latest = _turn(1)
    full = count_messages([*SYSTEM, *big, *latest])
    fitted = fit_request(SYSTEM, big + latest, [], full, 64, TokenScale(1.0))
    assert fitted.dropped_turns == 0 and len(fitted.messages) == len(big + latest)
    data = json.loads(fitted.messages[1]["content"])  # still valid JSON
    # The first items are kept verbatim (figures untouched), the rest counted: 400 options
    # cut to the first 5 (the largest cut tried) → 395 omitted.
    assert data["options"][:-1] == options[:5] and data["options"][-1] == {"omitted_items": 395}


# --- the engine learns the window once -------------------------------------------------------

BASE = "http://127.0.0.1:11434/v1"


def _engine(**settings: Any) -> Any:
    from assistant.config import Settings
    from assistant.llm import LlmEngine
    from assistant.llm.planner import no_planner

    return LlmEngine(
        Settings(base_url=BASE, model="qwen2.5:7b", **settings),
        env={},
        system_prompt="S",
        planner=no_planner,
    )


def _reply() -> httpx.Response:
    chunk = {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "delta": {"content": "ok"}, "finish_reason": "stop"}],
    }
    body = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n"
    return httpx.Response(200, text=body, headers={"content-type": "text/event-stream"})


async def test_ollama_window_from_api_show_at_the_servers_root() -> None:
    from assistant.conversation import Conversation

    ollama_models = {"object": "list", "data": [{"id": "qwen2.5:7b", "owned_by": "library"}]}
    show = {"model_info": {"qwen2.context_length": 32768}, "parameters": "num_ctx 8192"}
    with respx.mock(assert_all_called=True) as mock:
        mock.get(f"{BASE}/models").mock(return_value=httpx.Response(200, json=ollama_models))
        api_show = mock.post("http://127.0.0.1:11434/api/show").mock(
            return_value=httpx.Response(200, json=show)
        )
        chat = mock.post(f"{BASE}/chat/completions").mock(side_effect=[_reply(), _reply()])
        engine = _engine()
        conv = Conversation()
        _ = [e async for e in engine.run_turn(conv, "hi")]
        _ = [e async for e in engine.run_turn(conv, "again")]
    assert json.loads(api_show.calls[0].request.content) == {"model": "qwen2.5:7b"}
    assert api_show.call_count == 1  # learned once per engine
    assert engine.window.tokens == 8192 and engine.profile == "lean"
    assert json.loads(chat.calls[0].request.content)["max_tokens"] == 2048  # 8,192 / 4


async def test_a_window_setting_wins_and_nothing_is_probed() -> None:
    from assistant.conversation import Conversation

    with respx.mock(assert_all_called=True) as mock:
        chat = mock.post(f"{BASE}/chat/completions").mock(return_value=_reply())
        engine = _engine(context_window_tokens=2048)
        _ = [e async for e in engine.run_turn(Conversation(), "hi")]
    assert engine.window.source == "setting" and chat.call_count == 1  # no GET /models
    assert json.loads(chat.calls[0].request.content)["max_tokens"] == 512
