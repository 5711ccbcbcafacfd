"""`gpu-sizer ask`: one-shot answers through the CLI dispatcher (offline, no network)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assistant.cli import main


def test_ask_offline_prints_a_clarifying_question(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "--offline", "serve", "Mixtral", "on", "an", "H100"]) == 0
    out = capsys.readouterr().out
    assert "Mixtral 8x7B" in out and "Mixtral 8x22B" in out


def test_ask_json_has_workload_calls_and_answer(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "--offline", "--json", "Llama 3.1 8B on an L4 for 10 users"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["engine"] == "offline"
    assert report["workload"]["model"] == "llama-3.1-8b" and report["workload"]["users"] == 10
    names = [c["name"] for c in report["tool_calls"]]
    assert names[:1] == ["estimate_memory"] and "recommend" in names
    assert all("result" in c for c in report["tool_calls"])
    assert report["answer"]


def test_ask_without_endpoint_uses_offline(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: object
) -> None:
    monkeypatch.setenv("GPU_SIZER_CONFIG_DIR", str(tmp_path))
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "GPU_SIZER_MODEL"):
        monkeypatch.delenv(name, raising=False)
    assert main(["ask", "--json", "Mixtral"]) == 0
    assert json.loads(capsys.readouterr().out)["engine"] == "offline"


def test_ask_writes_a_proposal_and_never_overwrites_without_force(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target = tmp_path / "proposal.md"
    question = ["ask", "--offline", "serve Llama 3.1 8B on an L4 to 10 users"]
    assert main([*question, "--proposal", str(target)]) == 0
    text = target.read_text(encoding="utf-8")
    assert text.startswith("#") and "Llama 3.1 8B" in text and "l4" in text.lower()
    capsys.readouterr()
    # An existing file is refused before the question is answered: exit 2, file untouched.
    assert main([*question, "--proposal", str(target)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert target.read_text(encoding="utf-8") == text
    assert main([*question, "--proposal", str(target), "--force"]) == 0
