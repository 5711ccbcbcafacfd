"""Start-up without the cyclic garbage collector walking what the imports build.

A command's imports create some 50,000 long-lived objects — modules, classes, pydantic's
validators and schemas — and every few hundred allocations the collector walks the young ones
again, with a full walk of everything once: ~145 collections, ~35 ms of the ~450 ms of CPU an
`ask --offline` takes (issue 32 point 5, fast start). `imports_uncollected()` pauses the
collector while a command's modules import, then freezes what exists (`gc.freeze`: later
collections skip those objects; reference counting still frees whatever is dropped) and
starts the collector again for the command's own work. CPython's documentation suggests the
same pause-then-freeze for objects that live as long as the process.

The price: the cycles that became garbage while the collector was paused are frozen with the
rest and never freed — ~1.3 MB once, for an `ask` (2,336 objects; a collection to find them
would cost ~23 ms, most of what is saved). Only the program's own process does this
(`assistant.cli.main` called with no `argv`, as the console script and `python -m assistant`
call it): a caller that imports the CLI — a test — keeps its collector as it was.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def imports_uncollected(active: bool = True) -> Iterator[None]:
    """The block with the cyclic collector paused, then every object it left frozen and the
    collector started again. Does nothing when not `active` or when the collector was already
    off (someone else's choice, kept)."""
    if not active or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()
