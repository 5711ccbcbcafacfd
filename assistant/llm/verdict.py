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

from assistant.answer import Answer, AnswerSection
from assistant.offline.render import memory_verdict_text, verdict_answer
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
        return answer if answer.sections else None
    estimates = [v for v in values if isinstance(v, MemoryEstimate)]
    lines = memory_verdict_text(estimates).splitlines()
    return Answer.of([AnswerSection.of_lines(lines)]) if lines else None
