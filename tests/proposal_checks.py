"""What a proposal's first page must be (issue 14): shared by the proposal tests.

`page_one_problems(markdown)` lists what is wrong with page one — over `PAGE_ONE_MAX_LINES`
Markdown lines (title and blank lines included), a required section missing or empty — so a
test asserts it is empty, and another that it catches a long or incomplete page.
"""

from __future__ import annotations

import re

from assistant.proposal import PAGE_ONE_MAX_LINES
from assistant.proposal.markdown import PAGE_BREAK
from assistant.proposal.page_one import (
    ALTERNATIVE,
    JOB_COST,
    MAIN_RISK,
    MONTHLY_COST,
    READ_AS,
    RECOMMENDATION,
    WHY,
)

PAGE_ONE_MAX_CHARS = 6_000
"""About what one printed A4 page holds at 10 pt: a long line is not a way around the limit."""

ELEMENTS: tuple[tuple[str, ...], ...] = (
    (RECOMMENDATION,),
    (WHY,),
    (MONTHLY_COST, JOB_COST),
    (MAIN_RISK,),
    (ALTERNATIVE,),
    (READ_AS,),
)
"""Page one's sections, in order (either heading of a group: serving or training cost)."""


def page_one(markdown: str) -> str:
    """The Markdown before the first page break."""
    return markdown.split(f"\n{PAGE_BREAK}\n", 1)[0]


def section(text: str, title: str) -> str:
    """The body of the `## title` section of `text` ('' when absent)."""
    match = re.search(rf"\n## {re.escape(title)}\n(.*?)(?=\n## |\Z)", text, flags=re.S)
    return "" if match is None else match.group(1).strip()


def page_one_problems(markdown: str) -> list[str]:
    """What is wrong with the document's first page (empty: nothing)."""
    first = page_one(markdown)
    problems: list[str] = []
    lines = first.count("\n") + 1
    if lines > PAGE_ONE_MAX_LINES:
        problems.append(f"page one has {lines} lines (at most {PAGE_ONE_MAX_LINES})")
    if len(first) > PAGE_ONE_MAX_CHARS:
        problems.append(f"page one has {len(first)} characters (at most {PAGE_ONE_MAX_CHARS})")
    headings = re.findall(r"^## (.+)$", first, flags=re.M)
    found = [next((t for t in group if t in headings), None) for group in ELEMENTS]
    for group, title in zip(ELEMENTS, found, strict=True):
        if title is None:
            problems.append(f"page one lacks {' / '.join(group)}")
        elif not section(first, title):
            problems.append(f"page one's {title} is empty")
    present = [t for t in found if t is not None]
    if [h for h in headings if h in present] != present:
        problems.append(f"page one's sections are out of order: {headings}")
    return problems
