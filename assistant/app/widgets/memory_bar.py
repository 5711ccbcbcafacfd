"""A stacked memory bar: weights / KV cache / activations / gradients / optimizer / overhead
per GPU, drawn against the usable capacity, with the tool's headroom or overflow — in the
unit of the answer it stands beside (GiB for the offline engine's, GB for a model's).

The bar's scale is max(usable, used) so an overflow is visible as cells past the capacity mark.
Drawing needs proportions only; every number printed comes from the tool result.
"""

from __future__ import annotations

from rich.text import Text

from assistant.app.results import MemoryBarData, TableUnit
from assistant.app.widgets.width_drawn import WidthDrawn
from tools.units import format_bytes, to_unit

SEGMENT_STYLES: dict[str, tuple[str, str]] = {
    # component: (bar colour, legend label)
    "weights": ("#4e79a7", "weights"),
    "kv_cache": ("#59a14f", "KV cache"),
    "activations": ("#edc948", "activations"),
    "gradients": ("#b07aa1", "gradients"),
    "optimizer": ("#f28e2b", "optimizer"),
    "overhead": ("#9c755f", "overhead"),
    "needed": ("#4e79a7", "needed per GPU"),
}
OTHER_STYLE = "#bab0ac"
FREE_STYLE = "grey35"
LABEL_WIDTH = 14
NARROW = 40
"""Below this width the label takes its own line, so the bar keeps most of the width."""


def render_bar(data: MemoryBarData, width: int, unit: TableUnit = "GiB") -> Text:
    """The label and stacked bar, then the legend with sizes and the verdict (wrapped)."""
    # A label longer than its column (or a narrow window) takes its own line above the bar.
    narrow = width < NARROW or len(data.label) > LABEL_WIDTH
    label_width = 0 if narrow else LABEL_WIDTH
    bar_width = max(10, width - label_width - 1)
    used = sum(size for _, size in data.components)
    scale = max(used, data.capacity_bytes) or 1.0
    capacity_cell = round(data.capacity_bytes / scale * bar_width)

    text = Text(f"{data.label}\n" if narrow else f"{data.label[:LABEL_WIDTH]:<{LABEL_WIDTH}} ")
    cells = 0
    for index, (name, _) in enumerate(data.components):
        colour = SEGMENT_STYLES.get(name, (OTHER_STYLE, name))[0]
        end = round(sum(s for _, s in data.components[: index + 1]) / scale * bar_width)
        for cell in range(cells, end):
            # Cells past the usable capacity are drawn in red: that part does not fit.
            text.append("█", style="red" if cell >= capacity_cell else colour)
        cells = max(cells, end)
    if cells < capacity_cell:
        text.append("░" * (capacity_cell - cells), style=FREE_STYLE)
        cells = capacity_cell
    text.append(" " * max(0, bar_width - cells))
    text.append("\n" + " " * (label_width + 1 if label_width else 0))

    legend = [
        (f"{SEGMENT_STYLES.get(n, (OTHER_STYLE, n))[1]} {to_unit(s, unit):.1f}", n)
        for n, s in data.components
        if s > 0
    ]
    for index, (label, name) in enumerate(legend):
        text.append("■ ", style=SEGMENT_STYLES.get(name, (OTHER_STYLE, name))[0])
        text.append(label + ("  " if index < len(legend) - 1 else f" {unit}"))
    text.append(f" / {format_bytes(data.capacity_bytes, unit, 1)} {data.capacity_label}")
    if data.headroom_bytes is not None:
        if data.headroom_bytes >= 0:
            text.append(f", {format_bytes(data.headroom_bytes, unit, 1)} free", "green")
        else:
            text.append(f", over by {format_bytes(-data.headroom_bytes, unit, 1)}", "bold red")
    return text


class MemoryBar(WidthDrawn):
    """One GPU option's memory bar; redraws to the width it is given."""

    DEFAULT_CSS = """
    MemoryBar { height: auto; min-height: 2; }
    """

    def __init__(self, data: MemoryBarData, unit: TableUnit = "GiB") -> None:
        super().__init__()
        self.data = data
        self.unit = unit

    def _renderable(self, width: int) -> Text:
        return render_bar(self.data, width, self.unit)
