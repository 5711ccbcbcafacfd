"""The recommender ranks "cheapest" and checks budgets with prices a buyer can rent.

Every figure below is re-derived by hand from catalog/prices.toml rows, quoted where used:
a tensor-parallel group must sit in one machine, GPUs sold as instances are billed whole, and a
stale price (older than 180 days, tools.pricing.DEFAULT_MAX_PRICE_AGE_DAYS) prices a layout only
when no fresh one can. The rows are read from the catalog and their published values asserted
first, so a catalog edit fails here with the row named instead of moving the arithmetic.
"""

from __future__ import annotations

import math
from datetime import date

import pytest

from tools.notes import texts
from tools.pricing import (
    PriceEntry,
    RankingPrices,
    builtin_price_book,
    catalog_ranking_prices,
)
from tools.recommend import recommend
from tools.workload import Workload

# The QA review's date (2026-11-29): RunPod's 2025-08-12 L40S price is 474 days old then.
TODAY = date(2026, 11, 29)


def _row(price_id: str, **published: object) -> PriceEntry:
    """A catalog row, checked against the values quoted in the test."""
    row = next(p for p in builtin_price_book().prices if p.id == price_id)
    for field, value in published.items():
        assert getattr(row, field) == value, f"{price_id}.{field} changed in catalog/prices.toml"
    return row


# catalog/prices.toml, on-demand, USD (Souvara cost calculator data compiled 2026-09-26):
G2_STANDARD_4 = dict(  # GCP g2-standard-4, 1× L4, europe-west9 Paris
    gpu="l4", gpus_per_instance=1, price_per_instance_hour=0.8199, as_of="2026-09-26", eu=True
)
G6_48XLARGE = dict(  # AWS g6.48xlarge, 8× L4, eu-west-3 Paris
    gpu="l4", gpus_per_instance=8, price_per_instance_hour=16.9468, eu=True
)
G6E_XLARGE_FRA = dict(  # AWS g6e.xlarge, 1× L40S, eu-central-1 Frankfurt
    gpu="l40s", gpus_per_instance=1, price_per_instance_hour=2.327, eu=True
)
P5_4XLARGE_STO = dict(  # AWS p5.4xlarge, 1× H100 SXM, eu-north-1 Stockholm
    gpu="h100-sxm", gpus_per_instance=1, price_per_instance_hour=7.3616, eu=True
)


def test_eu_1000_tok_s_8b_no_longer_puts_tp4_l4_on_one_gpu_vms_first() -> None:
    """QA finding 6: 4× L4 TP 4 was ranked first at 4 × 0.8199 = 3.28 USD/h, four 1-GPU
    g2-standard-4 VMs that cannot hold one TP-4 group. In the EU the only L4 machine with ≥ 4
    GPUs is AWS g6.48xlarge (8 GPUs, 16.9468 USD/h), so 2× L40S on two 1-GPU g6e.xlarge VMs
    (2 × 2.327 = 4.654 USD/h, data-parallel replicas need no shared machine) wins; one H100 on
    p5.4xlarge costs 7.3616."""
    _row("google-cloud-g2-standard-4-l4-on-demand", **G2_STANDARD_4)
    _row("aws-g6-48xlarge-l4-on-demand", **G6_48XLARGE)
    _row("aws-g6e-xlarge-l40s-on-demand-eu-central-1-frankfurt-2026-09-26", **G6E_XLARGE_FRA)
    _row("aws-p5-4xlarge-h100-sxm-on-demand-eu-north-1-stockholm-2026-09-26", **P5_4XLARGE_STO)
    workload = Workload(
        model="llama-3.1-8b",
        tokens_per_s=1000,
        constraints={"region": "eu", "only_gpus": ["l4", "l40s", "h100-sxm"]},
    )
    result = recommend(workload, catalog_ranking_prices(eu_only=True, today=TODAY))
    first = result.options[0]
    assert (first.gpu, first.tp, first.meets_targets) == ("l40s", 1, True)
    assert first.usd_per_hour == pytest.approx(first.count * 2.327)
    assert first.usd_per_hour < 7.3616  # the one-H100 option
    h100 = next(o for o in result.options if o.gpu == "h100-sxm")
    assert h100.usd_per_hour == pytest.approx(h100.count * 7.3616)
    for option in [*result.options, *result.rejected]:
        if option.gpu == "l4" and option.tp > 1 and option.fits:
            # A TP 2/4 group fits one g6.48xlarge (8 GPUs): ⌈count / 8⌉ whole instances.
            assert option.price_id == "aws-g6-48xlarge-l4-on-demand"
            assert option.usd_per_hour == pytest.approx(math.ceil(option.count / 8) * 16.9468)
            assert option.billed_gpus == 8 * math.ceil(option.count / 8)
    assert any("in one machine" in a for a in result.assumptions)


