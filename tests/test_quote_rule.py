"""The one rule for which price a configuration is quoted at (tools.pricing.quote_order), serving
and training alike: within a tier, a fresh price before a stale one (undated, or older than 180
days), then a confirmed rate before a low-confidence one (catalog/prices.toml `confidence =
"low"`: a 'from' price, a rate a second source contradicts, a code constant), then the lower
USD figure. The recommender's ranking price, the cost tool's row order, its `cheapest_by_tier`
and break-even rows, and the sizing report's quote follow it, so `cost`, `recommend`, `ask` and
the proposal quote the same row; where a low-confidence row is quoted, every surface says so.

Catalog rows the cases rest on (catalog/prices.toml, read by hand; ages on 2026-12-01):

| id | USD/GPU-h | GPUs/instance | confidence | as_of |
|---|---|---|---|---|
| voltage-park-lightning-ai-h100-ethernet-on-demand | 1.99 | per GPU | low | 2026-09-19 |
| hyperstack-h100-sxm-on-demand | 3.20 | per GPU | high | 2026-09-19 |
| ovhcloud-h100-380-h100-80gb-on-demand | 2.80 EUR | 1 | high | 2026-09-26 |
| tensorwave-mi300x-on-demand | 1.71 | 8 | low | 2026-08-16 |
| digitalocean-mi300x-gpu-droplet-on-demand | 2.59 | per GPU | high | 2026-08-01 (effective) |
| aws-g5-12xlarge-a10g-on-demand | 1.418 | 4 | low | undated |
"""

from __future__ import annotations

import json
import math
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from assistant.cli import main
from tools.cost import compare_costs
from tools.cost.inputs import PriceFilter, ServingCostInput
from tools.pricing import (
    PriceEntry,
    RankingPrices,
    builtin_price_book,
    on_demand_rows,
    parse_as_of,
)

TODAY = date(2026, 12, 1)
MAX_AGE_DAYS = 180  # tools.pricing.DEFAULT_MAX_PRICE_AGE_DAYS, the staleness limit
ECB_EUR_USD = 1.1172  # catalog/exchange_rates.toml, ECB reference rate of 2026-10-30

VOLTAGE_H100 = "voltage-park-lightning-ai-h100-ethernet-on-demand"
HYPERSTACK_H100 = "hyperstack-h100-sxm-on-demand"
OVH_H100 = "ovhcloud-h100-380-h100-80gb-on-demand"
TENSORWAVE_MI300X = "tensorwave-mi300x-on-demand"
DO_MI300X = "digitalocean-mi300x-gpu-droplet-on-demand"
AWS_G5_12X = "aws-g5-12xlarge-a10g-on-demand"


def _row(price_id: str) -> PriceEntry:
    return next(p for p in builtin_price_book().prices if p.id == price_id)


def test_the_hand_picked_rows_are_as_the_table_says() -> None:
    expected = {
        VOLTAGE_H100: ("h100-sxm", 1.99, "USD", None, "low", "2026-09-19"),
        HYPERSTACK_H100: ("h100-sxm", 3.2, "USD", None, "high", "2026-09-19"),
        OVH_H100: ("h100-sxm", 2.8, "EUR", 1, "high", "2026-09-26"),
        TENSORWAVE_MI300X: ("mi300x", 1.71, "USD", 8, "low", "2026-08-16"),
        DO_MI300X: (
            "mi300x",
            2.59,
            "USD",
            None,
            "high",
            "2026-08-01 (effective) / read 2026-09-19",
        ),
        AWS_G5_12X: ("a10g", 1.418, "USD", 4, "low", "undated"),
    }
    for price_id, fields in expected.items():
        p = _row(price_id)
        got = (p.gpu, p.price_per_gpu_hour, p.currency, p.gpus_per_instance, p.confidence, p.as_of)
        assert got == fields, price_id
        assert p.tier == "on_demand" and p.superseded is None


