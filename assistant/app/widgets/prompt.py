"""The prompt: a multi-line input where Enter sends and Shift+Enter / Ctrl+J start a new line.

↑ on the first line and ↓ on the last line walk through previously sent messages (like a
shell); whatever was being typed is kept as the newest history entry so nothing typed is lost.
"""

from __future__ import annotations

from textual import events
from textual.message import Message
from textual.widgets import TextArea

# Terminals report Ctrl+J as "ctrl+j" (LF); Shift+Enter only arrives where the terminal speaks
# the kitty keyboard protocol, which is why Ctrl+J is the documented fallback.
NEWLINE_KEYS = frozenset({"shift+enter", "ctrl+j", "newline"})
SEND_KEYS = frozenset({"enter"})


class PromptInput(TextArea):
    """Multi-line prompt with history. Posts `PromptInput.Submitted` on Enter."""

    DEFAULT_CSS = """
    PromptInput {
        height: auto;
        min-height: 3;
        max-height: 10;
        border: round $accent;
    }
    PromptInput:disabled { opacity: 70%; }
    """

    class Submitted(Message):
        """The user pressed Enter with non-blank text."""

        def __init__(self, prompt: PromptInput, text: str) -> None:
            super().__init__()
            self.prompt = prompt
            self.text = text

    def __init__(self, *, id: str | None = None, placeholder: str = "") -> None:
        super().__init__(
            id=id,
            soft_wrap=True,
            tab_behavior="focus",
            show_line_numbers=False,
            placeholder=placeholder,
        )
        # Remappable from the config's keybindings table ("send", "newline").
        self.send_keys = SEND_KEYS
        self.newline_keys = NEWLINE_KEYS
        self.sent_history: list[str] = []
        # Index into history while browsing; None means editing the draft (not browsing).
        self._history_index: int | None = None
        self._draft = ""

    async def _on_key(self, event: events.Key) -> None:
        if event.key in self.send_keys:
            event.stop()
            event.prevent_default()
            self._submit()
            return
        if event.key in self.newline_keys:
            event.stop()
            event.prevent_default()
            start, end = self.selection
            self._replace_via_keyboard("\n", start, end)
            return
        await super()._on_key(event)

    def _submit(self) -> None:
        text = self.text
        if not text.strip():
            return
        self.remember(text)
        self.post_message(self.Submitted(self, text))

    def remember(self, text: str) -> None:
        """Add `text` to the history (no consecutive duplicates) and stop browsing."""
        if not self.sent_history or self.sent_history[-1] != text:
            self.sent_history.append(text)
        self._history_index = None
        self._draft = ""

    def restore(self, text: str) -> None:
        """Put `text` back into the prompt with the cursor at its end (after an error/cancel)."""
        self.load_text(text)
        self.move_cursor(self.document.end)

    def action_cursor_up(self, select: bool = False) -> None:
        if select or self.cursor_location[0] > 0 or not self.sent_history:
            super().action_cursor_up(select)
            return
        if self._history_index is None:
            self._draft = self.text
            self._history_index = len(self.sent_history) - 1
        elif self._history_index > 0:
            self._history_index -= 1
        self.restore(self.sent_history[self._history_index])

    def action_cursor_down(self, select: bool = False) -> None:
        last_row = self.document.line_count - 1
        if select or self._history_index is None or self.cursor_location[0] < last_row:
            super().action_cursor_down(select)
            return
        if self._history_index < len(self.sent_history) - 1:
            self._history_index += 1
            self.restore(self.sent_history[self._history_index])
        else:
            self._history_index = None
            self.restore(self._draft)
