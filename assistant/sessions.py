"""Saved chat sessions: one JSON file per conversation, written atomically.

A session is the full `Conversation` (OpenAI-format messages, tool calls and tool results
included), so reopening it rebuilds every tool card and a proposal can be rendered from it.
Files live in `platformdirs.user_data_dir("gpu-sizer")/sessions`; the environment variable
`GPU_SIZER_DATA_DIR` replaces the data directory (tests, portable installs).

Writes go to a temporary file in the same directory, are flushed to disk, then `os.replace`d
over the target: a crash mid-write leaves the previous version intact, never half a file.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

import platformdirs
from pydantic import ValidationError

from assistant.atomic_write import write_text_atomic
from assistant.conversation import Conversation
from tools.errors import ToolInputError

DATA_DIR_ENV = "GPU_SIZER_DATA_DIR"
_SESSION_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def data_dir() -> Path:
    """The gpu-sizer data directory (not created here)."""
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override)
    return Path(platformdirs.user_data_dir("gpu-sizer"))


def sessions_dir() -> Path:
    """The directory holding one `<id>.json` file per saved session (not created here)."""
    return data_dir() / "sessions"


@dataclass(frozen=True)
class SessionSummary:
    """One line of the sessions list: enough to choose a session without loading it."""

    id: str
    title: str
    updated: str
    mode: str
    message_count: int
    path: Path


def _check_id(session_id: str) -> str:
    # Ids become file names: refuse anything that could leave the sessions directory.
    if not _SESSION_ID.match(session_id):
        raise ToolInputError(
            "session",
            f"{session_id!r} is not a session id",
            allowed="1-64 letters, digits, '-' or '_'",
        )
    return session_id


def session_path(session_id: str, directory: Path | None = None) -> Path:
    """The file a session with `session_id` is saved in."""
    return (directory or sessions_dir()) / f"{_check_id(session_id)}.json"


def save_session(conversation: Conversation, directory: Path | None = None) -> Path:
    """Write `conversation` atomically (temp file + fsync + os.replace); returns the path."""
    target = session_path(conversation.id, directory)
    return write_text_atomic(target, conversation.model_dump_json(indent=1))


def load_session(session_id: str, directory: Path | None = None) -> Conversation:
    """Read a saved session. Unknown id or unreadable file → `ToolInputError` naming it."""
    path = session_path(session_id, directory)
    if not path.exists():
        known = [s.id for s in list_sessions(directory)]
        raise ToolInputError(
            "session",
            f"no saved session with id {session_id!r}",
            allowed=", ".join(known[:10]) or "none saved yet",
        )
    try:
        return Conversation.model_validate_json(path.read_text(encoding="utf-8"))
    except (ValidationError, OSError) as exc:
        raise ToolInputError("session", f"{path} cannot be read: {exc}") from exc


def list_sessions(directory: Path | None = None) -> list[SessionSummary]:
    """Saved sessions, most recently updated first. Unreadable files are skipped, not fatal."""
    folder = directory or sessions_dir()
    if not folder.is_dir():
        return []
    summaries: list[SessionSummary] = []
    for path in folder.glob("*.json"):
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            summaries.append(
                SessionSummary(
                    id=str(raw["id"]),
                    title=str(raw.get("title") or "(untitled)"),
                    updated=str(raw.get("updated", "")),
                    mode=str(raw.get("mode", "")),
                    message_count=len(raw.get("messages", [])),
                    path=path,
                )
            )
        except (OSError, ValueError, KeyError, TypeError):
            continue
    summaries.sort(key=lambda s: s.updated, reverse=True)
    return summaries


def delete_session(session_id: str, directory: Path | None = None) -> bool:
    """Remove a saved session; False when there was none with that id."""
    path = session_path(session_id, directory)
    if not path.exists():
        return False
    path.unlink()
    return True
