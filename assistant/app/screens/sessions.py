"""The saved-sessions list: Enter reopens one, `d` deletes it, Esc closes.

One entry per file (assistant.sessions.list_sessions): a copy of a session is its own entry and
deleting it removes that file only. A file that cannot be read is listed with the reason;
choosing it says why instead of opening it.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from assistant.app.screens import ChatModal
from assistant.sanitize import clean_text
from assistant.sessions import SessionSummary, delete_session_file, list_sessions


def _label(summary: SessionSummary) -> Text:
    if summary.problem is not None:
        text = Text(f"⚠ {summary.path.name}", style="bold")
        text.append(f"\n  cannot be opened: {summary.problem}", style="dim")
        return text
    text = Text(summary.title[:60], style="bold")
    text.append(f"\n  {summary.updated[:16].replace('T', ' ')} · {summary.mode}")
    text.append(f" · {summary.message_count} messages · {summary.path.stem}", style="dim")
    return text


class SessionsScreen(ChatModal[Path | None]):
    """Returns the chosen session file, or None when closed."""

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
        self.summaries: dict[str, SessionSummary] = {}
        """Option id → the file it stands for (option ids are positions, never file names)."""

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
        self.summaries = {f"file-{index}": s for index, s in enumerate(summaries)}
        if not summaries:
            options.add_option(Option("No saved sessions yet.", disabled=True))
        options.add_options([Option(_label(s), id=key) for key, s in self.summaries.items()])
        if summaries:
            options.highlighted = 0  # Enter opens the most recent session straight away
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        summary = self.summaries.get(event.option.id or "")
        if summary is None:
            return
        if summary.problem is not None:
            self.notify(
                clean_text(f"{summary.path.name} cannot be opened: {summary.problem}"),
                severity="error",
                markup=False,
            )
            return
        self.dismiss(summary.path)

    def action_delete(self) -> None:
        options = self.query_one(OptionList)
        if options.highlighted is None:
            return
        option = options.get_option_at_index(options.highlighted)
        summary = self.summaries.get(option.id or "")
        if summary is not None and delete_session_file(summary.path):
            self.notify(clean_text(f"Deleted {summary.path.name}."), markup=False)
            self._reload()

    def action_close(self) -> None:
        self.dismiss(None)
