"""Markdown for a terminal (Rich), with tables that never lose a word.

Rich's own Markdown table squeezes a table wider than the terminal until its cells end in '…'
(what was cut is gone). Here a table is laid out like the CLI's own tables
(`_output.column_widths`: every header word and short cell whole); when even that is too wide
for the terminal, it is shown as records instead — one block per row, each column as a
'header  value' line — the way `psql`'s expanded display does. Nothing is cut either way.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich import box
from rich.markdown import Markdown, TableElement
from rich.table import Table as RichTable
from rich.text import Text

from assistant.render.output import COLUMN_GAP, Column, Table, column_widths


class FittedTable(TableElement):
    """A Markdown table laid out to the width, or as records when it cannot fit."""

    def __rich_console__(self, console: Any, options: Any) -> Any:
        headers = (
            [c.content for c in self.header.row.cells] if self.header and self.header.row else []
        )
        rows = [[c.content for c in row.cells] for row in self.body.rows] if self.body else []
        width = options.max_width
        plain = Table(
            [Column(h.plain, numeric=False) for h in headers],
            [[cell.plain for cell in row] + [""] * (len(headers) - len(row)) for row in rows],
        )
        widths = column_widths(plain, range(len(headers)), width) if headers else None
        if widths is not None or not headers:
            table = RichTable(
                box=box.SIMPLE_HEAD,
                show_edge=False,
                pad_edge=False,
                padding=(0, COLUMN_GAP - 1, 0, 0),
                style="markdown.table.border",
            )
            for n, heading in enumerate(headers):
                shown = heading.copy()
                shown.stylize("markdown.table.header")
                table.add_column(
                    shown, width=None if widths is None else widths[n], overflow="fold"
                )
            for row in rows:
                table.add_row(*row)
            yield table
            return
        yield from self._records(headers, rows, width)

    def _records(self, headers: list[Text], rows: list[list[Text]], width: int) -> Any:
        label_width = min(max(len(h.plain) for h in headers), max(8, width // 3))
        for number, row in enumerate(rows, start=1):
            title = Text(f"[{number}] ", style="bold")
            title.append_text(row[0] if row else Text(""))
            yield title
            grid = RichTable.grid(padding=(0, COLUMN_GAP, 0, 0))
            grid.add_column(width=COLUMN_GAP - 1)
            grid.add_column(width=label_width, style="markdown.table.header", overflow="fold")
            grid.add_column(overflow="fold")
            for heading, cell in zip(headers[1:], row[1:], strict=False):
                grid.add_row("", heading.copy(), cell)
            yield grid


class TerminalMarkdown(Markdown):
    """Rich Markdown with `FittedTable` for tables, links shown as text (no OSC 8), and a line
    break kept as a line break — as the chat shows an answer (`app/widgets/message.py`): its
    verdict lines read one per line, not run into a paragraph."""

    elements: ClassVar[dict[str, type[Any]]] = {**Markdown.elements, "table_open": FittedTable}

    def __init__(self, markup: str, **kw: Any) -> None:
        kw.setdefault("hyperlinks", False)
        super().__init__(markup, **kw)
        for token in self.parsed:
            for child in token.children or ():
                if child.type == "softbreak":
                    child.type = "hardbreak"
