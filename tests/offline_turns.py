"""Run one offline turn and read its tool results: shared by the offline answer tests."""

from __future__ import annotations

from typing import Any

from assistant.conversation import Conversation
from assistant.events import Done
from assistant.offline import OfflineEngine
from assistant.results import stored_calls
from assistant.wire import lean_result


async def answer(text: str) -> tuple[str, Conversation]:
    """The final answer text of one offline turn on a new conversation, and the conversation."""
    conversation = Conversation()
    events = [e async for e in OfflineEngine().run_turn(conversation, text)]
    done = next(e for e in events if isinstance(e, Done))
    return done.text, conversation


def tool_result(conversation: Conversation, name: str) -> dict[str, Any]:
    """The first stored result of tool `name`, in its lean JSON form (what the model reads
    before summarising: bytes as `*_GB`)."""
    return next(lean_result(c.value) for c in stored_calls(conversation.messages) if c.name == name)


def tool_calls(
    conversation: Conversation, name: str
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(arguments as sent, result) of every call of tool `name`, in order."""
    return [
        (c.arguments, lean_result(c.value))
        for c in stored_calls(conversation.messages)
        if c.name == name
    ]
