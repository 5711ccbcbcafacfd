"""Presents one engine turn in the chat log: events in, widgets updated. No figures computed.

The turn's widgets go into its `TurnView`: answer segments in the answer area, tool cards
under "How this was computed". Text before and after tool calls still goes into separate
segments (each streams and gets one final full update when the turn ends — also when it is
cancelled: the partial answer stays, marked), so `Done.text` replaces only a single segment.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from assistant.app.widgets.chat_log import ChatLog
from assistant.app.widgets.message import AssistantMessage
from assistant.app.widgets.status_bar import StatusBar
from assistant.conversation import Conversation
from assistant.engine_base import Engine
from assistant.events import (
    Done,
    ErrorEvent,
    Notice,
    ReadAs,
    TextDelta,
    ToolCallStarted,
    ToolResult,
    UsageReport,
    Verdict,
)
from assistant.render.reading import read_as_line
from assistant.turn_stream import clean_events


@dataclass
class TurnOutcome:
    """What the app needs after a turn: the conversation to save and whether it failed."""

    conversation: Conversation
    errors: list[ErrorEvent] = field(default_factory=list)
    done: Done | None = None


class TurnPresenter:
    """Runs `engine.run_turn` and mirrors its events into `log` and `status`."""

    def __init__(self, log: ChatLog, status: StatusBar) -> None:
        self.log = log
        self.status = status
        self.segments: list[AssistantMessage] = []
        self._open_segment: AssistantMessage | None = None
        self._verdict: AssistantMessage | None = None
        self._verdict_text: str | None = None

    async def _segment(self) -> AssistantMessage:
        if self._open_segment is None:
            self._open_segment = await self.log.new_answer()
            self.segments.append(self._open_segment)
        return self._open_segment

    async def _finish_segments(
        self, final_text: str | None, cancelled: bool, done: Done | None = None
    ) -> None:
        if (final_text or (done is not None and (done.error or done.contradictions))) and not (
            self.segments
        ):
            # The engine did not stream: show the whole answer (or its flags) at once.
            await self._segment()
        for index, segment in enumerate(self.segments):
            last = index == len(self.segments) - 1
            # Done.text is the full final answer; it replaces the last segment only when the
            # answer was a single segment (otherwise earlier segments hold part of it).
            text = final_text if last and len(self.segments) == 1 and final_text else None
            if not segment.finished:
                flags = done if last and done is not None else None
                await segment.finish(
                    text,
                    unverified_figures=flags.unverified_figures if flags else (),
                    cancelled=cancelled and last,
                    contradictions=flags.contradictions if flags else (),
                    interrupted=flags.error if flags else None,
                    stopped=flags.stopped if flags else None,
                    answer=flags.answer if flags else None,
                    beside_card=self._card(),
                )

    def _card(self) -> bool:
        """Whether this turn shows a verdict card (its answer leaves out what the card says)."""
        turn = self.log.current_turn
        return turn is not None and turn.verdict is not None

    def _card_states_all(self, event: Verdict) -> bool:
        """Whether the verdict card shows everything the verdict segment would."""
        return event.answer is not None and self._card() and not event.answer.visible_beside_card

    async def run(self, engine: Engine, conversation: Conversation, text: str) -> TurnOutcome:
        """Run one turn; on cancellation finish the partial answer and re-raise."""
        outcome = TurnOutcome(conversation)
        self.status.state = "thinking…"
        try:
            # Cleaned of control sequences before anything reaches a widget.
            async for event in clean_events(engine.run_turn(conversation, text)):
                await self._apply(event, outcome)
        except asyncio.CancelledError:
            await self._finish_segments(None, cancelled=True)
            if not self.segments:
                await self.log.add_notice("Cancelled before the answer started.", "warning")
            self.status.state = "cancelled"
            raise
        except Exception:
            # Never left on "thinking…": the app reports the failure and saves what there is.
            await self._finish_segments(None, cancelled=False)
            self.status.state = "error"
            raise
        self.status.state = "error" if outcome.errors else "ready"
        return outcome

    async def _apply(self, event: object, outcome: TurnOutcome) -> None:
        if isinstance(event, Verdict):
            # The tools' verdict is its own segment, above the model's explanation; what the
            # verdict card already states is not repeated in it (nothing left: no segment).
            # A provisional verdict (the built-in parser's, while the model reads the question)
            # is shown dimmed; the next Verdict confirms it or takes its place.
            if self._verdict is not None and event.text == self._verdict_text:
                self._verdict.set_class(event.provisional, "provisional")
            else:
                if self._verdict is not None:
                    await self._verdict.remove()
                    self._verdict = None
                if not self._card_states_all(event):
                    verdict = await self.log.new_answer(verdict=True)
                    verdict.set_class(event.provisional, "provisional")
                    await verdict.finish(event.text, answer=event.answer, beside_card=self._card())
                    self._verdict = verdict
                self._verdict_text = event.text
            self._open_segment = None
        elif isinstance(event, ReadAs):
            await self.log.set_reading(read_as_line(event.reading))
        elif isinstance(event, TextDelta):
            await (await self._segment()).write(event.text)
        elif isinstance(event, ToolCallStarted):
            # Text after this card starts a new segment below it.
            self._open_segment = None
            self.status.state = f"running {event.name}…"
            await self.log.add_tool_card(event.call_id, event.name, dict(event.arguments))
        elif isinstance(event, ToolResult):
            card = self.log.card(event.call_id)
            if card is None:
                card = await self.log.add_tool_card(event.call_id, event.name, {})
            await self.log.set_result(card, event.value, is_error=event.is_error)
            self.status.state = "thinking…"
        elif isinstance(event, UsageReport):
            self.status.add_usage(event.prompt_tokens, event.completion_tokens, event.estimated)
        elif isinstance(event, Notice):
            await self.log.add_notice(event.message, event.level)
        elif isinstance(event, ErrorEvent):
            outcome.errors.append(event)
            await self.log.add_notice(event.message, "error")
        elif isinstance(event, Done):
            outcome.done = event
            outcome.conversation = event.conversation
            await self._finish_segments(event.text, event.cancelled, event)
