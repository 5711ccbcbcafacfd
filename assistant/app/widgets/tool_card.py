"""A card for one tool call: one line saying what was computed, expandable to its inputs,
a labelled results table, the tool's warnings and memory bars (a cost comparison's charts lead
the turn instead: `TurnView.figures`).

Created when the engine announces the call (`ToolCallStarted`), completed by its `ToolResult`,
and rebuilt the same way from a saved session's `tool_calls` / `tool` messages. Cards start
collapsed: the title line (`call_summary`) is the card's default view.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.binding import Binding, BindingType
from textual.widget import Widget
from textual.widgets import Collapsible, Static

from assistant.app.call_summary import call_summary
from assistant.app.labels import field_label
from assistant.app.results import (
    ResultTable,
    TableUnit,
    format_value,
    memory_bars,
    result_table,
    result_warnings,
)
from assistant.app.widgets.literal import LiteralCollapsible
from assistant.app.widgets.memory_bar import MemoryBar
from assistant.app.widgets.result_table import ResultTableView

STATUS_ICONS = {"running": "⋯", "done": "✓", "error": "✗"}


def inputs_text(arguments: dict[str, Any], unit: TableUnit = "GiB") -> Text:
    """The call's inputs, one labelled `name: value` per line."""
    text = Text()
    for index, (key, value) in enumerate(arguments.items()):
        text.append(f"{field_label(key)}: ", style="bold")
        text.append(format_value(key, value, unit) + ("\n" if index < len(arguments) - 1 else ""))
    return text


class ToolCard(LiteralCollapsible):
    """One tool call. `c` copies its results table (Markdown) to the clipboard."""

    DEFAULT_CSS = """
    ToolCard {
        margin: 0;
        padding: 0;
        border-top: none;
        border-left: thick $secondary;
        background: $surface;
    }
    ToolCard.error { border-left: thick $error; }
    ToolCard Contents { padding: 0 0 0 1; }
    /* The summary line wraps in a narrow window instead of being cut. */
    ToolCard > CollapsibleTitle { width: 1fr; height: auto; }
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
        collapsed: bool = True,
        unit: TableUnit = "GiB",
    ) -> None:
        self.call_id = call_id
        self.tool_name = name
        self.arguments = arguments
        self.unit = unit
        self.status = "running"
        self.result: dict[str, Any] | None = None
        self.error: str | None = None
        self.table: ResultTable | None = None
        self._drawn = False
        super().__init__(
            Static(inputs_text(arguments, unit), classes="inputs"),
            title=self._card_title(),
            collapsed=collapsed,
        )

    def _card_title(self) -> str:
        summary = call_summary(self.tool_name, self.arguments, self.result, self.unit, self.error)
        return f"{STATUS_ICONS[self.status]} {summary}"

    async def set_result(self, result: dict[str, Any], is_error: bool = False) -> None:
        """Show the tool's result: error text, or the labelled table, bars and charts."""
        self.status = "error" if is_error else "done"
        contents = self.query_one(Collapsible.Contents)
        if is_error:
            self.add_class("error")
            message = result.get("error") or result.get("message") or result
            self.error = str(message)
            self.title = self._card_title()
            await contents.mount(Static(Text(f"error: {message}", style="red"), classes="results"))
            return
        self.result = result
        self.title = self._card_title()
        self.table = result_table(result, self.unit)
        if not self.collapsed:
            await self._draw_result()

    @on(Collapsible.Expanded)
    async def _on_expanded(self, event: Collapsible.Expanded) -> None:
        # A card's table and bars are drawn when it is first opened: a turn of collapsed
        # cards (a reopened long session, a price list of 80 rows) mounts one line each.
        if event.collapsible is self:
            await self._draw_result()

    async def _draw_result(self) -> None:
        if self._drawn or self.result is None or self.table is None:
            return
        self._drawn = True
        widgets: list[Widget] = []
        if self.table.rows:
            widgets.append(ResultTableView(self.table, classes="results"))
        widgets.extend(
            Static(Text(f"⚠ {warning}"), classes="warning")
            for warning in result_warnings(self.result)
        )
        widgets.extend(MemoryBar(bar, self.unit) for bar in memory_bars(self.result))
        if widgets:
            await self.query_one(Collapsible.Contents).mount_all(widgets)

    def action_copy_table(self) -> None:
        if self.table is None or not self.table.rows:
            self.notify("This card has no results table to copy.", severity="warning")
            return
        self.app.copy_to_clipboard(self.table.to_markdown())
        self.notify("Results table copied to the clipboard (Markdown).")
