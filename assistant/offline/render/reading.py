"""The reading, shown: one 'Read as' line before every verdict, and the 'not read' line that
leads an answer whose question had words left unread that could change the verdict."""

from __future__ import annotations

from assistant.reading.model import AskedFigure, Reading, Unread

_ASKED: dict[AskedFigure, str] = {
    "fits": "yes or no",
    "gpu_count": "how many GPUs",
    "memory": "the memory needed",
    "speed": "the speed per user",
    "ttft": "the time to first token",
    "throughput": "the throughput",
    "cost": "the cost",
    "max_context": "the longest context",
    "capacity": "how many fit",
    "compare": "which is better",
    "training_time": "how long training takes",
    "which_models": "which models fit",
    "hardware": "",
}
"""The figure asked for, as the 'Read as' line names it ('' for the default question)."""


def read_as_line(reading: Reading) -> str:
    """'Read as: Llama 3.1 70B · int4-awq · 40 concurrent users · 2× L40S — asks how many GPUs;
    kept from before: …': the slots read from this question, the figure asked for, then the
    slots kept from earlier turns."""
    now = [s.shown for s in reading.slots if s.source.origin in ("question", "default")]
    kept = [s.shown for s in reading.slots if s.source.origin == "conversation"]
    line = "Read as: " + (" · ".join(now) if now else "nothing new")
    asked = _ASKED[reading.asked]
    if asked:
        line += f" — asks {asked}"
    if kept:
        line += f"; kept from before: {' · '.join(kept)}"
    return f"*{line}.*"


def not_read_line(unread: list[Unread]) -> str:
    """'Not read: '3k tokens/s overall' — …': said before any figure when unread words could
    change the verdict."""
    said = "; ".join(f"'{u.span.text}'" for u in unread)
    return (
        f"**Not read:** {said} — this could change the verdict, so the figures below are for "
        "what I did read only."
    )


def out_of_scope_lines(reading: Reading) -> list[str]:
    """One plain sentence per topic asked that gpu-sizer cannot answer, with what it can."""
    return [
        f"**Not something gpu-sizer can answer:** {o.topic} — {o.instead}."
        for o in reading.out_of_scope
    ]
