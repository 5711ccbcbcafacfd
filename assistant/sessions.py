"""Saved chat sessions: one JSON file per conversation, written atomically.

A session is the full `Conversation` (OpenAI-format messages, tool calls and tool results
included), so reopening it rebuilds every tool card and a proposal can be rendered from it. The
file carries a format version, typed results packed once (`assistant.session_format`, which
also holds the migrations from older formats).
Files live in `platformdirs.user_data_dir("gpu-sizer")/sessions`; the environment variable
`GPU_SIZER_DATA_DIR` replaces the data directory (tests, portable installs).

Writes go to a temporary file in the same directory, are flushed to disk, then `os.replace`d
over the target: a crash mid-write leaves the previous version intact, never half a file. What
is written is repaired first (every tool call answered), so a session saved in the middle of a
turn, or after one that died, is still one a strict endpoint accepts.

Files are the unit: the list has one entry per file — a copy of a session under another name is
its own entry, deleting it removes that file only, and a file that cannot be read is listed
with the reason instead of vanishing. Loading never raises for what a file holds: malformed
messages are skipped and reported (`Conversation.from_saved`). Saving from the app goes
through `assistant.session_store`, which notices a second instance writing the same session.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs

from assistant.atomic_write import write_text_atomic
from assistant.conversation import ID_PATTERN, Conversation, new_id
from assistant.sanitize import clean_text, json_has_control
from tools.errors import ToolInputError
from tools.nesting import NestingError, loads_json
from tools.safe_files import read_text

DATA_DIR_ENV = "GPU_SIZER_DATA_DIR"

SESSION_MAX_BYTES = 512 * 2**20
"""Largest session file read (512 MiB): ten times a very long session (a 50 MB session is
thousands of turns); a bigger file is listed with the reason rather than read into memory."""


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
    """One line of the sessions list: one file, enough to choose it without loading it.

    `problem` is set (and the other fields are best-effort) when the file cannot be opened."""

    id: str
    title: str
    updated: str
    mode: str
    message_count: int
    path: Path
    problem: str | None = None
    sized: bool = False
    """Whether a tool ran in it (a tool result is stored): the chat offers only such sessions
    as recent ones, not a question nothing could be read from."""


@dataclass
class LoadedSession:
    """A session read from `path`, and what had to be skipped or repaired on the way."""

    conversation: Conversation
    path: Path
    problems: list[str] = field(default_factory=list)


def _check_id(session_id: str) -> str:
    # Ids become file names: refuse anything that could leave the sessions directory.
    if not ID_PATTERN.match(session_id):
        raise ToolInputError(
            "session",
            f"{session_id!r} is not a session id",
            allowed="1-64 letters, digits, '-' or '_'",
        )
    return session_id


def session_path(session_id: str, directory: Path | None = None) -> Path:
    """The file a session with `session_id` is saved in."""
    return (directory or sessions_dir()) / f"{_check_id(session_id)}.json"


def session_json(conversation: Conversation) -> str:
    """What a session file holds: the conversation with every tool call answered, in the
    current file format (`session_format.encode`)."""
    from assistant.session_format import encode

    repaired, _ = conversation.repaired()
    return json.dumps(encode(repaired.model_dump(mode="json")), ensure_ascii=False)


def save_session(conversation: Conversation, directory: Path | None = None) -> Path:
    """Write `conversation` atomically (temp file + fsync + os.replace); returns the path."""
    target = session_path(conversation.id, directory)
    return write_text_atomic(target, session_json(conversation))


def _read_json(path: Path) -> tuple[object, str]:
    """The parsed file and its text; ToolInputError saying what is wrong with it."""
    text = read_text(path, "session", SESSION_MAX_BYTES, "the session file")
    if not text.strip():
        raise ToolInputError("session", f"{path.name} is empty")
    try:
        return loads_json(text, limit=None), text  # messages: depth-checked one by one
    except NestingError as exc:
        raise ToolInputError("session", f"{path.name} is corrupt ({exc})") from None
    except json.JSONDecodeError as exc:
        if exc.pos >= len(text.rstrip()):
            problem = f"{path.name} is truncated (it ends in the middle of the JSON document)"
        else:
            problem = f"{path.name} is corrupt ({exc.msg} at line {exc.lineno})"
        raise ToolInputError("session", problem) from None


def read_conversation_file(path: Path) -> LoadedSession:
    """A conversation JSON file anywhere (a regular file under the size cap), its messages
    checked, repaired and cleaned. ToolInputError when it cannot be read or parsed."""
    from assistant.session_format import decode

    data, text = _read_json(path)
    try:
        if not isinstance(data, dict):
            raise ValueError(f"a session is a JSON object, not {type(data).__name__}")
        data, control = decode(data)
        conversation, problems = Conversation.from_saved(
            data, clean=control or json_has_control(text)
        )
    except ToolInputError as exc:
        raise ToolInputError("session", f"{path.name} cannot be opened: {exc.problem}") from None
    except ValueError as exc:
        raise ToolInputError("session", f"{path.name} is not a session ({exc})") from None
    return LoadedSession(conversation, path, problems)


def read_session_file(path: Path) -> LoadedSession:
    """Load the session saved in `path` (a file of the sessions directory). The file is the
    session: when its internal id differs from its name (a copy), the conversation takes the
    file's name, so saving it writes that file and never the original."""
    loaded = read_conversation_file(path)
    conversation, problems = loaded.conversation, loaded.problems
    stem = path.stem
    if conversation.id != stem:
        if ID_PATTERN.match(stem):
            problems.append(f"its internal id {conversation.id} differs from the file name")
            conversation.id = stem
        else:
            conversation.id = new_id()
            problems.append(f"{path.name} is not a session file name: saved as {conversation.id}")
    return LoadedSession(conversation, path, problems)


