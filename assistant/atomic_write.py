"""Atomic file writes: nothing a user saved is ever left half-written.

The text goes to a temporary file in the target's directory, is flushed and fsynced, then moved
into place in one step (`os.replace`), so a crash or Ctrl-C leaves either the old file or the new
one. With `overwrite=False` the move is a hard link instead, which fails if the name exists —
also when another process created it after the caller checked.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_text_atomic(target: Path, text: str, *, overwrite: bool = True) -> Path:
    """Write `text` (UTF-8, '\\n' line ends) to `target` atomically; returns `target`.

    Raises FileExistsError when `overwrite` is False and `target` exists.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if overwrite:
            os.replace(tmp, target)
        else:
            os.link(tmp, target)
    finally:
        Path(tmp).unlink(missing_ok=True)
    return target
