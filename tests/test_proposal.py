"""Proposal export: golden files, every number traced to the session, HTML well-formedness,
grounded LLM summary, extraction rules, no-overwrite writes.

The canned session `tests/data/proposal/session.json` was produced by running the real registry
tools (build_session.py); the golden files are its rendering. Independent checks (hand
calculations from published configs) pin the figures the document must quote.
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
    SECTION_TITLES,
    ProposalExistsError,
    render_proposal,
    session_sources,
    write_proposal,
)
from assistant.proposal.extract import collect
from assistant.proposal.figures import bytes_as_gib, format_number, gb_as_gib
from assistant.results import ToolError, load_result, tool_message
from tools.cost import CostComparison
from tools.errors import ToolInputError
from tools.memory import MemoryEstimate, MemoryRequest, estimate_memory
from tools.recommend import Recommendation

DATA = Path(__file__).parent / "data" / "proposal"
_NUMBER = re.compile(r"-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?")


@pytest.fixture(scope="module")
def session() -> Conversation:
    return Conversation.model_validate_json((DATA / "session.json").read_text(encoding="utf-8"))


def _numbers_in(text: str) -> list[Decimal]:
    return [Decimal(m.group(0).replace(",", "")) for m in _NUMBER.finditer(text)]


def _readings(number: Decimal) -> set[Decimal]:
    """A stored number and what the proposal may print for it: the number rounded for reading,
    and its GiB reading as bytes (÷ 2^30) or as GB (× 10^9 ÷ 2^30), rounded the same way."""
    value = float(number)
    shown = {number}
    for converted in (value, value / 2**30, value * 1e9 / 2**30):
        shown.add(Decimal(format_number(converted).replace(",", "")))
    return shown


def _source_numbers(value: Any) -> set[Decimal]:
    """Every number in a tool result / arguments / user text (numbers inside strings included),
    with each one's readings (`_readings`)."""
    return {r for number in _stored_numbers(value) for r in _readings(number)}


def _stored_numbers(value: Any) -> set[Decimal]:
    """Every number in a tool result / arguments / user text, as stored."""
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
    found: set[Decimal] = set()
    for source in session_sources(conversation):
        found |= _source_numbers(source)
    return found


def _structural_free(markdown: str, conversation: Conversation) -> str:
    """The document minus its structural numbers: section numbering and the session's own
    metadata (id, timestamp) in the header line. Nothing else is excluded."""
    text = markdown
    for title in SECTION_TITLES:
        _number, _, rest = title.partition(" ")
        text = text.replace(f"## {title}", f"## {rest}")
    return text.replace(conversation.id, "").replace(conversation.updated, "")


def untraced_numbers(markdown: str, conversation: Conversation) -> list[str]:
    sources = _all_sources(conversation)
    text = _structural_free(markdown, conversation)
    return [
        m.group(0)
        for m in _NUMBER.finditer(text)
        if Decimal(m.group(0).replace(",", "")) not in sources
    ]


# --- golden files and determinism ---------------------------------------------------------------


def test_markdown_matches_golden(session: Conversation) -> None:
    assert render_proposal(session, "md") == (DATA / "proposal.md").read_text(encoding="utf-8")


def test_html_matches_golden(session: Conversation) -> None:
    golden = (DATA / "proposal.html").read_text(encoding="utf-8")
    assert render_proposal(session, "html") == golden


def test_rendering_is_byte_identical(session: Conversation, tmp_path: Path) -> None:
    a = write_proposal(session, tmp_path / "a.md")
    b = write_proposal(session.model_copy(deep=True), tmp_path / "b.md")
    assert a.read_bytes() == b.read_bytes()


def test_document_has_every_section(session: Conversation) -> None:
    text = render_proposal(session, "md")
    for title in SECTION_TITLES:
        assert f"\n## {title}\n" in text


# --- every number comes from the session ----------------------------------------------------------


