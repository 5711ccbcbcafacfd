"""Self-hosting vs a hosted API at a token volume (issue 18, class 2): daily and monthly token
volumes are the serving load, and the cost tool's break-even answers the question."""

from __future__ import annotations

import pytest

from assistant.offline.parser import parse_workload
from assistant.offline.planner import sizing_arguments
from assistant.results import stored_calls
from tests.offline_turns import after_reading, answer, costs, sizing
from tools.cost import UsageProfile
from tools.cost.breakeven import break_even
from tools.cost.results import ApiComparisonRow, ServingCostRow
from tools.sizing import SizingRequest

# The cost tool's default input:output ratio is 3 input tokens per output token, so a total
# volume V in and out is V / 4 output tokens; its billing month is 730 h = 30.4167 days.
DAYS_PER_MONTH = 730 / 24


@pytest.mark.parametrize(
    ("text", "output_per_day", "providers"),
    [
        # 50M in and out a day → 12.5M output tokens a day.
        ("is self-hosting Llama 3.1 70B cheaper than an API at 50M tokens a day?", 12.5e6, []),
        # 1.5B a month → 1.5e9 / 30.4167 = 49.32M a day → 12.33M output tokens a day.
        (
            "llama 3.1 8b: self-host vs the Groq API for 1.5B tokens/month",
            1.5e9 / DAYS_PER_MONTH / 4,
            ["Groq"],
        ),
        # Output said: 10M output tokens a day as they are.
        (
            "we generate 10M output tokens daily with llama 3.1 70b, would hosting it ourselves "
            "beat API pricing?",
            10e6,
            [],
        ),
        ("Llama 3.1 8B on our own GPUs vs the OpenAI API, 200k tokens per day", 50e3, ["OpenAI"]),
    ],
)
def test_a_token_volume_with_an_api_is_the_serving_load(
    text: str, output_per_day: float, providers: list[str]
) -> None:
    parsed = parse_workload(text)
    assert parsed.api_comparison and parsed.task == "inference"
    assert parsed.train_tokens is None  # not training data
    assert parsed.output_tokens_per_day == pytest.approx(output_per_day)
    # The load: the day's output averaged over 86,400 s.
    assert parsed.tokens_per_s == pytest.approx(output_per_day / 86_400)
    assert parsed.api_providers == providers


def test_the_volume_reaches_the_cost_tool_per_billing_month() -> None:
    parsed = parse_workload(
        "is self-hosting Llama 3.1 70B cheaper than an API at 50M tokens a day?"
    )
    request = SizingRequest.model_validate(sizing_arguments(parsed))
    # 12.5M output tokens a day × 30.4167 days = 380,208,333 output tokens a month: the usage
    # every price of the report is computed with.
    volume = request.pricing.usage.output_tokens_per_month
    assert volume == pytest.approx(12.5e6 * DAYS_PER_MONTH)
    assert request.workload.model == "llama-3.1-70b"


def _row(usd_per_month: float) -> ServingCostRow:
    return ServingCostRow.model_validate(
        {
            "price_id": "p",
            "provider": "Cloud",
            "instance": None,
            "instances": None,
            "notes": [],
            "gpu": "h100-sxm",
            "count": 1,
            "billed_gpus": 1,
            "tier": "on_demand",
            "pricing_type": "per_gpu_hour",
            "region": None,
            "eu": False,
            "currency": "USD",
            "as_of": "2026-09-01",
            "source": "test",
            "per_hour": usd_per_month / 730,
            "gpu_label": "1× H100",
            "billed_hours_per_month": 730.0,
            "per_month": usd_per_month,
            "output_tokens_per_month": None,
            "per_million_output_tokens": None,
            "per_million_blended_tokens": None,
            "usd_per_hour": usd_per_month / 730,
            "usd_per_month": usd_per_month,
            "usd_per_million_tokens": None,
            "usd_per_million_blended_tokens": None,
            "confidence": None,
        }
    )


def _api(input_per_mtok: float, output_per_mtok: float) -> ApiComparisonRow:
    blended = (3 * input_per_mtok + output_per_mtok) / 4
    return ApiComparisonRow(
        api_id="a",
        provider="API",
        model="m",
        match="same",
        basis=None,
        currency="USD",
        input_per_mtok=input_per_mtok,
        output_per_mtok=output_per_mtok,
        blended_per_mtok=blended,
        usd_blended_per_mtok=blended,
        as_of="2026-09-01",
        source="test",
    )


