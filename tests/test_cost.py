"""Cost comparer: each figure checked against a hand calculation written out here.

Prices used in the hand calculations are the published ones carried in catalog/prices.toml:
AWS p5.48xlarge (8× H100 SXM) on-demand $55.04/instance-hour and spot $20.784/instance-hour,
us-east-1 (research doc 'GPU Cloud Pricing and TCO — reference as of 2026-09-19', citing the
AWS price-sheet API); Together AI Llama-3.1-70B-Instruct-Turbo $0.88 in / $0.88 out per million
tokens (pydantic/genai-prices, checked 2025-07-03). They are rebuilt here as a small price book
so the arithmetic does not move when the catalog is updated.
"""

from __future__ import annotations

import pytest

from tools.cost import (
    HOURS_PER_MONTH,
    PriceFilter,
    ServingCostInput,
    ServingCostRow,
    TrainingCostInput,
    UsageProfile,
    compare_costs,
    training_costs,
)
from tools.errors import ToolInputError
from tools.pricing import ApiPriceEntry, PriceBook, PriceEntry, load_price_book

SRC = "AWS EC2 price sheet via 'GPU Cloud Pricing and TCO — reference as of 2026-09-19'"


def _p5(tier: str, instance_price: float, pid: str, region: str = "us-east-1") -> PriceEntry:
    return PriceEntry(
        id=pid,
        provider="AWS",
        instance="p5.48xlarge",
        gpu="h100-sxm",
        gpu_label="H100 SXM",
        gpus_per_instance=8,
        tier=tier,  # type: ignore[arg-type]
        pricing_type=tier,
        price_per_instance_hour=instance_price,
        price_per_gpu_hour=instance_price / 8,
        currency="USD",
        region=region,
        eu=False,
        as_of="2026-09-19",
        source=SRC,
    )


TOGETHER_70B = ApiPriceEntry(
    id="together-70b",
    provider="Together AI",
    model="meta-llama/Meta-Llama-3.1-70B-Instruct-Turbo",
    model_id="llama-3.1-70b",
    input_per_mtok=0.88,
    output_per_mtok=0.88,
    currency="USD",
    as_of="2025-07-03",
    source="pydantic/genai-prices together.yml",
)


@pytest.fixture
def book() -> PriceBook:
    return PriceBook(
        prices=(_p5("on_demand", 55.04, "p5-od"), _p5("spot", 20.784, "p5-spot")),
        api_prices=(TOGETHER_70B,),
    )


def _on_demand_row(
    book: PriceBook, option: ServingCostInput, profile: UsageProfile
) -> ServingCostRow:
    result = compare_costs([option], book, PriceFilter(tiers=["on_demand"]), profile)
    assert len(result.rows) == 1
    return result.rows[0]


def test_cost_per_million_tokens_always_on(book: PriceBook) -> None:
    # 8× H100 at 10,000 output tokens/s, fully loaded, always on:
    #   $/month  = 55.04 $/h × 730 h                 = 40,179.20 $
    #   tokens   = 10,000 tok/s × 3,600 s × 730 h    = 26,280,000,000 output tokens
    #   $/Mtok   = 40,179.20 / 26,280                = 1.528889 $ per million output tokens
    #   blended (3 input per output): 26.28e9 × 4 tokens → 40,179.20 / 105,120 = 0.382222 $/M
    row = _on_demand_row(
        book,
        ServingCostInput(gpu="h100-sxm", count=8, aggregate_tokens_per_s=10_000),
        UsageProfile(),
    )
    assert row.usd_per_hour == pytest.approx(55.04)
    assert row.usd_per_month == pytest.approx(40_179.20)
    assert row.output_tokens_per_month == pytest.approx(26_280_000_000)
    assert row.usd_per_million_tokens == pytest.approx(1.528889, rel=1e-6)
    assert row.usd_per_million_blended_tokens == pytest.approx(0.382222, rel=1e-5)
    assert row.as_of and row.provider == "AWS" and row.tier == "on_demand"


def test_monthly_cost_at_utilization(book: PriceBook) -> None:
    # Always on at 25% load: the bill stays 55.04 × 730 = 40,179.20 $, tokens fall to
    # 26.28e9 × 0.25 = 6.57e9, so $/Mtok = 40,179.20 / 6,570 = 6.115556.
    row = _on_demand_row(
        book,
        ServingCostInput(gpu="h100-sxm", count=8, aggregate_tokens_per_s=10_000),
        UsageProfile(utilization=0.25),
    )
    assert row.usd_per_month == pytest.approx(40_179.20)
    assert row.usd_per_million_tokens == pytest.approx(6.115556, rel=1e-6)


