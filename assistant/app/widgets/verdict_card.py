"""The verdict card that leads a sized answer: fits / does not fit / needs N× GPU, with the
figure that decides it and the configuration that works, then the stacked memory bars.

Built from the `SizingReport` (`assistant.app.verdict`), never from the answer's text.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from assistant.app.results import MemoryBarData, TableUnit
from assistant.app.verdict import VerdictLine
from assistant.app.widgets.memory_bar import MemoryBar

ICONS = {"fits": ("✓", "bold green"), "does_not_fit": ("✗", "bold red"),
         "works": ("→", "bold yellow"), "info": ("·", "bold")}  # fmt: skip


def verdict_text(lines: list[VerdictLine]) -> Text:
    """The card's lines: icon, the verdict in bold, then its deciding figure."""
    text = Text()
    for index, line in enumerate(lines):
        icon, style = ICONS[line.kind]
        text.append(f"{icon} {line.head}", style=style)
        if line.detail:
            text.append(f" — {line.detail}")
        if index < len(lines) - 1:
            text.append("\n")
    return text


class VerdictCard(Vertical):
    """The verdict lines and the memory bars of the configurations they name."""

    DEFAULT_CSS = """
    VerdictCard {
        height: auto; margin: 1 0 0 0; padding: 0 1;
        border-left: thick $success; background: $success 8%;
    }
    VerdictCard.-does-not-fit { border-left: thick $error; background: $error 8%; }
    VerdictCard > .verdict { height: auto; }
    VerdictCard > .reading { height: auto; }
    VerdictCard > MemoryBar { margin-top: 1; }
    """

    def __init__(
        self,
        lines: list[VerdictLine],
        bars: list[MemoryBarData],
        unit: TableUnit,
        reading: str | None = None,
    ):
        super().__init__(classes="-does-not-fit" if lines[0].kind == "does_not_fit" else "")
        self.lines = lines
        self.bars = bars
        self.unit = unit
        self.reading = reading

    def compose(self) -> ComposeResult:
        if self.reading:
            # How the question was read, before the verdict (issue 27); Markdown emphasis off.
            plain = self.reading.strip("*")
            yield Static(Text(plain, style="italic dim"), classes="reading")
        yield Static(verdict_text(self.lines), classes="verdict")
        for bar in self.bars:
            yield MemoryBar(bar, self.unit)
