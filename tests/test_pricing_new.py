"""The 62 price records of the 2026-12 research pass (shared/research/2026-12/prices-new.json):
60 carried with their source and as_of, the two Vast.ai ranges without a price left out."""

from __future__ import annotations

import pytest

from tools.pricing import PriceEntry, builtin_price_book


def _by_id(entry_id: str) -> PriceEntry:
    return next(p for p in builtin_price_book().prices if p.id == entry_id)


def test_sixty_new_rows_are_carried() -> None:
    # 42 of the 60 rows price a GPU new to the catalog (the rest: RTX 4090/5090, L4, RTX 6000
    # Ada, and serverless tiers or the RTX A4500 with no catalog GPU).
    new_gpus = {"t4", "v100-sxm2-16gb", "v100-sxm2-32gb", "rtx-3090", "rtx-3090-ti"}
    new_gpus |= {"rtx-a6000", "rtx-a5000", "rtx-a4000", "a40", "l40", "rtx-4000-ada"}
    new_gpus |= {"rtx-3080-10gb"}
    rows = [p for p in builtin_price_book().prices if p.gpu in new_gpus]
    assert len(rows) >= 42
    assert all(p.source and p.as_of for p in rows)


@pytest.mark.parametrize(
    ("entry_id", "gpu", "per_gpu_hour", "gpus", "tier"),
    [
        # tsaol/aws-gpu (Vantage extract 2026-01-21): g4dn.xlarge $0.526, g4dn.metal $7.824 / 8.
        ("aws-g4dn.xlarge-t4-on-demand", "t4", 0.526, 1, "on_demand"),
        ("aws-g4dn.metal-t4-on-demand", "t4", 0.978, 8, "on_demand"),
        ("aws-p3.16xlarge-v100-sxm2-16gb-on-demand", "v100-sxm2-16gb", 3.06, 8, "on_demand"),
        ("aws-p3dn.24xlarge-v100-sxm2-32gb-on-demand", "v100-sxm2-32gb", 3.9015, 8, "on_demand"),
        # RunPod snapshot 2025-07-13 (carsonpo/gpus): RTX 3090 Secure $0.43, Community $0.22.
        ("runpod-secure-cloud-pod-rtx-3090-on-demand", "rtx-3090", 0.43, None, "on_demand"),
        (
            "runpod-community-cloud-pod-rtx-3090-marketplace-on-demand",
            "rtx-3090",
            0.22,
            1,
            "marketplace",
        ),
        ("coreweave-classic-rtx-a6000-rtx-a6000-on-demand", "rtx-a6000", 1.28, 1, "on_demand"),
    ],
)
def test_new_price_rows(
    entry_id: str, gpu: str, per_gpu_hour: float, gpus: int | None, tier: str
) -> None:
    row = _by_id(entry_id)
    assert (row.gpu, row.price_per_gpu_hour, row.gpus_per_instance, row.tier) == (
        gpu,
        per_gpu_hour,
        gpus,
        tier,
    )


def test_older_runpod_snapshot_is_superseded_where_a_newer_page_exists() -> None:
    old = _by_id("runpod-secure-cloud-pod-rtx-4090-on-demand-2025-07-13")
    assert old.superseded and old.as_of.startswith("2025-07-13")
    assert _by_id("runpod-secure-cloud-pod-rtx-4090-on-demand").superseded is None


def test_multi_gpu_serverless_tiers_have_no_gpu() -> None:
    tier = _by_id("runpod-serverless-flex-worker-a6000-a40-48gb-serverless-flex")
    assert tier.gpu is None and "several GPUs" in (tier.gpu_mapping or "")
