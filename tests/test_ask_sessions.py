"""`gpu-sizer ask --continue / --session`: follow-ups from the command line, as `llm -c` does,
and `proposal --session` on what `ask` saved (issue 18, class 3)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from assistant.cli import main
from assistant.sessions import list_sessions, load_session
from tests.offline_turns import after_reading


def _ask(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["ask", "--offline", "--json", *argv]) == 0
    captured = capsys.readouterr()
    report: dict[str, Any] = json.loads(captured.out)
    assert f"session {report['session']}" in captured.err  # the id to continue with
    return report


def _memory(report: dict[str, Any]) -> dict[str, Any]:
    """The memory estimate of the configuration named, from the turn's sizing report (the
    `size` call's result as `--json` prints it: lean JSON, bytes in `breakdown`)."""
    call = next(c for c in report["tool_calls"] if c["name"] == "size")
    estimate: dict[str, Any] = call["result"]["memory"][0]["estimate"]
    return {
        "model": estimate["model_id"],
        "gpu": estimate.get("gpu"),
        "gpus": estimate["num_gpus"],
        "batch": estimate["batch"],
        "context": estimate["context"],
        "weights": estimate["weights_format"],
        "breakdown": estimate["breakdown"],
    }


def test_continue_refines_the_last_workload_across_three_turns(
    capsys: pytest.CaptureFixture[str],
) -> None:
    first = _ask(capsys, "serve Llama 3.1 70B to 20 users on 2x H100 SXM")
    assert first["workload"]["users"] == 20
    second = _ask(capsys, "--continue", "and what if we use fp8 instead?")
    third = _ask(capsys, "-c", "with 8k context")
    assert first["session"] == second["session"] == third["session"]
    # Turn 2 kept the model, the GPUs and the 20 users, and changed the weights to fp8.
    two = _memory(second)
    assert (two["model"], two["gpu"], two["gpus"], two["batch"]) == (
        "llama-3.1-70b",
        "h100-sxm",
        2,
        20,
    )
    assert two["weights"] == "fp8"
    # fp8 halves the weights: bf16 2 B → fp8 1 B per parameter (the 16-bit embedding and
    # output layer kept, so a little more than half).
    one = _memory(first)
    ratio = two["breakdown"]["weights"] / one["breakdown"]["weights"]
    assert 0.5 < ratio < 0.53
    # Turn 3 kept all of that and set the context: 8k = 8,192 tokens.
    three = _memory(third)
    assert (three["weights"], three["batch"], three["context"]) == ("fp8", 20, 8192)
    # Three user turns in one saved session.
    saved = load_session(third["session"])
    users = [m["content"] for m in saved.messages if m.get("role") == "user"]
    assert users == [
        "serve Llama 3.1 70B to 20 users on 2x H100 SXM",
        "and what if we use fp8 instead?",
        "with 8k context",
    ]


def test_session_id_continues_that_session_not_the_latest(
    capsys: pytest.CaptureFixture[str],
) -> None:
    first = _ask(capsys, "serve Llama 3.1 8B on an L4 to 10 users")
    other = _ask(capsys, "Mixtral 8x7B on 2 H100 SXM")  # now the most recent session
    second = _ask(capsys, "--session", first["session"], "what about 16 users?")
    third = _ask(capsys, "--session", first["session"], "and in fp8?")
    assert second["session"] == third["session"] == first["session"] != other["session"]
    memory = _memory(third)
    assert (memory["model"], memory["gpu"], memory["batch"], memory["weights"]) == (
        "llama-3.1-8b",
        "l4",
        16,
        "fp8",
    )
    assert len([m for m in load_session(other["session"]).messages if m["role"] == "user"]) == 1


def test_a_reply_to_a_clarifying_question_keeps_what_was_said_before(
    capsys: pytest.CaptureFixture[str],
) -> None:
    asked = _ask(capsys, "serve mixtral to 40 users on 2 H100 SXM with 8k context")
    assert asked["tool_calls"] == [] and "Which Mixtral model?" in asked["answer"]
    answered = _ask(capsys, "-c", "8x7b")
    memory = _memory(answered)
    # The model from the reply, everything else from the first message.
    assert (memory["model"], memory["gpu"], memory["gpus"]) == ("mixtral-8x7b", "h100-sxm", 2)
    assert (memory["batch"], memory["context"]) == (40, 8192)
    third = _ask(capsys, "-c", "what about fp8?")
    assert _memory(third)["weights"] == "fp8" and _memory(third)["batch"] == 40


def test_proposal_from_a_session_saved_by_ask(capsys: pytest.CaptureFixture[str]) -> None:
    report = _ask(capsys, "serve Llama 3.1 70B to 20 users on 2x H100 SXM")
    _ask(capsys, "-c", "and what if we use fp8 instead?")
    assert main(["proposal", "--session", report["session"]]) == 0
    text = capsys.readouterr().out
    assert after_reading(text).startswith("# Hardware proposal")
    assert report["session"] in text
    assert "serve Llama 3.1 70B to 20 users on 2x H100 SXM" in text
    assert "and what if we use fp8 instead?" in text
    assert "No memory result in this session" not in text
    # The proposal is about the latest turn: the fp8 weights it sized.
    assert re.search(r"\bfp8\b", text)


def test_unknown_session_and_nothing_to_continue_exit_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["ask", "--offline", "--continue", "Llama 3.1 8B on an L4"]) == 2
    assert "no saved session to continue" in capsys.readouterr().err
    assert main(["ask", "--offline", "--session", "nope", "Llama 3.1 8B on an L4"]) == 2
    assert "nope" in capsys.readouterr().err
    assert main(["ask", "--offline", "--session", "../x", "Llama 3.1 8B on an L4"]) == 2


def test_no_save_leaves_no_session(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "--offline", "--no-save", "Llama 3.1 8B on an L4"]) == 0
    assert "session" not in capsys.readouterr().err
    assert list_sessions() == []


def test_continue_skips_a_session_file_that_cannot_be_read(
    capsys: pytest.CaptureFixture[str],
) -> None:
    first = _ask(capsys, "serve Llama 3.1 8B on an L4 to 10 users")
    broken = list_sessions()[0].path.with_name("broken.json")
    broken.write_text("{ not json", encoding="utf-8")
    second = _ask(capsys, "-c", "what about 16 users?")
    assert second["session"] == first["session"]
    assert _memory(second)["batch"] == 16