def test_break_even_says_which_bill_is_lower_at_the_volume() -> None:
    # API at $0.60 in / $0.80 out per M: a million output tokens bring 3M input tokens,
    # 3 × 0.60 + 0.80 = $2.60. Self-hosted flat $1,460 a month (2 $/h × 730 h).
    # Break-even: 1,460 / 2.60 × 1e6 = 561.5M output tokens a month.
    profile = UsageProfile(output_tokens_per_month=100e6)
    even = break_even(_row(1460.0), _api(0.60, 0.80), 1000.0, profile)
    assert even is not None
    assert even.api_usd_per_million_output_tokens == pytest.approx(2.60)
    assert even.break_even_output_tokens_per_month == pytest.approx(1460 / 2.60 * 1e6)
    # At 100M output tokens a month the API bills 100 × 2.60 = $260 < $1,460: the API.
    assert even.api_usd_per_month_at_volume == pytest.approx(260.0)
    assert even.cheaper_at_volume == "api"
    # 1,000 tok/s × 3,600 × 730 = 2.628B a month of capacity: the volume fits.
    assert even.volume_within_capacity is True
    # At 1B a month the API bills $2,600 > $1,460: self-hosting.
    big = break_even(
        _row(1460.0), _api(0.60, 0.80), 1000.0, UsageProfile(output_tokens_per_month=1e9)
    )
    assert big is not None and big.cheaper_at_volume == "self-hosted"
    # 10 tok/s makes 26.28M a month: it cannot serve 100M.
    slow = break_even(_row(1460.0), _api(0.60, 0.80), 10.0, profile)
    assert slow is not None and slow.volume_within_capacity is False


async def test_the_answer_leads_with_self_hosted_vs_api_at_the_volume() -> None:
    text, conversation = await answer(
        "llama 3.1 8b: self-host vs the Groq API for 1.5B tokens/month"
    )
    assert sizing(conversation).request.pricing.api_providers == ["Groq"]
    cost = costs(conversation)
    # Groq llama-3.1-8b-instant (catalog/api_prices.toml, groq.com/pricing via genai-prices):
    # $0.05 in, $0.08 out per M → 3 × 0.05 + 0.08 = $0.23 per M output tokens with their input.
    assert {a.provider for a in cost.api_comparison} == {"Groq"}
    even = next(e for e in cost.break_even if e.tier == "on_demand")
    assert even.api_usd_per_million_output_tokens == pytest.approx(0.23)
    # 1.5B tokens a month in and out → 375M output tokens; the API bills 375 × 0.23 = $86.25.
    assert even.volume_output_tokens_per_month == pytest.approx(375e6, rel=1e-4)
    assert even.api_usd_per_month_at_volume == pytest.approx(86.25, rel=1e-4)
    first = after_reading(text).splitlines()[0]
    assert first.startswith("**Self-hosted vs hosted API at 375.00M output tokens a month:")
    cheaper = "the API is cheaper" if even.cheaper_at_volume == "api" else "self-hosting"
    assert cheaper in first and "Groq" in first


async def test_a_bare_size_asks_which_model_the_api_prices_are_for() -> None:
    text, conversation = await answer(
        "is self-hosting a 70B cheaper than an API at 50M tokens a day?"
    )
    assert "Hosted API prices are per model" in text and "Llama 3.1 70B" in text
    # The figures of the default reading (a generic 70B) come with the question (class 12).
    assert after_reading(text).startswith("For the default reading")
    (call,) = [c for c in stored_calls(conversation.messages) if c.name == "size"]
    assert call.arguments["workload"]["params"] == 70e9


@pytest.mark.parametrize(
    "text",
    [
        "is self-hosting Llama 3.3 70B cheaper than an API for 50M tokens a month?",
        "Llama 3.3 70B: host it ourselves or use the Groq API, 1B tokens a month",
        "llama 3.3 70b on our own GPUs vs an API at 20M tokens a day",
    ],
)
async def test_llama_3_3_70b_is_compared_with_its_own_hosted_prices(text: str) -> None:
    """Llama 3.3 70B is a catalog model of its own; the hosted rows of it (Groq, Together,
    DeepInfra, …) used to be filed only as 'comparable to Llama 3.1 70B', so a question about
    3.3 found no API price at all."""
    reply, conversation = await answer(text)
    assert "no hosted API price" not in reply
    apis = costs(conversation).api_comparison
    assert apis and all(a.match == "same" for a in apis)
    if "Groq" in text:
        # The Groq API named is the one compared: its published llama-3.3-70b-versatile price
        # (groq.com/pricing, via genai-prices groq.yml) is 0.59 USD in, 0.79 USD out per 1M.
        assert [(a.provider, a.input_per_mtok, a.output_per_mtok) for a in apis] == [
            ("Groq", 0.59, 0.79)
        ]


def test_llama_3_1_70b_still_sees_the_3_3_rows_as_comparable() -> None:
    from tools.cost.hosted_api import api_prices_for
    from tools.pricing import load_price_book

    book = load_price_book()
    rows = api_prices_for("llama-3.1-70b", book)
    assert any(match == "comparable" and "3.3" in api.model for api, match in rows)
    assert all(api.model_id == "llama-3.3-70b" for api, match in rows if "3.3" in api.model)
