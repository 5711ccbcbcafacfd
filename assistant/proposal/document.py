"""A renderer-neutral proposal document: headings, paragraphs, bullet lists and tables.

The sections are built once as these blocks (`assistant/proposal/sections.py`) and rendered to
Markdown or HTML, so both formats always carry the same figures in the same order. Text is plain
(no markup): each renderer escapes it for its own format.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Heading:
    """A section heading; `level` 1 is the title, 2 a numbered section, 3 a subsection."""

    text: str
    level: int = 2


@dataclass(frozen=True)
class Paragraph:
    """Plain text. `note` marks a call-out (the LLM-summary label, unverified figures)."""

    text: str
    note: bool = False


@dataclass(frozen=True)
class BulletList:
    """Bullet points of plain text."""

    items: tuple[str, ...]


@dataclass(frozen=True)
class Table:
    """A table of plain-text cells; `numeric` holds the indexes of right-aligned columns."""

    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    numeric: frozenset[int] = field(default_factory=frozenset)


Block = Heading | Paragraph | BulletList | Table


@dataclass(frozen=True)
class Document:
    """The whole proposal: a title, then blocks in reading order."""

    title: str
    blocks: tuple[Block, ...]
