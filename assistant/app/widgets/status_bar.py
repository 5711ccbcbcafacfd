"""The status bar: what the assistant is doing, token usage this session, and save state."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from tools.units import format_count


class StatusBar(Static):
    """One line at the bottom: state · tokens in/out (marked ≈ when estimated) · save state."""

    DEFAULT_CSS = """
    StatusBar { height: 1; dock: bottom; background: $panel; color: $text-muted; padding: 0 1; }
    """

    state = reactive("ready")
    prompt_tokens = reactive(0)
    completion_tokens = reactive(0)
    estimated = reactive(False)
    saved = reactive("")

    def add_usage(
        self, prompt_tokens: int | None, completion_tokens: int | None, estimated: bool
    ) -> None:
        """Accumulate one model call's usage (None = the endpoint did not report it)."""
        self.prompt_tokens += prompt_tokens or 0
        self.completion_tokens += completion_tokens or 0
        self.estimated = self.estimated or estimated

    def reset_usage(self) -> None:
        """Start counting again (new chat)."""
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.estimated = False

    def render(self) -> Text:
        approx = "≈" if self.estimated else ""
        text = Text(self.state, style="bold")
        text.append(
            f" · tokens {approx}{format_count(self.prompt_tokens)} in"
            f" / {approx}{format_count(self.completion_tokens)} out"
        )
        if self.saved:
            text.append(f" · {self.saved}")
        text.append(" · F1 help")
        return text
