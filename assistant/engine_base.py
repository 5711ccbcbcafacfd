"""The interface both engines (LLM and offline) implement, so the app and CLI never care which.

Contract (see docs/ARCHITECTURE.md and COMMON brief):
- `run_turn` appends the user message to `conversation` before any request goes out, then the
  assistant and tool messages (OpenAI format) as they complete.
- On cancellation (`asyncio.CancelledError`) the engine appends the partial answer, marked as
  cancelled, and re-raises.
- Every turn's event stream ends with exactly one `Done`, also after an `ErrorEvent`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Literal, Protocol, runtime_checkable

from assistant.conversation import Conversation
from assistant.events import Event

EngineMode = Literal["llm", "offline"]


@runtime_checkable
class Engine(Protocol):
    """A conversation engine: turns one user message into a stream of typed events."""

    mode: EngineMode
    """"llm" for a model endpoint, "offline" for the built-in parser + tools."""

    label: str
    """Short human-readable description for the status bar, e.g. "llm · qwen3 @ localhost"."""

    def run_turn(self, conversation: Conversation, user_text: str) -> AsyncIterator[Event]:
        """Run one turn: append `user_text` as a user message, then yield events ending in `Done`.

        Implemented as an async generator (`async def ... yield`), so calling it returns the
        iterator directly; consume it with `async for`.
        """
        ...
