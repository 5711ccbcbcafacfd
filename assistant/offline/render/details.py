"""The fold for the tools' own assumptions (model config sources, format formulas, overhead
constants, efficiency sources): they trace every figure but are not what a reader checks first,
so `render_answer` puts them last under one exact heading (`details_title`) that the CLI and the
app fold on (`split_details`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

DETAILS_TOPIC = "model sources, formulas, constants"
"""What the folded assumptions are, as the fold's title says it."""


_DETAILS_HEADING = re.compile(
    rf"^\*\*(?P<title>(?P<count>\d+) more assumptions? \({re.escape(DETAILS_TOPIC)}\))\*\*$",
    re.MULTILINE,
)


def details_title(count: int) -> str:
    """The fold's heading text: '14 more assumptions (model sources, formulas, constants)'."""
    noun = "assumption" if count == 1 else "assumptions"
    return f"{count} more {noun} ({DETAILS_TOPIC})"


@dataclass(frozen=True)
class FoldedAnswer:
    """An answer split for display. `visible` is always a prefix of the full text, so a
    stream can show it as it grows; `details` is the folded Markdown ('' when none)."""

    visible: str
    title: str | None = None
    details: str = ""
    count: int = 0


def split_details(text: str) -> FoldedAnswer:
    """Split off the folded assumptions `render_answer` puts last.

    Only the exact heading `details_title` produces, starting a paragraph and followed by
    nothing but bullet lines to the end, is split on: any other text (an LLM's answer, which
    may well have its own "Assumptions" section) comes back whole in `visible`. A partial
    answer whose tail is that heading with some of its bullets is split too (streaming).
    """
    for match in _DETAILS_HEADING.finditer(text):
        before, after = text[: match.start()], text[match.end() :]
        if before and not before.endswith("\n\n"):
            continue
        lines = after.splitlines()
        if all(not line.strip() or line.startswith("- ") for line in lines):
            details = after.strip("\n")
            return FoldedAnswer(
                visible=before,
                title=match.group("title"),
                details=details + "\n" if details else "",
                count=int(match.group("count")),
            )
    return FoldedAnswer(visible=text)
