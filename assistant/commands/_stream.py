"""An answer as it arrives, on stdout: raw Markdown in a pipe, rendered on a terminal.

In a pipe (or a file) every fragment is written as it comes, exactly as before — what a script
or `llm`-style tooling reads is the Markdown itself. On a terminal the fragments are rendered
as they stream: a live view shows the end of the rendered answer so far (the rest scrolls
above it only once), and when the answer ends that view is replaced by the whole answer
rendered once (Rich `Markdown`), paged when it is taller than the terminal. Until the first
fragment, `working` shows a progress line on stderr.
"""

from __future__ import annotations

import sys
from contextlib import AbstractContextManager, suppress
from typing import Any

from assistant.commands._progress import working
from assistant.render.output import (
    Terminal,
    isatty,
    markdown_doc,
    raw_stream,
    render_terminal,
    terminal,
    write_out,
)
from assistant.sanitize import clean_text

LIVE_REFRESH_PER_S = 8


class _Tail:
    """A Rich renderable: the last lines of `source` rendered as Markdown (the live view)."""

    def __init__(self, source: str, height: int) -> None:
        self.source = source
        self.height = height

    def __rich_console__(self, console: Any, options: Any) -> Any:
        from rich.segment import Segment

        from assistant.render.terminal_markdown import TerminalMarkdown

        lines = console.render_lines(TerminalMarkdown(self.source), options, pad=False)
        for line in lines[-max(1, self.height - 1) :]:
            yield from line
            yield Segment.line()


class AnswerStream:
    """Where `ask` writes the verdict, the answer's fragments and what follows them."""

    def __init__(self, page: bool = True, term: Terminal | None = None) -> None:
        self.term = terminal() if term is None else term
        self.page = page
        self.rendered = self.term.is_terminal
        # The live view moves the cursor: only where stdout really is a terminal.
        self.live = self.rendered and isatty(raw_stream(sys.stdout))
        self._parts: list[str] = []
        self._live: Any = None
        self._progress: AbstractContextManager[None] | None = None

    # -- progress until the first fragment ------------------------------------------------
    def waiting(self, message: str) -> None:
        """Show `message` on stderr (past half a second) until the first fragment."""
        self._progress = working(message)
        self._progress.__enter__()

    def _stop_waiting(self) -> None:
        if self._progress is not None:
            progress, self._progress = self._progress, None
            progress.__exit__(None, None, None)

    # -- fragments ------------------------------------------------------------------------
    def write(self, text: str) -> None:
        """One fragment of Markdown."""
        self._stop_waiting()
        text = clean_text(text)
        if not self.rendered:
            sys.stdout.write(text)
            sys.stdout.flush()
            return
        self._parts.append(text)
        if self.live:
            self._show_live()

    def _show_live(self) -> None:
        from rich.console import Console
        from rich.live import Live

        height = self.term.height or 24
        view = _Tail("".join(self._parts), height)
        if self._live is None:
            console = Console(
                file=raw_stream(sys.stdout),
                width=self.term.width,
                force_terminal=True,
                color_system="auto" if self.term.color else None,
                no_color=not self.term.color,
                markup=False,
                emoji=False,
                highlight=False,
            )
            self._live = Live(
                view,
                console=console,
                transient=True,
                auto_refresh=True,
                refresh_per_second=LIVE_REFRESH_PER_S,
                vertical_overflow="crop",
                redirect_stdout=False,
                redirect_stderr=False,
            )
            self._live.start()
        else:
            self._live.update(view)

    def close(self, tail: str = "") -> None:
        """The answer is complete: `tail` (flags, details) follows it; on a terminal the live
        view is replaced by the whole answer rendered once."""
        self._stop_waiting()
        if not self.rendered:
            if tail:
                sys.stdout.write(clean_text(tail))
                sys.stdout.flush()
            return
        if self._live is not None:
            with suppress(Exception):
                self._live.stop()
            self._live = None
        source = "".join(self._parts) + clean_text(tail)
        self._parts = []
        if source.strip():
            write_out(render_terminal(markdown_doc(source), self.term), self.term, self.page)
