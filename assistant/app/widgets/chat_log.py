"""The scrolling chat log: one `TurnView` per question (question, figures, answer, "How this
was computed"), or the welcome screen while the chat is empty.

Scrolling follows the newest turn the way a reader wants: while an answer arrives the view
follows it, but never further than the turn's first line — a long answer stops with its
question and verdict at the top rather than at its last assumption. A manual scroll (wheel,
scrollbar, PageUp/PageDown) stops the following; scrolling back to the end, `follow()` (End)
or sending a new question starts it again.

`restore` rebuilds the log from a saved conversation — tool cards included, from the assistant
messages' `tool_calls` and the matching `tool` messages — so a reopened session shows the same
evidence as the live one. A very long session shows its last `RESTORED_TURNS` turns (with a
line saying how many earlier ones are not shown) and at most `RESTORED_TEXT_CHARS` of any one
message, so a 50 MB session opens at once; the conversation itself keeps everything.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import events
from textual.binding import BindingType
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Static

from assistant.answer import VERDICT_KEY, stored_answer
from assistant.app.units import TableUnit, answer_unit
from assistant.app.widgets.welcome import Welcome, WelcomeInfo
from assistant.conversation import READING_KEY, WORKLOAD_KEY, Conversation
from assistant.message_shapes import clean_message
from assistant.sanitize import clean_value

if TYPE_CHECKING:
    from pydantic import BaseModel

    from assistant.app.widgets.message import AssistantMessage, NoticeLine, UserMessage
    from assistant.app.widgets.tool_card import ToolCard
    from assistant.app.widgets.turn_view import TurnView

# A turn's widgets (messages, cards, tables, charts) and a stored turn's reading are imported
# where a turn is drawn, not with the log: the empty chat paints first (issue 32, fast start).

RESTORED_TURNS = 20
"""Turns (a user message and everything up to the next) drawn when a session is reopened."""
SHOWN_TURNS = 3
"""Of those, the last ones shown; the earlier ones are drawn hidden behind one line that shows
them (`EarlierTurns`): every layout pass over the log costs in proportion to what it shows, and
20 turns of answers (a hundred widgets each: table cells, bullets, cards) held the app for a
second or more at every pass — each key, toast or resize after a long session was reopened."""
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


def _turns(messages: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """`messages` cut before each user message (what comes before the first is its own part)."""
    parts: list[list[dict[str, Any]]] = []
    for message in messages:
        if not parts or message.get("role") == "user":
            parts.append([])
        parts[-1].append(message)
    return parts


QUESTION_SHARE = 4
"""A pinned turn shows at most a quarter of the window of its question (a long paste), so the
answer's first lines are in view."""


