"""The chat's and CLI's `recommend` ranks by the prices the cost tool bills: the user's
prices.toml over the catalog, and EUR rows at the user's EUR→USD rate.

Catalog rows quoted (catalog/prices.toml): OVHcloud h100-380, 1× H100, 2.8 EUR/h on demand,
EU (Gravelines / Paris), as_of 2026-09-26; AWS p5.4xlarge, 1× H100, 7.3616 USD/h, EU.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.cost_tool import use_eur_to_usd
from assistant.recommend_tool import run_recommend
from tools.workload import validate_workload

EU_H100 = {"model": "llama-3.1-8b", "constraints": {"only_gpus": ["h100-sxm"], "region": "eu"}}

USER_ROW = """
[[price]]
id = "acme-l40s-on-demand"
provider = "Acme GPU"
gpu = "l40s"
gpu_label = "L40S"
tier = "on_demand"
pricing_type = "on demand, per GPU"
price_per_gpu_hour = 0.10
currency = "USD"
eu = false
as_of = "{today}"
source = "our contract with Acme"
"""


@pytest.fixture
def config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # platformdirs puts the user's prices.toml and config.toml under XDG_CONFIG_HOME/gpu-sizer.
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.delenv("GPU_SIZER_EUR_TO_USD", raising=False)
    (tmp_path / "gpu-sizer").mkdir()
    return tmp_path / "gpu-sizer"


def test_eur_rows_rank_at_the_reference_rate_or_the_users(config_home: Path) -> None:
    # No rate set: OVH's 2.80 EUR at the ECB reference rate (30 Oct 2026: 1.1172 USD per EUR)
    # ranks below the EU USD row (7.3616 USD per hour).
    without = run_recommend(validate_workload(EU_H100)).options[0]
    assert without.usd_per_hour == pytest.approx(2.8 * 1.1172)
    with use_eur_to_usd(1.10):
        with_rate = run_recommend(validate_workload(EU_H100)).options[0]
    assert with_rate.usd_per_hour == pytest.approx(2.8 * 1.10)  # OVH's 2.80 EUR at 1.10
    assert any("OVHcloud h100-380" in note for note in with_rate.notes)


def test_the_users_price_file_decides_cheapest(
    config_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The clock pinned (never today's date): the user's row is a day old, fresh.
    monkeypatch.setenv("GPU_SIZER_NOW", "2026-12-02T10:00:00Z")
    (config_home / "prices.toml").write_text(USER_ROW.format(today="2026-12-01"), encoding="utf-8")
    rec = run_recommend(validate_workload({"model": "llama-3.1-8b"}))
    first = rec.options[0]
    # 0.10 USD/GPU-h is below every catalog price: one L40S at that rate ranks first.
    assert (first.gpu, first.count) == ("l40s", 1)
    assert first.usd_per_hour == pytest.approx(0.10)
