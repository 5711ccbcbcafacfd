"""The reading, shown: one 'Read as' line before every verdict, and the 'not read' line that
leads an answer whose question had words left unread that could change the verdict."""

from __future__ import annotations

from collections.abc import Sequence

from assistant.answer import CardLine
from assistant.reading.model import AskedFigure, Reading, Unread
from assistant.reading.reconcile import Difference

_ASKED: dict[AskedFigure, str] = {
    "fits": "yes or no",
    "gpu_count": "how many GPUs",
    "memory": "the memory needed",
    "kv_cache": "the KV cache's size",
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
    now = [s.shown for s in reading.slots if s.source.origin in ("question", "default", "model")]
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


_UNREAD = {"model": "no model", "gpus": "no GPU", "budget": "no budget", "region": "any region"}
"""A slot one reader did not read, as the difference line says it."""


def _sides(diffs: Sequence[Difference], model: bool) -> str:
    said = [
        (d.model if model else d.parser)
        or _UNREAD.get(d.slot, f"the default {d.slot.replace('_', ' ')}")
        for d in diffs
    ]
    return " and ".join([", ".join(said[:-1]), said[-1]] if len(said) > 2 else said)


def difference_line(
    diffs: Sequence[Difference], parser_verdict: str | None, parser_question: str | None = None
) -> str:
    """'Read as 40 concurrent users; the built-in parser read 1,000 concurrent users — its
    verdict: 8× MI325X, 30.40 USD per hour.': how the reading the verdict follows (the model's)
    differs from the parser's, and the parser's verdict in one line (issue 28)."""
    line = f"Read as {_sides(diffs, True)}; the built-in parser read {_sides(diffs, False)}"
    if parser_verdict:
        line += f" — its verdict: {parser_verdict}"
    elif parser_question:
        line += f" and asked: {parser_question}"
    return f"**{line.rstrip('.')}.**"


def reading_lead(reading: Reading) -> list[str]:
    """The lines a verdict opens with: what was not read that could change it, the 'Read as'
    line (stated on the verdict card too), what gpu-sizer cannot answer — each block followed
    by a blank line."""
    lead: list[str] = []
    if reading.unread_that_matters:
        lead += [not_read_line(reading.unread_that_matters), ""]
    lead += [CardLine(read_as_line(reading)), ""]
    if reading.out_of_scope:
        lead += [*out_of_scope_lines(reading), ""]
    return lead
