"""`gpu-sizer ask`: one-shot answers through the CLI dispatcher (offline, no network)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from assistant.cli import main
from tests.offline_turns import after_reading


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
    assert names == ["size"]  # one sizing report behind the answer
    assert all("result" in c for c in report["tool_calls"])
    sizing = report["sizing"]
    assert sizing["model_id"] == "llama-3.1-8b" and sizing["weights_format"] == "bf16"
    # "on an L4" named without a count: the headline is the L4 layout the report leads with.
    assert sizing["headline"]["gpu"] == "l4"
    assert sizing["price_load"]["basis"] == "stated_load"  # 10 users stated
    assert report["answer"]


def test_ask_json_counts_the_rejected_layouts_and_lists_them_on_request(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # A training search weighs every GPU × count × ZeRO/sharding layout; `recommend --json`
    # lists the rejected ones only with --all-layouts, and `ask --json` says how many there are.
    flags = ["--model", "llama-3.1-8b", "--task", "lora", "--train-tokens", "1B", "--json"]
    assert main(["recommend", *flags, "--all-layouts"]) == 0
    listed = len(json.loads(capsys.readouterr().out)["rejected"])
    assert listed > 100  # the search is wide: each GPU at several counts and strategies

    question = "LoRA fine-tune of Llama 3.1 8B on 1B tokens"
    assert main(["ask", "--offline", "--json", "--no-save", question]) == 0
    (call,) = json.loads(capsys.readouterr().out)["tool_calls"]
    recommendation = call["result"]["recommendation"]
    assert "rejected" not in recommendation  # counted, not listed
    assert recommendation["rejected_layouts"] == listed  # the same search as `recommend`
    assert recommendation["options"]

    assert main(["ask", "--offline", "--json", "--no-save", "--all-layouts", question]) == 0
    (call,) = json.loads(capsys.readouterr().out)["tool_calls"]
    assert len(call["result"]["recommendation"]["rejected"]) == listed


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
    assert after_reading(text).startswith("#") and "Llama 3.1 8B" in text and "l4" in text.lower()
    capsys.readouterr()
    # An existing file is refused before the question is answered: exit 2, file untouched.
    assert main([*question, "--proposal", str(target)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert target.read_text(encoding="utf-8") == text
    assert main([*question, "--proposal", str(target), "--force"]) == 0


SCENARIO = "serve Llama 3.1 70B in 4-bit to 40 users with 16k context"


def _ask(capsys: pytest.CaptureFixture[str], *flags: str) -> str:
    assert main(["ask", "--offline", *flags, SCENARIO]) == 0
    return capsys.readouterr().out


def _tool_assumptions(report: dict[str, Any]) -> list[str]:
    # Every assumption the tools stated, as `--json` lists them from the typed sizing report.
    return list(dict.fromkeys(" ".join(str(item).split()) for item in report["assumptions"]))


def test_ask_folds_the_tool_assumptions_into_one_line_and_details_prints_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    short = _ask(capsys).splitlines()
    full = _ask(capsys, "--details").splitlines()
    report = json.loads(_ask(capsys, "--json"))
    # The fold's title names what it holds: here the tools' assumptions, counted.
    stated = _tool_assumptions(report)
    title = f"{len(stated)} tool assumptions (model sources, formulas, constants)"
    assert short[-1].startswith("+ Details: ") and short[-1].endswith(
        f"{title}: add --details to see them."
    )
    heading = full.index("**" + short[-1].removeprefix("+ ").split(": add --details")[0] + "**")
    # The default output is the --details output up to the fold, nothing else changed.
    assert short[:-1] == full[: heading - 1] and full[heading - 1] == ""
    # The user's words as read stay visible; sources and constants are only behind --details.
    assert any(line.startswith("- '16k' read as 16,384 tokens") for line in short)
    assert not any("cuda_context_bytes" in line or "mlc-ai/mlc-llm" in line for line in short)
    # --details has every assumption the tools stated (from the --json tool results).
    assert stated and all(f"- {a}" in full for a in stated)


def _unescape_markdown(text: str) -> str:
    return re.sub(r"\\([\\`*_{}\[\]()#+\-.!|<>])", r"\1", text)


def test_ask_proposal_keeps_every_assumption_when_the_answer_folds_them(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target = tmp_path / "proposal.md"
    out = _ask(capsys, "--proposal", str(target))
    assert "add --details to see them." in out
    proposal = _unescape_markdown(target.read_text(encoding="utf-8"))
    stated = _tool_assumptions(json.loads(_ask(capsys, "--json")))
    missing = [a for a in stated if a not in " ".join(proposal.split())]
    assert not missing