def load_session(session_id: str, directory: Path | None = None) -> Conversation:
    """Read a saved session by id. Unknown id or unreadable file → `ToolInputError` naming it."""
    return open_session(session_id, directory).conversation


def open_session(session_id: str, directory: Path | None = None) -> LoadedSession:
    """`read_session_file` for the session saved as `<session_id>.json`."""
    path = session_path(session_id, directory)
    if not path.exists():
        known = [s.path.stem for s in list_sessions(directory) if s.problem is None]
        raise ToolInputError(
            "session",
            f"no saved session with id {session_id!r}",
            allowed=", ".join(known[:10]) or "none saved yet",
        )
    return read_session_file(path)


_summary_cache: dict[Path, tuple[tuple[int, int, int], SessionSummary]] = {}
"""Summaries by file, with the (inode, mtime, size) they were read at: reopening the list does
not parse every large session again."""


def _summary(path: Path) -> SessionSummary:
    try:
        info = path.stat()
    except FileNotFoundError:
        return _broken(path, "is a link to a file that is not found")
    except OSError as exc:
        return _broken(path, f"cannot be read ({exc.strerror})")
    key = (info.st_ino, info.st_mtime_ns, info.st_size)
    cached = _summary_cache.get(path)
    if cached is not None and cached[0] == key:
        return cached[1]
    try:
        raw, _ = _read_json(path)
    except ToolInputError as exc:
        message = exc.problem.replace(str(path), path.name)
        summary = _broken(path, message.removeprefix(path.name).strip(" :") or message)
    else:
        summary = _summary_of(path, raw)
    _summary_cache[path] = (key, summary)
    return summary


def _summary_of(path: Path, raw: object) -> SessionSummary:
    if not isinstance(raw, dict):
        return _broken(path, f"is not a session (a JSON {type(raw).__name__}, not an object)")
    messages = raw.get("messages")
    if not isinstance(messages, list):
        return _broken(path, "is not a session (no list of messages)")

    def text(name: str, default: str = "") -> str:
        value = raw.get(name)
        return clean_text(value) if isinstance(value, str) else default

    return SessionSummary(
        id=text("id", path.stem),
        title=text("title") or "(untitled)",
        updated=text("updated"),
        mode=text("mode"),
        message_count=len(messages),
        path=path,
        sized=any(isinstance(m, dict) and m.get("role") == "tool" for m in messages),
    )


def _broken(path: Path, problem: str) -> SessionSummary:
    return SessionSummary(
        id=path.stem,
        title=clean_text(path.name),
        updated="",
        mode="",
        message_count=0,
        path=path,
        problem=clean_text(problem),
    )


def list_sessions(directory: Path | None = None) -> list[SessionSummary]:
    """One entry per `*.json` file, most recently updated first; files that cannot be read
    come last, each with its `problem`."""
    folder = directory or sessions_dir()
    if not folder.is_dir():
        return []
    summaries = [_summary(path) for path in folder.glob("*.json")]
    readable = sorted((s for s in summaries if s.problem is None), key=lambda s: s.updated)
    broken = sorted((s for s in summaries if s.problem is not None), key=lambda s: s.path.name)
    return [*reversed(readable), *broken]


def delete_session_file(path: Path) -> bool:
    """Remove this one session file (never another file with the same internal id); False
    when it was already gone."""
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    _summary_cache.pop(path, None)
    return True


def delete_session(session_id: str, directory: Path | None = None) -> bool:
    """Remove the session saved as `<session_id>.json`; False when there was none."""
    return delete_session_file(session_path(session_id, directory))
