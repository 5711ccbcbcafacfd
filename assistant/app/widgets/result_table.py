"""A tool card's results table that fits the width it is given.

Columns are kept from the left (the first names the row) while they fit; the rest are dropped
with a note naming them, so an 80-column terminal shows a readable table instead of a folded
one. A field/value table never drops its value column: long values wrap. `c` on the card still
copies the full table.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from assistant.app.results import ResultTable
from assistant.app.widgets.width_drawn import WidthDrawn

CELL_PADDING = 2
"""Columns are separated by one space of padding on each side (`padding=(0, 1)`)."""


def fitting_columns(table: ResultTable, width: int) -> int:
    """How many columns, from the left, fit in `width` cells (at least the first, and both of
    a field/value table)."""
    if len(table.columns) <= 2:
        return len(table.columns)
    used = 0
    for index, column in enumerate(table.columns):
        natural = max([len(column), *(len(row[index]) for row in table.rows)])
        used += natural + CELL_PADDING
        if used > width and index > 0:
            return index
    return len(table.columns)


def rich_table(table: ResultTable, width: int | None = None) -> RenderableType:
    """The table as Rich renderables (no box lines: saves width at 80 columns), cut to the
    columns that fit `width`, with a note naming the others."""
    shown = len(table.columns) if width is None else fitting_columns(table, width)
    rendered = Table(box=None, padding=(0, 1), show_edge=False, header_style="bold")
    for column in table.columns[:shown]:
        rendered.add_column(column, overflow="fold")
    for row in table.rows:
        # Text, not str: a str cell is parsed as markup ('[/]' raises, '[@click]' acts).
        rendered.add_row(*(Text(cell) for cell in row[:shown]))
    hidden = table.columns[shown:]
    if not hidden:
        return rendered
    note = Text(
        f"{len(hidden)} more column{'s' if len(hidden) > 1 else ''} in a wider window: "
        f"{', '.join(hidden)} (c copies the whole table)",
        style="dim italic",
    )
    return Group(rendered, note)


class ResultTableView(WidthDrawn):
    """The results table, redrawn to its width."""

    DEFAULT_CSS = """
    ResultTableView { height: auto; }
    """

    def __init__(self, table: ResultTable, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self.table = table

    def _renderable(self, width: int) -> RenderableType:
        return rich_table(self.table, width)
