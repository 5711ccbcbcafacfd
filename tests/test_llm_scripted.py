"""The LLM mode against a scripted tool-calling server over real loopback sockets (issue 17).

The server (tests/scripted_server.py) plays a model that calls the offered tools, sends bad
arguments, repeats a call, contradicts the tools and invents figures; `gpu-sizer ask` (text and
`--json`) and the engine are checked for the verdict first, the flags and the recoveries.
Expected verdicts come from the catalog by hand: Llama 3.1 70B has 70,553,706,496 parameters,
so its bf16 weights alone are 141.1 GB, over one H100 SXM's 80 GB.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assistant.cli import main
from assistant.config import Settings
from assistant.conversation import Conversation
from assistant.events import Done, Event, ToolCallStarted, ToolResult, Verdict
from assistant.llm import LlmEngine
from assistant.llm.planner import no_planner
from tests import scripted_server as ss

QUESTION = "Does Llama 3.1 70B fit on one H100?"


@pytest.fixture(scope="module")
def server() -> Iterator[ss.ScriptedServer]:
    srv = ss.ScriptedServer().start()
    yield srv
    srv.stop()


@pytest.fixture()
def endpoint(
    server: ss.ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> ss.ScriptedServer:
    server.reset()
    (tmp_path / "config.toml").write_text(
        f'base_url = "{server.base_url}"\nmodel = "scripted"\nmax_retries = 0\n'
        "stall_timeout_s = 1.0\nrequest_timeout_s = 5.0\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("GPU_SIZER_CONFIG_DIR", str(tmp_path))
    return server


def _ask(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["ask", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_verdict_leads_and_a_contradiction_is_flagged_in_text_and_json(
    endpoint: ss.ScriptedServer, capsys: pytest.CaptureFixture[str]
) -> None:
    claim = "Yes, it fits comfortably on a single H100."
    endpoint.reset(ss.text(claim), ss.text(claim))
    code, out, _ = _ask(capsys, QUESTION)
    assert code == 0
    # The tools' verdict comes before the model's words, and says the opposite.
    assert out.index("Does not fit on 1× H100") < out.index(claim)
    assert "⚠ Contradicts the tools:" in out and "1× H100 SXM5 does not fit" in out
    code, out, _ = _ask(capsys, "--json", QUESTION)
    report = json.loads(out)
    assert code == 0 and report["engine"] == "llm"
    assert "Does not fit on 1× H100" in report["verdict"]
    assert report["answer"] == claim
    assert len(report["contradictions"]) == 1 and report["error"] is None


@pytest.mark.parametrize("invented", ["100 GB", "$73", "70 GPUs"])
def test_invented_round_figures_are_flagged(
    endpoint: ss.ScriptedServer, capsys: pytest.CaptureFixture[str], invented: str
) -> None:
    # 100 (h100) and 70 (llama-3.1-70b) appear only inside names and ids; no USD figure is 73.
    endpoint.reset(ss.text(f"You will need {invented} per hour of budget."))
    code, out, _ = _ask(capsys, "--json", QUESTION)
    assert code == 0
    assert invented in json.loads(out)["unverified_figures"]


def _engine(server: ss.ScriptedServer, **settings: Any) -> LlmEngine:
    return LlmEngine(
        Settings(base_url=server.base_url, model="scripted", max_retries=0, **settings),
        env={},
        system_prompt="SYS",
    )


async def _turn(engine: LlmEngine, text: str, conv: Conversation | None = None) -> list[Event]:
    return [e async for e in engine.run_turn(conv or Conversation(), text)]


@pytest.mark.parametrize("streaming_tools", [True, False])
async def test_bad_arguments_are_recovered_in_one_extra_round(
    server: ss.ScriptedServer, streaming_tools: bool
) -> None:
    server.reset(
        ss.tool_calls(("estimate_memory", '{"model": "llama-3.1-70b", "gpus": "two"}')),
        ss.tool_calls(("estimate_memory", '{"model": "llama-3.1-70b", "gpus": 2, "gpu": "h100"}')),
        ss.text("On 2× H100 it fits."),
    )
    engine = LlmEngine(
        Settings(base_url=server.base_url, model="scripted", max_retries=0),
        env={},
        system_prompt="SYS",
        planner=no_planner,
    )
    engine.capabilities.streaming_tools = streaming_tools
    events = await _turn(engine, "70B on two H100?")
    results = [e for e in events if isinstance(e, ToolResult)]
    assert [r.is_error for r in results] == [True, False]
    # The error result names the field and what is allowed; the next round fixed it.
    second = server.requests[1]["messages"]
    assert "gpus" in json.loads(second[-1]["content"])["error"] + json.dumps(second[-1])
    assert len(server.requests) == 3
    assert (server.requests[0]["stream"] is True) == streaming_tools
    done = events[-1]
    assert isinstance(done, Done) and done.text == "On 2× H100 it fits." and not done.error
    assert done.contradictions == ()


async def test_a_repeated_call_is_answered_by_reference_not_run_again(
    server: ss.ScriptedServer,
) -> None:
    def repeat_first_call(request: dict[str, Any]) -> ss.Step:
        ran = next(m for m in request["messages"] if m.get("tool_calls"))
        call = ran["tool_calls"][0]["function"]
        return ss.tool_calls((call["name"], call["arguments"]))

    server.reset(ss.dynamic(repeat_first_call), ss.text("It does not fit on one H100."))
    conv = Conversation()
    events = await _turn(_engine(server), QUESTION, conv)
    started = [e for e in events if isinstance(e, ToolCallStarted)]
    planned = conv.messages[1]["tool_calls"]
    assert len(started) == len(planned)  # no card for the repeat
    reuse = conv.messages[-2]
    assert reuse["role"] == "tool" and reuse["duplicate_of"] == planned[0]["id"]
    # The next request carries the result once, and a short reference for the repeat.
    sent = server.requests[1]["messages"]
    tool_sizes = [len(m["content"]) for m in sent if m["role"] == "tool"]
    assert tool_sizes[-1] < 120 < min(tool_sizes[:-1])
    # One verdict: the parser's, provisional at once, then confirmed (the model repeated it).
    assert sum(isinstance(e, Verdict) and not e.provisional for e in events) == 1


async def test_the_window_is_learned_from_models_and_max_tokens_capped(
    server: ss.ScriptedServer,
) -> None:
    server.reset(ss.text("ok"), n_ctx=4096)
    engine = _engine(server)
    await _turn(engine, QUESTION)
    assert engine.window is not None and engine.window.tokens == 4096
    assert engine.profile == "lean"
    sent = server.requests[0]
    # At most a quarter of the window for the answer; lean tools only.
    assert sent["max_tokens"] <= 1024
    assert [t["function"]["name"] for t in sent["tools"]] == ["size"]  # the lean profile


async def test_a_slow_first_chunk_is_prompt_reading_not_a_stall(server: ss.ScriptedServer) -> None:
    # llama.cpp on a CPU sends its first chunk only after reading the whole prompt; the stall
    # timeout counts gaps once the answer has begun (the request timeout covers the start).
    server.reset(ss.text("Late but fine.", first_chunk_after_s=0.6))
    engine = LlmEngine(
        Settings(
            base_url=server.base_url,
            model="scripted",
            max_retries=0,
            stall_timeout_s=0.2,
            request_timeout_s=5.0,
        ),
        env={},
        system_prompt="SYS",
        planner=no_planner,
    )
    events = await _turn(engine, "hi")
    done = events[-1]
    assert isinstance(done, Done) and done.error is None and done.text == "Late but fine."


async def test_finish_reason_length_is_marked(server: ss.ScriptedServer) -> None:
    server.reset(ss.text("It needs two H100 GPUs because the", finish="length"))
    conv = Conversation()
    events = await _turn(_engine(server), QUESTION, conv)
    done = events[-1]
    assert isinstance(done, Done) and done.stopped == "cut_off" and done.error is None
    assert conv.messages[-1]["checks"]["stopped"] == "cut_off"


async def test_a_verdict_also_leads_when_the_model_sized_it_itself(
    server: ss.ScriptedServer,
) -> None:
    server.reset(
        ss.tool_calls(("estimate_memory", '{"model": "llama-3.1-70b", "gpu": "h100-sxm"}')),
        ss.text("It does not fit."),
    )
    engine = LlmEngine(
        Settings(base_url=server.base_url, model="scripted", max_retries=0),
        env={},
        system_prompt="SYS",
        planner=no_planner,
    )
    events = await _turn(engine, "70B on an H100?")
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("ToolResult") < kinds.index("Verdict") < kinds.index("TextDelta")
    done = events[-1]
    assert isinstance(done, Done) and "Does not fit on 1× H100" in done.verdict
