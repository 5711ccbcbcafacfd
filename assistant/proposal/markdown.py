"""The proposal as Markdown (GitHub-flavoured tables), from a `Document`.

Cell and paragraph text is escaped so a `|` or `*` quoted from a tool result cannot break a
table or start emphasis. Output ends with exactly one newline; the same document always gives
the same bytes.
"""

from __future__ import annotations

import re

from assistant.proposal.document import Block, BulletList, Document, Heading, Paragraph, Table

_SPECIAL = re.compile(r"([\\`*_\[\]<>|])")


def escape(text: str) -> str:
    """Backslash-escape Markdown's inline specials; newlines become spaces (one cell, one line)."""
    return _SPECIAL.sub(r"\\\1", " ".join(text.split()))


def _block(block: Block) -> str:
    if isinstance(block, Heading):
        return f"{'#' * block.level} {escape(block.text)}"
    if isinstance(block, Paragraph):
        text = escape(block.text)
        return f"> {text}" if block.note else text
    if isinstance(block, BulletList):
        return "\n".join(f"- {escape(item)}" for item in block.items)
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


def render_markdown(document: Document) -> str:
    """The whole document as Markdown text."""
    parts = [f"# {escape(document.title)}"] + [_block(b) for b in document.blocks]
    return "\n\n".join(parts) + "\n"