def test_scale_to_zero_bills_active_hours_only(book: PriceBook) -> None:
    # 200 active hours, stopped otherwise: 55.04 × 200 = 11,008 $; tokens 10,000 × 3,600 × 200
    # = 7.2e9, so $/Mtok = 11,008 / 7,200 = 1.528889 (same per-token cost as always-on at 100%).
    row = _on_demand_row(
        book,
        ServingCostInput(gpu="h100-sxm", count=8, aggregate_tokens_per_s=10_000),
        UsageProfile(active_hours_per_month=200, scale_to_zero=True),
    )
    assert row.billed_hours_per_month == 200
    assert row.usd_per_month == pytest.approx(11_008.0)
    assert row.usd_per_million_tokens == pytest.approx(1.528889, rel=1e-6)


def test_whole_instances_are_billed(book: PriceBook) -> None:
    # 3 GPUs on 8-GPU instances → 1 instance (55.04 $/h); 9 GPUs → 2 instances (110.08 $/h).
    three = _on_demand_row(book, ServingCostInput(gpu="h100-sxm", count=3), UsageProfile())
    nine = _on_demand_row(book, ServingCostInput(gpu="h100-sxm", count=9), UsageProfile())
    assert (three.instances, three.billed_gpus, three.usd_per_hour) == (1, 8, pytest.approx(55.04))
    assert (nine.instances, nine.billed_gpus, nine.usd_per_hour) == (2, 16, pytest.approx(110.08))
    assert three.usd_per_million_tokens is None  # no throughput given: hours only


def test_break_even_volume(book: PriceBook) -> None:
    # API bill per million output tokens with 3 input tokens each: 0.88 + 3 × 0.88 = 3.52 $.
    # Self-hosted on-demand: 40,179.20 $/month flat.
    #   V* = 40,179.20 / 3.52 × 1e6 = 11,414,545,454.5 output tokens a month
    #   blended = V* × 4 = 45,658,181,818 tokens; capacity 26.28e9 ≥ V* → reachable.
    result = compare_costs(
        [ServingCostInput(gpu="h100-sxm", count=8, aggregate_tokens_per_s=10_000)],
        book,
        PriceFilter(tiers=["on_demand"]),
        UsageProfile(),
        model_id="llama-3.1-70b",
    )
    (even,) = result.break_even
    assert even.api_usd_per_million_output_tokens == pytest.approx(3.52)
    assert even.break_even_output_tokens_per_month == pytest.approx(11_414_545_454.5, rel=1e-9)
    assert even.break_even_blended_tokens_per_month == pytest.approx(45_658_181_818, rel=1e-9)
    assert even.reachable is True
    assert result.api_comparison[0].usd_blended_per_mtok == pytest.approx(0.88)


def test_break_even_beyond_capacity_says_api_stays_cheaper(book: PriceBook) -> None:
    # At 100 tok/s the configuration makes 100 × 3,600 × 730 = 262,800,000 tokens a month,
    # far below V* = 11.4e9, so the API is cheaper at every volume this setup can serve.
    result = compare_costs(
        [ServingCostInput(gpu="h100-sxm", count=8, aggregate_tokens_per_s=100)],
        book,
        PriceFilter(tiers=["on_demand"]),
        model_id="llama-3.1-70b",
    )
    (even,) = result.break_even
    assert even.capacity_output_tokens_per_month == pytest.approx(262_800_000)
    assert even.reachable is False
    assert "API stays cheaper" in even.explanation


def test_training_cost_and_deadline(book: PriceBook) -> None:
    # 100 h on 8 GPUs. On-demand: 55.04 × 100 = 5,504 $, 800 GPU-hours.
    # Spot: +10% interruption overhead → 110 h × 20.784 = 2,286.24 $.
    # Deadline 105 h: spot (110 h) misses it, so the cheapest meeting it is on-demand.
    job = TrainingCostInput(gpu="h100-sxm", count=8, training_hours=100)
    result = training_costs([job], book, deadline_hours=105)
    by_id = {r.price_id: r for r in result.rows}
    assert by_id["p5-od"].usd_cost == pytest.approx(5_504.0)
    assert by_id["p5-od"].gpu_hours == pytest.approx(800.0)
    assert by_id["p5-spot"].wall_hours == pytest.approx(110.0)
    assert by_id["p5-spot"].usd_cost == pytest.approx(2_286.24)
    assert by_id["p5-spot"].meets_deadline is False
    assert result.cheapest_meeting_deadline is not None
    assert result.cheapest_meeting_deadline.price_id == "p5-od"
    # Without a deadline the spot row is cheapest — and it is labelled spot.
    free = training_costs([job], book)
    assert free.cheapest_meeting_deadline is not None
    assert free.cheapest_meeting_deadline.tier == "spot"
    assert free.cheapest_meeting_deadline.usd_cost == pytest.approx(2_286.24)