def test_one_gpu_vm_rows_cannot_host_a_tp_group_but_replicas_can() -> None:
    g2 = _row("google-cloud-g2-standard-4-l4-on-demand", **G2_STANDARD_4)
    prices = RankingPrices(rows=(g2,), today=TODAY)
    assert prices.configuration("l4", count=4, group_gpus=4) is None  # TP 4 on 1-GPU VMs
    four_replicas = prices.configuration("l4", count=4, group_gpus=1)
    assert four_replicas is not None
    assert four_replicas.usd_per_hour == pytest.approx(4 * 0.8199)  # 3.2796 USD/h
    assert (four_replicas.instances, four_replicas.billed_gpus) == (4, 4)


def test_per_gpu_quote_keeps_the_group_with_a_note_to_check() -> None:
    """Oracle OCI 'RTX PRO 6000' is published per GPU (4.50 USD/GPU-h) with no instance size:
    kept for a TP 4 group at 4 × 4.50 = 18.00 USD/h, with the note the buyer must check."""
    oci = _row(
        "oracle-oci-rtx-pro-6000-rtx-pro-6000-blackwell-on-demand",
        gpus_per_instance=None,
        price_per_gpu_hour=4.5,
        as_of="2026-09-19",
    )
    quote = RankingPrices(rows=(oci,), today=TODAY).configuration(
        "rtx-pro-6000-blackwell", count=4, group_gpus=4
    )
    assert quote is not None
    assert quote.usd_per_hour == pytest.approx(18.0)
    assert any("check the provider rents 4 GPUs in one machine" in n for n in quote.notes)


def test_eight_gpu_instance_is_billed_for_eight_when_one_is_used() -> None:
    """QA finding 11: TensorWave rents MI355X only as 8-GPU instances (23.60 USD/h, i.e. 2.95
    per GPU): one GPU costs 23.60 USD/h, not 2.95."""
    tensorwave = _row(
        "tensorwave-mi355x-on-demand",
        gpus_per_instance=8,
        price_per_instance_hour=23.6,
        price_per_gpu_hour=2.95,
        as_of="2026-08-16",
    )
    workload = Workload(model="llama-3.1-8b", users=4, constraints={"only_gpus": ["mi355x"]})
    result = recommend(workload, RankingPrices(rows=(tensorwave,), today=TODAY))
    option = result.options[0]
    assert (option.count, option.usd_per_hour, option.billed_gpus) == (1, 23.6, 8)
    assert option.price_id == "tensorwave-mi355x-on-demand"
    assert any("billed for 8 GPUs, 1 used" in n for n in option.notes)
    # Two TP-8 groups: two whole instances, 2 × 23.60 = 47.20 USD/h.
    two = RankingPrices(rows=(tensorwave,), today=TODAY).configuration("mi355x", 16, 8)
    assert two is not None and (two.instances, two.usd_per_hour) == (2, pytest.approx(47.2))


def test_stale_l40s_price_does_not_win_over_a_fresh_one() -> None:
    """QA finding 7: RunPod L40S 0.86 USD/h dated 2025-08-12 (from a modal.com blog) is 474
    days old on 2026-11-29 (> 180); RunPod's own 1.09 USD/h dated 2026-09-13 (77 days) wins.
    With only the stale row, it is used and the option says so."""
    stale = _row(
        "runpod-l40s-pod-on-demand", price_per_gpu_hour=0.86, as_of="2025-08-12", gpu="l40s"
    )
    fresh = _row(
        "runpod-secure-cloud-pod-l40s-on-demand",
        price_per_gpu_hour=1.09,
        as_of="2026-09-13",
        gpu="l40s",
    )
    assert (TODAY - date(2025, 8, 12)).days == 474
    workload = Workload(model="llama-3.1-8b", users=4, constraints={"only_gpus": ["l40s"]})
    both = recommend(workload, RankingPrices(rows=(stale, fresh), today=TODAY)).options[0]
    assert both.count == 1
    assert (both.price_id, both.usd_per_hour) == (fresh.id, 1.09)
    only_stale = recommend(workload, RankingPrices(rows=(stale,), today=TODAY)).options[0]
    assert only_stale.usd_per_hour == 0.86
    assert any("stale" in n and "474 days old" in n for n in only_stale.notes)


def test_cheapest_objective_ranks_by_configuration_price() -> None:
    rows = (
        _row("google-cloud-g2-standard-48-l4-on-demand", gpus_per_instance=4),
        _row("runpod-secure-cloud-pod-l40s-on-demand", price_per_gpu_hour=1.09),
        _row("lambda-1x-h100-sxm-on-demand", price_per_gpu_hour=4.29),
    )
    workload = Workload(
        model="llama-3.1-8b", users=10, constraints={"only_gpus": ["l4", "l40s", "h100-sxm"]}
    )
    result = recommend(workload, RankingPrices(rows=rows, today=TODAY))
    feasible = [o for o in result.options if o.meets_targets]
    assert feasible
    assert [o.usd_per_hour for o in feasible] == sorted(o.usd_per_hour or 0 for o in feasible)


