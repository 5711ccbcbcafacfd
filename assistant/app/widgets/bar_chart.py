"""A horizontal bar chart drawn with block characters: options side by side on one scale.

Rich text rather than a plotting library: it renders the same in a terminal, in snapshot SVGs
and in an 80-column window (labels are cut and bars shrink to the width given). The bars are
drawn from the tool's figures; each value printed is the tool's, as `BarChart` carries it.
"""

from __future__ import annotations

from rich.text import Text

from assistant.app.results import BarChart
from assistant.app.widgets.width_drawn import WidthDrawn

BAR_STYLE = "#4e79a7"
LABEL_MAX = 18
DETAIL_MAX = 14
MIN_BAR = 4


def render_chart(chart: BarChart, width: int) -> Text:
    """The title, then one line per bar: label, bar to scale, value (and a detail)."""
    text = Text(chart.title, style="bold")
    if not chart.bars:
        return text
    label_width = min(LABEL_MAX, max(len(bar.label) for bar in chart.bars))
    value_width = max(len(bar.shown) for bar in chart.bars)
    detail_width = min(DETAIL_MAX, max(len(bar.detail) for bar in chart.bars))
    # Details go first when the window is narrow: label, bar and value always stay.
    if width - label_width - value_width - detail_width - 4 < MIN_BAR * 2:
        detail_width = 0
    bar_width = max(MIN_BAR, width - label_width - value_width - detail_width - 4)
    top = max(bar.value for bar in chart.bars) or 1.0
    for bar in chart.bars:
        cells = max(1, round(bar.value / top * bar_width)) if bar.value > 0 else 0
        text.append("\n")
        text.append(f"{bar.label[:label_width]:<{label_width}} ")
        text.append("█" * cells, style=BAR_STYLE)
        text.append(" " * (bar_width - cells + 1))
        text.append(f"{bar.shown:>{value_width}}", style="bold")
        if detail_width:
            text.append(f" {bar.detail[:detail_width]}", style="dim")
    return text


class BarChartView(WidthDrawn):
    """One chart; redraws to the width it is given."""

    DEFAULT_CSS = """
    BarChartView { height: auto; margin: 1 0 0 0; }
    """

    def __init__(self, chart: BarChart) -> None:
        super().__init__()
        self.chart = chart

    def _renderable(self, width: int) -> Text:
        return render_chart(self.chart, width)
