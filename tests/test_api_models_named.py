"""'Self-host Llama 3.3 70B or use GPT-4o mini?': the API the user names is another model, and
it is the one compared (price only), never dropped ('Could not place: GPT-4o mini') nor
replaced by the self-hosted model's own hosted prices."""

from __future__ import annotations

import pytest

from assistant.offline.parser import parse_workload
from tests.fuzzing_cli import run_cli
from tests.offline_turns import after_reading, answer, costs
from tools.cost.hosted_api import named_api_prices
from tools.errors import ToolInputError
from tools.pricing import load_price_book

# Published list prices (USD per 1M tokens, input / output), as carried in catalog/
# api_prices.toml from pydantic/genai-prices: OpenAI gpt-4o-mini 0.15 / 0.60 and gpt-5-mini
# 0.25 / 2.00 (openai.yml); Anthropic Claude Sonnet 4.5 3.00 / 15.00 (anthropic.yml).
PUBLISHED = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-5-mini": (0.25, 2.00),
    "claude-sonnet-4-5 (Claude Sonnet 4.5)": (3.00, 15.00),
}

QUESTIONS = [
    # (question, model self-hosted, API model compared, output tokens a month)
    # 50M in and out a month at the default 3 input tokens per output token → 12.5M output.
    (
        "is it cheaper to self-host Llama 3.3 70B or use GPT-4o mini for 50M tokens a month?",
        "llama-3.3-70b",
        "gpt-4o-mini",
        12.5e6,
    ),
    # 20M a day → 5M output a day × 730/24 days = 152.08M output a month.
    (
        "Llama 3.1 8B on our own GPUs vs Claude Sonnet 4.5 at 20M tokens a day",
        "llama-3.1-8b",
        "claude-sonnet-4-5 (Claude Sonnet 4.5)",
        5e6 * 730 / 24,
    ),
    (
        "should we self-host Qwen3 32B instead of paying for gpt-5-mini? about 1B tokens a month",
        "qwen3-32b",
        "gpt-5-mini",
        250e6,
    ),
]


@pytest.mark.parametrize(("text", "model", "api", "_"), QUESTIONS)
def test_the_api_model_named_is_read(text: str, model: str, api: str, _: float) -> None:
    parsed = parse_workload(text)
    assert parsed.model == model
    assert parsed.api_models and parsed.api_comparison and parsed.task == "inference"
    assert parsed.unplaced == []


@pytest.mark.parametrize(("text", "model", "api", "volume"), QUESTIONS)
async def test_the_api_named_is_the_one_compared(
    text: str, model: str, api: str, volume: float
) -> None:
    reply, conversation = await answer(text)
    serving = costs(conversation)
    assert [(a.model, a.match) for a in serving.api_comparison] == [(api, "named")]
    even = next(e for e in serving.break_even if e.tier == "on_demand")
    # Per output token with its 3 input tokens: 3 × input + output per 1M.
    price_in, price_out = PUBLISHED[api]
    per_output = 3 * price_in + price_out
    assert even.api_usd_per_million_output_tokens == pytest.approx(per_output)
    assert even.volume_output_tokens_per_month == pytest.approx(volume)
    assert even.api_usd_per_month_at_volume == pytest.approx(volume / 1e6 * per_output)
    lead = after_reading(reply).splitlines()[0]
    assert lead.startswith("**Self-hosted vs hosted API at ")
    assert "another model, compared on price only" in lead
    assert "no hosted API price" not in reply


def test_a_catalog_model_is_never_read_as_an_api_model() -> None:
    parsed = parse_workload("self-host gpt-oss-120b or use GPT-4o, 100M tokens a month")
    assert parsed.model == "gpt-oss-120b"
    assert parsed.api_models == ["GPT-4o"]


def test_gpt_4o_mini_is_not_read_as_gpt_4o() -> None:
    book = load_price_book()
    assert [a.id for a, _ in named_api_prices(["GPT-4o mini"], book)] == ["openai-gpt-4o-mini"]
    assert [a.id for a, _ in named_api_prices(["gpt 4o"], book)] == ["openai-gpt-4o"]
    assert parse_workload("Llama 3.1 8B vs GPT-4o mini").api_models == ["GPT-4o mini"]


def test_a_family_names_every_price_of_it() -> None:
    rows = named_api_prices(["Claude Sonnet"], load_price_book())
    assert len(rows) >= 2 and all("sonnet" in a.model for a, _ in rows)


def test_an_api_model_the_catalog_lacks_is_an_error_naming_the_field() -> None:
    with pytest.raises(ToolInputError) as caught:
        named_api_prices(["gpt-9"], load_price_book())
    assert caught.value.field == "api_models"
    assert "gpt-9" in caught.value.problem and "GPT-4o-mini" in (caught.value.allowed or "")


def test_the_cost_command_says_it_in_one_line_with_exit_2() -> None:
    run = run_cli(["cost", "--model", "llama-3.3-70b", "--users", "10", "--api-models", "gpt-9"])
    assert run.code == 2 and run.raised is None
    lines = run.err.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("gpu-sizer cost: error: --api-models: no hosted API price")
    assert "Allowed: " in lines[0] and "GPT-4o-mini" in lines[0]


def test_the_cost_command_compares_the_api_named() -> None:
    run = run_cli(
        ["cost", "--model", "llama-3.3-70b", "--users", "10", "--api-models", "GPT-4o mini"]
    )
    assert run.code == 0, run.err
    table = run.out[run.out.index("hosted APIs") :].splitlines()
    row = next(line for line in table if line.startswith("OpenAI"))
    # Blended at 3 input tokens per output token: (3 × 0.15 + 0.60) / 4 = 0.2625 USD per 1M.
    assert row.split()[1:6] == ["gpt-4o-mini", "named", "0.150", "0.600", "0.262"]


async def test_the_proposal_says_the_api_is_another_model() -> None:
    from assistant.proposal import render_proposal

    _, conversation = await answer(
        "is it cheaper to self-host Llama 3.3 70B for 40 users or use GPT-4o mini for 500M "
        "tokens a month?"
    )
    document = render_proposal(conversation)
    assert "### Hosted APIs named for comparison" in document
    risk = next(x for x in document.splitlines() if x.startswith("**A hosted API costs less.**"))
    assert "openai-gpt-4o-mini, another model, compared on price only" in risk
    # 500M in and out → 125M output tokens at 1.05 USD per million (3 × 0.15 + 0.60).
    assert "131.25 USD a month" in risk


@pytest.mark.parametrize(
    "text",
    [
        "serve GPT-4o mini to 100 users",
        "how many H100s for gpt-4o?",
        "Claude Sonnet 4.5 at 20M tokens a day: what GPUs?",
    ],
)
def test_an_api_model_alone_is_asked_about_not_sized(text: str) -> None:
    """A closed model's weights are not published: nothing to size on a GPU, so the question
    asks which model would be self-hosted beside it (not a bare 'Which model?')."""
    parsed = parse_workload(text)
    assert not parsed.has_model and parsed.api_models
    question = next(q for q in (x.text for x in parsed.questions) if "hosted API" in q)
    assert parsed.api_models[0] in question and "cannot be self-hosted" in question


def test_the_reply_with_a_model_keeps_the_api_to_compare_with() -> None:
    first = parse_workload("serve GPT-4o mini to 100 users at 20M tokens a day")
    reply = parse_workload("Llama 3.3 70B", previous=first)
    assert reply.model == "llama-3.3-70b"
    assert reply.api_models == ["GPT-4o mini"] and reply.users == 100
