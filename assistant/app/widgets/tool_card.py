"""A collapsible card for one tool call: its inputs, then a compact results table and memory bars.

Created when the engine announces the call (`ToolCallStarted`), completed by its `ToolResult`,
and rebuilt the same way from a saved session's `tool_calls` / `tool` messages.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel
from rich.table import Table
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import Collapsible, Static

from assistant.app.results import ResultTable, card_view, summarize_arguments
from assistant.app.widgets.literal import LiteralCollapsible
from assistant.app.widgets.memory_bar import MemoryBar

STATUS_ICONS = {"running": "⋯", "done": "✓", "error": "✗"}


def inputs_text(arguments: dict[str, Any]) -> Text:
    """The call's inputs, one `name: value` per line."""
    text = Text()
    for index, (key, value) in enumerate(arguments.items()):
        text.append(f"{key}: ", style="bold")
        text.append(str(value) + ("\n" if index < len(arguments) - 1 else ""))
    return text


def rich_table(table: ResultTable) -> Table:
    """The compact results table as a Rich table (no box lines: saves width at 80 columns)."""
    rendered = Table(box=None, padding=(0, 1), show_edge=False, header_style="bold")
    for column in table.columns:
        rendered.add_column(column, overflow="fold")
    for row in table.rows:
        # Text, not str: a str cell is parsed as markup ('[/]' raises, '[@click]' acts).
        rendered.add_row(*(Text(cell) for cell in row))
    return rendered


class ToolCard(LiteralCollapsible):
    """One tool call. `c` copies its results table (Markdown) to the clipboard."""

    DEFAULT_CSS = """
    ToolCard {
        margin: 1 0 0 0;
        padding: 0;
        border-top: none;
        border-left: thick $secondary;
        background: $surface;
    }
    ToolCard.error { border-left: thick $error; }
    ToolCard Contents { padding: 0 0 0 1; }
    ToolCard .inputs { color: $text-muted; }
    ToolCard .results { margin-top: 1; }
    ToolCard .warning { color: $warning; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "copy_table", "Copy table", id="card.copy_table")
    ]

    def __init__(
        self,
        call_id: str,
        name: str,
        arguments: dict[str, Any],
        *,
        collapsed: bool = False,
    ) -> None:
        self.call_id = call_id
        self.tool_name = name
        self.arguments = arguments
        self.status = "running"
        self.table: ResultTable | None = None
        super().__init__(
            Static(inputs_text(arguments), classes="inputs"),
            title=self._card_title(),
            collapsed=collapsed,
        )

    def _card_title(self) -> str:
        summary = summarize_arguments(self.arguments)
        return f"{STATUS_ICONS[self.status]} {self.tool_name}({summary})"

    async def set_result(self, value: BaseModel, is_error: bool = False) -> None:
        """Show the tool's typed result: error text, or the compact table and memory bars."""
        view = card_view(value)
        is_error = is_error or view.error is not None
        self.status = "error" if is_error else "done"
        self.title = self._card_title()
        contents = self.query_one(Collapsible.Contents)
        if is_error:
            self.add_class("error")
            text = Text(f"error: {view.error or 'the tool failed'}", style="red")
            await contents.mount(Static(text, classes="results"))
            return
        self.table = view.table
        widgets: list[Static | MemoryBar] = []
        if view.notice:
            widgets.append(Static(Text(view.notice), classes="warning"))
        widgets.extend(Static(Text(line), classes="results") for line in view.lines)
        if self.table.rows:
            widgets.append(Static(rich_table(self.table), classes="results"))
        widgets.extend(Static(Text(f"⚠ {warning}"), classes="warning") for warning in view.warnings)
        widgets.extend(MemoryBar(bar) for bar in view.bars)
        if widgets:
            await contents.mount_all(widgets)

    def action_copy_table(self) -> None:
        if self.table is None or not self.table.rows:
            self.notify("This card has no results table to copy.", severity="warning")
            return
        self.app.copy_to_clipboard(self.table.to_markdown())
        self.notify("Results table copied to the clipboard (Markdown).")
