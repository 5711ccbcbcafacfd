"""The proposal as Markdown (GitHub-flavoured tables), from a `Document`.

Cell and paragraph text is escaped so a `|` or `*` quoted from a tool result cannot break a
table or start emphasis; a bold lead is the only emphasis, written here. A page break is a
thematic break (`---`). Output ends with exactly one newline; the same document always gives
the same bytes.
"""

from __future__ import annotations

import re

from assistant.proposal.document import (
    Block,
    BulletList,
    Document,
    Heading,
    Item,
    PageBreak,
    Paragraph,
    Table,
)

_SPECIAL = re.compile(r"([\\`*_\[\]<>|])")

PAGE_BREAK = "---"
"""How a page break is written: the Markdown thematic break."""


def escape(text: str) -> str:
    """Backslash-escape Markdown's inline specials; newlines become spaces (one cell, one line)."""
    return _SPECIAL.sub(r"\\\1", " ".join(text.split()))


def _led(text: str, lead: str) -> str:
    body = escape(text)
    if not lead:
        return body
    return f"**{escape(lead)}** {body}".rstrip()


def _item(item: str | Item) -> str:
    return f"- {escape(item)}" if isinstance(item, str) else f"- {_led(item.text, item.lead)}"


def _block(block: Block) -> str:
    if isinstance(block, Heading):
        return f"{'#' * block.level} {escape(block.text)}"
    if isinstance(block, Paragraph):
        text = _led(block.text, block.lead)
        return f"> {text}" if block.note else text
    if isinstance(block, BulletList):
        return "\n".join(_item(item) for item in block.items)
    if isinstance(block, PageBreak):
        return PAGE_BREAK
    return _table(block)


def _table(table: Table) -> str:
    head = "| " + " | ".join(escape(h) for h in table.headers) + " |"
    rule = (
        "|"
        + "|".join("---:" if i in table.numeric else "---" for i in range(len(table.headers)))
        + "|"
    )
    body = ["| " + " | ".join(escape(cell) for cell in row) + " |" for row in table.rows]
    return "\n".join([head, rule, *body])


def render_blocks(blocks: tuple[Block, ...]) -> str:
    """Blocks as Markdown, separated by blank lines (no trailing newline)."""
    return "\n\n".join(_block(b) for b in blocks)


def render_markdown(document: Document) -> str:
    """The whole document as Markdown text."""
    return f"# {escape(document.title)}\n\n" + render_blocks(document.blocks) + "\n"
