"""OfflineEngine: the Engine contract, OpenAI-format messages, clarifying questions, follow-ups.

The contract checked here is COMMON's: user message appended first, each tool call as an
assistant `tool_calls` entry plus a `tool` message with the same id, exactly one `Done` last.
"""

from __future__ import annotations

import json

import pytest

from assistant.answer import ANSWER_KEY, stored_answer
from assistant.conversation import Conversation
from assistant.engine_base import Engine
from assistant.events import Done, Event, TextDelta, ToolCallStarted, ToolResult
from assistant.offline.engine import OfflineEngine
from assistant.offline.parser import parse_workload
from assistant.offline.planner import plan_tool_calls
from assistant.reading.parsed import previous_workload
from assistant.render import DETAILS_TOPIC, SCREEN_LINES
from assistant.render.fold import screen_lines
from tests.offline_turns import (
    after_reading,
    answer,
    costs,
    last_answer,
    recommendation,
    sizing,
    visible,
)


async def _turn(engine: OfflineEngine, conversation: Conversation, text: str) -> list[Event]:
    return [event async for event in engine.run_turn(conversation, text)]


def test_offline_engine_implements_the_protocol() -> None:
    engine = OfflineEngine()
    assert isinstance(engine, Engine) and engine.mode == "offline"


async def test_missing_model_asks_one_question_and_runs_no_tool() -> None:
    conversation = Conversation()
    events = await _turn(OfflineEngine(), conversation, "100 concurrent chats on an H200")
    assert not any(isinstance(e, ToolCallStarted) for e in events)
    assert isinstance(events[-1], Done) and sum(isinstance(e, Done) for e in events) == 1
    assert "Which model" in events[-1].text
    assert conversation.messages[0] == {
        "role": "user",
        "content": "100 concurrent chats on an H200",
    }
    assert conversation.messages[-1]["role"] == "assistant"


async def test_tool_calls_are_recorded_in_openai_format() -> None:
    conversation = Conversation()
    events = await _turn(OfflineEngine(), conversation, "Llama 3.1 8B on an L4 for 10 users")
    started = [e for e in events if isinstance(e, ToolCallStarted)]
    results = [e for e in events if isinstance(e, ToolResult)]
    assert started and [e.call_id for e in started] == [e.call_id for e in results][: len(started)]
    call_message = conversation.messages[1]
    assert call_message["role"] == "assistant" and call_message["content"] is None
    ids = [c["id"] for c in call_message["tool_calls"]]
    tool_ids = [m["tool_call_id"] for m in conversation.messages if m["role"] == "tool"]
    assert tool_ids[: len(ids)] == ids
    for call in call_message["tool_calls"]:
        assert call["type"] == "function"
        json.loads(call["function"]["arguments"])  # arguments are a JSON string
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    done = events[-1]
    # The visible part streams; the full text is it plus the folded part (stored as sections).
    assert isinstance(done, Done) and done.answer is not None and done.answer.visible == text
    assert conversation.messages[-1] == {
        "role": "assistant",
        "content": done.text,
        ANSWER_KEY: done.answer.stored(),
    }


async def test_follow_up_refines_the_workload_stored_in_the_conversation() -> None:
    engine = OfflineEngine()
    conversation = Conversation()
    await _turn(engine, conversation, "Llama 3.1 70B on one H200 for 40 users")
    first = previous_workload(conversation)
    assert first is not None and first.model == "llama-3.1-70b" and first.users == 40
    events = await _turn(engine, conversation, "what about 8-bit?")
    calls = [e for e in events if isinstance(e, ToolCallStarted)]
    assert [c.name for c in calls] == ["size"]
    workload = calls[0].arguments["workload"]
    assert workload["model"] == "llama-3.1-70b"
    assert workload["weights"] == "int8" and workload["users"] == 40
    (sized,) = sizing(conversation).memory
    assert sized.estimate is not None and sized.estimate.weights_format == "int8"
    assert sized.estimate.batch == 40 and sized.gpu == "h200-sxm"


