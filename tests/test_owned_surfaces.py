"""Issue 29: one owned-hardware question, every surface leads with the same local plan — the
offline answer, the verdict the LLM mode and MCP lead with, the app's card, the proposal's
page one, `ask --json`, the MCP tool list (the reverse question's tool served)."""

from __future__ import annotations

import pytest

from assistant.app.verdict import verdict_lines
from assistant.mcp.server import tool_definitions
from assistant.mcp.text import render_result
from assistant.proposal import render_proposal
from assistant.registry import default_registry
from assistant.render import verdict_text
from assistant.wire import summarize_report
from tests.offline_turns import answer, sizing
from tests.proposal_checks import page_one, page_one_problems
from tools.sizing import SizingReport

QUESTION = "can my 3090 run Qwen3 32B"
# Qwen3 32B (32.8 B parameters) at Q4_K_M's ≈ 4.85 bits per weight is ≈ 19.9 GB: on a 24 GiB
# RTX 3090 with an 8k context; Q5_K_M (≈ 23.3 GB) is not (test_owned_hardware has the sums).
FORMAT = "q4_k_m"


@pytest.fixture
async def turn() -> tuple[str, SizingReport, object]:
    text, conversation = await answer(QUESTION)
    return text, sizing(conversation), conversation


async def test_the_report_decides_the_local_plan_leads(
    turn: tuple[str, SizingReport, object],
) -> None:
    _, report, _ = turn
    assert report.leads_with_local
    (plan,) = report.local
    assert plan.gpu == "rtx-3090" and plan.weights_format == FORMAT and plan.fits_fully
    assert report.asked_answer is not None and report.asked_answer.yes is True


async def test_verdict_text_mcp_and_model_summary_lead_local(
    turn: tuple[str, SizingReport, object],
) -> None:
    _, report, _ = turn
    first = verdict_text(report).splitlines()[0]
    assert first.startswith("**Yes.** **llama.cpp") and FORMAT in first
    assert render_result(report).splitlines()[0].startswith("Yes. llama.cpp")  # MCP: plain
    summary = summarize_report(report)
    assert summary["local"][0]["weights_format"] == FORMAT
    assert summary["local"][0]["ollama"] == "qwen3:32b-q4_K_M"


async def test_app_card_leads_local_and_labels_the_alternative(
    turn: tuple[str, SizingReport, object],
) -> None:
    _, report, _ = turn
    lines = verdict_lines(report)
    assert lines[0].head.startswith("Yes. Runs with llama.cpp, Q4_K_M, on")
    assert lines[0].kind == "fits"
    assert all(line.head.startswith("Datacenter (vLLM): ") for line in lines[1:])


async def test_proposal_page_one_recommends_the_local_plan(
    turn: tuple[str, SizingReport, object],
) -> None:
    _, _, conversation = turn
    markdown = render_proposal(conversation)  # type: ignore[arg-type]
    first = page_one(markdown)
    assert page_one_problems(markdown) == []
    recommendation = first.split("## Recommendation", 1)[1].split("##", 1)[0]
    assert "Runs on the hardware you have" in recommendation and "Q4\\_K\\_M" in recommendation
    alternative = first.split("## Alternative", 1)[1].split("##", 1)[0]
    assert "Datacenter alternative" in alternative


@pytest.mark.parametrize(
    "question",
    [
        QUESTION,
        "I have an RTX 3090, will Qwen3 32B run on it?",
        "Qwen3 32B on my 3090 at home, does it fit?",
    ],
)
async def test_proposal_says_how_the_owned_question_was_read_before_the_datacenter_defaults(
    question: str,
) -> None:
    # The local plan is the decision, so "How the request was read" leads with what it was
    # sized as on the user's card — llama.cpp, the GGUF type chosen and the context per slot —
    # and the datacenter sizing's vLLM defaults are labelled as the alternative's, never stated
    # as if they were how the user's own question was served.
    _, conversation = await answer(question)
    (plan,) = sizing(conversation).local
    markdown = render_proposal(conversation).replace("\\_", "_")  # type: ignore[arg-type]
    read = page_one(markdown).split("## How the request was read", 1)[1]
    lines = [line for line in read.splitlines() if line.startswith("- ")]
    local = next(i for i, line in enumerate(lines) if line.startswith("- **Sized on your hardware"))
    datacenter = next(
        i for i, line in enumerate(lines) if "Datacenter alternative sized as" in line
    )
    assert local < datacenter
    assert "llama.cpp (llama-server)" in lines[local] and f"{FORMAT} weights" in lines[local]
    # 8,192 tokens: the usable context the format is chosen at, twice Ollama's 4,096 default.
    assert plan.context_per_slot == 2 * 4_096 and "1 slot × 8,192 tokens" in lines[local]
    assert "- Serving engine not stated: llama.cpp (llama-server), as on your own hardware" in lines
    # The whole document (page one and Appendix A): vLLM is only ever the alternative's engine.
    defaults = [line for line in markdown.splitlines() if "engine not stated" in line]
    assert "- Datacenter alternative: serving engine not stated: served with vLLM" in defaults
    assert all("vLLM" not in line or "Datacenter alternative" in line for line in defaults)


def test_mcp_serves_the_reverse_question() -> None:
    names = {tool.name for tool in tool_definitions(default_registry())}
    assert "fits_on_hardware" in names
    outcome = default_registry().call("fits_on_hardware", {"gpu": "rtx-3090"})
    assert not outcome.is_error
    text = render_result(outcome.value)
    assert "catalog models run on NVIDIA GeForce RTX 3090" in text.splitlines()[0]


def test_app_cards_show_the_reverse_question_and_the_owned_headline() -> None:
    from assistant.app.call_summary import call_summary
    from assistant.app.results import card_view
    from tools.fits import FitsRequest, fits_on_hardware

    result = fits_on_hardware(FitsRequest(gpu="rtx-3090"))
    view = card_view(result)
    first = next(m for g in result.groups for m in g.models)
    assert view.table.rows[0][1] == first.model_name
    assert view.table.rows[0][2] == first.weights_format.upper()
    summary = call_summary("fits_on_hardware", {"gpu": "rtx-3090"}, result)
    assert summary.startswith("Models that fit") and f"{result.listed} models" in summary


async def test_call_summary_of_an_owned_report_leads_local(
    turn: tuple[str, SizingReport, object],
) -> None:
    from assistant.app.call_summary import call_summary

    _, report, _ = turn
    summary = call_summary("size", {}, report)
    assert "leads: llama-server on NVIDIA GeForce RTX 3090, all layers on the GPU" in summary
    assert "datacenter: 4× " in summary
