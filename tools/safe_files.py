"""Opening files a user points at, safely: regular files only, bounded reads, never a hang.

A path from a user (or a language model) can name anything: a FIFO that blocks `open()` until a
writer appears, `/dev/zero` that never ends, a multi-gigabyte file passed as "config.json". Every
model-file loader opens through here: the path is opened non-blocking (a FIFO opens at once),
`fstat` on the open descriptor decides (no race with a swapped path), and reads stop at a cap.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any, BinaryIO

from tools.errors import ToolInputError
from tools.nesting import NestingError, loads_json

MAX_JSON_BYTES = 64 * 2**20
"""config.json is a few KB; the largest safetensors index (DeepSeek-V3, 1,025 weight-map
entries per shard list) is under 10 MB. 64 MiB leaves room and bounds memory."""


def open_regular(path: str | Path, field: str) -> BinaryIO:
    """`path` opened for binary reading, when it is a regular file (symlinks followed, as in
    the Hugging Face cache). Raises ToolInputError naming `field` otherwise."""
    p = Path(path).expanduser()
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(p, flags)
    except FileNotFoundError:
        raise ToolInputError(field, f"file not found: {p}", "a path to a local file") from None
    except IsADirectoryError:
        raise ToolInputError(field, f"{p} is a folder", "a path to a file") from None
    except OSError as exc:
        raise ToolInputError(field, f"cannot open {p}: {exc.strerror}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = (
                "a folder"
                if stat.S_ISDIR(mode)
                else "not a regular file (a FIFO, device or socket is never read)"
            )
            raise ToolInputError(field, f"{p} is {kind}", "a path to a regular file")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        handle = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    return handle


def read_bounded(handle: BinaryIO, limit: int, what: str, field: str) -> bytes:
    """At most `limit` bytes of `handle`; a longer file is an error, not a truncated read."""
    data = handle.read(limit + 1)
    if len(data) > limit:
        raise ToolInputError(
            field, f"{what} is larger than {limit:,} bytes", f"a {what} under {limit:,} bytes"
        )
    return data


def read_text(path: str | Path, field: str, limit: int, what: str | None = None) -> str:
    """The UTF-8 text of a regular file of at most `limit` bytes (sessions and config.toml
    are read through here too)."""
    with open_regular(path, field) as handle:
        data = read_bounded(handle, limit, what or Path(path).name, field)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ToolInputError(field, f"{path} is not UTF-8 text") from None


def read_json_object(path: str | Path, field: str, limit: int = MAX_JSON_BYTES) -> dict[str, Any]:
    """A JSON object from a regular file of at most `limit` bytes."""
    text = read_text(path, field, limit)
    try:
        value = loads_json(text)
    except NestingError as exc:
        raise ToolInputError(field, f"{path} is not a model file ({exc})") from None
    except json.JSONDecodeError as exc:
        raise ToolInputError(
            field, f"{path} is not valid JSON ({exc.msg} at line {exc.lineno})"
        ) from None
    if not isinstance(value, dict):
        raise ToolInputError(field, f"{path} does not hold a JSON object")
    return value
