"""A card for one tool call: one line saying what was computed, expandable to its inputs,
a labelled results table, the tool's warnings and memory bars (a cost comparison's charts and
a sizing report's verdict lead the turn instead: `TurnView`).

Created when the engine announces the call (`ToolCallStarted`), completed by its typed
`ToolResult`, and rebuilt the same way from a saved session's `tool_calls` / `tool` messages.
Cards start collapsed: the title line (`call_summary`) is the card's default view; the table
and bars are drawn when the card is first opened.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel
from rich.text import Text
from textual import on
from textual.binding import Binding, BindingType
from textual.widget import Widget
from textual.widgets import Collapsible, Static

from assistant.app.call_summary import call_summary
from assistant.app.labels import field_label
from assistant.app.results import CardView, ResultTable, TableUnit, card_view
from assistant.app.widgets.literal import LiteralCollapsible
from assistant.app.widgets.memory_bar import MemoryBar
from assistant.app.widgets.result_table import ResultTableView

STATUS_ICONS = {"running": "⋯", "done": "✓", "error": "✗"}


def _input_value(value: Any) -> str:
    if isinstance(value, dict):
        return "; ".join(f"{field_label(k)}: {_input_value(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(_input_value(v) for v in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def inputs_text(arguments: dict[str, Any]) -> Text:
    """The call's inputs, one labelled `name: value` per line."""
    text = Text()
    for index, (key, value) in enumerate(arguments.items()):
        text.append(f"{field_label(key)}: ", style="bold")
        text.append(_input_value(value) + ("\n" if index < len(arguments) - 1 else ""))
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
    ToolCard.part { margin-left: 2; }
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
        classes: str | None = None,
    ) -> None:
        self.call_id = call_id
        self.tool_name = name
        self.arguments = arguments
        self.unit = unit
        self.status = "running"
        self.value: BaseModel | None = None
        self.view: CardView | None = None
        self.table: ResultTable | None = None
        self._drawn = False
        super().__init__(
            Static(inputs_text(arguments), classes="inputs"),
            title=self._card_title(),
            collapsed=collapsed,
            classes=classes,
        )

    def _card_title(self) -> str:
        error = None if self.view is None else self.view.error
        summary = call_summary(self.tool_name, self.arguments, self.value, self.unit, error)
        return f"{STATUS_ICONS[self.status]} {summary}"

    async def set_result(self, value: BaseModel, is_error: bool = False) -> None:
        """Take the tool's typed result: the title says what came out; the table and bars
        are drawn when the card is opened."""
        self.view = card_view(value, self.unit)
        is_error = is_error or self.view.error is not None
        if is_error and self.view.error is None:
            self.view = CardView(error="the tool failed")
        self.status = "error" if is_error else "done"
        self.value = value
        self.table = self.view.table
        self.title = self._card_title()
        if is_error:
            self.add_class("error")
        if not self.collapsed:
            await self._draw_result()

    @on(Collapsible.Expanded)
    async def _on_expanded(self, event: Collapsible.Expanded) -> None:
        # Drawn when first opened: a turn of collapsed cards (a reopened long session, a
        # price list of 80 rows) mounts one line each.
        if event.collapsible is self:
            await self._draw_result()

    async def _draw_result(self) -> None:
        view = self.view
        if self._drawn or view is None:
            return
        self._drawn = True
        widgets: list[Widget] = []
        if view.error is not None:
            widgets.append(Static(Text(f"error: {view.error}", style="red"), classes="results"))
        if view.notice:
            widgets.append(Static(Text(view.notice), classes="warning"))
        widgets.extend(Static(Text(line), classes="results") for line in view.lines)
        if view.table.rows:
            widgets.append(ResultTableView(view.table, classes="results"))
        widgets.extend(Static(Text(f"⚠ {warning}"), classes="warning") for warning in view.warnings)
        widgets.extend(MemoryBar(bar, self.unit) for bar in view.bars)
        if widgets:
            await self.query_one(Collapsible.Contents).mount_all(widgets)

    def action_copy_table(self) -> None:
        if self.table is None or not self.table.rows:
            self.notify("This card has no results table to copy.", severity="warning")
            return
        self.app.copy_to_clipboard(self.table.to_markdown())
        self.notify("Results table copied to the clipboard (Markdown).")
