"""Widgets that show outside text literally: never parsed as Textual markup.

A `str` given to Textual as a label or title is parsed as content markup: a tool argument or an
answer heading holding '[/]' raises MarkupError (the app would crash), and '[@click=app.quit]x'
turns text into an action. Text from a model, a tool or a file goes through these instead (or
through Rich `Text`, which is literal too).
"""

from __future__ import annotations

from typing import Any, cast

from textual.content import Content
from textual.widget import Widget
from textual.widgets import Collapsible


class LiteralCollapsible(Collapsible):
    """A `Collapsible` whose `title` (a plain str) is shown exactly as written."""

    def __init__(self, *children: Widget, title: str = "Toggle", **kwargs: Any) -> None:
        # Collapsible takes Content at runtime (CollapsibleTitle.validate_label) though its
        # signature says str; Content is never parsed as markup.
        super().__init__(*children, title=cast(str, Content(title)), **kwargs)
        # Content equals its plain str, so a plain assignment would be skipped as no change.
        self.set_reactive(Collapsible.title, title)

    def _watch_title(self, title: str) -> None:
        # Collapsible's own watcher would hand the str to the label, which parses markup.
        self._title.label = Content.from_text(title, markup=False)
