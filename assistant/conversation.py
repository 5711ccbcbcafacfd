"""A conversation: the full OpenAI-format message list, tool calls and tool results included.

This is what sessions save and proposals are rendered from, so it must be complete: the
assistant messages carry `tool_calls`, and each tool result is a `{"role": "tool"}` message whose
content is the tool's compact JSON. Both engines (LLM and offline) append in this same format.
"""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, Field

from assistant.message_shapes import check_messages, clean_message, repair_tool_results
from assistant.sanitize import clean_text
from tools.field_factories import empty_list

WORKLOAD_KEY = "offline_workload"
"""Key of the parsed workload (`assistant.reading.parsed.ParsedWorkload`, JSON) on the message
that made the tool calls, when the offline planner chose them. Local: never sent to an API (the
LLM engine sends only role/content/tool_calls/tool_call_id/name); proposals read its `notes`
(how the user's words were read)."""

READING_KEY = "reading"
"""Key of the reading an LLM answer's verdict followed when it was the model's
(`assistant.reading.model.Reading`, JSON) on that answer's message: a reopened session heads the
verdict card with it, as the live turn did. Local, like `WORKLOAD_KEY`."""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def new_id() -> str:
    """A fresh conversation id (12 hex digits; also the session's file name)."""
    return uuid.uuid4().hex[:12]


ID_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
"""What a conversation id may be: it becomes a file name, so nothing that leaves a directory."""


class Conversation(BaseModel):
    """One chat session. `messages` never contains the system prompt or any API key."""

    id: str = Field(default_factory=new_id)
    title: str = ""
    created: str = Field(default_factory=_now)
    updated: str = Field(default_factory=_now)
    mode: str = "offline"
    model: str | None = None
    messages: list[dict[str, Any]] = Field(default_factory=empty_list)

    def add(self, message: dict[str, Any]) -> None:
        """Append one message and bump `updated`; the first user message becomes the title.

        Control sequences are removed from every string first (assistant.sanitize): what is
        stored is what may be shown, saved and sent."""
        message = clean_message(message)
        self.messages.append(message)
        self.updated = _now()
        if not self.title and message.get("role") == "user":
            self.title = str(message.get("content", ""))[:80]

    def tool_results(self) -> list[dict[str, Any]]:
        """All tool messages, in order."""
        return [m for m in self.messages if m.get("role") == "tool"]

    def repaired(self) -> tuple[Conversation, list[str]]:
        """This conversation with every tool call answered (message_shapes.repair_tool_results),
        as a shallow copy when something was repaired (`self` otherwise), and what was done."""
        messages, problems = repair_tool_results(self.messages)
        if not problems:
            return self, []
        return self.model_copy(update={"messages": messages}), problems

    def repair(self) -> list[str]:
        """Repair this conversation in place (after a turn died); returns what was done."""
        messages, problems = repair_tool_results(self.messages)
        if problems:
            self.messages = messages
        return problems

    @classmethod
    def from_saved(cls, data: Any, *, clean: bool = True) -> tuple[Conversation, list[str]]:
        """A conversation from a parsed session file, whatever it holds: malformed messages are
        skipped, tool calls repaired, strings cleaned (`clean=False`: the caller checked the
        file holds no control character); the second item says what was done.
        Raises ValueError only when `data` is not a JSON object at all."""
        if not isinstance(data, dict):
            raise ValueError(f"a session is a JSON object, not {type(data).__name__}")
        problems: list[str] = []
        fields: dict[str, Any] = {}
        for name in ("id", "title", "created", "updated", "mode", "model"):
            value = data.get(name)
            if value is None:
                continue
            if isinstance(value, str):
                fields[name] = clean_text(value)
            else:
                problems.append(f"{name} is {type(value).__name__}, not text: ignored")
        if "id" in fields and not ID_PATTERN.match(fields["id"]):
            problems.append(f"id {fields['id'][:40]!r} is not a valid id: a new one was given")
            del fields["id"]
        messages, notes = check_messages(data.get("messages", []))
        problems += notes
        if clean:
            messages = [clean_message(m) for m in messages]
        messages, notes = repair_tool_results(messages)
        problems += notes
        return cls(**fields, messages=messages), problems
