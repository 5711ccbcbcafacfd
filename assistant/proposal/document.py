"""A renderer-neutral proposal document: headings, paragraphs, bullet lists, tables, page breaks.

The proposal is built once as these blocks (`page_one.py`, `tables.py`, `appendix.py`) and
rendered to Markdown or HTML, so both formats carry the same figures in the same order. Text is
plain (no markup): each renderer escapes it for its own format; a `lead` is shown in bold before
the text. The document has three parts separated by `PageBreak`s: page one (the decision), the
tables, the appendix.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Heading:
    """A section heading; `level` 1 is the title, 2 a section, 3 a subsection."""

    text: str
    level: int = 2


@dataclass(frozen=True)
class Paragraph:
    """Plain text after an optional bold `lead`. `note` marks a call-out (the LLM-summary
    label, what could not be shown)."""

    text: str
    note: bool = False
    lead: str = ""


@dataclass(frozen=True)
class Item:
    """One bullet: plain text after an optional bold `lead`."""

    text: str
    lead: str = ""


@dataclass(frozen=True)
class BulletList:
    """Bullet points (plain strings or `Item`s with a bold lead)."""

    items: tuple[str | Item, ...]


@dataclass(frozen=True)
class Table:
    """A table of plain-text cells; `numeric` holds the indexes of right-aligned columns."""

    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    numeric: frozenset[int] = field(default_factory=frozenset)


@dataclass(frozen=True)
class PageBreak:
    """The end of a part: a new printed page (HTML), a thematic break (Markdown)."""


Block = Heading | Paragraph | BulletList | Table | PageBreak


@dataclass(frozen=True)
class Document:
    """The whole proposal: a title, then blocks in reading order."""

    title: str
    blocks: tuple[Block, ...]

    @property
    def page_one(self) -> tuple[Block, ...]:
        """The blocks before the first page break: the decision a manager reads first."""
        for index, block in enumerate(self.blocks):
            if isinstance(block, PageBreak):
                return self.blocks[:index]
        return self.blocks


def sectioned(sections: list[tuple[str, list[Block]]], level: int = 2) -> list[Block]:
    """Each (title, blocks) as a heading of `level` followed by its blocks, in order."""
    out: list[Block] = []
    for title, blocks in sections:
        out.append(Heading(title, level))
        out.extend(blocks)
    return out
