"""Issue 21 item 4: tool calls run off the event loop with a time limit; local files are read
only from regular files under a size cap; a model never chooses a file to read.

A blocked tool is simulated with a `threading.Event` the test sets afterwards (no sleeps as
synchronisation: the call cannot finish before the time limit because nothing releases it).
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import respx
from pydantic import BaseModel

from assistant.cli import main
from assistant.config import Settings
from assistant.conversation import Conversation
from assistant.events import ToolResult
from assistant.llm import LlmEngine
from assistant.llm.planner import no_planner
from assistant.registry import Registry, ToolSpec, default_registry
from assistant.tool_calls import in_thread, run_tool_call
from tests.test_engine import chunk, sse, text_reply
from tools.errors import ToolInputError
from tools.hf_config import load_config_file
from tools.safe_files import MAX_JSON_BYTES

BASE = "http://127.0.0.1:8080/v1"


class _Empty(BaseModel):
    pass


def _blocking_registry(release: threading.Event, entered: threading.Event) -> Registry:
    def stuck(_: _Empty) -> dict[str, Any]:
        entered.set()
        release.wait(timeout=30)
        return {"late": True}

    return Registry([ToolSpec("stuck", "Blocks until released.", _Empty, stuck)])


async def test_a_stuck_tool_returns_an_error_result_and_the_loop_keeps_running() -> None:
    release, entered = threading.Event(), threading.Event()
    registry = _blocking_registry(release, entered)
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    task = asyncio.create_task(ticker())
    try:
        outcome = await run_tool_call(registry, "stuck", "{}", timeout_s=0.2)
    finally:
        task.cancel()
        release.set()
    assert entered.is_set()
    assert outcome.is_error and outcome.result["kind"] == "timeout"
    assert "did not finish within 0.2 s" in outcome.result["error"]
    assert ticks > 10  # the event loop ran while the tool was stuck: the UI stays responsive


async def test_the_worker_thread_sees_the_callers_context_variables() -> None:
    rate: contextvars.ContextVar[float | None] = contextvars.ContextVar("rate", default=None)
    rate.set(1.08)
    assert await in_thread(rate.get, 5) == 1.08


async def test_results_are_cleaned_of_control_sequences() -> None:
    registry = default_registry()
    outcome = await run_tool_call(registry, "find_gpu", {"name": "h100\x1b]0;t\x07zz"})
    assert outcome.is_error
    assert "\x1b" not in json.dumps(outcome.result, ensure_ascii=False)
    assert "\x1b" not in outcome.content and "\\u001b" not in outcome.content


async def test_a_model_cannot_name_a_local_file(tmp_path: Path) -> None:
    config = tmp_path / "config.json"
    config.write_text("{}", encoding="utf-8")
    registry = default_registry()
    arguments = {"config_path": str(config), "gpu": "l4"}
    refused = await run_tool_call(registry, "estimate_memory", arguments, from_model=True)
    assert refused.is_error
    assert refused.result["problems"][0]["field"] == "config_path"
    assert "never on a model's request" in refused.result["problems"][0]["problem"]
    gguf = await run_tool_call(
        registry, "estimate_memory", {"model_file": "/dev/zero", "gpu": "l4"}, from_model=True
    )
    assert gguf.is_error and gguf.result["problems"][0]["field"] == "model_file"
    nested = await run_tool_call(
        registry,
        "recommend",
        json.dumps({"model": "x", "extra": {"config_path": "/etc"}}),
        from_model=True,
    )
    assert nested.is_error and nested.result["problems"][0]["field"] == "extra.config_path"
    # The same call planned from the user's own words reads the file (its "{}" has no
    # model_type, which is what the error is about).
    planned = await run_tool_call(registry, "estimate_memory", arguments)
    assert planned.is_error and "model_type" in json.dumps(planned.result)


def test_llm_engine_refuses_config_path_sent_by_the_model(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    call = {
        "index": 0,
        "id": "call_1",
        "type": "function",
        "function": {
            "name": "estimate_memory",
            "arguments": json.dumps({"config_path": str(fifo), "gpu": "l4"}),
        },
    }

    settings = Settings(base_url=BASE, model="m", max_retries=0)
    engine = LlmEngine(settings, planner=no_planner, env={}, system_prompt="S")
    conversation = Conversation()

    async def turn() -> list[Any]:
        return [e async for e in engine.run_turn(conversation, "size my model")]

    with respx.mock(base_url=BASE) as mock:
        mock.post("/chat/completions").mock(
            side_effect=[
                sse(chunk({"tool_calls": [call]}), chunk({}, "tool_calls")),
                text_reply("Sorry."),
            ]
        )
        events = asyncio.run(asyncio.wait_for(turn(), 10))
    result = next(e for e in events if isinstance(e, ToolResult))
    assert result.is_error and result.result["problems"][0]["field"] == "config_path"
    tool_message = next(m for m in conversation.messages if m["role"] == "tool")
    assert "config_path" in tool_message["content"]


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "directory-without-config", "too-large"])
def test_config_files_are_regular_and_bounded(tmp_path: Path, kind: str) -> None:
    if kind == "fifo":
        path: Path = tmp_path / "config.json"
        os.mkfifo(path)
        expected = "not a regular file"
    elif kind == "dev-zero":
        path, expected = Path("/dev/zero"), "not a regular file"
    elif kind == "directory-without-config":
        path, expected = tmp_path, "file not found"
    else:
        path = tmp_path / "config.json"
        with path.open("wb") as sparse:  # 64 MiB + 1 of zeros, without writing them
            sparse.truncate(MAX_JSON_BYTES + 1)
        expected = "larger than"
    started = time.monotonic()
    with pytest.raises(ToolInputError) as info:
        load_config_file(path)
    assert time.monotonic() - started < 5  # at once: never a blocked or endless read
    assert info.value.field == "config" and expected in info.value.problem


def test_cli_memory_with_a_fifo_config_exits_2_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "config.json"
    os.mkfifo(fifo)
    assert main(["memory", "--config", str(fifo), "--gpu", "l4"]) == 2
    err = capsys.readouterr().err
    assert "not a regular file" in err and len(err.strip().splitlines()) == 1
