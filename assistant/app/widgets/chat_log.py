"""The scrolling chat log: user messages, streamed answers, tool cards and notices, in order.

`restore` rebuilds the log from a saved conversation — tool cards included, from the assistant
messages' `tool_calls` and the matching `tool` messages — so a reopened session shows the same
evidence as the live one. A very long session shows its last `RESTORED_TURNS` turns (with a
line saying how many earlier ones are not shown) and at most `RESTORED_TEXT_CHARS` of any one
message, so a 50 MB session opens at once; the conversation itself keeps everything.
"""

from __future__ import annotations

from typing import Any

from textual.containers import VerticalScroll

from assistant.app.widgets.message import AssistantMessage, NoticeLine, UserMessage
from assistant.app.widgets.tool_card import ToolCard
from assistant.conversation import Conversation
from assistant.message_shapes import clean_message
from assistant.results import cleaned, is_error, load_result, parse_arguments_text
from assistant.sanitize import clean_value

RESTORED_TURNS = 20
"""Turns (a user message and everything up to the next) drawn when a session is reopened."""
RESTORED_TEXT_CHARS = 100_000
"""Longest text drawn for one reopened message (about 25 screens); the rest stays saved."""


def _shown(text: str) -> str:
    if len(text) <= RESTORED_TEXT_CHARS:
        return text
    hidden = len(text) - RESTORED_TEXT_CHARS
    note = f"*… {hidden:,} more characters not shown (kept in the session).*"
    return f"{text[:RESTORED_TEXT_CHARS]}\n\n{note}"


def last_turns(messages: list[dict[str, Any]], turns: int) -> tuple[list[dict[str, Any]], int]:
    """The messages of the last `turns` turns, and how many earlier turns were left out."""
    starts = [i for i, m in enumerate(messages) if m.get("role") == "user"]
    if len(starts) <= turns:
        return messages, 0
    return messages[starts[-turns] :], len(starts) - turns


class ChatLog(VerticalScroll, can_focus=False):
    """The conversation as widgets. Stays scrolled to the end while new content arrives."""

    DEFAULT_CSS = """
    ChatLog { height: 1fr; padding: 0 1; scrollbar-size-vertical: 1; }
    """

    def on_mount(self) -> None:
        # Anchored: new content keeps the view at the bottom until the user scrolls up.
        self.anchor()

    async def add_user(self, text: str) -> UserMessage:
        """Append the user's message. Sending is the user's own act: the log follows again
        (back to the end, anchored) even if they had scrolled away."""
        widget = UserMessage(text)
        await self.mount(widget)
        self.follow()
        return widget

    def follow(self) -> None:
        """Scroll to the end and keep following new content until the user scrolls away."""
        self.anchor()

    async def new_answer(self, text: str = "", verdict: bool = False) -> AssistantMessage:
        """Append an (initially empty) answer segment to stream into; `verdict`: the tools'
        verdict an LLM answer leads with."""
        widget = AssistantMessage(text)
        if verdict:
            widget.add_class("verdict")
        await self.mount(widget)
        return widget

    async def add_tool_card(
        self, call_id: str, name: str, arguments: dict[str, Any], collapsed: bool = False
    ) -> ToolCard:
        """Append a card for a tool call that has started."""
        card = ToolCard(call_id, name, arguments, collapsed=collapsed)
        await self.mount(card)
        return card

    def card(self, call_id: str) -> ToolCard | None:
        """The card for `call_id`, if there is one."""
        for card in self.query(ToolCard):
            if card.call_id == call_id:
                return card
        return None

    async def add_notice(self, message: str, level: str = "info") -> NoticeLine:
        """Append an info / warning / error line."""
        widget = NoticeLine(message, level)
        await self.mount(widget)
        return widget

    def last_answer(self) -> AssistantMessage | None:
        """The most recent answer segment (for "copy answer")."""
        answers = self.query(AssistantMessage)
        return answers.last() if answers else None

    async def clear_log(self) -> None:
        """Remove everything (new chat, or before restoring a session)."""
        await self.remove_children()

    async def restore(self, conversation: Conversation) -> None:
        """Rebuild the log from a saved conversation, tool cards (collapsed) included; only the
        last `RESTORED_TURNS` turns of a long one. The verdict and the checks' flags stored on
        each answer come back with it; a tool call answered by reference to an identical
        earlier one gets no second card."""
        await self.clear_log()
        messages, hidden = last_turns(conversation.messages, RESTORED_TURNS)
        if hidden:
            await self.add_notice(
                f"{hidden:,} earlier turn{'s' if hidden != 1 else ''} not shown (kept in the "
                "session, its proposal and the model's history).",
            )
        with self.app.batch_update():
            await self._restore_messages(messages)
        self.follow()

    async def _restore_messages(self, messages: list[dict[str, Any]]) -> None:
        repeated = {m.get("tool_call_id") for m in messages if m.get("duplicate_of")}
        for raw in messages:
            message = clean_message(raw)  # a conversation built in code skipped add()
            role = message.get("role")
            if role == "user":
                await self.add_user(_shown(str(message.get("content") or "")))
            elif role == "assistant":
                if message.get("verdict"):
                    verdict = await self.new_answer(verdict=True)
                    await verdict.finish(str(message["verdict"]))
                stored = message.get("checks")
                checks: dict[str, Any] = stored if isinstance(stored, dict) else {}
                if message.get("content") or checks.get("error") or checks.get("contradictions"):
                    answer = await self.new_answer()
                    await answer.finish(
                        _shown(str(message.get("content") or "")),
                        unverified_figures=[str(f) for f in checks.get("unverified", [])],
                        cancelled=bool(message.get("cancelled")),
                        contradictions=[str(c) for c in checks.get("contradictions", [])],
                        interrupted=str(checks["error"]) if checks.get("error") else None,
                        stopped=str(checks["stopped"]) if checks.get("stopped") else None,
                    )
                for call in message.get("tool_calls") or []:
                    if call.get("id") in repeated:
                        continue
                    function = call.get("function", {})
                    await self.add_tool_card(
                        str(call.get("id", "")),
                        str(function.get("name", "tool")),
                        clean_value(parse_arguments_text(function.get("arguments"))),
                        collapsed=True,
                    )
            elif role == "tool" and not message.get("duplicate_of"):
                card = self.card(str(message.get("tool_call_id", "")))
                if card is not None:
                    value = cleaned(load_result(message, card.tool_name))
                    await card.set_result(value, is_error=is_error(value))
