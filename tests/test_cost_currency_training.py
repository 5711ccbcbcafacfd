"""QA round 2, findings 5 and 9: EUR offers without a rate are listed, not dropped; training
rows carry `stale` and a fabric caveat when a job spans machines.

Values are the catalog rows quoted below (catalog/prices.toml, catalog/gpus.toml), with the
arithmetic written out.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from assistant.cost_tool import CostOption, CostRequest, run_cost_request, use_eur_to_usd
from tools.cost import (
    PriceFilter,
    ServingCostInput,
    TrainingCostInput,
    compare_costs,
    training_costs,
)
from tools.pricing import load_price_book

# catalog/prices.toml: OVHcloud h100-380, 1 GPU per instance, 2.8 EUR/h, EU, as_of 2026-09-26.
OVH_H100 = "ovhcloud-h100-380-h100-80gb-on-demand"
# Voltage Park / Lightning AI "H100 Ethernet": per-GPU quote 1.99 USD/h, as_of 2026-09-19.
VOLTAGE_ETHERNET = "voltage-park-lightning-ai-h100-ethernet-on-demand"
# Spheron "GB200 superchip (2 GPUs)": 9.08 USD/h per instance, as_of 2026-03-17.
SPHERON_GB200 = "spheron-gb200-superchip-2-gpus-on-demand"
# A fixed date, so ages are reproducible: 2026-12-01 - 2026-03-17 = 259 days (> 180, stale);
# 2026-12-01 - 2026-09-19 = 73 days (fresh).
TODAY = date(2026, 12, 1)


def _eu_h100(eur_to_usd: float | None) -> PriceFilter:
    return PriceFilter(eu_only=True, tiers=["on_demand"], eur_to_usd=eur_to_usd)


def test_eur_offer_without_a_rate_is_listed_with_its_native_price() -> None:
    result = compare_costs(
        [ServingCostInput(gpu="h100-sxm", count=1)], load_price_book(), _eu_h100(None)
    )
    ovh = next(u for u in result.unconverted if u.price_id == OVH_H100)
    assert (ovh.provider, ovh.instance, ovh.currency, ovh.per) == (
        "OVHcloud",
        "h100-380",
        "EUR",
        "hour",
    )
    assert ovh.price == pytest.approx(2.8)  # 1 instance × 2.8 EUR/h
    # Every unconverted offer is a EUR row the USD ranking could not place.
    eur_rows = {r.price_id for r in result.rows if r.currency == "EUR"}
    assert {u.price_id for u in result.unconverted} == eur_rows
    assert all(pid not in eur_rows for pid in result.cheapest_by_tier.values())
    note = result.unconverted_note
    assert note is not None
    assert f"{len(eur_rows)} offers in EUR ({len(eur_rows)} in the EU) not compared" in note
    # The cheapest on-demand EUR offer is quoted in EUR, with its date.
    cheapest = min(result.unconverted, key=lambda u: u.price)
    assert f"{cheapest.price:,.2f} EUR/hour, as_of {cheapest.as_of}" in note


def test_a_rate_converts_eur_offers_and_empties_the_list() -> None:
    result = compare_costs(
        [ServingCostInput(gpu="h100-sxm", count=1)], load_price_book(), _eu_h100(1.08)
    )
    ovh = next(r for r in result.rows if r.price_id == OVH_H100)
    assert ovh.usd_per_hour == pytest.approx(2.8 * 1.08)  # 3.024 USD/h
    assert result.unconverted == [] and result.unconverted_note is None
    assert "EUR prices converted at 1.08 USD per EUR" in result.assumptions


def test_training_rows_are_marked_stale_and_fresh_rows_rank_first() -> None:
    job = TrainingCostInput(gpu="gb200", count=4, training_hours=10)
    result = training_costs(
        [job], load_price_book(), PriceFilter(tiers=["on_demand"]), freshness=(TODAY, 180)
    )
    spheron = next(r for r in result.rows if r.price_id == SPHERON_GB200)
    assert spheron.stale is True
    assert any("259 days old" in n for n in spheron.notes)
    # 4 GPUs = 2 instances × 9.08 USD/h × 10 h = 181.60 USD.
    assert spheron.usd_cost == pytest.approx(181.6)
    flags = [bool(r.stale) for r in result.rows if r.usd_cost is not None]
    assert flags == sorted(flags)  # fresh (False) before stale (True)
    if not all(flags):
        best = result.cheapest_meeting_deadline
        assert best is not None and best.stale is False


def test_training_stale_is_none_without_a_date() -> None:
    job = TrainingCostInput(gpu="gb200", count=4, training_hours=10)
    result = training_costs([job], load_price_book())
    assert all(r.stale is None for r in result.rows)


def test_multi_node_job_on_an_ethernet_offer_carries_the_fabric_caveat() -> None:
    job = TrainingCostInput(gpu="h100-sxm", count=64, training_hours=24)
    result = training_costs([job], load_price_book(), freshness=(TODAY, 180))
    row = next(r for r in result.rows if r.price_id == VOLTAGE_ETHERNET)
    # Per-GPU quote: machines = ⌈64 / 8⌉ = 8, with 8 the catalog's gpus_per_node for
    # h100-sxm (AWS p5.48xlarge = 8 GPUs).
    assert (row.machines, row.interconnect) == (8, "Ethernet")
    assert any(
        "multi-node (64 GPUs over 8 machines) on an Ethernet network" in n for n in row.notes
    )
    # 64 × 1.99 USD/h × 24 h = 3,056.64 USD.
    assert row.usd_cost == pytest.approx(3_056.64)


def test_multi_node_job_without_a_stated_network_says_so() -> None:
    job = TrainingCostInput(gpu="h100-sxm", count=16, training_hours=1)
    result = training_costs([job], load_price_book())
    # AWS p5.48xlarge: 8 GPUs per instance, no network named in the entry -> 2 machines.
    p5 = next(r for r in result.rows if r.price_id == "aws-p5-48xlarge-h100-sxm-on-demand")
    assert (p5.machines, p5.interconnect) == (2, None)
    assert any("interconnect not stated" in n for n in p5.notes)


def test_single_machine_job_has_no_fabric_caveat() -> None:
    job = TrainingCostInput(gpu="h100-sxm", count=8, training_hours=1)
    result = training_costs([job], load_price_book())
    p5 = next(r for r in result.rows if r.price_id == "aws-p5-48xlarge-h100-sxm-on-demand")
    assert p5.machines == 1
    assert not any("multi-node" in n for n in p5.notes)


def _eu_request() -> CostRequest:
    return CostRequest(options=[CostOption(gpu="h100-sxm", count=1)], eu_only=True)


def test_cost_tool_takes_the_rate_from_the_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPU_SIZER_CONFIG_DIR", str(tmp_path))
    monkeypatch.setenv("GPU_SIZER_EUR_TO_USD", "1.08")
    out = run_cost_request(_eu_request()).serving
    assert out is not None
    ovh = next(r for r in out.rows if r.price_id == OVH_H100)
    assert ovh.usd_per_hour == pytest.approx(2.8 * 1.08)
    assert out.unconverted == []
    assert any("GPU_SIZER_EUR_TO_USD" in a for a in out.assumptions)


def test_cost_tool_run_rate_beats_settings_and_no_rate_uses_the_reference_rate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPU_SIZER_CONFIG_DIR", str(tmp_path))
    monkeypatch.delenv("GPU_SIZER_EUR_TO_USD", raising=False)
    with use_eur_to_usd(1.5):
        out = run_cost_request(_eu_request()).serving
    assert out is not None
    ovh = next(r for r in out.rows if r.price_id == OVH_H100)
    assert ovh.usd_per_hour == pytest.approx(2.8 * 1.5)
    # No rate anywhere: the catalog's ECB reference rate (30 Oct 2026: 1.1172 USD per EUR),
    # said in the assumptions; nothing is left unconverted.
    bare = run_cost_request(_eu_request()).serving
    assert bare is not None and bare.unconverted == []
    ovh = next(r for r in bare.rows if r.price_id == OVH_H100)
    assert ovh.usd_per_hour == pytest.approx(2.8 * 1.1172)
    assert any("ECB euro reference rate of 2026-10-30" in a for a in bare.assumptions)


def test_an_offer_billed_for_a_whole_instance_says_so() -> None:
    # QA round 5: "Scaleway L40S-8-48G (2× l40s) 11.76 EUR/hour" read as 2 GPUs for 11.76 EUR;
    # catalog/prices.toml: scaleway-l40s-8-48g-on-demand, 8 GPUs per instance, 11.7593 EUR/h.
    from tools.cost import PriceFilter

    result = compare_costs(
        [ServingCostInput(gpu="l40s", count=2)],
        load_price_book(),
        PriceFilter(eu_only=True, tiers=["on_demand"]),
    )
    scaleway = next(u for u in result.unconverted if u.price_id == "scaleway-l40s-8-48g-on-demand")
    assert (scaleway.count, scaleway.billed_gpus) == (2, 8)
    assert scaleway.price == pytest.approx(11.7593)  # one whole 8-GPU instance
    one_gpu = next(u for u in result.unconverted if u.price_id == "scaleway-l40s-1-48g-on-demand")
    assert one_gpu.billed_gpus is None  # two 1-GPU instances bill exactly the 2 GPUs