def test_spot_never_mixed_with_on_demand(book: PriceBook) -> None:
    result = compare_costs([ServingCostInput(gpu="h100-sxm", count=8)], book)
    # Spot is cheaper per hour, yet on-demand keeps its own cheapest and comes first.
    assert result.cheapest_by_tier == {"on_demand": "p5-od", "spot": "p5-spot"}
    assert [r.tier for r in result.rows] == ["on_demand", "spot"]
    only_od = compare_costs(
        [ServingCostInput(gpu="h100-sxm", count=8)], book, PriceFilter(tiers=["on_demand"])
    )
    assert {r.tier for r in only_od.rows} == {"on_demand"}


def test_max_price_and_tp_filters(book: PriceBook) -> None:
    cheap = compare_costs(
        [ServingCostInput(gpu="h100-sxm", count=8)], book, PriceFilter(max_usd_per_hour=30)
    )
    assert [r.price_id for r in cheap.rows] == ["p5-spot"]  # 20.784 ≤ 30 < 55.04
    # A 16-GPU tensor-parallel group cannot live in an 8-GPU instance.
    tp16 = compare_costs([ServingCostInput(gpu="h100-sxm", count=16, tp=16)], book)
    assert tp16.rows == [] and all("tensor-parallel" in e.reason for e in tp16.excluded)


def test_eu_only_returns_only_eu_regions() -> None:
    result = compare_costs(
        [ServingCostInput(gpu="h100-sxm", count=8)], load_price_book(), PriceFilter(eu_only=True)
    )
    assert result.rows
    assert all(r.eu for r in result.rows)
    eu_markers = ("eu-", "europe-", "france", "germany", "sweden", "fr-par", "gravelines")
    assert all(any(m in (r.region or "").lower() for m in eu_markers) for r in result.rows)
    assert not any("us-east" in (r.region or "") for r in result.rows)


def test_eur_is_never_converted_silently() -> None:
    # Scaleway H100-SXM-8-80G: EUR 25.3308 per instance-hour (fr-par-2, as of 2026-09-26).
    flt = PriceFilter(providers=["scaleway"], eu_only=True, tiers=["on_demand"])
    option = ServingCostInput(gpu="h100-sxm", count=8)
    row = next(
        r
        for r in compare_costs([option], load_price_book(), flt).rows
        if r.instance == "H100-SXM-8-80G"
    )
    assert (row.currency, row.per_hour, row.usd_per_hour) == ("EUR", pytest.approx(25.3308), None)
    assert any("not converted" in n for n in row.notes)
    # With a user rate of 1.10 USD/EUR: 25.3308 × 1.10 = 27.86388 $/h.
    rated = flt.model_copy(update={"eur_to_usd": 1.10})
    row = next(
        r
        for r in compare_costs([option], load_price_book(), rated).rows
        if r.instance == "H100-SXM-8-80G"
    )
    assert row.usd_per_hour == pytest.approx(27.86388)


def test_month_is_730_hours() -> None:
    # 8,760 hours a year / 12 months.
    assert HOURS_PER_MONTH == 8_760 / 12


def test_empty_and_bad_inputs(book: PriceBook) -> None:
    with pytest.raises(ToolInputError) as err:
        compare_costs([], book)
    assert err.value.field == "options"
    with pytest.raises(ToolInputError) as err:
        training_costs(
            [TrainingCostInput(gpu="h100-sxm", count=1, training_hours=1)],
            book,
            spot_interruption_overhead=-1,
        )
    assert err.value.field == "spot_interruption_overhead"


# --- which rows can host a layout, and fresh before stale (catalog rows quoted) -------------
# catalog/prices.toml, on-demand USD:
#   google-cloud-g2-standard-4-l4-on-demand: g2-standard-4, 1× L4, 0.8199/h, 2026-09-26
#   google-cloud-g2-standard-48-l4-on-demand: g2-standard-48, 4× L4, 4.001665/h, 2026-09-19
#   aws-g6-48xlarge-l4-on-demand: g6.48xlarge, 8× L4, 16.9468/h, eu-west-3, 2026-09-26
#   oracle-oci-rtx-pro-6000-...: RTX PRO 6000 per GPU (no instance size), 4.50/GPU-h
#   runpod-l40s-pod-on-demand: L40S pod 0.86/h, as_of 2025-08-12 (modal.com blog)
#   runpod-secure-cloud-pod-l40s-on-demand: Secure Cloud pod 1.09/h, as_of 2026-09-13


def _catalog(*ids: str) -> PriceBook:
    rows = {p.id: p for p in load_price_book().prices}
    return PriceBook(prices=tuple(rows[i] for i in ids), api_prices=())


