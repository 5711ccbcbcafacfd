"""Saving sessions from one app instance without losing what another instance saved.

Two gpu-sizer windows can have the same session open. Each save replaces the file (atomically,
so always with a new inode), so the store remembers the (device, inode, mtime, size) stamp of
the file as it last wrote or read it. When the file on disk no longer has that stamp, someone
else wrote it since: this instance's conversation is *forked* — saved under a new id, leaving
the other instance's file as it is — and the caller is told, so it can say so. Nothing is
overwritten, so no turn is lost on either side.

The check and the write happen under an advisory lock on the sessions directory (`flock`, where
the platform has it), so two instances saving at the same moment cannot both pass the check.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from assistant.atomic_write import write_text_atomic
from assistant.conversation import Conversation, new_id
from assistant.sessions import (
    LoadedSession,
    read_session_file,
    session_json,
    session_path,
    sessions_dir,
)

LOCK_NAME = ".lock"
LOCK_WAIT_S = 2.0
"""Longest a save waits for another instance's save to finish; after that it proceeds without
the lock (the stamp check still catches that instance's write)."""


@dataclass(frozen=True)
class FileStamp:
    """What identifies one version of a file: replaced files get a new inode."""

    device: int
    inode: int
    mtime_ns: int
    size: int

    @classmethod
    def of(cls, path: Path) -> FileStamp | None:
        """The stamp of `path`, or None when there is no such file."""
        try:
            info = path.stat()
        except FileNotFoundError:
            return None
        return cls(info.st_dev, info.st_ino, info.st_mtime_ns, info.st_size)


@dataclass(frozen=True)
class SaveResult:
    """Where a conversation was saved; `forked_from` is the id it had when another instance
    had changed that session's file (the conversation now has a new id and file)."""

    path: Path
    forked_from: str | None = None


class SessionStore:
    """Saves and opens sessions for one app instance (see the module docstring)."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory
        self._stamps: dict[str, FileStamp | None] = {}

    @property
    def folder(self) -> Path:
        return self.directory or sessions_dir()

    def open(self, path: Path) -> LoadedSession:
        """Read a session file (sessions.read_session_file) and remember its stamp, so saving
        the conversation later writes back to it unless someone else changed it meanwhile."""
        stamp = FileStamp.of(path)
        loaded = read_session_file(path)
        if path == session_path(loaded.conversation.id, self.directory):
            self._stamps[loaded.conversation.id] = stamp
        return loaded

    def track(self, session_id: str, stamp: FileStamp | None) -> None:
        """Remember `stamp` as the version of `session_id`'s file this instance holds (for a
        conversation read from disk by the caller rather than through `open`)."""
        self._stamps[session_id] = stamp

    def save(self, conversation: Conversation) -> SaveResult:
        """Write `conversation` to its file, or fork it to a new id when another instance
        changed that file since this store last saw it. Raises OSError when it cannot write."""
        text = session_json(conversation)
        with _directory_lock(self.folder):
            target = session_path(conversation.id, self.directory)
            forked_from = None
            on_disk = FileStamp.of(target)
            if on_disk is not None and on_disk != self._stamps.get(conversation.id):
                forked_from = conversation.id
                conversation.id = new_id()
                target = session_path(conversation.id, self.directory)
                text = session_json(conversation)
            write_text_atomic(target, text)
            self._stamps[conversation.id] = FileStamp.of(target)
        return SaveResult(target, forked_from)


@contextlib.contextmanager
def _directory_lock(folder: Path) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # not POSIX: the stamp check alone
        yield
        return
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = time.monotonic() + LOCK_WAIT_S
        locked = False
        while not locked:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                locked = True
            except BlockingIOError:
                if time.monotonic() > deadline:
                    break
                time.sleep(0.01)
        yield
    finally:
        os.close(fd)  # releases the lock
