"""What an answer shows by default and what it folds: the lead always, then the other sections
by importance while the answer still fits one screen (`SCREEN_LINES`), everything else folded
under one title naming what is in it (issue 18, class 11).

Sections are data (`assistant.answer.AnswerSection`); nothing here reads answer text back.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from assistant.answer import Answer, AnswerSection

SCREEN_LINES = 25
"""Lines a default answer may take: one terminal screen (a 24-30 line window less the prompt)."""

WRAP_COLUMNS = 100
"""Columns a line is counted at: a longer prose line takes more than one screen line (table
rows are drawn one per line, their cells wrapped within)."""

DETAILS_TOPIC = "model sources, formulas, constants"
"""What the tools' own assumptions are, as the fold's title says it."""


@dataclass(frozen=True)
class Part:
    """A section of the answer being built: its importance (`rank`, 0 = the lead, always
    shown; lower shows first) and the short name the fold's title gives it (`topic`)."""

    section: AnswerSection
    rank: int
    topic: str


def screen_lines(section: AnswerSection) -> int:
    """Lines `section` takes on a screen `WRAP_COLUMNS` wide (title and table gap included)."""
    if not section.lines:
        return 0
    lines = 0 if section.title is None else 1
    if section.title is not None and section.lines[0].startswith("|"):
        lines += 1
    for line in section.lines:
        lines += 1 if line.startswith("|") else max(1, math.ceil(len(line) / WRAP_COLUMNS))
    return lines


def tool_assumptions_topic(count: int) -> str:
    """'23 tool assumptions (model sources, formulas, constants)'."""
    noun = "assumption" if count == 1 else "assumptions"
    return f"{count} tool {noun} ({DETAILS_TOPIC})"


def fold(parts: list[Part], budget: int = SCREEN_LINES) -> Answer:
    """The answer of `parts`: the lead (rank 0) and, by rank, each section that still fits the
    screen budget (a blank line between sections) shown in the order given; the others folded,
    also in order, under 'Details: <their topics>'. A section built folded stays folded."""
    kept = [p for p in parts if p.section.lines]
    shown: set[int] = set()
    used = 0
    for index, part in sorted(enumerate(kept), key=lambda pair: pair[1].rank):
        if part.section.folded:
            continue
        cost = screen_lines(part.section) + (1 if used else 0)
        if part.rank == 0 or used + cost <= budget:
            shown.add(index)
            used += cost
    sections = [p.section.model_copy(update={"folded": i not in shown}) for i, p in enumerate(kept)]
    topics = [p.topic for i, p in enumerate(kept) if i not in shown]
    title = "Details: " + ", ".join(dict.fromkeys(topics)) if topics else None
    return Answer.of(sections, title)
