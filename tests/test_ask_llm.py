"""`gpu-sizer ask` with a model endpoint (respx, no network): the answer printed leads with the
deterministic verdict rendered from the turn's sizing report — the same lines the offline
answer leads with — then the model's own text, then the figures of it no tool result supports.
The scripted model answers nonsense, so only the verdict can be trusted; it must come first."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
import respx

from assistant.cli import main
from assistant.render import verdict_text
from tests.offline_turns import after_reading, answer, sizing

BASE = "http://127.0.0.1:8080/v1"
QUESTION = "serve Llama 3.1 70B in 4-bit to 40 users with 16k context on H100s"
NONSENSE = "Honestly, 3 H100s at 999 GB each will do, about 12.5 tokens/s."


def _reply(text: str) -> httpx.Response:
    chunks = [
        {"index": 0, "delta": {"role": "assistant", "content": text}, "finish_reason": None},
        {"index": 0, "delta": {}, "finish_reason": "stop"},
    ]
    body = "".join(
        "data: "
        + json.dumps(
            {
                "id": "c",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": "m",
                "choices": [c],
            }
        )
        + "\n\n"
        for c in chunks
    )
    return httpx.Response(
        200, text=body + "data: [DONE]\n\n", headers={"content-type": "text/event-stream"}
    )


@respx.mock
def test_llm_text_answer_leads_with_the_report_verdict_then_the_model_then_flags(
    capsys: pytest.CaptureFixture[str],
) -> None:
    route = respx.post(f"{BASE}/chat/completions").mock(return_value=_reply(NONSENSE))
    assert main(["ask", "--base-url", BASE, "--model", "m", QUESTION]) == 0
    out = capsys.readouterr().out
    # The same verdict the offline engine leads with for the same question (its own report).
    offline_text, conversation = asyncio.run(answer(QUESTION))
    verdict = verdict_text(sizing(conversation))
    assert verdict and after_reading(offline_text).startswith(verdict.splitlines()[0])
    # Both open with the same reading of the question, then the verdict.
    assert out.splitlines()[0] == offline_text.splitlines()[0]
    assert out.splitlines()[0].startswith("*Read as: Llama 3.1 70B")
    assert after_reading(out).startswith(verdict)
    assert "**Needs " in verdict.splitlines()[0]  # H100s named without a count: how many
    # Then the model's text, whatever it says, after the verdict.
    assert out.index(NONSENSE) > len(verdict) - 1
    # Then the figures of the model's text that no tool result supports, flagged last.
    flags = out.splitlines()[-1]
    assert flags.startswith("⚠ Unverified:") and "not found in this turn's tool results" in flags
    assert "999 GB" in flags
    # The pre-computation the model saw was one `size` call: its report, summarised.
    sent = json.loads(route.calls[0].request.content)["messages"]
    tools = [m for m in sent if m["role"] == "tool"]
    assert len(tools) == 1
    summary = json.loads(tools[0]["content"])
    assert summary["headline"]["gpu"] == "h100-sxm" and summary["price_load"]["basis"]


@respx.mock
def test_llm_json_names_the_same_headline_as_the_offline_json(
    capsys: pytest.CaptureFixture[str],
) -> None:
    respx.post(f"{BASE}/chat/completions").mock(return_value=_reply(NONSENSE))
    assert main(["ask", "--json", "--base-url", BASE, "--model", "m", QUESTION]) == 0
    llm = json.loads(capsys.readouterr().out)
    assert main(["ask", "--offline", "--json", QUESTION]) == 0
    offline = json.loads(capsys.readouterr().out)
    assert llm["engine"] == "llm" and offline["engine"] == "offline"
    assert llm["sizing"] == offline["sizing"]
    assert "999 GB" in llm["unverified_figures"]