def _ranking(rate: float | None = None) -> RankingPrices:
    return RankingPrices(rows=on_demand_rows(builtin_price_book()), today=TODAY, eur_to_usd=rate)


def test_the_recommender_prices_h100_and_mi300x_at_confirmed_rows() -> None:
    # 1× H100, USD only: Voltage Park's 1.99 is low confidence, so Hyperstack's 3.20 is quoted.
    quote = _ranking().configuration("h100-sxm", 1, 1)
    assert quote is not None and quote.price.id == HYPERSTACK_H100
    assert quote.usd_per_hour == pytest.approx(3.20) and not quote.low_confidence
    # With the ECB rate, OVHcloud's 2.80 EUR = 2.80 × 1.1172 = 3.128 USD/h is cheaper still.
    quote = _ranking(ECB_EUR_USD).configuration("h100-sxm", 1, 1)
    assert quote is not None and quote.price.id == OVH_H100
    assert quote.usd_per_hour == pytest.approx(2.80 * 1.1172)
    # 8× MI300X in one TP 8 group: TensorWave's 8-GPU machine at 8 × 1.71 = 13.68 USD/h is
    # the cheapest, but low confidence; DigitalOcean's 8 × 2.59 = 20.72 USD/h is quoted.
    quote = _ranking().configuration("mi300x", 8, 8)
    assert quote is not None and quote.price.id == DO_MI300X
    assert quote.usd_per_hour == pytest.approx(20.72) and not quote.low_confidence
    # 2× A10G in TP 2: only AWS g5.12xlarge (4 GPUs, low confidence, undated) hosts the group
    # (g5.xlarge / 2xlarge are 1-GPU machines): quoted, both doubts said: 4 × 1.418 = 5.672.
    quote = _ranking().configuration("a10g", 2, 2)
    assert quote is not None and quote.price.id == AWS_G5_12X
    assert quote.usd_per_hour == pytest.approx(5.672)
    assert quote.low_confidence and quote.stale
    assert any("low-confidence price" in n for n in quote.notes)


def _serving(gpu: str, count: int, tp: int) -> Any:
    return compare_costs(
        [ServingCostInput(gpu=gpu, count=count, tp=tp, aggregate_tokens_per_s=1000.0)],
        builtin_price_book(),
        PriceFilter(tiers=["on_demand"]),
        model_id="llama-3.1-70b",
        freshness=(TODAY, MAX_AGE_DAYS),
    )


@pytest.mark.parametrize(
    ("gpu", "count", "tp", "quoted", "cheaper_low"),
    [
        ("h100-sxm", 1, 1, HYPERSTACK_H100, VOLTAGE_H100),
        ("mi300x", 8, 8, DO_MI300X, TENSORWAVE_MI300X),
    ],
)
def test_the_cost_tool_leads_with_and_breaks_even_on_the_confirmed_row(
    gpu: str, count: int, tp: int, quoted: str, cheaper_low: str
) -> None:
    result = _serving(gpu, count, tp)
    rows = [r for r in result.rows if r.usd_per_hour is not None]  # EUR stays EUR, no rate
    assert rows[0].price_id == quoted == result.cheapest_by_tier["on_demand"]
    low = next(r for r in rows if r.price_id == cheaper_low)
    assert low.low_confidence and low.usd_per_hour < rows[0].usd_per_hour
    assert any("unconfirmed price" in n for n in low.notes)
    # Every fresh confirmed row comes before it.
    assert all(
        rows.index(r) < rows.index(low) for r in rows if not r.stale and not r.low_confidence
    )
    assert [b.price_id for b in result.break_even] == [quoted]
    assert any("low confidence" in a for a in result.assumptions)


def _fresh(p: PriceEntry) -> bool:
    stated = parse_as_of(p.as_of)
    return stated is not None and (TODAY - stated).days <= MAX_AGE_DAYS


