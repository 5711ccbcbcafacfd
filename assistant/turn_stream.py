"""The event stream of a turn as its consumers see it: free of terminal control sequences.

Engines yield what the model, the tools and the parser produced; the app (`app.turn`) and the
one-shot CLI (`commands.ask`) read every turn through `clean_events`, so no text an endpoint
streams, no string a tool echoes and no notice quoting a server's error can carry an escape
sequence to a widget or to stdout. Answer text is cleaned as a stream (`StreamCleaner`): an
escape split across two deltas is removed whole, and the deltas still add up to `Done.text`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace

from assistant.answer import Answer
from assistant.events import (
    Done,
    ErrorEvent,
    Event,
    Notice,
    ReadAs,
    TextDelta,
    ToolCallStarted,
    ToolResult,
    Verdict,
)
from assistant.reading.model import Reading
from assistant.results import cleaned
from assistant.sanitize import StreamCleaner, clean_text, clean_value


def clean_event(event: Event) -> Event:
    """One event with every string it carries cleaned (answer deltas: see `clean_events`)."""
    if isinstance(event, TextDelta):
        return TextDelta(clean_text(event.text))
    if isinstance(event, ToolCallStarted):
        return replace(event, name=clean_text(event.name), arguments=clean_value(event.arguments))
    if isinstance(event, ToolResult):
        return replace(event, name=clean_text(event.name), value=cleaned(event.value))
    if isinstance(event, Notice | ErrorEvent):
        return replace(event, message=clean_text(event.message))
    if isinstance(event, ReadAs):
        reading = cleaned(event.reading)
        assert isinstance(reading, Reading)
        return ReadAs(reading)
    if isinstance(event, Verdict):
        answer = None if event.answer is None else _clean_answer(event.answer)
        return replace(event, text=clean_text(event.text), answer=answer)
    if isinstance(event, Done):
        return replace(
            event,
            text=clean_text(event.text),
            unverified_figures=tuple(clean_text(f) for f in event.unverified_figures),
            verdict=clean_text(event.verdict),
            contradictions=tuple(clean_text(c) for c in event.contradictions),
            answer=None if event.answer is None else _clean_answer(event.answer),
        )
    return event


def _clean_answer(answer: Answer) -> Answer:
    value = cleaned(answer)
    assert isinstance(value, Answer)
    return value


async def clean_events(events: AsyncIterator[Event]) -> AsyncIterator[Event]:
    """`events` cleaned; answer text held back only while an escape sequence is incomplete."""
    cleaner = StreamCleaner()
    try:
        async for event in events:
            if isinstance(event, TextDelta):
                if text := cleaner.feed(event.text):
                    yield TextDelta(text)
                continue
            if held := cleaner.flush():
                yield TextDelta(held)
            yield clean_event(event)
        if held := cleaner.flush():
            yield TextDelta(held)
    finally:
        close = getattr(events, "aclose", None)
        if close is not None:
            await close()
