"""`gpu-sizer sessions`: list, show and delete the saved sessions from the command line."""

from __future__ import annotations

import json
import re

import pytest

from assistant.cli import main
from assistant.conversation import Conversation
from assistant.sessions import save_session, sessions_dir


def _saved(
    title: str, question: str, answer: str, updated: str = "2026-11-28T16:20:00+00:00"
) -> Conversation:
    conversation = Conversation(title=title)
    conversation.add({"role": "user", "content": question})
    conversation.add({"role": "assistant", "content": answer})
    conversation.updated = updated  # fixed: the list is ordered by it
    save_session(conversation)
    return conversation


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_list_shows_each_session_newest_first_and_broken_files_last(
    capsys: pytest.CaptureFixture[str],
) -> None:
    older = _saved("Llama 3.1 8B on an L4", "Llama 3.1 8B on an L4?", "Fits on **1× L4**.")
    newer = _saved(
        "70B for 40 users", "70B for 40 users?", "Needs **2× H100**.", "2026-11-30T09:05:00+00:00"
    )
    (sessions_dir() / "broken.json").write_text("{not json", encoding="utf-8")
    code, out, _ = _run(capsys, "sessions")
    assert code == 0
    ids = [line.split()[0] for line in out.splitlines()[2:] if line and not line.startswith("`")]
    assert ids == [newer.id, older.id, "broken"]
    assert "cannot be read" in out
    code, out, _ = _run(capsys, "sessions", "list", "--json")
    records = json.loads(out)
    assert [r["id"] for r in records][:2] == [newer.id, older.id]
    assert records[0]["title"] == "70B for 40 users" and records[0]["messages"] == 2


def test_show_prints_the_questions_and_answers_as_markdown(
    capsys: pytest.CaptureFixture[str],
) -> None:
    saved = _saved("8B on L4", "Llama 3.1 8B on an L4?", "Fits on **1× L4**.")
    code, out, _ = _run(capsys, "sessions", "show", saved.id)
    assert code == 0
    assert out.startswith("# 8B on L4\n")
    assert "## 1. Llama 3.1 8B on an L4?" in out and "Fits on **1× L4**." in out
    # Without an id: the most recent session.
    assert _run(capsys, "sessions", "show")[1] == out


def test_delete_asks_for_yes_without_a_terminal_and_then_deletes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    saved = _saved("t", "q?", "a.")
    path = sessions_dir() / f"{saved.id}.json"
    code, _, err = _run(capsys, "sessions", "delete", saved.id)
    assert code == 2 and path.exists()  # a script that did not say --yes deletes nothing
    (line,) = err.strip().splitlines()
    assert "--yes" in line
    code, _, err = _run(capsys, "sessions", "delete", saved.id, "--yes")
    assert code == 0 and not path.exists() and f"deleted session {saved.id}" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["sessions", "show", "no-such-session"],
        ["sessions", "delete", "no-such-session", "--yes"],
        ["sessions", "show", "../etc"],
        ["sessions", "delete", "--yes"],
    ],
)
def test_bad_ids_are_one_line_and_exit_2(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    kept = _saved("t", "q?", "a.")
    code, out, err = _run(capsys, *argv)
    assert code == 2 and out == ""
    (line,) = err.strip().splitlines()
    assert re.match(r"gpu-sizer sessions: error: ", line)
    assert (sessions_dir() / f"{kept.id}.json").exists()
