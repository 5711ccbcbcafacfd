"""F1 help: keys (as currently bound, so remaps show) and slash commands.

The text is longer than a classic 80×24 window, so the screen scrolls from the keyboard: the
scrolling area has the focus as soon as the screen opens, and ↑/↓, PageUp/PageDown, Home/End
and Space move it (the chat's own PageUp/PageDown/Home/End are off under a modal screen).
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Markdown, Static

from assistant.app.screens import ChatModal


class HelpScroll(VerticalScroll):
    """The help's scrolling area (focused, with the scroll keys)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "page_down", "Page down", show=False),
    ]


class HelpScreen(ChatModal[None]):
    """A modal with the help text; Esc / F1 / q closes it."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > Vertical, HelpScreen > HelpScroll {
        width: 90%; max-width: 100; height: 90%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    HelpScreen .help-keys { color: $text-muted; height: 1; dock: bottom; }
    """

    AUTO_FOCUS = "HelpScroll"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f1,q", "dismiss_help", "Close", id="help.close"),
        # Under a modal the app's scroll keys are off: these are the screen's own, whatever
        # has the focus.
        Binding("pageup", "scroll_help('page_up')", show=False, priority=True),
        Binding("pagedown", "scroll_help('page_down')", show=False, priority=True),
        Binding("home", "scroll_help('home')", show=False, priority=True),
        Binding("end", "scroll_help('end')", show=False, priority=True),
    ]

    def __init__(self, markdown: str) -> None:
        super().__init__()
        self.markdown = markdown

    def compose(self) -> ComposeResult:
        with HelpScroll():
            yield Markdown(self.markdown)
            yield Static("↑/↓ PageUp/PageDown Home/End scroll · Esc, F1 or q closes",
                         classes="help-keys")  # fmt: skip

    @property
    def scroll(self) -> HelpScroll:
        return self.query_one(HelpScroll)

    def action_scroll_help(self, where: str) -> None:
        scroll = self.scroll
        {
            "page_up": scroll.scroll_page_up,
            "page_down": scroll.scroll_page_down,
            "home": scroll.scroll_home,
            "end": scroll.scroll_end,
        }[where](animate=False)

    def action_dismiss_help(self) -> None:
        self.dismiss(None)
