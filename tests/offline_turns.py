"""Run one offline turn and read its tool results: shared by the offline answer tests."""

from __future__ import annotations

import json
from typing import Any

from assistant.conversation import Conversation
from assistant.events import Done
from assistant.offline import OfflineEngine


async def answer(text: str) -> tuple[str, Conversation]:
    """The final answer text of one offline turn on a new conversation, and the conversation."""
    conversation = Conversation()
    events = [e async for e in OfflineEngine().run_turn(conversation, text)]
    done = next(e for e in events if isinstance(e, Done))
    return done.text, conversation


def tool_result(conversation: Conversation, name: str) -> dict[str, Any]:
    """The first stored result of tool `name` (compact JSON, parsed)."""
    return next(
        json.loads(m["content"])
        for m in conversation.messages
        if m.get("role") == "tool" and m.get("name") == name
    )


def tool_calls(
    conversation: Conversation, name: str
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(arguments as sent, result) of every call of tool `name`, in order."""
    arguments = {
        call["id"]: json.loads(call["function"]["arguments"])
        for m in conversation.messages
        for call in m.get("tool_calls") or []
    }
    return [
        (arguments[m["tool_call_id"]], json.loads(m["content"]))
        for m in conversation.messages
        if m.get("role") == "tool" and m.get("name") == name
    ]
