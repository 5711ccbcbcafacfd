"""A conversation: the full OpenAI-format message list, tool calls and tool results included.

This is what sessions save and proposals are rendered from, so it must be complete: the
assistant messages carry `tool_calls`, and each tool result is a `{"role": "tool"}` message whose
content is the tool's compact JSON. Both engines (LLM and offline) append in this same format.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, Field

WORKLOAD_KEY = "offline_workload"
"""Key of the parsed workload (assistant.offline.ParsedWorkload, JSON) on the assistant message
that made the tool calls, when the offline planner chose them. Local: never sent to an API (the
LLM engine sends only role/content/tool_calls/tool_call_id/name); proposals read its `notes`
(how the user's words were read)."""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Conversation(BaseModel):
    """One chat session. `messages` never contains the system prompt or any API key."""

    id: str = Field(default_factory=lambda: uuid.uuid4().hex[:12])
    title: str = ""
    created: str = Field(default_factory=_now)
    updated: str = Field(default_factory=_now)
    mode: str = "offline"
    model: str | None = None
    messages: list[dict[str, Any]] = Field(default_factory=list)

    def add(self, message: dict[str, Any]) -> None:
        """Append one message and bump `updated`; the first user message becomes the title."""
        self.messages.append(message)
        self.updated = _now()
        if not self.title and message.get("role") == "user":
            self.title = str(message.get("content", ""))[:80]

    def tool_results(self) -> list[dict[str, Any]]:
        """All tool messages, in order."""
        return [m for m in self.messages if m.get("role") == "tool"]
