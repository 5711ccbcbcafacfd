"""Proposal export: golden files, page one's limit and elements, every number traced to the
session, one document behind Markdown and HTML, HTML well-formedness, the grounded LLM summary,
extraction rules, sessions saved before sizing reports, no-overwrite writes.

The canned sessions under `tests/data/proposal/` were produced by the offline engine from real
questions (build_session.py); the golden files are their rendering, reviewed line by line.
Independent checks (hand calculations from published configs) pin the figures the document
must quote.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from assistant.conversation import Conversation
from assistant.proposal import (
    ProposalExistsError,
    build_document,
    render_proposal,
    session_sources,
    write_proposal,
)
from assistant.proposal.extract import collect
from assistant.proposal.figures import bytes_as_gib, format_number, gb_as_gib
from assistant.proposal.markdown import PAGE_BREAK
from assistant.proposal.tables import MAX_COMPARED
from assistant.results import ToolError, tool_message
from tests.offline_turns import after_reading
from tests.proposal_checks import page_one, page_one_problems, section
from tools.errors import ToolInputError
from tools.memory import MemoryEstimate, MemoryRequest, estimate_memory
from tools.recommend import Recommendation
from tools.sizing.report import SizingReport
from tools.sizing.risks import TIGHT_HEADROOM_FRACTION

DATA = Path(__file__).parent / "data" / "proposal"
GOLDEN = {
    "session.json": ("proposal.md", "proposal.html"),
    "session-training.json": ("proposal-training.md",),
    "session-followup.json": ("proposal-followup.md",),
    "session-legacy.json": ("proposal-legacy.md",),
}
_NUMBER = re.compile(r"-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?")


def _load(name: str) -> Conversation:
    return Conversation.model_validate_json((DATA / name).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def sessions() -> dict[str, Conversation]:
    return {name: _load(name) for name in GOLDEN}


@pytest.fixture(scope="module")
def session(sessions: dict[str, Conversation]) -> Conversation:
    return sessions["session.json"]


@pytest.fixture(scope="module")
def markdown(sessions: dict[str, Conversation]) -> dict[str, str]:
    return {name: render_proposal(conv, "md") for name, conv in sessions.items()}


def _numbers_in(text: str) -> list[Decimal]:
    return [Decimal(m.group(0).replace(",", "")) for m in _NUMBER.finditer(text)]


def _readings(number: Decimal) -> set[Decimal]:
    """A stored number and what the proposal may print for it: the number rounded for reading
    (or to a whole count), and its GiB reading as bytes (÷ 2^30) or as GB (× 10^9 ÷ 2^30)."""
    value = float(number)
    shown = {number, Decimal(round(value))}
    for converted in (value, value / 2**30, value * 1e9 / 2**30):
        shown.add(Decimal(format_number(converted).replace(",", "")))
    return shown


def _stored_numbers(value: Any) -> set[Decimal]:
    """Every number in a tool result / arguments / user text (numbers inside strings too)."""
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            return set(_numbers_in(value))
        return (
            _stored_numbers(parsed) if isinstance(parsed, dict | list) else set(_numbers_in(value))
        )
    if isinstance(value, bool) or value is None:
        return set()
    if isinstance(value, int):
        return {Decimal(value)}
    if isinstance(value, float):
        return {Decimal(repr(value))}
    items = value.values() if isinstance(value, dict) else value
    found: set[Decimal] = set()
    for item in items:
        found |= _stored_numbers(item)
    return found


def _all_sources(conversation: Conversation) -> set[Decimal]:
    """Every stored number: tool results as stored (the full typed JSON, not the lean form the
    model read, which keeps 6 significant digits), tool arguments and user text."""
    found: set[Decimal] = set()
    sources: list[Any] = list(session_sources(conversation))
    sources += [m["result"] for m in conversation.messages if isinstance(m.get("result"), dict)]
    for source in sources:
        found |= {r for n in _stored_numbers(source) for r in _readings(n)}
    return found


_STRUCTURAL = (
    re.compile(r"[Qq]uestion \d+(?: of \d+)?"),  # which question a line is about
    re.compile(r"Appendix [A-F]"),
)
_RULE_CONSTANTS = (
    f"{TIGHT_HEADROOM_FRACTION:.0%}",  # the risk rule's threshold, stated with it
    f"at most {MAX_COMPARED}",  # how many options the comparison shows
)


def untraced_numbers(markdown: str, conversation: Conversation) -> list[str]:
    """Numbers of the document found in no stored value (nor a reading of one), leaving out
    only structure: question numbers, appendix letters, the session's id and timestamp, and
    the rules' own stated constants."""
    text = markdown.replace(conversation.id, "").replace(conversation.updated, "")
    for pattern in _STRUCTURAL:
        text = pattern.sub("", text)
    for constant in _RULE_CONSTANTS:
        text = text.replace(constant, "")
    sources = _all_sources(conversation)
    return [
        m.group(0)
        for m in _NUMBER.finditer(text)
        if Decimal(m.group(0).replace(",", "")) not in sources
    ]


