"""One turn of the chat: the question, the answer, its charts, then "How this was computed".

```
TurnView
├── UserMessage          the question, as sent
├── AssistantMessage…    the answer segments (streamed), notices in order
├── Vertical.figures     charts drawn from the turn's results (cost comparisons)
└── ComputedSection      "How this was computed": one collapsed ToolCard per call
```

The presenter (`turn.TurnPresenter`) and a reopened session fill it through the same methods,
so a live turn and a restored one look the same. Widgets only: no figure is computed here.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from assistant.app.results import TableUnit, cost_charts
from assistant.app.widgets.bar_chart import BarChartView
from assistant.app.widgets.message import AssistantMessage, NoticeLine, UserMessage
from assistant.app.widgets.tool_card import ToolCard

COMPUTED_TITLE = "How this was computed"


class ComputedSection(Vertical):
    """The turn's tool calls, one line each (Enter or a click expands a card)."""

    DEFAULT_CSS = """
    ComputedSection { height: auto; margin: 1 0 0 0; display: none; }
    ComputedSection.-has-cards { display: block; }
    ComputedSection > .computed-title { color: $text-muted; text-style: bold; }
    """

    def compose(self) -> ComposeResult:
        yield Static(Text(COMPUTED_TITLE), classes="computed-title")

    def update_title(self) -> None:
        cards = len(self.query_children(ToolCard))
        noun = "tool call" if cards == 1 else "tool calls"
        self.query_one(".computed-title", Static).update(
            Text(f"{COMPUTED_TITLE} · {cards} {noun} · Ctrl+D opens all")
        )


class TurnView(Vertical):
    """The widgets of one turn, in reading order (see the module docstring)."""

    DEFAULT_CSS = """
    TurnView { height: auto; }
    TurnView > .figures { height: auto; }
    TurnView > .figures > BarChartView { padding: 0 1; }
    """

    def __init__(self, question: str | None, unit: TableUnit = "GiB") -> None:
        super().__init__()
        self.question = question
        self.unit = unit

    def compose(self) -> ComposeResult:
        if self.question is not None:
            yield UserMessage(self.question)
        yield Vertical(classes="figures")
        yield ComputedSection()

    @property
    def figures(self) -> Vertical:
        return self.query_one(".figures", Vertical)

    @property
    def computed(self) -> ComputedSection:
        return self.query_one(ComputedSection)

    async def new_answer(self, text: str = "", verdict: bool = False) -> AssistantMessage:
        """An answer segment, after the earlier ones, above the charts and the tool calls;
        `verdict`: the tools' verdict an LLM answer leads with (marked as such)."""
        widget = AssistantMessage(text)
        if verdict:
            widget.add_class("verdict")
        await self.mount(widget, before=self.figures)
        return widget

    async def add_notice(self, message: str, level: str = "info") -> NoticeLine:
        widget = NoticeLine(message, level)
        await self.mount(widget, before=self.figures)
        return widget

    async def add_tool_card(
        self, call_id: str, name: str, arguments: dict[str, Any], collapsed: bool = True
    ) -> ToolCard:
        card = ToolCard(call_id, name, arguments, collapsed=collapsed, unit=self.unit)
        section = self.computed
        await section.mount(card)
        section.add_class("-has-cards")
        section.update_title()
        return card

    def card(self, call_id: str) -> ToolCard | None:
        for card in self.query(ToolCard):
            if card.call_id == call_id:
                return card
        return None

    async def set_result(
        self, card: ToolCard, result: dict[str, Any], is_error: bool = False
    ) -> None:
        """Complete `card` and draw the turn's charts from its result (under the answer)."""
        await card.set_result(result, is_error=is_error)
        if not is_error:
            charts = [BarChartView(chart) for chart in cost_charts(result)]
            if charts:
                await self.figures.remove_children()
                await self.figures.mount_all(charts)