def test_every_number_in_the_markdown_is_in_the_tool_results(session: Conversation) -> None:
    assert untraced_numbers(render_proposal(session, "md"), session) == []


def test_the_number_check_catches_an_invented_figure(session: Conversation) -> None:
    text = render_proposal(session, "md") + "\nIt also needs 123.456789 GB of swap.\n"
    assert untraced_numbers(text, session) == ["123.456789"]


def test_quoted_figures_match_hand_calculations(session: Conversation) -> None:
    text = render_proposal(session, "md")
    # Llama 3.1 70B config.json (meta-llama): 80 layers, 8 KV heads, head_dim 128; bf16 K and V:
    # 80 × 8 × 128 × 2 (K, V) × 2 bytes = 327,680 bytes per token.
    assert f"{80 * 8 * 128 * 2 * 2:,} bytes" in text
    # KV cache of the memory call: 327,680 B × 2,500 tokens (rounded up to 16-token vLLM blocks:
    # 2,512) × 32 sequences / TP 2 = 13,170,114,560 B = 12.2656... GiB (÷ 2^30), shown 12.27.
    assert 327_680 * 2_512 * 32 // 2 == 13_170_114_560
    assert "| kv\\_cache | 12.27 |" in text
    # Parameters of Llama 3.1 70B, exact count from its architecture (shared/research/params.json).
    assert "70,553,706,496 total" in text


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


def test_memory_tables_and_notes_share_one_unit(session: Conversation) -> None:
    text = render_proposal(session, "md")
    memory = text.split("\n## 3. ")[1].split("\n## 4. ")[0]
    assert "(GiB)" in memory and "(GB)" not in memory
    # The tools' notes quoted in the document speak GiB; no memory table is in GB.
    assert not re.search(r"\|[^|\n]*\(GB\)[^|\n]*\|", text)
    assert not re.search(r"\d\.\d{5,}", text)  # nothing printed with raw stored digits


# --- HTML ---------------------------------------------------------------------------------------

_VOID = {"meta", "br", "hr", "img", "link", "input", "col", "wbr"}