async def test_plan_for_a_named_configuration() -> None:
    # "a 70B on 2×H100 vs 1×H200": one memory estimate per configuration, TP across the two
    # H100s (one replica), then the recommender restricted to those GPUs.
    # No length was said: the estimates use the one default shape the recommender also uses
    # (tools/defaults.py: 3,072 + 1,024 = 4,096 tokens).
    (planned,) = plan_tool_calls(parse_workload("a 70B on 2×H100 vs 1×H200"))
    assert planned.name == "size"
    assert planned.arguments["workload"] == {
        "params": 70e9,
        "constraints": {"only_gpus": ["h100-sxm", "h200-sxm"]},
    }
    assert [(c.get("gpu"), c.get("count")) for c in planned.arguments["configurations"]] == [
        ("h100-sxm", 2),
        ("h200-sxm", 1),
    ]
    _, conversation = await answer("a 70B on 2×H100 vs 1×H200")
    report = sizing(conversation)
    h100, h200 = (m.estimate for m in report.memory)
    assert h100 is not None and h200 is not None
    assert (h100.gpu, h100.num_gpus, h100.tp, h100.context) == ("h100-sxm", 2, 2, 4096)
    assert (h200.gpu, h200.num_gpus, h200.tp) == ("h200-sxm", 1, 1)
    # The counts named (2 and 1) bound the recommender: it answers within the hardware said.
    assert report.search is not None
    assert report.search.constraints.only_gpus == ["h100-sxm", "h200-sxm"]
    assert report.search.constraints.max_gpus == 2


def test_plan_maps_training_fields_to_the_workload_schema() -> None:
    parsed = parse_workload("LoRA on Llama 3.1 8B with 50k examples of 1k tokens in 3 days")
    args = plan_tool_calls(parsed)[-1].arguments["workload"]
    assert args["task"] == "lora" and args["sequence_length"] == 1024
    assert args["train_tokens"] == 50_000 * 1024 and args["deadline_hours"] == 72.0


def test_nothing_is_planned_while_a_question_is_open() -> None:
    # An id with no size, not in the catalog nor the local HF cache: a question (issue 15:
    # 'acme/Thing-7B' now sizes as a generic 7B, tests/test_open_world_questions.py).
    assert plan_tool_calls(parse_workload("serve acme/Thing-v2")) == []


async def test_verdict_leads_with_the_gpu_count_when_one_gpu_is_not_enough() -> None:
    # "on H100s" names a GPU but no count: the verdict must say how many, not only that one
    # is too few. Hand check of the need: 40 users × 16,384 tokens = 655,360 KV tokens.
    conversation = Conversation()
    events = await _turn(
        OfflineEngine(),
        conversation,
        "serve Llama 3.1 70B in 4-bit to 40 users with 16k context on H100s",
    )
    done = next(e for e in events if isinstance(e, Done))
    first, second = after_reading(done.text).splitlines()[:2]
    assert first.startswith("**Needs ") and "H100 SXM5" in first
    assert second.startswith("**Does not fit on 1× H100 SXM5**")
    rec = recommendation(conversation)
    best = next(o for o in rec.options if o.gpu == "h100-sxm" and o.fits)
    assert f"**Needs {best.count}× H100 SXM5**" in first
    assert best.dp * best.kv_cache_capacity_tokens >= 40 * 16_384


async def test_training_answer_prices_the_job_and_mentions_no_kv_cache() -> None:
    conversation = Conversation()
    events = await _turn(
        OfflineEngine(), conversation, "full fine-tune of Llama 3.1 8B on 2B tokens on H100s"
    )
    done = next(e for e in events if isinstance(e, Done))
    assert "KV-cache tokens" not in after_reading(done.text).splitlines()[0]
    comparison = sizing(conversation).costs
    assert comparison is not None and comparison.training is not None
    on_demand = [r for r in comparison.training.rows if r.tier == "on_demand"]
    priced = [r for r in on_demand if r.gpu == "h100-sxm" and r.usd_cost is not None]
    # The cheapest the cost tool ranks: by USD among confirmed, fresh rates (a low-confidence
    # rate never heads a confirmed one); the answer quotes it.
    confirmed = [r for r in priced if not r.low_confidence and not r.stale]
    cheapest = min(confirmed, key=lambda r: r.usd_cost or 0.0)
    assert cheapest.usd_cost is not None
    assert comparison.training.cheapest_by_tier["on_demand"] == cheapest.price_id
    # A job's cost is its wall-clock hours times the hourly price of the GPUs it rents, in USD
    # at the catalog's ECB reference rate (catalog/exchange_rates.toml, 2026-10-30: 1.1172 USD
    # per EUR) when the row is in EUR: since confirmed rates lead, the cheapest such H100 row
    # can be OVHcloud's (2.80 EUR/GPU-h, confidence "high").
    rate = 1.1172 if cheapest.currency == "EUR" else 1.0
    expected = cheapest.wall_hours * cheapest.per_hour * rate
    assert cheapest.usd_cost == pytest.approx(expected, rel=1e-4)
    assert f"{cheapest.usd_cost:,.2f} at {cheapest.per_hour}/h" in done.text


