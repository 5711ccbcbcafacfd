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
from textual import events
from textual.geometry import Size
from textual.widget import Widget

from assistant.app.results import ResultTable

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


class ResultTableView(Widget):
    """The results table, redrawn to its width."""

    DEFAULT_CSS = """
    ResultTableView { height: auto; }
    """

    def __init__(self, table: ResultTable, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self.table = table

    def _renderable(self, width: int) -> RenderableType:
        return rich_table(self.table, width)

    def render(self) -> RenderableType:
        return self._renderable(self.size.width or 80)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        # Measured at the width being laid out (not the last one drawn), so the first layout
        # is already right and no later pass changes the log's height.
        options = self.app.console.options.update_width(max(1, width))
        return len(self.app.console.render_lines(self._renderable(width), options, pad=False))

    def on_resize(self, event: events.Resize) -> None:
        # Drawn for its width: a new width can change the height (columns, wrapped lines).
        self.refresh(layout=True)
