"""Reading a local file a user named, without ever blocking or reading without end.

`Path.read_text` on a FIFO waits for a writer forever, on /dev/zero or /dev/urandom it reads
until memory runs out, and on a 20 GB file by mistake it takes minutes. `read_text_file` opens
without blocking (O_NONBLOCK, which only matters for FIFOs and devices), refuses anything that
is not a regular file, and reads at most `max_bytes`: each case is a `ToolInputError` at once,
naming the file and what is allowed.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tools.errors import ToolInputError

CONFIG_JSON_MAX_BYTES = 8 * 2**20
"""Largest config.json read (8 MiB). Published ones are a few KiB (the longest, with per-layer
lists, well under 100 KiB); a multi-MiB 'config' is the wrong file."""

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def read_text_file(path: str | Path, *, max_bytes: int, field: str, what: str = "file") -> str:
    """The UTF-8 text of the regular file `path` (at most `max_bytes` bytes).

    Raises ToolInputError(`field`, ...) when the file is missing, unreadable, not a regular
    file (FIFO, device, directory, socket), larger than `max_bytes`, or not UTF-8.
    """
    p = Path(path)
    allowed = f"a regular {what} of at most {max_bytes:,} bytes"
    try:
        fd = os.open(p, _OPEN_FLAGS)
    except FileNotFoundError:
        raise ToolInputError(field, f"file not found: {p}", allowed) from None
    except OSError as exc:
        raise ToolInputError(field, f"{p} cannot be opened ({exc.strerror})", allowed) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ToolInputError(field, f"{p} is {_kind(info.st_mode)}, not a file", allowed)
        if info.st_size > max_bytes:
            raise ToolInputError(field, f"{p} is too large ({info.st_size:,} bytes)", allowed)
        with os.fdopen(fd, "rb") as handle:
            fd = -1  # closed by the handle from here on
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise ToolInputError(field, f"{p} cannot be read ({exc.strerror})", allowed) from None
    finally:
        if fd >= 0:
            os.close(fd)
    if len(data) > max_bytes:  # it grew after fstat, or it is a /proc-like file
        raise ToolInputError(field, f"{p} is too large (over {max_bytes:,} bytes)", allowed)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ToolInputError(
            field, f"{p} is not UTF-8 text (byte {exc.start})", f"a UTF-8 {what}"
        ) from None