async def test_memory_and_recommender_agree_on_the_verdict() -> None:
    # "a 70B in INT8 on a single 80 GB GPU" said "does not fit" (memory at 4,096 tokens) above
    # a table saying "fits" (recommender at 1,280): both now size the same sequence.
    text, conversation = await answer("Will a 70B in INT8 fit on a single 80 GB GPU?")
    h100 = next(o for o in recommendation(conversation).options if o.gpu == "h100-sxm")
    verdict = next(line for line in text.splitlines() if "H100 SXM5" in line)
    assert verdict.startswith("**Fits on" if h100.fits else "**Does not fit on")


async def test_training_answer_has_training_columns_and_no_kv_figures() -> None:
    text, _ = await answer("Fine-tune Llama 3.1 8B with LoRA rank 16 on an L4")
    assert "KV" not in text.split("**Assumptions**")[0]
    assert "| training hours |" in text and "tok/s per user" not in text
    assert "n/a (no data size)" in text  # no tokens to train on were given
    assert "How long are the training sequences" in text


async def test_gpus_with_the_same_verdict_share_one_line() -> None:
    # Llama 2 13B: 13.02B parameters × 2 bytes (fp16) = 26.0 GB of weights alone, more than
    # any 24 GB card holds, so every 24 GB GPU gets a "does not fit"; the three with the same
    # budget (A10G, A10, L4: 19.8 GiB) share one line, the RTX 4090 (21.3 GiB) has its own.
    text, _ = await answer("Llama 2 13B fp16 on a 24GB GPU")
    lines = text.splitlines()
    verdicts = [line for line in lines if line.startswith("**Does not fit on")]
    assert not any(line.startswith("**Fits on") for line in lines)
    assert sum(line.count("1× ") for line in verdicts) == 4  # the catalog's four 24 GB cards
    assert len(verdicts) < 4 and any(line.count("1× ") >= 2 for line in verdicts)


async def test_no_gpu_named_leads_with_an_option_not_a_one_gpu_total() -> None:
    text, conversation = await answer("Can I run Llama 3.1 8B in bf16 for 20 users?")
    first = after_reading(text).splitlines()[0]
    assert first.startswith(("**Cheapest priced option", "**Recommended:"))
    assert "no GPU named" not in text and "one GPU" not in first
    if first.startswith("**Cheapest"):
        # Only fitting options are priced and none has a target to miss: the lead is the
        # lowest on-demand USD rate among the cost tool's rows (EUR rows carry no USD rate),
        # fresh prices before stale ones (a stale price must not decide "cheapest").
        usd = [
            (bool(r.stale), r.usd_per_hour)
            for r in costs(conversation).rows
            if r.tier == "on_demand" and r.usd_per_hour is not None
        ]
        cheapest = min(usd)[1]
        assert f"{cheapest:,.2f} USD per hour" in first


async def test_budget_is_checked_against_the_priced_options() -> None:
    text, conversation = await answer("Serve Llama 3.1 8B to 20 users for $0.01 per hour")
    # No GPU rents for a cent an hour: every priced row is over this budget.
    check = sizing(conversation).budget_check
    assert check is not None and (check.amount_usd, check.period) == (0.01, "hour")
    assert check.within is False and check.cheapest is not None
    assert check.cheapest.usd_per_hour is not None and check.cheapest.usd_per_hour > 0.01
    assert "**Budget 0.01 USD per hour: over**" in text


async def test_impossible_scale_explains_instead_of_a_bare_error() -> None:
    # 10^7 concurrent users is the most any tool sizes (tools.limits.MAX_SEQUENCES): the users
    # (not an internal field such as the memory tool's `batch`) are named with the bound.
    text, _ = await answer("Llama 3.1 70B for 10^9 users")
    # The figures of the default reading (without the users in doubt) come first, then the ask.
    assert after_reading(text).startswith("For the default reading (without '1000000000 users'):")
    assert "**One question before I size this exactly:**" in text
    assert "at most 10,000,000 concurrent users" in text and "batch" not in text
    text, _ = await answer("Llama 3.1 70B for 10^7 users")
    assert after_reading(text).startswith("**No option meets every target.**")


# --- folded assumptions: what the user must check first, the tools' sources on demand ---------

SCENARIO = "serve Llama 3.1 70B in 4-bit to 40 users with 16k context"


