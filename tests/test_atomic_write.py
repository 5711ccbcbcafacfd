"""Atomic writes: sessions, settings and proposals are never left half-written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from assistant.atomic_write import write_text_atomic


def test_replaces_and_leaves_no_temporary_files(tmp_path: Path) -> None:
    target = tmp_path / "nested" / "session.json"
    write_text_atomic(target, "first")
    write_text_atomic(target, "second")
    assert target.read_text(encoding="utf-8") == "second"
    assert [p.name for p in target.parent.iterdir()] == ["session.json"]


def test_refuses_to_overwrite_when_asked(tmp_path: Path) -> None:
    target = tmp_path / "proposal.md"
    target.write_text("mine", encoding="utf-8")
    with pytest.raises(FileExistsError):
        write_text_atomic(target, "theirs", overwrite=False)
    assert target.read_text(encoding="utf-8") == "mine"
    assert [p.name for p in tmp_path.iterdir()] == ["proposal.md"]


def test_a_failed_write_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "config.toml"
    target.write_text("old", encoding="utf-8")

    def interrupted(src: str, dst: str) -> None:
        raise KeyboardInterrupt  # Ctrl-C between writing and moving into place

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_text_atomic(target, "new")
    assert target.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["config.toml"]
