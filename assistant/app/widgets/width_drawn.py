"""`WidthDrawn`: a widget drawn for the width it is laid out at (bars, charts, tables).

Its height depends on its width (columns dropped, labels wrapped onto their own line), so it
is measured at the width being laid out, not the last one drawn — the first layout is already
right and no later pass changes the chat log's height — and a resize lays it out again.
Subclasses give `_renderable(width)`.
"""

from __future__ import annotations

from rich.console import RenderableType
from textual import events
from textual.geometry import Size
from textual.widget import Widget

FALLBACK_WIDTH = 80
"""Columns drawn for before the widget has a size."""


class WidthDrawn(Widget):
    """A widget whose content is drawn for a given width (see module)."""

    def _renderable(self, width: int) -> RenderableType:
        raise NotImplementedError

    def render(self) -> RenderableType:
        return self._renderable(self.size.width or FALLBACK_WIDTH)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        options = self.app.console.options.update_width(max(1, width))
        return len(self.app.console.render_lines(self._renderable(width), options, pad=False))

    def on_resize(self, event: events.Resize) -> None:
        self.refresh(layout=True)
