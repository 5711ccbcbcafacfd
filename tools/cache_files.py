"""The user cache folder and how a file in it is written: the helpers every cache here shares.

A cache file is derived data the program can always rebuild: its folder may be missing,
unwritable or shared by several processes, and none of that is ever an error — a failed read
or write only means computing the data again. Writes go to a temporary file in the target's
folder that `os.replace` then moves over the target, so a reader sees a whole file (the old
one or the new one), never a part, and two processes writing at once leave one whole file.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

CACHE_DIR_ENV = "GPU_SIZER_CACHE_DIR"
"""Overrides the user cache folder (tests, the start-up bench, a read-only home)."""


def user_cache_dir(kind: str) -> Path:
    """The folder of one kind of cache (`toml`, `regex`) in the user cache folder
    (`platformdirs.user_cache_dir`, or `GPU_SIZER_CACHE_DIR`); not created here."""
    override = os.environ.get(CACHE_DIR_ENV)
    if override:
        return Path(override) / kind
    import platformdirs

    return Path(platformdirs.user_cache_dir("gpu-sizer")) / kind


def write_atomically(target: Path, text: str) -> bool:
    """Write `text` (UTF-8) to `target`, creating its folder, through a temporary file that
    replaces it whole; False, and nothing left behind, when the folder cannot be written."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=target.suffix)
    except OSError:
        return False
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temp, target)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        return False
    return True
