"""The saved-sessions list: Enter reopens one, `d` deletes it, Esc closes."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from assistant.sessions import SessionSummary, delete_session, list_sessions


def _label(summary: SessionSummary) -> Text:
    text = Text(summary.title[:60], style="bold")
    text.append(f"\n  {summary.updated[:16].replace('T', ' ')} · {summary.mode}")
    text.append(f" · {summary.message_count} messages · {summary.id}", style="dim")
    return text


class SessionsScreen(ModalScreen[str | None]):
    """Returns the chosen session id, or None when closed."""

    DEFAULT_CSS = """
    SessionsScreen { align: center middle; }
    SessionsScreen > Vertical {
        width: 90%; max-width: 100; height: 90%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    SessionsScreen OptionList { height: 1fr; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="sessions.close"),
        Binding("d,delete", "delete", "Delete", id="sessions.delete"),
    ]

    def __init__(self, directory: Path | None = None) -> None:
        super().__init__()
        self.directory = directory

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Saved sessions — Enter open · d delete · Esc close")
            yield OptionList(id="session-list")

    def on_mount(self) -> None:
        self._reload()

    def _reload(self) -> None:
        options = self.query_one(OptionList)
        options.clear_options()
        summaries = list_sessions(self.directory)
        if not summaries:
            options.add_option(Option("No saved sessions yet.", disabled=True))
        options.add_options([Option(_label(s), id=s.id) for s in summaries])
        if summaries:
            options.highlighted = 0  # Enter opens the most recent session straight away
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_delete(self) -> None:
        options = self.query_one(OptionList)
        if options.highlighted is None:
            return
        option = options.get_option_at_index(options.highlighted)
        if option.id is not None and delete_session(option.id, self.directory):
            self.notify(f"Deleted session {option.id}.")
            self._reload()

    def action_close(self) -> None:
        self.dismiss(None)
