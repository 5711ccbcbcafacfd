"""Buy vs rent (issue 30 item 6): purchase, power, break-even and energy per token against hand
arithmetic written out here, the catalog's sources, and the offline phrasings that reach it."""

from __future__ import annotations

import json
from datetime import date

import pytest

from assistant.app.results import card_view
from assistant.cli import main
from assistant.mcp.text import render_result
from assistant.offline.parser import parse_workload
from assistant.offline.planner import plan_tool_calls
from assistant.proposal.page_one import recommendation_blocks
from assistant.registry import default_registry
from tools.deployment import BuyVsRent, BuyVsRentRequest, buy_vs_rent
from tools.deployment.purchase_prices import purchase_prices
from tools.sizing import SizingRequest, size


def test_break_even_and_energy_by_hand() -> None:
    # One H100 SXM: 700 W TDP (NVIDIA datasheet) × PUE 1.56 = 1.092 kW at the wall;
    # × 730 h = 797.16 kWh a month; × 0.15 USD = 119.574 USD a month.
    # Renting at 2.00 USD/h = 1,460 USD a month; buying at 25,000 USD pays off after
    # 25,000 / (1,460 − 119.574) = 18.650 months.
    out = buy_vs_rent(
        BuyVsRentRequest(
            gpu="h100-sxm",
            purchase_usd_per_gpu=25_000,
            rent_usd_per_gpu_hour=2.0,
            tokens_per_s=1_000,
        )
    )
    assert out.facility_kw == pytest.approx(1.092)
    assert out.energy_kwh_per_month == pytest.approx(797.16)
    assert out.power_usd_per_month == pytest.approx(119.574)
    assert out.rent_usd_per_month == pytest.approx(1_460)
    assert out.break_even_months_low == pytest.approx(25_000 / (1_460 - 119.574))
    # 1,000 tokens/s = 3.6 M tokens an hour: 1.092 kWh / 3.6 = 0.30333 kWh per M tokens.
    assert out.kwh_per_million_tokens == pytest.approx(1.092 / 3.6)
    assert out.usd_energy_per_million_tokens == pytest.approx(1.092 / 3.6 * 0.15)


def test_stated_tariff_pue_and_host_power() -> None:
    # 4 × RTX 4090 (450 W) at 60 % load + 300 W host = 1.38 kW; PUE 1.0 (a home office);
    # 0.30 USD/kWh × 1.38 × 730 = 302.22 USD a month.
    out = buy_vs_rent(
        BuyVsRentRequest(
            gpu="rtx-4090", count=4, load_fraction=0.6, host_watts=300, pue=1.0, usd_per_kwh=0.3
        )
    )
    assert out.power_kw == pytest.approx(1.38)
    assert out.power_usd_per_month == pytest.approx(302.22)
    # The catalog's RTX 4090 launch MSRP: 1,599 USD (NVIDIA, October 2022) × 4.
    assert out.purchase_usd_low == out.purchase_usd_high == 4 * 1_599


def test_purchase_catalog_entries_are_sourced_and_dated() -> None:
    prices = purchase_prices()
    assert prices["h100-sxm"].usd_low == 25_000 and prices["h100-sxm"].usd_high == 40_000
    assert prices["b200-hgx"].usd_low == 30_000  # Huang on CNBC, 2 October 2024
    assert prices["rtx-5090"].usd_low == 1_999  # NVIDIA CES 2025
    for entry in prices.values():
        assert entry.source and entry.as_of[:2] == "20"


@pytest.mark.parametrize(
    ("gpu", "low", "high", "kind"),
    [
        ("h200-sxm", 25_000, 35_000, "street"),  # awesomeagents.ai: '$25,000-$35,000'
        ("mi300x", 10_000, 15_000, "street"),  # awesomeagents.ai: '$10,000-$15,000'
        ("l40s", 7_000, 10_000, "street"),  # datastorage.com: 'On-premise Module ~$7k–$10k'
        ("l4", 2_500, 2_500, "street"),  # runlocalai.co: '$2,500 retail'
        ("rtx-6000-ada", 6_799, 6_799, "msrp"),  # pcpartdb.com: 'MSRP of $6,799'
        ("rtx-3090", 1_499, 1_499, "msrp"),  # Indian Express, 2 Sep 2020: '$1499'
        ("apple-m4-max-32c", 1_999, 1_999, "msrp"),  # Macworld: Mac Studio 'starts at $1,999'
    ],
)
def test_the_added_purchase_prices_are_the_sources_figures(
    gpu: str, low: int, high: int, kind: str
) -> None:
    entry = purchase_prices()[gpu]
    assert (entry.usd_low, entry.usd_high, entry.kind) == (low, high, kind)
    assert "http" in entry.source  # every added entry names the page it was read on