def _stated_assumptions(conversation: Conversation) -> list[str]:
    """Every assumption the turn's tools stated, in order, once (read from the stored sizing
    report's results, not from the renderer)."""
    stated: dict[str, None] = {}
    for result in sizing(conversation).results():
        for item in getattr(result, "assumptions", []):
            stated.setdefault(" ".join(str(item).split()), None)
    return list(stated)


async def test_answer_shows_how_the_words_were_read_and_folds_the_tool_assumptions() -> None:
    text, conversation = await answer(SCENARIO)
    folded = last_answer(conversation)
    # The sections are data: the full text is the visible part, then the folded part.
    assert folded.details_title is not None and text == folded.text
    assert text == folded.visible + "\n" + folded.details
    # The user's own words, as read, are in the part everyone sees.
    read_as = next(s for s in folded.sections if s.title == "Assumptions")
    assert not read_as.folded
    assert any(line.startswith("- '4-bit' read as 4-bit AWQ") for line in read_as.lines)
    assert any(line.startswith("- '16k' read as 16,384 tokens") for line in read_as.lines)
    assert any("Serving engine not stated" in line for line in read_as.lines)
    # The model's config source and the overhead constants are only in the folded part.
    for needle in ("mlc-ai/mlc-llm", "cuda_context_bytes", "cublas_workspace_bytes", "MFU"):
        assert needle not in folded.visible and needle in folded.details
    # Nothing the tools stated is lost: the fold holds every one of them, each once.
    (tools,) = [s for s in folded.sections if s.title and s.title.startswith("Tool assumptions")]
    assert tools.folded
    bullets = [line.removeprefix("- ") for line in tools.lines]
    assert bullets == _stated_assumptions(conversation)
    assert tools.title == f"Tool assumptions ({len(bullets)})"
    assert f"{len(bullets)} tool assumptions ({DETAILS_TOPIC})" in folded.details_title


async def test_defaults_the_question_left_out_are_stated_with_the_values_used() -> None:
    _, conversation = await answer("serve Llama 3.1 8B")
    shown = visible(conversation).split("**Assumptions**")[1]
    memory = sizing(conversation).memory[0].estimate
    assert memory is not None
    # The context and concurrency the memory tool actually sized (its own result fields).
    assert f"Context not stated: sized at {memory.context:,} tokens per sequence" in shown
    users = f"Concurrent users not stated: memory and speed sized for {memory.batch:,} at a time"
    assert users in shown
    # Llama 3.1 8B's published config.json has torch_dtype bfloat16: the default precision.
    assert "Precision not stated: bf16 weights" in shown
    assert "Serving engine not stated: served with vLLM" in shown


async def test_said_facts_are_not_reported_as_defaults() -> None:
    _, conversation = await answer(
        "Llama 3.1 8B in FP16 on one L4 for 4 users with 8k context on vLLM"
    )
    # Only the prompt length was not said: TTFT is for the default prompt (QA2 finding 6).
    stated = [line for line in visible(conversation).splitlines() if "not stated" in line]
    assert stated == ["- Prompt length not stated: TTFT for a 3,072-token prompt"]


async def test_the_fold_is_stored_as_sections_and_an_edited_message_is_shown_whole() -> None:
    _, conversation = await answer(SCENARIO)
    message = conversation.messages[-1]
    stored = stored_answer(message)
    assert stored is not None and stored == last_answer(conversation)
    # Sections that no longer make up the message's text are not used to fold it.
    assert stored_answer({**message, "content": message["content"] + "edited"}) is None
    assert stored_answer({**message, ANSWER_KEY: {"sections": "not a list"}}) is None


async def test_the_visible_part_fits_one_screen() -> None:
    for question in (SCENARIO, "serve Llama 3.1 8B", "full fine-tune of Llama 3.1 8B on 2B tokens"):
        _, conversation = await answer(question)
        shown = [s for s in last_answer(conversation).sections if not s.folded]
        lead, others = shown[0], shown[1:]
        # The lead always shows; every other visible section fitted the screen budget.
        used = sum(screen_lines(s) for s in shown) + len(shown) - 1
        assert lead.title is None and (not others or used <= SCREEN_LINES), question


async def test_visible_part_grows_as_a_prefix_while_the_answer_streams() -> None:
    conversation = Conversation()
    events = await _turn(OfflineEngine(), conversation, SCENARIO)
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    done = events[-1]
    assert isinstance(done, Done) and done.answer is not None
    # Only the visible part streams, a prefix of the full text; the fold comes with Done.
    streamed = "".join(deltas)
    assert streamed == done.answer.visible and done.text.startswith(streamed)
    assert "cuda_context_bytes" not in streamed and "cuda_context_bytes" in done.text