# --- golden files and determinism ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "output"), [(n, o) for n, outs in GOLDEN.items() for o in outs], ids=str
)
def test_rendering_matches_golden(
    sessions: dict[str, Conversation], name: str, output: str
) -> None:
    fmt = "html" if output.endswith(".html") else "md"
    golden = (DATA / output).read_text(encoding="utf-8")
    assert render_proposal(sessions[name], fmt) == golden


def test_rendering_is_byte_identical(session: Conversation, tmp_path: Path) -> None:
    for suffix in ("md", "html"):
        a = write_proposal(session, tmp_path / f"a.{suffix}")
        b = write_proposal(session.model_copy(deep=True), tmp_path / f"b.{suffix}")
        assert a.read_bytes() == b.read_bytes()


def test_a_manager_sized_document(markdown: dict[str, str]) -> None:
    # Issue 14: one question yielded an 82 KB Markdown file.
    for name, text in markdown.items():
        assert len(text.encode()) < 40_000, name


# --- page one -----------------------------------------------------------------------------------


def test_page_one_fits_and_has_every_element(markdown: dict[str, str]) -> None:
    for name, text in markdown.items():
        assert page_one_problems(text) == [], name


def test_the_page_one_check_catches_a_long_or_incomplete_page(markdown: dict[str, str]) -> None:
    text = markdown["session.json"]
    first, rest = text.split(f"\n{PAGE_BREAK}\n", 1)
    padded = first + "\n" + "\n".join(f"- filler {i}" for i in range(30)) + f"\n{PAGE_BREAK}\n"
    assert any("lines" in p for p in page_one_problems(padded + rest))
    without_risk = re.sub(r"\n## Main risk\n.*?(?=\n## )", "", first, flags=re.S)
    assert any("Main risk" in p for p in page_one_problems(without_risk + "\n---\n" + rest))
    empty_alternative = re.sub(r"(\n## Alternative\n).*?(?=\n## )", r"\1", first, flags=re.S)
    assert any("Alternative" in p for p in page_one_problems(empty_alternative + "\n---\n"))


def _report(conversation: Conversation) -> SizingReport:
    """The typed sizing report the session's latest `size` call stored."""
    results = [m["result"] for m in conversation.messages if m.get("name") == "size"]
    return SizingReport.model_validate(results[-1]["data"])