def _hand_usd_per_hour(p: PriceEntry, count: int, tp: int) -> float:
    """Whole instances, each TP group in one: ⌈⌈count / tp⌉ / ⌊gpus_per_instance / tp⌋⌉ ×
    the published instance price (else GPUs × the per-GPU rate); a per-GPU rate bills `count`
    GPUs."""
    if p.gpus_per_instance is None:
        return p.price_per_gpu_hour * count
    instances = math.ceil(math.ceil(count / tp) / (p.gpus_per_instance // tp))
    each = p.price_per_instance_hour or p.gpus_per_instance * p.price_per_gpu_hour
    return instances * each


def test_a_low_confidence_row_is_never_quoted_when_a_fresh_confirmed_one_hosts_the_layout() -> None:
    # Property over every catalog GPU with an on-demand USD row, 1-8 GPUs, TP 1 and TP = count:
    # when a fresh row whose confidence is not "low" hosts the layout, the quote is the
    # cheapest such row (by the hand billing above), in the recommender and the cost tool.
    ranking = _ranking()
    usd_rows = [p for p in ranking.rows if p.currency == "USD"]
    gpus = sorted({p.gpu for p in usd_rows if p.gpu is not None})
    assert len(gpus) >= 20
    checked = with_low_cheaper = 0
    for gpu in gpus:
        for count in (1, 2, 4, 8):
            for tp in sorted({1, count}):
                hosting = [
                    p for p in usd_rows if p.gpu == gpu and (p.gpus_per_instance or tp) >= tp
                ]
                confirmed = [p for p in hosting if _fresh(p) and p.confidence != "low"]
                if not confirmed:
                    continue
                best = min(_hand_usd_per_hour(p, count, tp) for p in confirmed)
                quote = ranking.configuration(gpu, count, tp)
                assert quote is not None and quote.price in confirmed, (gpu, count, tp)
                assert quote.usd_per_hour == pytest.approx(best), (gpu, count, tp)
                cost = _serving(gpu, count, tp)
                lead = cost.rows[0] if cost.rows[0].usd_per_hour is not None else None
                assert lead is not None and lead.price_id == cost.cheapest_by_tier["on_demand"]
                assert not lead.low_confidence and lead.usd_per_hour == pytest.approx(best)
                checked += 1
                lows = [p for p in hosting if p.confidence == "low" and _fresh(p)]
                if any(_hand_usd_per_hour(p, count, tp) < best for p in lows):
                    with_low_cheaper += 1
    # The property is not vacuous: H100 ×1/2/4/8 (Voltage Park) and MI300X/MI355X ×8
    # (TensorWave) are layouts whose cheapest fresh row is a low-confidence one.
    assert checked >= 60 and with_low_cheaper >= 5


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(list(argv)) == 0, capsys.readouterr().err
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


SURFACE_CASES = [
    # (question, flags, GPU, expected price id, count, USD/h by hand, low confidence)
    (
        "serve Llama 3.1 8B on H100s",
        ("--model", "llama-3.1-8b"),
        "h100-sxm",
        OVH_H100,  # 2.80 EUR × 1.1172 (the reference rate every sizing has) = 3.128 USD/h
        1,
        2.80 * 1.1172,
        False,
    ),
    (
        "serve Llama 3.1 405B to 8 users on MI300Xs",
        ("--model", "llama-3.1-405b", "--users", "8"),
        "mi300x",
        DO_MI300X,  # 8 × 2.59 = 20.72 USD/h, not TensorWave's 13.68 (low confidence)
        8,
        8 * 2.59,
        False,
    ),
    (
        "serve Qwen2.5 14B on A10Gs",
        ("--model", "qwen2.5-14b"),
        "a10g",
        AWS_G5_12X,  # the only row hosting TP 2: 4 GPUs billed × 1.418 = 5.672 USD/h
        2,
        4 * 1.418,
        True,
    ),
]


@pytest.mark.parametrize(
    ("question", "flags", "gpu", "price_id", "count", "usd_per_hour", "low"),
    SURFACE_CASES,
    ids=[c[0] for c in SURFACE_CASES],
)
def test_every_surface_quotes_the_same_row(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    question: str,
    flags: tuple[str, ...],
    gpu: str,
    price_id: str,
    count: int,
    usd_per_hour: float,
    low: bool,
) -> None:
    recommend = _cli(capsys, "recommend", *flags, "--only", gpu, "--json")
    cost = _cli(capsys, "cost", *flags, "--gpu", gpu, "--json")
    proposal = tmp_path / "proposal.md"
    asked = _cli(capsys, "ask", "--offline", "--json", "--proposal", str(proposal), question)
    for surface, headline in (
        ("recommend", recommend["headline"]),
        ("cost", cost["headline"]),
        ("ask", asked["sizing"]["headline"]),
    ):
        price = headline["price"]
        assert (headline["gpu"], headline["count"]) == (gpu, count), surface
        assert price["price_id"] == price_id, surface
        assert price["usd_per_hour"] == pytest.approx(usd_per_hour), surface
        assert price["low_confidence"] is low, surface
    # The proposal's recommended-configuration prices say it where the quote is low confidence.
    text = proposal.read_text(encoding="utf-8").replace("\\_", "_")
    first = text.split("\n---\n")[0]
    provider = _row(price_id).provider
    cost_line = next(line for line in first.splitlines() if "USD per month**" in line)
    assert provider in cost_line
    assert ("low confidence" in cost_line) is low
    # The plain-text surfaces: recommend's headline line and the cost table's age column.
    assert main(["recommend", *flags, "--only", gpu]) == 0
    lines = capsys.readouterr().out.splitlines()
    lead = next(line for line in lines if line.startswith("headline:"))
    assert ("low confidence" in lead) is low
    assert main(["cost", *flags, "--gpu", gpu]) == 0
    table = capsys.readouterr().out
    quoted = next(line for line in table.splitlines() if line.startswith(provider))
    assert ("low confidence" in quoted) is low


def test_the_offline_answer_says_a_quoted_price_is_low_confidence(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["ask", "--offline", "--no-save", "--details", "serve Qwen2.5 14B on A10Gs"]) == 0
    text = capsys.readouterr().out
    row = next(line for line in text.splitlines() if line.startswith("| A10G | 2 |"))
    assert "5.67" in row and "low confidence" in row  # 4 × 1.418 = 5.672 USD/h
    # The row is undated: its as_of and its age say so once, not 'undated, undated'.
    assert "(AWS, undated, low confidence)" in row and "undated, undated" not in text


def test_the_app_card_says_a_quoted_price_is_low_confidence() -> None:
    from assistant.app.verdict import verdict_lines
    from assistant.offline.parser import parse_workload
    from assistant.offline.planner import plan_tool_calls
    from tools.sizing import SizingRequest, size

    question = "serve Qwen2.5 14B on A10Gs"
    calls = plan_tool_calls(parse_workload(question))
    report = size(SizingRequest.model_validate(calls[-1].arguments))
    assert report.headline is not None and report.headline.price is not None
    assert report.headline.price.price_id == AWS_G5_12X and report.headline.price.low_confidence
    card = [line for line in verdict_lines(report) if "2× A10G" in line.head]
    assert card and all("low" in line.detail and "confidence" in line.detail for line in card)


def test_the_model_reads_that_a_quoted_price_is_low_confidence() -> None:
    from assistant.offline.parser import parse_workload
    from assistant.offline.planner import plan_tool_calls
    from assistant.wire import model_content
    from tools.sizing import SizingRequest, size

    def view(question: str) -> str:
        calls = plan_tool_calls(parse_workload(question))
        return model_content("size", size(SizingRequest.model_validate(calls[-1].arguments)))

    # 2× A10G: AWS g5.12xlarge (confidence "low") is quoted; 1× H100: OVHcloud (confirmed).
    assert '"low_confidence":true' in view("serve Qwen2.5 14B on A10Gs")
    assert "low_confidence" not in view("serve Llama 3.1 8B on 1 H100")
