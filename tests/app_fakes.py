"""A scripted engine for the app tests (follows the Engine contract of assistant/engine_base.py).

Not a conftest fixture on purpose: tests/conftest.py belongs to the engine helper.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from assistant.answer import ANSWER_KEY, Answer
from assistant.conversation import Conversation
from assistant.events import (
    Done,
    ErrorEvent,
    Event,
    TextDelta,
    ToolCallStarted,
    ToolResult,
    UsageReport,
)
from assistant.results import tool_message
from assistant.sessions import session_path
from tools.memory import MemoryEstimate

# Llama 3.1 8B: 8,030,261,248 parameters (meta-llama/Llama-3.1-8B config.json, counted in
# /work/shared/research/params.json); BF16 weights = 2 bytes/parameter = 16,060,522,496 bytes.
LLAMA_8B_BF16_WEIGHT_BYTES = 8_030_261_248 * 2
# NVIDIA L4 datasheet (shared research gpus.json "l4": memory_gb 24): 24 GB = 24e9 bytes, used
# here as the capacity of a scripted result (the real tool's usable figure is the catalog's).
L4_USABLE_BYTES = 24 * 10**9

_BREAKDOWN = {"weights": LLAMA_8B_BF16_WEIGHT_BYTES, "kv_cache": 2 * 2**30}
MEMORY_RESULT = MemoryEstimate(
    model_id="llama-3.1-8b",
    model_name="Llama 3.1 8B",
    task="inference",
    weights_format="bf16",
    kv_dtype="bf16",
    engine="vllm",
    context=16_384,
    batch=1,
    total_params=8_030_261_248,
    active_params=8_030_261_248,
    per_gpu_bytes=sum(_BREAKDOWN.values()),
    total_bytes=sum(_BREAKDOWN.values()),
    kv_cache_bytes_per_token=131_072,
    kv_cache_bytes_per_token_per_gpu=131_072,
    breakdown=_BREAKDOWN,
    components=[],
    assumptions=[],
    num_gpus=1,
    tp=1,
    pp=1,
    dp=1,
    gpu="L4",
    fits=True,
    usable_bytes_per_gpu=L4_USABLE_BYTES,
    # Hand calculation: 24,000,000,000 − 16,060,522,496 − 2,147,483,648 = 5,791,993,856 bytes.
    headroom_bytes=5_791_993_856,
)
"""A scripted memory result (the figures above, not the tool's own for an L4)."""


@dataclass
class FakeEngine:
    """Scripted turns: optional tool calls, answer chunks, an error, or a hang (for Esc)."""

    chunks: Sequence[str] = ("Fits on **1× L4** ", "with room for ", "KV cache.")
    tool_calls: Sequence[tuple[str, dict[str, Any], BaseModel]] = ()
    error: str | None = None
    hang_after_chunks: int | None = None
    unverified: tuple[str, ...] = ()
    sessions_dir: Path | None = None
    mode: Literal["llm", "offline"] = "offline"
    label: str = "scripted test engine"
    started: asyncio.Event = field(default_factory=asyncio.Event)
    hanging: asyncio.Event = field(default_factory=asyncio.Event)
    on_disk_at_request: list[dict[str, Any]] | None = None
    answer: Answer | None = None
    """An answer in typed sections: its visible part streams (one chunk per paragraph) and
    `Done.answer` carries the fold, as the offline engine sends them."""

    async def run_turn(self, conversation: Conversation, user_text: str) -> AsyncIterator[Event]:
        conversation.add({"role": "user", "content": user_text})
        if self.sessions_dir is not None:
            # What a real engine's request would race with: is the message already saved?
            path = session_path(conversation.id, self.sessions_dir)
            self.on_disk_at_request = json.loads(path.read_text())["messages"]
        self.started.set()
        if self.error is not None:
            yield ErrorEvent(self.error, kind="auth")
            yield Done("", conversation)
            return
        for index, (name, arguments, result) in enumerate(self.tool_calls):
            call_id = f"call_{index}"
            yield ToolCallStarted(call_id, name, arguments)
            conversation.add(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": call_id,
                            "type": "function",
                            "function": {"name": name, "arguments": json.dumps(arguments)},
                        }
                    ],
                }
            )
            conversation.add(tool_message(call_id, name, result))
            yield ToolResult(call_id, name, result)
        text = ""
        chunks = self.chunks
        if self.answer is not None:
            chunks = [p + "\n\n" for p in self.answer.visible.split("\n\n")]
        try:
            for index, chunk in enumerate(chunks):
                if index == self.hang_after_chunks:
                    self.hanging.set()
                    await asyncio.Event().wait()  # until cancelled
                text += chunk
                yield TextDelta(chunk)
        except asyncio.CancelledError:
            conversation.add({"role": "assistant", "content": text, "cancelled": True})
            raise
        if self.answer is not None:
            text = self.answer.text
            conversation.add(
                {"role": "assistant", "content": text, ANSWER_KEY: self.answer.stored()}
            )
        else:
            conversation.add({"role": "assistant", "content": text})
        yield UsageReport(prompt_tokens=1200, completion_tokens=34)
        yield Done(text, conversation, unverified_figures=self.unverified, answer=self.answer)
