"""A progress line on stderr for work that takes more than half a second, on a terminal only.

`with working("sizing llama-3.1-70b"):` shows nothing for quick work, in a pipe, or with stderr
redirected; past `DELAY_S` it shows a spinner and the message on stderr (Rich's `Status`), and
clears it when the work ends, so stdout — and what a script reads — never holds it.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from assistant.render.output import color_allowed, isatty, raw_stream
from assistant.sanitize import clean_text

DELAY_S = 0.5
"""Work shorter than this shows no progress line (it would only flicker)."""


def progress_allowed() -> bool:
    """Whether stderr is a terminal (the only place a progress line belongs)."""
    return isatty(sys.stderr)


@contextmanager
def working(message: str, delay_s: float = DELAY_S) -> Iterator[None]:
    """Show `message` with a spinner on stderr if the body runs longer than `delay_s`."""
    if not progress_allowed():
        yield
        return
    from rich.console import Console

    console = Console(
        file=raw_stream(sys.stderr),
        force_terminal=True,
        color_system="auto" if color_allowed(True) else None,
        no_color=not color_allowed(True),
        markup=False,
        highlight=False,
        emoji=False,
    )
    status: list[Any] = []
    lock = threading.Lock()
    done = False

    def start() -> None:
        with lock:
            if done:
                return
            spinner = console.status(clean_text(message) + "…", spinner="dots")
            spinner.start()
            status.append(spinner)

    timer = threading.Timer(delay_s, start)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        with lock:
            done = True
            for spinner in status:
                spinner.stop()
