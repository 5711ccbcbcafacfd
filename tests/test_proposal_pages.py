"""Page one over a range of sessions answered now by the offline engine (issue 14): serving,
training, named GPUs that do not hold the load, a GPU named without a count, a budget, a GPU
name that needs a question, nothing that fits, follow-ups and several sizing turns (the canned
sessions of test_proposal.py add EU prices in EUR and a budget over two turns). Each first page fits
in 60 Markdown lines, has the five elements and how the request was read, and states what the
sizing report decided: its headline, the main risk and the alternative by their rules. And the
document is reproducible from what `ask` saved: `proposal --session`, `--from-json` and a
second rendering give the same bytes.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from assistant.cli import main
from assistant.conversation import Conversation
from assistant.offline.engine import OfflineEngine
from assistant.proposal import render_proposal
from assistant.proposal.extract import collect
from assistant.proposal.figures import format_number
from assistant.proposal.labels import gpus
from assistant.proposal.risk_text import RISK_TITLES, alternative_text
from assistant.sessions import DATA_DIR_ENV, load_session, session_path
from tests.proposal_checks import page_one, page_one_problems, section
from tools.sizing import SizingReport
from tools.sizing.alternative import alternative
from tools.sizing.risks import main_risk

SESSIONS: dict[str, tuple[str, ...]] = {
    "serving, no load stated": ("serve Llama 3.1 8B",),
    "a GPU named without a count": (
        "serve Qwen2.5 72B in fp8 to 32 users at 32k context on H200s",
    ),
    "training, LoRA": ("LoRA fine-tune of Llama 3.1 70B on 4 A100s",),
    "a named GPU that does not fit": ("Can Qwen3 32B run on one L4?",),
    # Issue 29: hardware the user owns — the local plan is the recommendation.
    "owned hardware": ("can my 3090 run Qwen3 32B?",),
    "named GPUs scaled out": ("serve Llama 3.1 70B to 40 users on 2x L40S",),
    "over budget": ("serve Llama 3.1 8B to 20 users, budget 500 USD a month",),
    "nothing fits": ("serve Llama 3.1 405B in bf16 on 1 RTX 4060 Ti 8GB",),
    "a question first": ("serve Llama 3.1 70B in fp8 on an A100",),
    "a follow-up": ("serve Llama 3.1 70B to 20 users on 2x H100 SXM", "and in fp8?"),
    "a question after an answer": (
        "serve Llama 3.1 8B on an H100",
        "and Llama 3.1 70B in fp8 on an A100",
    ),
}


async def _run(questions: tuple[str, ...]) -> Conversation:
    conversation = Conversation()
    engine = OfflineEngine()
    for question in questions:
        async for _ in engine.run_turn(conversation, question):
            pass
    return conversation


@pytest.fixture(scope="module")
def conversations() -> dict[str, Conversation]:
    return {name: asyncio.run(_run(qs)) for name, qs in SESSIONS.items()}


def _unescaped(markdown: str) -> str:
    return re.sub(r"\\(.)", r"\1", markdown)


def _covered(conversation: Conversation) -> SizingReport:
    report = collect(conversation).report
    assert report is not None
    return report


@pytest.mark.parametrize("name", list(SESSIONS))
def test_page_one_fits_and_states_the_reports_decision(
    conversations: dict[str, Conversation], name: str
) -> None:
    conversation = conversations[name]
    text = render_proposal(conversation, "md")
    assert page_one_problems(text) == []
    first = _unescaped(page_one(text))
    report = _covered(conversation)
    recommendation = section(first, "Recommendation")
    if report.leads_with_local:
        plan = report.local[0]
        assert recommendation.startswith(f"**Runs on the hardware you have: {plan.gpu_label}.**")
        assert plan.weights_format.upper() in recommendation
        alternative_part = section(first, "Alternative")
        assert alternative_part.startswith("**Datacenter alternative,**")
        assert report.headline is not None
        assert f"**{gpus(report.headline.option)}**" in alternative_part
        return
    if report.headline is not None:
        assert recommendation.startswith(f"**{gpus(report.headline.option)}**")
        assert report.headline.reason in recommendation
    elif report.question is not None:
        assert report.question.question in recommendation
    else:
        assert "No configuration evaluated meets every target." in recommendation
    risk = main_risk(report)
    assert section(first, "Main risk").startswith(f"**{RISK_TITLES[risk.code]}**")
    lead, _ = alternative_text(alternative(report), report)
    assert section(first, "Alternative").startswith(f"**{lead}**")
    price = None if report.headline is None else report.headline.price
    cost = section(first, "Cost of the training job" if report.is_training else "Monthly cost")
    if price is not None and price.usd_job is None:
        assert f"USD per month** ({format_number(price.usd_per_hour)} USD per hour" in cost
        assert f"as of {price.as_of}" in cost
    read = section(first, "How the request was read")
    assert collect(conversation).question[:100] in read and "**Sized as:**" in read


def test_the_rules_pick_what_a_reader_expects(conversations: dict[str, Conversation]) -> None:
    def risk(name: str) -> str:
        return main_risk(_covered(conversations[name])).code

    assert risk("over budget") == "over_budget"
    assert risk("nothing fits") == "nothing_meets_targets"
    assert risk("a question first") == "question_pending"
    scaled = _covered(conversations["named GPUs scaled out"])
    assert scaled.headline is not None and scaled.headline.rule == "scale_out"
    assert scaled.scale_out is not None
    assert (scaled.scale_out.gpu, scaled.scale_out.count) == ("l40s", 2)
    # The named 2× L40S are stated on page one with why they do not hold the load.
    first = _unescaped(page_one(render_proposal(conversations["named GPUs scaled out"], "md")))
    assert "**2× NVIDIA L40S named:** does not fit" in first
    # QA3 F: "on H200s" (no count) sized 1× H200 while the answer recommends 4× H200, TP 2 ×
    # 2 replicas; the memory table leads with one replica of the recommended layout: 16
    # sequences × 32,768 tokens × 327,680 B (Qwen2.5 72B: 2 × 80 layers × 8 KV heads × 128 ×
    # 2 B) / TP 2 = 80 GiB of KV cache per GPU.
    kv_per_gpu = 16 * 32768 * 327_680 // 2
    assert kv_per_gpu == 80 * 2**30
    layout = _covered(conversations["a GPU named without a count"]).layout_breakdown
    assert layout is not None and layout.estimate is not None
    assert (layout.gpu, layout.count, layout.estimate.batch) == ("h200-sxm", 2, 16)
    assert layout.estimate.breakdown["kv_cache"] == kv_per_gpu
    text = _unescaped(render_proposal(conversations["a GPU named without a count"], "md"))
    table = section(text, "Memory per GPU").split("\n| configuration |")[1]
    first_row = table.splitlines()[2]
    assert first_row.startswith("| 2× NVIDIA H200 SXM, one replica (recommended) |")
    assert f"| {kv_per_gpu // 2**30} |" in first_row


def test_which_turn_is_covered(conversations: dict[str, Conversation]) -> None:
    # A follow-up refines the workload: the latest report is the answer.
    follow = collect(conversations["a follow-up"])
    assert follow.turn == 2 and follow.report is not None
    assert follow.report.weights_format == "fp8"
    # A later question still open: the proposal stays on the last one answered, and says so.
    later = conversations["a question after an answer"]
    inputs = collect(later)
    assert inputs.turn == 1 and inputs.report is not None and inputs.report.question is None
    first = page_one(render_proposal(later, "md"))
    assert "It answers question 1 of 2" in first
    assert "Question 2 asks which GPU was meant and is not answered yet" in first


def test_a_session_ask_saved_renders_the_same_bytes_every_way(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "data"))
    assert main(["ask", "--offline", "--json", "serve Llama 3.1 8B to 20 users on an L40S"]) == 0
    session_id = json.loads(capsys.readouterr().out)["session"]
    for fmt in ("md", "html"):
        assert main(["proposal", "--session", session_id, "--format", fmt]) == 0
        by_id = capsys.readouterr().out
        path = str(session_path(session_id))
        assert main(["proposal", "--from-json", path, "--format", fmt]) == 0
        assert capsys.readouterr().out == by_id
        assert render_proposal(load_session(session_id), fmt) == by_id
        target = tmp_path / f"p.{fmt}"
        assert main(["proposal", "--session", session_id, "-o", str(target)]) == 0
        assert target.read_text(encoding="utf-8") == by_id
    assert by_id.count('<hr class="page-break">') == 2