class _Checker(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.tags: set[str] = set()
        self.attrs: list[tuple[str, str | None]] = []

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


def _check_html(text: str) -> _Checker:
    checker = _Checker()
    checker.feed(text)
    checker.close()
    return checker


def test_html_is_well_formed_self_contained_and_printable(session: Conversation) -> None:
    text = render_proposal(session, "html")
    checker = _check_html(text)
    assert checker.errors == [] and checker.stack == []
    assert text.startswith("<!DOCTYPE html>")
    assert {"html", "head", "body", "style", "table", "h1", "h2"} <= checker.tags
    assert "script" not in checker.tags and "link" not in checker.tags
    assert not [a for a in checker.attrs if a[0] in ("src", "href")]
    assert "@import" not in text and "url(" not in text
    assert "@media print" in text and "@page" in text


def test_html_escapes_tool_text() -> None:
    conversation = _conversation(
        [("recommend", {"model": "x"}, _recommendation("<script>alert(1)</script>"))]
    )
    text = render_proposal(conversation, "html")
    assert "<script>" not in text and "&lt;script&gt;" in text
    assert _check_html(text).errors == []


# --- LLM summary ----------------------------------------------------------------------------------


def test_llm_summary_is_marked_and_unverified_figures_flagged(session: Conversation) -> None:
    summary = "One MI300X needs 145.588 GB per GPU; a spare 999 GB is free."
    text = render_proposal(session, "md", summary=summary)
    assert "### Executive summary (LLM-written)" in text
    assert "NOT found in any tool result: 999 GB." in text
    assert "145.588 GB" in text.split("NOT found", 1)[1]  # the summary itself is printed


def test_grounded_llm_summary_is_reported_verified(session: Conversation) -> None:
    text = render_proposal(session, "md", summary="It needs 145.588 GB per GPU.")
    assert "every figure was found in the tool results." in text


# --- extraction -----------------------------------------------------------------------------------


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
    memory = collect(conversation).memory
    assert [m.arguments["gpus"] for m in memory] == [2, 4]
    assert [m.result.num_gpus for m in memory] == [2, 4]


def test_empty_session_renders_placeholders() -> None:
    text = render_proposal(Conversation(id="e", created="2026", updated="2026"), "md")
    assert "No cost result in this session." in text
    assert "No recommendation in this session." in text


def test_unknown_format_is_an_input_error(session: Conversation) -> None:
    with pytest.raises(ToolInputError) as err:
        render_proposal(session, "pdf")
    assert err.value.field == "format" and "md, html" in err.value.message


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


def test_summary_names_eur_offers_it_could_not_compare(session: Conversation) -> None:
    # QA round 2, finding 5: the summary called a USD row "cheapest" while the table listed a
    # cheaper-looking EUR row. The cost tool's own line (tools/cost/currency.py) is quoted.
    note = (
        "1 offer in EUR (1 in the EU) not compared (no EUR→USD rate set); cheapest on_demand "
        "OVHcloud h100-380 (1× h100-sxm) 2.80 EUR/hour, as_of 2026-09-26"
    )
    copy = session.model_copy(deep=True)
    for index, message in enumerate(copy.messages):
        result = load_result(message) if message.get("role") == "tool" else None
        if isinstance(result, CostComparison) and result.serving is not None:
            result.serving.unconverted_note = note
            copy.messages[index] = tool_message(message["tool_call_id"], "compare_costs", result)
    text = render_proposal(copy, "md")
    summary = text.split("\n## 1. Summary\n")[1].split("\n## 2. ")[0]
    assert "cheapest on\\_demand price compared in USD" in summary
    assert "Not compared: 1 offer in EUR" in summary and "2.80 EUR/hour" in summary
    assert "Not compared in USD: 1 offer in EUR" in text.split("\n## 6. ")[1]


def test_qa3_f_proposal_breakdown_is_the_recommended_layout_on_the_named_gpu() -> None:
    # QA3 F: "on H200s" (no count) sized 1× H200 (320 GiB of KV, −267 GiB headroom) while the
    # answer recommends 4× H200, TP 2 × 2 replicas. The proposal shows the layout's breakdown:
    # 16 sequences per replica × 32,768 tokens × 327,680 B (Qwen2.5 72B: 2 × 80 layers × 8 KV
    # heads × 128 × 2 B) / TP 2 = 80 GiB of KV per GPU.
    import asyncio

    from assistant.proposal.extract import collect
    from assistant.proposal.sections import memory_blocks
    from tests.offline_turns import answer

    _, conversation = asyncio.run(
        answer("serve Qwen2.5 72B in fp8 to 32 users at 32k context on H200s")
    )
    text = repr(memory_blocks(collect(conversation)))
    assert "2× h200-sxm (TP=2, PP=1)" in text
    assert "1× h200-sxm (TP=1, PP=1)" not in text
    assert 16 * 32768 * 327_680 // 2 == 80 * 2**30


def test_a_session_stored_before_typed_results_renders_the_same_proposal() -> None:
    # session-v0.json is the canned session as the previous version stored it (tool contents
    # are the lean JSON, no typed result); session.json is the same results stored typed.
    legacy = Conversation.model_validate_json((DATA / "session-v0.json").read_text("utf-8"))
    assert not any("result" in m for m in legacy.messages if m.get("role") == "tool")
    assert render_proposal(legacy, "md") == (DATA / "proposal.md").read_text(encoding="utf-8")


def test_a_result_that_no_longer_loads_is_named_not_fatal() -> None:
    conversation = _conversation([("recommend", {"model": "x"}, _recommendation("llama"))])
    broken = {"schema": "Recommendation", "data": {"model_id": "llama", "options": "?"}}
    conversation.messages[-1]["result"] = broken
    text = render_proposal(conversation, "md")
    assert "No recommendation in this session." in text
    assert "Left out of this proposal" in text and "cannot be shown" in text
