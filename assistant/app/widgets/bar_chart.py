"""A horizontal bar chart drawn with block characters: options side by side on one scale.

Rich text rather than a plotting library: it renders the same in a terminal, in snapshot SVGs
and in an 80-column window (labels are shortened — never to the same text for two bars — and
bars shrink to the width given). The bars are
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


def _shortened(label: str, width: int) -> str:
    """`label` in at most `width` cells: middle words left out first ('2× AMD … MI300X' keeps
    the count and the model that tell two bars apart; as many words kept as fit, the ending's
    first), then the middle characters."""
    if len(label) <= width:
        return label
    words = label.split(" ")
    best: tuple[int, int, str] | None = None
    for head in range(1, len(words) - 1):
        for tail in range(1, len(words) - head):
            short = " ".join([*words[:head], "…", *words[len(words) - tail :]])
            if len(short) <= width and (best is None or (head + tail, tail) > best[:2]):
                best = (head + tail, tail, short)
    if best is not None:
        return best[2]
    head_chars = max(1, (width - 1) // 2)
    tail_chars = max(0, width - 1 - head_chars)
    return label[:head_chars] + "…" + (label[-tail_chars:] if tail_chars else "")


def chart_labels(labels: list[str], width: int) -> list[str]:
    """The labels of one chart in at most `width` cells each, every one still distinct when
    the full labels are (cut at one width, '2× AMD Instinct MI300X' and '… MI325X' were
    both '2× AMD Instinct MI')."""
    short = [_shortened(label, width) for label in labels]
    if len(set(short)) < len(set(labels)):
        # Two kept the same words: cut in the middle, keeping each one's own ending.
        short = [
            label if len(label) <= width else label[: max(1, width // 3)] + "…" +
            label[-(width - 1 - max(1, width // 3)):]
            for label in labels
        ]  # fmt: skip
    return short


def render_chart(chart: BarChart, width: int) -> Text:
    """The title, then one line per bar: label, bar to scale, value (and a detail)."""
    text = Text(chart.title, style="bold")
    if not chart.bars:
        return text
    room = max(LABEL_MAX, width // 3)
    label_width = min(room, max(len(bar.label) for bar in chart.bars))
    labels = chart_labels([bar.label for bar in chart.bars], label_width)
    value_width = max(len(bar.shown) for bar in chart.bars)
    detail_width = min(DETAIL_MAX, max(len(bar.detail) for bar in chart.bars))
    # Details go first when the window is narrow: label, bar and value always stay.
    if width - label_width - value_width - detail_width - 4 < MIN_BAR * 2:
        detail_width = 0
    bar_width = max(MIN_BAR, width - label_width - value_width - detail_width - 4)
    top = max(bar.value for bar in chart.bars) or 1.0
    for bar, label in zip(chart.bars, labels, strict=True):
        cells = max(1, round(bar.value / top * bar_width)) if bar.value > 0 else 0
        text.append("\n")
        text.append(f"{label:<{label_width}} ")
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
