"""Saved sessions: full message list (tool calls included), atomic writes, list/load/delete."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from assistant import sessions
from assistant.conversation import Conversation
from tools.errors import ToolInputError


def _conversation_with_tool_call(conversation_id: str = "abc123") -> Conversation:
    conv = Conversation(id=conversation_id, mode="llm", model="qwen3")
    conv.add({"role": "user", "content": "Llama 3.1 70B in INT8 on one H100?"})
    conv.add(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "estimate_memory", "arguments": '{"model": "x"}'},
                }
            ],
        }
    )
    conv.add({"role": "tool", "tool_call_id": "call_1", "content": '{"fits": false}'})
    conv.add({"role": "assistant", "content": "It does not fit."})
    return conv


def test_data_dir_env_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(sessions.DATA_DIR_ENV, str(tmp_path))
    assert sessions.sessions_dir() == tmp_path / "sessions"


def test_round_trip_keeps_tool_calls_and_results(tmp_path: Path) -> None:
    conv = _conversation_with_tool_call()
    path = sessions.save_session(conv, tmp_path)
    assert path == tmp_path / "abc123.json"
    on_disk = json.loads(path.read_text(encoding="utf-8"))
    # The file itself (not only the loader) must hold the tool call and its result.
    assert on_disk["messages"][1]["tool_calls"][0]["function"]["name"] == "estimate_memory"
    assert on_disk["messages"][2] == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": '{"fits": false}',
    }
    loaded = sessions.load_session("abc123", tmp_path)
    assert loaded.messages == conv.messages
    assert loaded.title == "Llama 3.1 70B in INT8 on one H100?"


def test_failed_write_keeps_previous_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    conv = _conversation_with_tool_call()
    path = sessions.save_session(conv, tmp_path)
    before = path.read_text(encoding="utf-8")
    conv.add({"role": "user", "content": "and on two?"})

    def broken_replace(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(sessions.os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        sessions.save_session(conv, tmp_path)
    assert path.read_text(encoding="utf-8") == before
    # The temporary file is cleaned up, so the directory holds only the real session.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["abc123.json"]


def test_list_sorted_newest_first_with_corrupt_files_last(tmp_path: Path) -> None:
    old = Conversation(id="old", updated="2026-01-01T00:00:00+00:00", title="old one")
    new = Conversation(id="new", updated="2026-02-01T00:00:00+00:00", title="new one")
    sessions.save_session(old, tmp_path)
    sessions.save_session(new, tmp_path)
    (tmp_path / "broken.json").write_text("{not json", encoding="utf-8")
    listed = sessions.list_sessions(tmp_path)
    assert [s.path.name for s in listed] == ["new.json", "old.json", "broken.json"]
    assert listed[0].title == "new one" and listed[0].problem is None
    assert listed[2].problem is not None and "corrupt" in listed[2].problem


def test_list_of_missing_directory_is_empty(tmp_path: Path) -> None:
    assert sessions.list_sessions(tmp_path / "nothing") == []


def test_delete(tmp_path: Path) -> None:
    sessions.save_session(_conversation_with_tool_call("gone"), tmp_path)
    assert sessions.delete_session("gone", tmp_path) is True
    assert sessions.delete_session("gone", tmp_path) is False
    assert not (tmp_path / "gone.json").exists()


def test_unknown_id_names_the_field_and_lists_known(tmp_path: Path) -> None:
    sessions.save_session(_conversation_with_tool_call("known1"), tmp_path)
    with pytest.raises(ToolInputError) as info:
        sessions.load_session("missing", tmp_path)
    assert info.value.field == "session"
    assert "known1" in (info.value.allowed or "")


@pytest.mark.parametrize("bad_id", ["../etc/passwd", "a/b", "", "x" * 65, "a b"])
def test_ids_that_could_escape_the_directory_are_refused(tmp_path: Path, bad_id: str) -> None:
    with pytest.raises(ToolInputError) as info:
        sessions.session_path(bad_id, tmp_path)
    assert info.value.field == "session"
    assert not os.listdir(tmp_path)
