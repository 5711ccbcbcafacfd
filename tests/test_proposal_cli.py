"""`gpu-sizer proposal`: stdout, --output with and without --force, unknown session → exit 2."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from assistant.cli import main
from assistant.conversation import Conversation
from assistant.sessions import DATA_DIR_ENV, save_session

SESSION = Path(__file__).parent / "data" / "proposal" / "session.json"


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "data"))
    return tmp_path / "data"


def test_from_json_prints_markdown(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["proposal", "--from-json", str(SESSION)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Hardware proposal: Llama 3.1 70B, serving\n")
    assert out == (SESSION.parent / "proposal.md").read_text(encoding="utf-8")


def test_saved_session_to_html_file(data_dir: Path, tmp_path: Path) -> None:
    conversation = Conversation.model_validate_json(SESSION.read_text(encoding="utf-8"))
    save_session(conversation)
    target = tmp_path / "out.html"
    assert main(["proposal", "--session", conversation.id, "--output", str(target)]) == 0
    assert target.read_text(encoding="utf-8") == (SESSION.parent / "proposal.html").read_text(
        encoding="utf-8"
    )


def test_existing_output_needs_force(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "proposal.md"
    target.write_text("hand-edited", encoding="utf-8")
    code = main(["proposal", "--from-json", str(SESSION), "--output", str(target)])
    assert code == 2
    err = capsys.readouterr().err
    assert str(target) in err and "--force" in err
    assert target.read_text(encoding="utf-8") == "hand-edited"
    assert main(["proposal", "--from-json", str(SESSION), "-o", str(target), "--force"]) == 0
    assert target.read_text(encoding="utf-8").startswith("# Hardware proposal")


def test_unknown_session_exits_2_with_message(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["proposal", "--session", "no-such-session"]) == 2
    err = capsys.readouterr().err
    assert "session: no saved session with id 'no-such-session'" in err
    assert "Traceback" not in err


def test_invalid_json_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    assert main(["proposal", "--from-json", str(bad)]) == 2
    assert "from-json" in capsys.readouterr().err


def test_format_flag_overrides_extension(tmp_path: Path) -> None:
    target = tmp_path / "proposal.txt"
    shutil.copy(SESSION, tmp_path / "s.json")
    args = ["proposal", "--from-json", str(tmp_path / "s.json"), "-o", str(target)]
    assert main([*args, "--format", "html"]) == 0
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