def test_page_one_quotes_the_decision_with_units_and_dates(
    session: Conversation, markdown: dict[str, str]
) -> None:
    report = _report(session)
    first = page_one(markdown["session.json"])
    # 2× H100 SXM named: bf16 Llama 3.1 70B on TP 2 needs 70,553,706,496 parameters × 2 B / 2
    # = 65.71 GiB of weights per GPU before any KV cache: over the 71.68 GiB budget with the
    # 32 users' cache, so the recommendation scales out to 4 (tools.sizing rule scale_out).
    assert report.scale_out is not None and report.headline is not None
    assert (report.scale_out.gpu, report.scale_out.count) == ("h100-sxm", 2)
    lead = report.headline.option
    assert (lead.gpu, lead.count, lead.tp) == ("h100-sxm", 4, 4)
    assert f"**{lead.count}× NVIDIA H100 SXM5** in 1 server" in first
    assert "the 2 H100 SXM5 named do not hold the load; 4 do" in first
    assert "2× NVIDIA H100 SXM5 named:** does not fit" in first
    # catalog/prices.toml, Voltage Park / Lightning AI H100, as of 2026-09-19: 1.99 USD per
    # GPU-hour; 4 GPUs = 7.96 USD per hour; a month always on: 7.96 × 730 h = 5,810.8 USD
    # (tools.cost HOURS_PER_MONTH).
    price = report.headline.price
    assert price is not None and price.billed_gpus == 4
    assert price.usd_per_hour == pytest.approx(4 * 1.99)
    assert price.usd_per_month == pytest.approx(4 * 1.99 * 730)
    cost = section(first, "Monthly cost")
    month = f"**{format_number(4 * 1.99 * 730)} USD per month**"
    assert f"{month} ({format_number(4 * 1.99)} USD per hour × 730 h billed)" in cost
    assert "Voltage Park / Lightning AI" in cost and "as of 2026-09-19" in cost
    # $/M = USD per hour ÷ (output tokens/s × 3,600 s) × 10⁶ at the stated load.
    tokens_per_s = lead.aggregate_tokens_per_s
    assert tokens_per_s is not None
    assert price.usd_per_million_tokens == pytest.approx(4 * 1.99 / (tokens_per_s * 3600) * 1e6)
    dollars_per_million = format_number(4 * 1.99 / (tokens_per_s * 3600) * 1e6)
    assert f"**{dollars_per_million} USD per million output tokens** at the stated load" in cost
    # Speeds say how they were obtained: the figure the option holds, with its basis.
    assert (lead.speed_basis, lead.ttft_basis) == ("calibrated", "calibrated")
    assert lead.decode_tokens_per_s_per_seq is not None and lead.ttft_s is not None
    why = section(first, "Why")
    speed = format_number(lead.decode_tokens_per_s_per_seq)
    assert f"{speed} tokens/s per user (calibrated)" in why
    assert f"first token after {format_number(lead.ttft_s)} s (calibrated)" in why


def test_the_training_page_prices_the_job(markdown: dict[str, str]) -> None:
    first = page_one(markdown["session-training.json"])
    assert "## Cost of the training job" in first and "## Monthly cost" not in first
    assert "USD for the job" in first and "h of training (" in first
    assert "a deadline of 24 h: met" in first


def test_a_follow_up_session_covers_its_latest_sizing_turn(
    sessions: dict[str, Conversation], markdown: dict[str, str]
) -> None:
    report = _report(sessions["session-followup.json"])
    text = markdown["session-followup.json"]
    first = page_one(text)
    assert "It answers question 2 of 2" in first
    assert "“with 16k context and a budget of 5000 USD a month”" in first
    assert "16,384-token context" in first and "EU regions only" in first
    # The EUR price was compared at the rate the session ran with (1.08 USD per EUR).
    assert report.request.pricing.eur_to_usd == 1.08
    assert "converted at 1.08 USD per EUR" in first
    # "a budget of 5000 USD a month", as the user wrote it.
    assert report.request.budget is not None
    budget = report.request.budget
    assert (budget.amount, budget.currency, budget.period) == (5000, "USD", "month")
    assert f"**Budget:** {5000:,} USD per month" in first
    appendix = text.split("## Appendix A.")[1].split("## Appendix B.")[0]
    assert "Question 1 (sized: " in appendix
    assert "Question 2 (covered by this proposal, sized: " in appendix


# --- every number comes from the session ----------------------------------------------------------


def test_every_number_in_the_markdown_is_in_the_tool_results(
    sessions: dict[str, Conversation], markdown: dict[str, str]
) -> None:
    for name, text in markdown.items():
        assert untraced_numbers(text, sessions[name]) == [], name