def test_tp_group_needs_one_instance_that_holds_it() -> None:
    book = _catalog(
        "google-cloud-g2-standard-4-l4-on-demand",
        "google-cloud-g2-standard-48-l4-on-demand",
        "aws-g6-48xlarge-l4-on-demand",
    )
    result = compare_costs([ServingCostInput(gpu="l4", count=4, tp=4)], book)
    # The 1-GPU g2-standard-4 cannot hold a TP-4 group: left out with the reason.
    excluded = {e.id: e.reason for e in result.excluded}
    assert (
        "cannot hold the tensor-parallel group of 4"
        in excluded["google-cloud-g2-standard-4-l4-on-demand"]
    )
    prices = {r.price_id: (r.usd_per_hour, r.billed_gpus) for r in result.rows}
    assert prices == {
        "google-cloud-g2-standard-48-l4-on-demand": (pytest.approx(4.001665), 4),
        "aws-g6-48xlarge-l4-on-demand": (pytest.approx(16.9468), 8),  # whole 8-GPU instance
    }
    # Four TP-1 replicas need no shared machine: four g2-standard-4 = 4 × 0.8199 = 3.2796.
    replicas = compare_costs([ServingCostInput(gpu="l4", count=4, tp=1)], book)
    row = next(r for r in replicas.rows if r.instance == "g2-standard-4")
    assert (row.instances, row.usd_per_hour) == (4, pytest.approx(3.2796))


def test_groups_never_straddle_instances() -> None:
    # Three TP-4 groups on 8-GPU g6.48xlarge: two groups per instance → ⌈3 / 2⌉ = 2 instances,
    # 2 × 16.9468 = 33.8936 USD/h. Five TP-3 groups (15 GPUs): ⌊8 / 3⌋ = 2 groups per instance
    # → ⌈5 / 2⌉ = 3 instances (24 GPUs billed), not ⌈15 / 8⌉ = 2, which would split a group.
    book = _catalog("aws-g6-48xlarge-l4-on-demand")
    three_groups = compare_costs([ServingCostInput(gpu="l4", count=12, tp=4)], book).rows[0]
    assert (three_groups.instances, three_groups.usd_per_hour) == (2, pytest.approx(33.8936))
    five_tp3 = compare_costs([ServingCostInput(gpu="l4", count=15, tp=3)], book).rows[0]
    assert (five_tp3.instances, five_tp3.billed_gpus) == (3, 24)


def test_per_gpu_quote_kept_for_a_group_with_the_check_note() -> None:
    book = _catalog("oracle-oci-rtx-pro-6000-rtx-pro-6000-blackwell-on-demand")
    row = compare_costs([ServingCostInput(gpu="rtx-pro-6000-blackwell", count=4, tp=4)], book).rows[
        0
    ]
    assert row.usd_per_hour == pytest.approx(4 * 4.5)  # 18.00 USD/h, no instance size
    assert "priced per GPU: check the provider rents 4 GPUs in one machine" in row.notes


def test_fresh_price_is_cheapest_before_a_cheaper_stale_one() -> None:
    # On 2026-11-29 the 0.86 row is 474 days old (> 180): listed after the fresh 1.09 row,
    # which is the tier's cheapest; without a date nothing is marked and 0.86 sorts first.
    from datetime import date

    book = _catalog("runpod-l40s-pod-on-demand", "runpod-secure-cloud-pod-l40s-on-demand")
    option = [ServingCostInput(gpu="l40s", count=1)]
    dated = compare_costs(option, book, freshness=(date(2026, 11, 29), 180))
    assert [(r.price_id, r.stale) for r in dated.rows] == [
        ("runpod-secure-cloud-pod-l40s-on-demand", False),
        ("runpod-l40s-pod-on-demand", True),
    ]
    assert dated.cheapest_by_tier["on_demand"] == "runpod-secure-cloud-pod-l40s-on-demand"
    assert any("474 days old" in n for n in dated.rows[1].notes)
    undated = compare_costs(option, book)
    assert undated.rows[0].usd_per_hour == 0.86 and undated.rows[0].stale is None


class _Option:
    """The fields of a recommender option that serving_inputs reads."""

    def __init__(self, gpu: str, count: int, fits: bool, meets: bool) -> None:
        self.gpu, self.count, self.tp, self.fits, self.meets_targets = gpu, count, 1, fits, meets
        self.aggregate_tokens_per_s: float | None = 100.0
        self.training_hours: float | None = None


def test_serving_inputs_price_only_options_that_meet_the_targets() -> None:
    from tools.cost import serving_inputs

    options = [
        _Option("l4", 1, fits=True, meets=False),  # fits but misses the throughput target
        _Option("l40s", 2, fits=True, meets=True),
        _Option("a10", 1, fits=False, meets=False),
    ]
    assert [(i.gpu, i.count) for i in serving_inputs(options)] == [("l40s", 2)]