def test_budget_rejects_dearer_and_unpriced_options_with_reasons() -> None:
    # Only L4 rows are given (g2-standard-4: 1 GPU, 0.8199 USD/h; g2-standard-48: 4 GPUs,
    # 4.001665 USD/h): the H100 cannot be confirmed within the 1.00 USD/h budget, so it does not
    # meet it. One L4 cannot hold 10 users of Llama-3.1-8B bf16: weights 2 × 8,030,261,248 B =
    # 14.96 GiB + KV 10 × 4,096 × 131,072 B = 5.00 GiB → 19.96 GiB > 0.9 × 22 GiB (AWS g6 usable
    # per L4) = 19.8 GiB, before activations. Every L4 layout has ≥ 2 GPUs, so ≥ 2 × 0.8199 =
    # 1.64 USD/h > 1.00: each priced one is dearer than the budget and says so.
    g2 = _row("google-cloud-g2-standard-4-l4-on-demand", **G2_STANDARD_4)
    g2_48 = _row(
        "google-cloud-g2-standard-48-l4-on-demand",
        gpus_per_instance=4,
        price_per_instance_hour=4.001665,
        as_of="2026-09-19",
    )
    workload = Workload(
        model="llama-3.1-8b",
        users=10,
        constraints={"only_gpus": ["l4", "h100-sxm"], "budget_usd_per_hour": 1.0},
    )
    result = recommend(workload, RankingPrices(rows=(g2, g2_48), today=TODAY))
    h100 = next(o for o in result.options if o.gpu == "h100-sxm")
    assert not h100.meets_targets
    assert any("budget not checked" in r for r in h100.reasons)
    l4 = next(o for o in result.options if o.gpu == "l4")
    # TP 2 needs one machine with ≥ 2 L4: one g2-standard-48, billed whole at 4.001665 USD/h.
    assert (l4.count, l4.tp, l4.price_id) == (2, 2, "google-cloud-g2-standard-48-l4-on-demand")
    assert l4.usd_per_hour == pytest.approx(4.001665)
    assert not l4.meets_targets and "costs $4.00/h > budget $1.00/h" in l4.reasons
    priced = [o for o in [*result.options, *result.rejected] if o.gpu == "l4" and o.usd_per_hour]
    assert priced and all(o.count >= 2 and o.usd_per_hour >= 2 * 0.8199 for o in priced)
    for option in priced:
        assert not option.meets_targets
        assert any("> budget $1.00/h" in r for r in option.reasons), option


def test_under_a_budget_a_priced_layout_is_shown_before_an_unpriced_one() -> None:
    # Only the 1-GPU g2-standard-4 row (0.8199 USD/h) is given. 10 users of Llama-3.1-8B need
    # ≥ 2 L4 (19.96 GiB > 19.8 GiB on one, as above): 2× TP 2 has no machine with 2 L4 (no
    # price: "budget not checked"), 3 replicas of 1 L4 cost 3 × 0.8199 = 2.4597 USD/h. The L4
    # row must show the priced layout, which says by how much it is over the 1.00 USD/h budget.
    g2 = _row("google-cloud-g2-standard-4-l4-on-demand", **G2_STANDARD_4)
    workload = Workload(
        model="llama-3.1-8b",
        users=10,
        constraints={"only_gpus": ["l4"], "budget_usd_per_hour": 1.0},
    )
    l4 = recommend(workload, RankingPrices(rows=(g2,), today=TODAY)).options[0]
    assert l4.usd_per_hour is not None and l4.tp == 1
    assert l4.usd_per_hour == pytest.approx(l4.count * 0.8199)
    assert any(f"costs ${l4.usd_per_hour:,.2f}/h > budget $1.00/h" in r for r in l4.reasons)


def test_without_given_prices_the_catalog_is_used_and_said() -> None:
    result = recommend(Workload(model="llama-3.1-8b", users=4))
    assert any("cheapest current on-demand price" in a for a in result.assumptions)
    assert any(o.usd_per_hour is not None for o in result.options)


def test_default_lengths_lead_the_assumptions_and_memory_warnings_are_carried() -> None:
    # Llama 3.1 8B: max_position_embeddings 131,072 (HF config.json); 200,000 is past it.
    workload = Workload(model="llama-3.1-8b", users=1, constraints={"only_gpus": ["h200-sxm"]})
    result = recommend(workload)
    assert result.assumptions[0].startswith("Request shape: 3,072 prompt + 1,024 output")
    long = recommend(
        Workload(model="llama-3.1-8b", context=200_000, constraints={"only_gpus": ["h200-sxm"]})
    )
    assert any("exceeds the model's maximum of 131,072" in w for w in texts(long.warnings))