def test_the_number_check_catches_an_invented_figure(
    session: Conversation, markdown: dict[str, str]
) -> None:
    text = markdown["session.json"] + "\nIt also needs 123.456789 GB of swap.\n"
    assert untraced_numbers(text, session) == ["123.456789"]


def test_quoted_figures_match_hand_calculations(
    session: Conversation, markdown: dict[str, str]
) -> None:
    text = markdown["session.json"]
    # Llama 3.1 70B config.json (meta-llama): 80 layers, 8 KV heads, head_dim 128; bf16 K and V:
    # 80 × 8 × 128 × 2 (K, V) × 2 bytes = 327,680 bytes per token.
    assert f"KV cache {80 * 8 * 128 * 2 * 2:,} bytes per token" in text
    # Parameters of Llama 3.1 70B, exact count from its architecture (shared/research/params.json).
    assert f"{70_553_706_496:,} parameters in total" in text
    # 2× H100 (TP 2), bf16: weights 70,553,706,496 × 2 B / 2 = 65.71 GiB per GPU; KV cache
    # 327,680 B × 3,024 tokens (a multiple of vLLM's 16-token blocks) × 32 sequences / 2
    # = 15,854,469,120 B = 14.77 GiB.
    named = _report(session).memory[0]
    assert (named.gpu, named.count, named.count_named) == ("h100-sxm", 2, True)
    assert named.estimate is not None
    assert named.estimate.breakdown["kv_cache"] == 327_680 * 3_024 * 32 // 2
    # The weights per GPU also hold what TP replicates (norms): within 0.01 % of the split.
    assert named.estimate.breakdown["weights"] == pytest.approx(70_553_706_496 * 2 // 2, rel=1e-4)
    weights_gib = bytes_as_gib(70_553_706_496 * 2 // 2)
    kv_gib = bytes_as_gib(327_680 * 3_024 * 32 // 2)
    assert (weights_gib, kv_gib) == ("65.71", "14.77")
    assert f"| 2× NVIDIA H100 SXM5 named | {weights_gib} | {kv_gib} |" in text


def test_numbers_are_rounded_for_reading() -> None:
    # QA round 2, finding 11: "76.968728985 GB" was printed as stored.
    assert format_number(76.968728985) == "76.97"
    assert format_number(1274.126) == "1,274.13"
    assert format_number(7.3616) == "7.36"
    assert format_number(0.03232) == "0.0323"  # three significant digits below 1
    assert format_number(0.58598) == "0.586"
    assert format_number(123404) == "123,404"  # whole numbers keep every digit
    assert format_number(1.23457e12) == "1,234,570,000,000"
    # 85,520,809,984 B (H100: 81,559 MiB usable, nvidia-smi) / 2^30 = 79.647 GiB.
    assert bytes_as_gib(85_520_809_984) == "79.65"
    # 73.7812 GB = 73.7812e9 B / 2^30 = 68.7138 GiB.
    assert gb_as_gib(73.7812) == "68.71"


def test_memory_is_in_one_unit(markdown: dict[str, str]) -> None:
    for name, text in markdown.items():
        memory = text.split("\n## Memory per GPU\n")[1].split("\n## ")[0]
        assert "GiB" in memory and not re.search(r"\bGB\b", memory), name
        assert not re.search(r"\|[^|\n]*\(GB\)[^|\n]*\|", text), name
        # Nothing printed with raw stored digits (an arXiv id quoted from a source is no figure).
        assert not re.search(r"(?<!arXiv )\b\d{1,4}\.\d{5,}", text), name


# --- one document, two formats -----------------------------------------------------------------

_VOID = {"meta", "br", "hr", "img", "link", "input", "col", "wbr"}


class _Checker(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.tags: set[str] = set()
        self.attrs: list[tuple[str, str | None]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.attrs.extend(attrs)
        if tag not in _VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        if "body" in self.stack and "style" not in self.stack:
            self.text.append(data)


def _check_html(text: str) -> _Checker:
    checker = _Checker()
    checker.feed(text)
    checker.close()
    return checker


def test_html_is_well_formed_self_contained_and_printable(session: Conversation) -> None:
    text = render_proposal(session, "html")
    checker = _check_html(text)
    assert checker.errors == [] and checker.stack == []
    assert after_reading(text).startswith("<!DOCTYPE html>")
    assert {"html", "head", "body", "style", "table", "h1", "h2"} <= checker.tags
    assert "script" not in checker.tags and "link" not in checker.tags
    assert not [a for a in checker.attrs if a[0] in ("src", "href")]
    assert "@import" not in text and "url(" not in text
    assert "@media print" in text and "@page" in text
    # Page one, the tables and the appendix each start a printed page.
    assert text.count('<hr class="page-break">') == 2
    assert "break-after: page" in text and "display: table-header-group" in text


def test_html_and_markdown_carry_the_same_figures_in_the_same_order(
    sessions: dict[str, Conversation], markdown: dict[str, str]
) -> None:
    for name, conversation in sessions.items():
        html_text = "\n".join(_check_html(render_proposal(conversation, "html")).text)
        plain = re.sub(r"\\(.)", r"\1", markdown[name])  # Markdown's escapes undone
        assert _numbers_in(html_text) == _numbers_in(plain), name


def test_html_escapes_tool_text() -> None:
    conversation = _conversation(
        [("recommend", {"model": "x"}, _recommendation("<script>alert(1)</script>"))]
    )
    text = render_proposal(conversation, "html")
    assert "<script>" not in text and "&lt;script&gt;" in text
    assert _check_html(text).errors == []


# --- LLM summary ----------------------------------------------------------------------------------


def test_llm_summary_is_marked_after_page_one_and_unverified_figures_flagged(
    session: Conversation,
) -> None:
    summary = "Four H100s need 44.62 GiB per GPU; a spare 999 GB is free."
    text = render_proposal(session, "md", summary=summary)
    assert "## Executive summary (LLM-written)" not in page_one(text)
    assert "## Executive summary (LLM-written)" in text
    assert "NOT found in any tool result: 999 GB." in text
    assert "44.62 GiB" in text.split("NOT found", 1)[1]  # the summary itself is printed


def test_grounded_llm_summary_is_reported_verified(session: Conversation) -> None:
    text = render_proposal(session, "md", summary="It needs 44.62 GiB per GPU.")
    assert "every figure was found in the tool results." in text


# --- sessions without a sizing report -------------------------------------------------------------


def _recommendation(model_id: str) -> Recommendation:
    """A typed recommend result with no options (what the extraction tests need)."""
    return Recommendation(
        model_id=model_id,
        total_params=1,
        active_params=1,
        weights_format="bf16",
        weight_bytes=2,
        kv_cache_bytes_per_token=1,
        context_tokens=1,
        objective="cheapest",
        options=[],
        rejected=[],
        notes=[],
        assumptions=[],
    )


def _estimate(model_id: str, gpus: int) -> MemoryEstimate:
    """A real memory estimate (Llama 3.1 8B on `gpus` GPUs), relabelled `model_id`."""
    estimate = estimate_memory(MemoryRequest(model="llama-3.1-8b", gpus=gpus, tp=gpus))
    return estimate.model_copy(update={"model_id": model_id})


def _add_call(
    conversation: Conversation, call_id: str, name: str, args: dict[str, Any], result: BaseModel
) -> None:
    function = {"name": name, "arguments": json.dumps(args)}
    call = {"id": call_id, "type": "function", "function": function}
    conversation.add({"role": "assistant", "content": None, "tool_calls": [call]})
    conversation.add(tool_message(call_id, name, result))


def _conversation(calls: list[tuple[str, dict[str, Any], BaseModel]]) -> Conversation:
    conversation = Conversation(id="t", created="2026-01-01", updated="2026-01-01")
    conversation.add({"role": "user", "content": "size it"})
    for i, (name, args, result) in enumerate(calls):
        _add_call(conversation, f"c{i}", name, args, result)
    return conversation


def test_extract_takes_latest_successful_results() -> None:
    conversation = _conversation(
        [
            ("recommend", {"users": 1}, _recommendation("first")),
            ("recommend", {"users": 2}, _recommendation("second")),
            ("recommend", {"users": 3}, ToolError(error="invalid arguments")),
            ("compare_costs", {}, ToolError(error="no price")),
        ]
    )
    inputs = collect(conversation)
    assert inputs.recommend is not None
    assert inputs.recommend.result.model_id == "second"
    assert inputs.recommend.arguments == {"users": 2}
    assert inputs.cost is None


def test_extract_keeps_only_the_last_turns_memory_calls() -> None:
    conversation = _conversation([("estimate_memory", {"gpus": 1}, _estimate("a", 1))])
    conversation.add({"role": "user", "content": "and on two or four?"})
    _add_call(conversation, "m2", "estimate_memory", {"gpus": 2}, _estimate("b", 2))
    _add_call(conversation, "m4", "estimate_memory", {"gpus": 4}, _estimate("c", 4))
    inputs = collect(conversation)
    assert [m.arguments["gpus"] for m in inputs.memory] == [2, 4]
    assert [m.result.num_gpus for m in inputs.memory] == [2, 4]
    assert inputs.turn == 2 and inputs.question == "and on two or four?"


def test_a_memory_only_session_states_its_checks(markdown: dict[str, str]) -> None:
    conversation = _conversation([("estimate_memory", {"gpus": 1}, _estimate("a", 1))])
    text = render_proposal(conversation, "md")
    assert page_one_problems(text) == []
    assert "**Memory checks only.**" in page_one(text)


def test_empty_session_renders_placeholders() -> None:
    text = render_proposal(Conversation(id="e", created="2026", updated="2026"), "md")
    assert "The session holds no memory, recommendation or cost result." in text
    assert page_one_problems(text) == []


def test_a_result_that_no_longer_loads_is_named_not_fatal() -> None:
    conversation = _conversation([("recommend", {"model": "x"}, _recommendation("llama"))])
    broken = {"schema": "Recommendation", "data": {"model_id": "llama", "options": "?"}}
    conversation.messages[-1]["result"] = broken
    text = render_proposal(conversation, "md")
    assert "Left out of this proposal" in text and "cannot be shown" in text


def test_unknown_format_is_an_input_error(session: Conversation) -> None:
    with pytest.raises(ToolInputError) as err:
        render_proposal(session, "pdf")
    assert err.value.field == "format" and "md, html" in err.value.message


def test_the_document_has_three_parts(session: Conversation) -> None:
    document = build_document(session)
    assert len(document.page_one) < len(document.blocks)
    text = render_proposal(session, "md")
    assert text.count(f"\n{PAGE_BREAK}\n") == 2
    tables, appendix = text.split(f"\n{PAGE_BREAK}\n")[1:]
    assert tables.lstrip().startswith("## Options compared")
    assert appendix.lstrip().startswith("## Appendix A.")


# --- writing --------------------------------------------------------------------------------------


def test_write_never_overwrites_without_force(session: Conversation, tmp_path: Path) -> None:
    target = tmp_path / "proposal.md"
    target.write_text("keep me", encoding="utf-8")
    with pytest.raises(ProposalExistsError) as err:
        write_proposal(session, target)
    assert str(target) in err.value.message
    assert target.read_text(encoding="utf-8") == "keep me"
    assert list(tmp_path.iterdir()) == [target]  # no temporary file left behind
    write_proposal(session, target, force=True)
    assert target.read_text(encoding="utf-8").startswith("# Hardware proposal")


def test_write_picks_html_from_the_extension(session: Conversation, tmp_path: Path) -> None:
    path = write_proposal(session, tmp_path / "p.html")
    assert path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
