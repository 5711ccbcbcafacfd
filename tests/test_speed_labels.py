"""Every speed and every $/M-tokens figure a surface prints says how it was obtained (issue 16,
item 7): measured, calibrated or estimated, or stated when the user gave the speed.

Checked line by line over a class of workloads on the text surfaces (the offline answer, its
proposal, `recommend`, `cost`): a line that prints a figure in tok/s or USD/M must carry one of
those words. The typed surfaces (--json, the registry, MCP) carry `speed_basis` /
`throughput_basis` fields (tests/test_serving_model.py).
"""

from __future__ import annotations

import re

import pytest

from assistant.cli import main

BASIS = re.compile(r"\b(measured|calibrated|estimated|stated)\b", re.IGNORECASE)
# A figure in a speed or $/M unit ("30.2 tok/s", "0.180 USD/M"); in a table the unit sits in
# the header and the figure in the row (below).
SPEED_FIGURE = re.compile(r"\d[\d,.]*\s*(tok/s|tokens/s|USD/M|\$/M)")

QUESTIONS = [
    "serve Llama 3.3 70B in 4-bit to 40 users with 16k context",
    # One 3090 holds no Qwen3 32B layout: no speed printed there (test_named_card_first).
    "can my 4090 run Llama 3.1 8B?",
    "is an L40S cheaper than an H100 per million tokens for llama 3.1 8b?",
    "Mixtral 8x7B in fp8 for 100 concurrent chats",
    "Llama 3.1 8B on 2 H100 SXM vs 1 A100 80GB for 64 users",
    "serve Qwen2.5 72B to 10 users, TTFT under 1 s",
]

COMMANDS = [
    ["recommend", "--model", "llama-3.1-8b", "--users", "20"],
    ["recommend", "--model", "llama-3.1-70b", "--users", "40", "--weights", "int4"],
    ["recommend", "--model", "mixtral-8x7b", "--weights", "fp8", "--objective", "fastest"],
    ["cost", "--model", "llama-3.1-8b", "--users", "10", "--gpu", "h100-sxm", "l40s"],
    ["cost", "--model", "llama-3.1-70b", "--users", "32", "--gpu", "h200-sxm"],
]


SPEED_HEADER = re.compile(r"tok/s|tokens/s|TTFT|USD/M|\$/M|speed", re.IGNORECASE)


def unlabelled(text: str) -> list[str]:
    """The lines that print a speed or $/M figure without saying its basis: a line with a
    figure in such a unit, or a row of a table (`|` cells) whose header names such a column
    (the unit then sits in the header, the figure in the row)."""
    bad: list[str] = []
    header: str | None = None
    speed_cells: list[int] = []
    for line in text.splitlines():
        if "|" not in line:
            header = None
        elif header is None:
            header = line if SPEED_HEADER.search(line) else ""
            speed_cells = [i for i, c in enumerate(line.split("|")) if SPEED_HEADER.search(c)]
            continue
        elif header and not set(line) <= set("|-: ") and not BASIS.search(line):
            cells = line.split("|")
            # A row with no figure under the speed columns (an option that does not fit:
            # 'n/a', 'not priced') has nothing to label.
            if any(re.search(r"\d", cells[i]) for i in speed_cells if i < len(cells)):
                bad.append(line)
            continue
        if SPEED_FIGURE.search(line) and not BASIS.search(line):
            bad.append(line)
    return bad


def test_the_check_catches_a_bare_speed() -> None:
    assert unlabelled("1× H100 SXM5 — 0.180 USD/M vs 0.379 on 1× L40S") != []
    assert unlabelled("decode 30.2 tok/s per user") != []
    assert unlabelled("decode 30.2 tok/s per user (calibrated)") == []
    assert unlabelled("| GPU | tok/s per user | TTFT (s) |") == []  # a header holds no figure
    table = "| GPU | tok/s per user |\n|---|---|\n| L40S | 30.2 |\n"
    assert unlabelled("| GPU | fits | tok/s per user |\n|---|---|---|\n| L4 | no | n/a |\n") == []
    assert unlabelled(table) == ["| L40S | 30.2 |"]
    assert unlabelled(table.replace("30.2", "30.2 (estimated)")) == []
    assert unlabelled("| GPU | count |\n|---|---|\n| L40S | 2 |\n") == []


@pytest.mark.parametrize("question", QUESTIONS)
def test_offline_answer_and_its_proposal_label_every_speed(
    question: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ask", "--offline", question]) == 0
    captured = capsys.readouterr()
    assert unlabelled(captured.out) == []
    # The folded parts (options table, notes) hold the speeds: read them too.
    assert main(["ask", "--offline", "--details", question]) == 0
    details = capsys.readouterr().out
    assert re.search(r"tok/s|USD/M", details), "the answer prints no speed to check"
    assert unlabelled(details) == []

    session = re.search(r"session ([0-9a-f]+)", captured.err)
    assert session is not None
    assert main(["proposal", "--session", session.group(1)]) == 0
    proposal = capsys.readouterr().out
    assert re.search(r"tok/s|tokens/s|USD/M", proposal)
    assert unlabelled(proposal) == []


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: " ".join(a[:3]))
def test_cli_labels_every_speed(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert re.search(r"tok/s|USD/M", out), "the command prints no speed to check"
    assert unlabelled(out) == []