def test_a_range_gives_a_break_even_range() -> None:
    out = buy_vs_rent(BuyVsRentRequest(gpu="h100-sxm", count=8, rent_usd_per_gpu_hour=3.0))
    assert out.break_even_months_low is not None and out.break_even_months_high is not None
    assert out.break_even_months_high / out.break_even_months_low == pytest.approx(40 / 25)


def test_cheapest_rental_follows_the_quote_rule() -> None:
    out = buy_vs_rent(BuyVsRentRequest(gpu="h100-sxm"), today=date(2026, 12, 2))
    assert out.rental is not None and out.rental.provider
    assert not out.rental.stale


def test_no_price_is_said_not_guessed() -> None:
    # The A10G is an AWS instance GPU, never sold on its own: the catalog has no price for it.
    out = buy_vs_rent(BuyVsRentRequest(gpu="a10g", rent_usd_per_gpu_hour=0.8))
    assert out.purchase_usd_low is None and out.break_even_months_low is None
    assert any("purchase_usd_per_gpu" in w for w in out.warnings)


def test_rent_below_power_never_pays_off() -> None:
    out = buy_vs_rent(BuyVsRentRequest(gpu="h100-sxm", rent_usd_per_gpu_hour=0.1, usd_per_kwh=1.0))
    assert out.break_even_months_low is None and out.warnings


@pytest.mark.parametrize(
    ("question", "kwh", "pue", "card"),
    [
        (
            "Should I buy or rent 8 H100s for Llama 3.1 70B serving 100 users? Power is $0.12/kWh",
            0.12,
            None,
            None,
        ),
        (
            "Llama 3.1 8B on an RTX 4090 for 10 users: buy the card or rent in the cloud?",
            None,
            None,
            None,
        ),
        (
            "energy per million tokens for Llama 3.1 8B on an H100, PUE 1.2, 9 cents per kWh",
            0.09,
            1.2,
            None,
        ),
        (
            "Is it cheaper to buy H100s at $30k a card than to rent them, Llama 3.1 70B, 50 users?",
            None,
            None,
            30_000.0,
        ),
        (
            "Llama 3.1 8B on an H100, 20 users: when does owning the GPUs pay off vs cloud?",
            None,
            None,
            None,
        ),
    ],
)
def test_offline_questions_reach_buy_vs_rent(
    question: str, kwh: float | None, pue: float | None, card: float | None
) -> None:
    parsed = parse_workload(question)
    assert parsed.buy_asked and not parsed.questions, parsed.questions
    assert (parsed.usd_per_kwh, parsed.pue, parsed.purchase_usd_per_gpu) == (kwh, pue, card)
    args = next(c.arguments for c in plan_tool_calls(parsed) if c.name == "size")
    report = size(SizingRequest.model_validate(args))
    b = report.buy_vs_rent
    assert b is not None and report.headline is not None
    assert (b.gpu, b.count) == (report.headline.option.gpu, report.headline.option.count)
    if kwh is not None:
        assert b.usd_per_kwh == kwh
    # The rental compared with is the price the report quotes for the leading option.
    price = report.headline.price
    assert price is not None and b.rental is not None
    assert b.rental.usd_per_hour == price.usd_per_hour


def test_which_gpu_to_buy_is_not_a_buy_vs_rent_question() -> None:
    assert not parse_workload("What GPU should I buy for Llama 3.1 70B?").buy_asked


def test_card_prices_and_budgets_are_told_apart() -> None:
    parsed = parse_workload("Buy 8 H100s at $25,000 each or rent them, for Llama 3.1 70B?")
    assert parsed.purchase_usd_per_gpu == 25_000
    budget = parse_workload("Serve Llama 3.1 8B to 20 users for $0.01 per hour")
    assert budget.purchase_usd_per_gpu is None and not budget.buy_asked


def test_buy_vs_rent_on_every_surface(capsys: pytest.CaptureFixture[str]) -> None:
    question = "Buy or rent 8 H100s for Llama 3.1 70B with 100 users? $0.12/kWh"
    assert main(["ask", "--offline", "--json", question]) == 0
    out = json.loads(capsys.readouterr().out)
    record = out["sizing"]["buy_vs_rent"]
    assert record["usd_per_kwh"] == 0.12 and record["break_even_months_low"] > 0
    assert "Break-even" in out["answer"]
    report = size(
        SizingRequest.model_validate(
            {
                "workload": {"model": "llama-3.1-70b", "users": 100},
                "configurations": [{"gpu": "h100-sxm", "count": 8}],
                "buy": {},
            }
        )
    )
    assert "Break-even" in render_result(report)
    assert any(line.startswith("buy vs rent: break-even") for line in card_view(report).lines)
    text = " ".join(getattr(b, "text", "") for b in recommendation_blocks(report))
    assert "Break-even" in text
    registry = default_registry()
    result = registry.call("buy_vs_rent", {"gpu": "h100-sxm", "count": 8})
    assert not result.is_error and isinstance(result.value, BuyVsRent)
    assert "Break-even" in render_result(result.value)
