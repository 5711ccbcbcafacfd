"""The deterministic verdict an LLM-mode answer leads with, from the turn's typed results.

The verdict never depends on the model (issue 17): it is rendered before the model is asked,
streamed as a `Verdict` event ahead of the first token, carried in `Done.verdict` and saved on
the answer message. It is the turn's sizing report rendered by
`assistant.offline.render.verdict_answer` — the same lines the offline answer leads with
(issue 14) — or, when the model sized the question itself with `estimate_memory` only, those
estimates' fit lines (`memory_verdict_text`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from assistant.answer import Answer, AnswerSection, CardLine
from assistant.conversation import WORKLOAD_KEY
from assistant.offline.parsed import ParsedWorkload
from assistant.offline.render import memory_verdict_text, verdict_answer
from assistant.offline.render.reading import read_as_line
from assistant.reading.of_parsed import reading_of
from assistant.results import stored_calls
from tools.memory.request import MemoryEstimate
from tools.sizing import SizingReport


def turn_verdict_answer(messages: Sequence[dict[str, Any]]) -> Answer | None:
    """Markdown verdict of the last turn's sizing results, as typed sections (the lines the
    verdict card states marked); None when the turn sized nothing. The turn's first sizing
    report decides it."""
    last = sum(1 for m in messages if m.get("role") == "user")
    values = [c.value for c in stored_calls(messages, turn=last)]
    if not values:
        return None
    report = next((v for v in values if isinstance(v, SizingReport)), None)
    if report is not None:
        answer = verdict_answer(report)
        return _with_reading(answer, messages) if answer.sections else None
    estimates = [v for v in values if isinstance(v, MemoryEstimate)]
    lines = memory_verdict_text(estimates).splitlines()
    return Answer.of([AnswerSection.of_lines(lines)]) if lines else None


def _with_reading(answer: Answer, messages: Sequence[dict[str, Any]]) -> Answer:
    """The verdict with the 'Read as' line of the reading it answers first: the parser's
    reading of this turn (stored on its user message), when the parser read it."""
    user = next((m for m in reversed(messages) if m.get("role") == "user"), None)
    stored = None if user is None else user.get(WORKLOAD_KEY)
    if not isinstance(stored, dict):
        return answer
    try:
        parsed = ParsedWorkload.model_validate(stored)
    except ValueError:
        return answer
    first = answer.sections[0]
    lines = [CardLine(read_as_line(reading_of(parsed))), "", *first.lines]
    marked = AnswerSection.of_lines(lines, first.title)
    card = (0, *(i + 2 for i in first.card_lines))
    return Answer.of([marked.model_copy(update={"card_lines": card}), *answer.sections[1:]])