class EarlierTurns(Static, can_focus=True):
    """The line a reopened session's earlier turns hide behind (`SHOWN_TURNS`): Enter or a
    click shows them (one layout pass over all of them, then the line goes)."""

    DEFAULT_CSS = """
    EarlierTurns { height: auto; color: $text-muted; padding: 0 1; }
    EarlierTurns:focus { text-style: reverse; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [("enter", "show", "Show earlier turns")]

    def __init__(self, count: int) -> None:
        super().__init__(
            Text(f"▸ {count:,} more turn{'s' if count != 1 else ''} hidden (Enter or click: show).")
        )
        self.count = count
        self.turns: list[Widget] = []

    def on_click(self) -> None:
        self.action_show()

    def action_show(self) -> None:
        for view in self.turns:
            view.display = True
        self.remove()


class ChatLog(VerticalScroll, can_focus=False):
    """The conversation as widgets (see the module docstring for how it scrolls)."""

    # The scrollbar's column is reserved from the start: content laid out before a turn
    # outgrows the window keeps its width when the scrollbar appears (no reflow of the log).
    DEFAULT_CSS = """
    ChatLog { height: 1fr; padding: 0 1; scrollbar-size-vertical: 1; scrollbar-gutter: stable; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.following = True
        """Whether new content moves the view (False once the user scrolled away)."""
        self._pin: Widget | None = None
        self._moving = False  # the log is scrolling itself (not the user)
        self.unit: TableUnit = "GiB"
        """The byte unit of new turns' cards: the unit their answers quote."""

    # ---- following ----------------------------------------------------------------------
    def follow(self, pin: Widget | None = None) -> None:
        """Follow new content again: to the end, or no further than `pin`'s first line."""
        self.following = True
        self._pin = pin
        self._keep_in_view()

    def follow_target(self) -> int:
        """Where following puts the view: the end, unless that would scroll the pinned turn's
        first line out (then that line, less any part of a long question)."""
        target = self.max_scroll_y
        pin = self._pin
        if pin is None or not pin.is_mounted or pin.parent is not self:
            return target
        from assistant.app.widgets.message import UserMessage

        top = pin.virtual_region.y
        question = pin.query_children(UserMessage)
        if question:
            shown = max(1, self.scrollable_content_region.height // QUESTION_SHARE)
            top = max(top, question.first().outer_size.height + top - shown)
        return min(target, max(0, top))

    def _keep_in_view(self) -> None:
        if not self.following:
            return
        target = self.follow_target()
        if round(self.scroll_y) != target:
            self._moving = True
            try:
                self.scroll_to(y=target, animate=False, immediate=True)
            finally:
                self._moving = False

    def watch_virtual_size(self, size: Size) -> None:
        # Content grew or shrank (a token, a card, a resize): follow after the new layout.
        if self.following:
            self.call_after_refresh(self._keep_in_view)

    def release_anchor(self) -> None:
        # Textual calls this for every scroll a person makes (keys, wheel up, scrollbar,
        # PageUp/PageDown) — and for the log's own, which `_moving` marks.
        super().release_anchor()
        if not self._moving:
            self._user_moved()

    def _on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        # The wheel's downward scroll is the one user scroll Textual does not report above.
        self._user_moved()
        super()._on_mouse_scroll_down(event)

    def _user_moved(self) -> None:
        self.following = False
        self._pin = None

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        # Back at the end after scrolling away: follow new content again.
        if not self.following and not self._moving and round(new) >= self.max_scroll_y > 0:
            self.following = True

    def scroll_chat(self, where: str) -> None:
        """PageUp/PageDown/Home/End for the log while the prompt keeps the focus."""
        if where == "end":
            self.follow()
            return
        if where == "home":
            self.scroll_home(animate=False)
        elif where == "page_up":
            self.scroll_page_up(animate=False)
        elif where == "page_down":
            self.scroll_page_down(animate=False)

    # ---- content ------------------------------------------------------------------------
    @property
    def current_turn(self) -> TurnView | None:
        from assistant.app.widgets.turn_view import TurnView

        turns = self.query_children(TurnView)
        return turns.last() if turns else None

    async def _turn(self) -> TurnView:
        # Content without a question (a slash command's listing) gets a turn of its own.
        turn = self.current_turn
        if turn is None:
            turn = await self.start_turn(None)
        return turn

    async def show_welcome(self, info: WelcomeInfo) -> None:
        """Show (or refresh) the welcome screen of an empty chat."""
        await self.remove_welcome()
        await self.mount(Welcome(info))
        self.follow()

    async def remove_welcome(self) -> None:
        for welcome in self.query_children(Welcome):
            await welcome.remove()

    @property
    def welcome(self) -> Welcome | None:
        found = self.query_children(Welcome)
        return found.first() if found else None

    async def start_turn(self, question: str | None) -> TurnView:
        """A new turn for `question` (None: output that answers no question, e.g. /gpus).
        Sending is the user's own act: the log follows it again, pinned to its first line."""
        from assistant.app.widgets.turn_view import TurnView

        await self.remove_welcome()
        turn = TurnView(question, self.unit)
        await self.mount(turn)
        self.follow(pin=turn)
        return turn

    async def add_listing(self, markdown: str) -> AssistantMessage:
        """A slash command's output (/gpus, /models): a turn of its own at the end of the log
        — never inside the previous answer — and the view moves to its first line."""
        turn = await self.start_turn(None)
        answer = await turn.new_answer()
        await answer.finish(markdown)
        self.follow(pin=turn)
        return answer

    FENCE_INSET = 7
    """Cells a preformatted block in an answer loses to the answer's border and padding (3)
    and the fence's own padding (4)."""

    def text_width(self) -> int:
        """Columns a preformatted line of an answer has in the log now (a /gpus table is laid
        out to it; the fence would otherwise hide what runs past its edge)."""
        return max(40, self.scrollable_content_region.width - self.FENCE_INSET)

    async def add_user(self, text: str) -> UserMessage:
        """Start a turn with the user's message; returns that message."""
        from assistant.app.widgets.message import UserMessage

        turn = await self.start_turn(text)
        return turn.query_one(UserMessage)

    async def new_answer(self, text: str = "", verdict: bool = False) -> AssistantMessage:
        """Append an (initially empty) answer segment to the current turn; `verdict`: the
        tools' verdict an LLM answer leads with."""
        return await (await self._turn()).new_answer(text, verdict=verdict)

    async def add_tool_card(
        self, call_id: str, name: str, arguments: dict[str, Any], collapsed: bool = True
    ) -> ToolCard:
        """Append a card for a tool call that has started (to "How this was computed")."""
        return await (await self._turn()).add_tool_card(call_id, name, arguments, collapsed)

    async def set_result(self, card: ToolCard, value: BaseModel, is_error: bool) -> None:
        """Complete a card (and draw what its result leads its turn with)."""
        from assistant.app.widgets.turn_view import TurnView

        view = next((w for w in card.ancestors_with_self if isinstance(w, TurnView)), None)
        if view is None:
            await card.set_result(value, is_error=is_error)
        else:
            await view.set_result(card, value, is_error=is_error)

    def card(self, call_id: str) -> ToolCard | None:
        """The card for `call_id`, if there is one."""
        from assistant.app.widgets.tool_card import ToolCard

        for card in self.query(ToolCard):
            if card.call_id == call_id:
                return card
        return None

    async def set_reading(self, line: str) -> None:
        """How the current turn's question was read: shown on its verdict card."""
        (await self._turn()).reading_line = line

    async def add_notice(self, message: str, level: str = "info") -> NoticeLine:
        """Append an info / warning / error line to the current turn."""
        return await (await self._turn()).add_notice(message, level)

    def last_answer(self) -> AssistantMessage | None:
        """The most recent answer segment (for "copy answer")."""
        from assistant.app.widgets.message import AssistantMessage

        answers = self.query(AssistantMessage)
        return answers.last() if answers else None

    async def clear_log(self) -> None:
        """Remove everything (new chat, or before restoring a session)."""
        await self.remove_children()
        self._pin = None
        self.following = True

    async def restore(self, conversation: Conversation) -> None:
        """Rebuild the log from a saved conversation, tool cards (collapsed) included; only the
        last `RESTORED_TURNS` turns of a long one. The verdict and the checks' flags stored on
        each answer come back with it; a tool call answered by reference to an identical
        earlier one gets no second card. The view shows the last turn from its question on."""
        await self.clear_log()
        self.unit = answer_unit(conversation.mode)
        messages, hidden = last_turns(conversation.messages, RESTORED_TURNS)
        if hidden:
            await self.add_notice(
                f"{hidden:,} earlier turn{'s' if hidden != 1 else ''} not shown (kept in the "
                "session, its proposal and the model's history).",
            )
        turns = _turns(messages)
        earlier = max(0, sum(1 for t in turns if t[0].get("role") == "user") - SHOWN_TURNS)
        behind: EarlierTurns | None = None
        if earlier:
            behind = EarlierTurns(earlier)
            await self.mount(behind)
        for turn in turns:
            # One turn per update: keys typed meanwhile are taken between turns.
            with self.app.batch_update():
                await self._restore_messages(turn)
                if behind is not None and len(behind.turns) < earlier:
                    view = self.current_turn
                    if view is not None and view not in behind.turns:
                        view.display = False
                        behind.turns.append(view)
            await asyncio.sleep(0)
        self.follow(pin=self.current_turn)

    async def _restore_assistant(self, message: dict[str, Any], repeated: set[Any]) -> None:
        """A stored assistant message: its verdict segment and answer as when it was live (what
        the verdict card states not repeated), then its tool calls as collapsed cards."""
        from assistant.results import parse_arguments_text

        shows_card = self.current_turn is not None and self.current_turn.verdict is not None
        if message.get("verdict"):
            # As when it was live: what the verdict card states is not repeated.
            sections = stored_answer(message, VERDICT_KEY, "verdict")
            if not (shows_card and sections is not None and not sections.visible_beside_card):
                verdict = await self.new_answer(verdict=True)
                await verdict.finish(
                    str(message["verdict"]), answer=sections, beside_card=shows_card
                )
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
                answer=stored_answer(message),
                beside_card=shows_card,
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

    async def _restore_messages(self, messages: list[dict[str, Any]]) -> None:
        from assistant.results import cleaned, is_error, load_result

        repeated = {m.get("tool_call_id") for m in messages if m.get("duplicate_of")}
        for raw in messages:
            message = clean_message(raw)  # a conversation built in code skipped add()
            role = message.get("role")
            if role == "user":
                await self.start_turn(_shown(str(message.get("content") or "")))
            if (line := stored_reading_line(message)) is not None:
                await self.set_reading(line)
            if role == "user":
                continue
            if role == "assistant":
                await self._restore_assistant(message, repeated)
            elif role == "tool" and not message.get("duplicate_of"):
                card = self.card(str(message.get("tool_call_id", "")))
                if card is not None:
                    value = cleaned(load_result(message, card.tool_name))
                    await self.set_result(card, value, is_error=is_error(value))


def stored_reading_line(message: dict[str, Any]) -> str | None:
    """The 'Read as' line of the reading a stored message carries: the model's reading an LLM
    verdict followed (on the answer), else the workload's (the offline engine's on its
    tool-call message, the LLM planner's on the user message), if any."""
    from assistant.reading.model import Reading
    from assistant.reading.of_parsed import reading_of
    from assistant.reading.parsed import ParsedWorkload
    from assistant.render.reading import read_as_line

    chosen = message.get(READING_KEY)
    if isinstance(chosen, dict):
        try:
            return read_as_line(Reading.model_validate(chosen))
        except ValueError:
            pass
    stored = message.get(WORKLOAD_KEY)
    if not isinstance(stored, dict):
        return None
    try:
        parsed = ParsedWorkload.model_validate(stored)
    except ValueError:
        return None
    return read_as_line(reading_of(parsed))
