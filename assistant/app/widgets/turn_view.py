"""One turn of the chat: the question, the verdict, the answer, its charts, then "How this was
computed".

```
TurnView
├── UserMessage          the question, as sent
├── Vertical.lead        the VerdictCard of a sizing report: verdict lines, memory bars
├── AssistantMessage…    the answer segments (streamed: the explanation)
├── Vertical.notices     what the app or engine says about the turn (an endpoint that ignored
│                        tools, a stopped stream, an error): under the answer, never inside it
├── Vertical.figures     charts drawn from the turn's results: cost per configuration, the
│                        latency-vs-users curve of the configuration that works
└── ComputedSection      "How this was computed": one collapsed ToolCard per call, and one
                         per part of a sizing report (memory, GPU options, cost) under it
```

The presenter (`turn.TurnPresenter`) and a reopened session fill it through the same methods,
so a live turn and a restored one look the same. Widgets only: no figure is computed here.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from assistant.app.call_summary import part_name
from assistant.app.results import TableUnit, cost_charts, latency_charts
from assistant.app.verdict import charted_option, verdict_bars, verdict_lines
from assistant.app.widgets.bar_chart import BarChartView
from assistant.app.widgets.message import AssistantMessage, NoticeLine, UserMessage
from assistant.app.widgets.tool_card import ToolCard
from assistant.app.widgets.verdict_card import VerdictCard
from assistant.app.workloads import workload_results
from tools.cost import CostComparison, ServingCostResult
from tools.sizing import SizingReport


def report_parts(report: SizingReport) -> list[BaseModel]:
    """The results a sizing report is made of, in the order the tools ran (each gets a line
    under its `size` call): memory per configuration, the recommender, the costs, then the
    follow-ups."""
    parts: list[BaseModel] = [m.estimate for m in report.memory if m.estimate is not None]
    if report.recommendation is not None:
        parts.append(report.recommendation)
    if report.costs is not None:
        parts.append(report.costs)
    parts += [z.estimate for z in report.zero3_resize if z.estimate is not None]
    if report.scale_out is not None and report.scale_out.recommendation is not None:
        parts.append(report.scale_out.recommendation)
    parts += [f.estimate for f in report.lower_formats if f.estimate is not None]
    if report.layout_breakdown is not None and report.layout_breakdown.estimate is not None:
        parts.append(report.layout_breakdown.estimate)
    parts += workload_results(report)  # issue 30 items 1-4
    return parts


def serving_costs(value: BaseModel) -> ServingCostResult | None:
    """The serving price rows a result holds, if any."""
    if isinstance(value, SizingReport):
        value = value.costs if value.costs is not None else value
    if isinstance(value, CostComparison):
        return value.serving
    return value if isinstance(value, ServingCostResult) else None


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
    TurnView > .lead { height: auto; }
    TurnView > .notices { height: auto; }
    TurnView > .figures > BarChartView { padding: 0 1; }
    """

    def __init__(self, question: str | None, unit: TableUnit = "GiB") -> None:
        super().__init__()
        self.question = question
        self.unit = unit
        # How the question was read ('Read as: …'), shown atop the verdict card.
        self.reading_line: str | None = None

    def compose(self) -> ComposeResult:
        if self.question is not None:
            yield UserMessage(self.question)
        yield Vertical(classes="lead")
        yield Vertical(classes="notices")
        yield Vertical(classes="figures")
        yield ComputedSection()

    @property
    def lead(self) -> Vertical:
        return self.query_one(".lead", Vertical)

    @property
    def verdict(self) -> VerdictCard | None:
        found = self.lead.query_children(VerdictCard)
        return found.first() if found else None

    @property
    def figures(self) -> Vertical:
        return self.query_one(".figures", Vertical)

    @property
    def notices(self) -> Vertical:
        return self.query_one(".notices", Vertical)

    @property
    def computed(self) -> ComputedSection:
        return self.query_one(ComputedSection)

    async def new_answer(self, text: str = "", verdict: bool = False) -> AssistantMessage:
        """An answer segment, after the earlier ones, above the notices, charts and tool calls;
        `verdict`: the tools' verdict an LLM answer leads with (marked as such)."""
        widget = AssistantMessage(text)
        if verdict:
            widget.add_class("verdict")
        await self.mount(widget, before=self.notices)
        return widget

    async def add_notice(self, message: str, level: str = "info") -> NoticeLine:
        """A notice about the turn, under its answer (in the order they came)."""
        widget = NoticeLine(message, level)
        await self.notices.mount(widget)
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

    async def set_result(self, card: ToolCard, value: BaseModel, is_error: bool = False) -> None:
        """Complete `card`; a sizing report also leads the turn with its verdict card and
        lists its parts under the card; a cost comparison draws its charts."""
        await card.set_result(value, is_error=is_error)
        if is_error:
            return
        if isinstance(value, SizingReport):
            lines = verdict_lines(value, self.unit)
            if lines:
                await self.lead.remove_children()
                card_view = VerdictCard(lines, verdict_bars(value), self.unit, self.reading_line)
                await self.lead.mount(card_view)
            parts = [
                ToolCard(f"{card.call_id}.{index}", part_name(part), {}, unit=self.unit,
                         classes="part")
                for index, part in enumerate(report_parts(value))
            ]  # fmt: skip
            if parts:
                # Each part's result is set before it is mounted, so its title is measured once,
                # with its summary: a title changed just after mounting kept the height of the
                # one-line 'running…' title where the summary needed two (clipped).
                for part_card, part in zip(parts, report_parts(value), strict=True):
                    await part_card.set_result(part)
                await self.computed.mount_all(parts, after=card)
                self.computed.update_title()
        charts = [BarChartView(chart) for chart in cost_charts(serving_costs(value))]
        if isinstance(value, SizingReport):
            option = charted_option(value)
            charts += [BarChartView(c) for c in latency_charts(option, value.users_stated)]
        if charts:
            await self.figures.remove_children()
            await self.figures.mount_all(charts)
