"""Laptop GPUs (RTX 4060-5090 Laptop) and the base Apple chips (M1-M4) in the catalog (issue 29
point 5): memory and bandwidth from datasheets, each entry cited with its date; the catalog
look-up by name and the CLI flags reach them, and a laptop name never becomes the desktop card
(nor the desktop card the laptop one)."""

from __future__ import annotations

import json

import pytest

from assistant.cli import main
from tools.catalog import get_catalog

GB = 10**9
GiB = 2**30
MiB = 2**20

# (id, GB, bus bits, memory data rate Gbit/s per pin): NVIDIA's laptop specifications (RTX 40:
# nvidia.com laptop comparison; RTX 50: the CES 2025 table) give memory and bus width; the data
# rate is TechPowerUp's (NVIDIA leaves the memory clock to the laptop maker). Bandwidth =
# bus bits × rate / 8: 4090 Laptop 256 × 18 / 8 = 576 GB/s, 5090 Laptop 256 × 28 / 8 = 896.
LAPTOPS = [
    ("rtx-4060-laptop", 8, 128, 16),
    ("rtx-4070-laptop", 8, 128, 16),
    ("rtx-4080-laptop", 12, 192, 18),
    ("rtx-4090-laptop", 16, 256, 18),
    ("rtx-5060-laptop", 8, 128, 24),
    ("rtx-5070-laptop", 8, 128, 24),
    ("rtx-5070-ti-laptop", 12, 192, 28),
    ("rtx-5080-laptop", 16, 256, 28),
    ("rtx-5090-laptop", 24, 256, 28),
]


@pytest.mark.parametrize(("gpu_id", "gb", "bits", "gbps"), LAPTOPS)
def test_laptop_memory_and_bandwidth_are_the_datasheet_figures(
    gpu_id: str, gb: int, bits: int, gbps: int
) -> None:
    gpu = get_catalog().gpu(gpu_id)
    assert gpu.memory_bytes == gb * GB
    assert gpu.memory_bandwidth_bytes_per_s == bits * gbps / 8 * GB
    # GDDR built in GiB less the driver's 361 MiB (the rule every GDDR entry uses).
    assert gpu.usable_memory_bytes == gb * GiB - 361 * MiB
    assert "techpowerup.com/gpu-specs" in gpu.source and gpu.as_of
    assert not gpu.recommend_by_default and gpu.gpus_per_node == 1
    # No dense tensor rate is published for laptop GPUs: none is invented.
    assert gpu.bf16_tflops is None and gpu.fp16_tflops is None


@pytest.mark.parametrize(
    ("name", "gpu_id"),
    [
        ("RTX 4090 Laptop", "rtx-4090-laptop"),
        ("RTX 4090 Laptop GPU", "rtx-4090-laptop"),
        ("GeForce RTX 5070 Ti Laptop GPU", "rtx-5070-ti-laptop"),
        ("RTX 4090", "rtx-4090"),
        ("RTX 5060", "rtx-5060"),
        ("RTX 5060 Laptop", "rtx-5060-laptop"),
        ("M1", "apple-m1"),
        ("Apple M4", "apple-m4"),
        ("M4 Pro", "apple-m4-pro"),
        ("M2 16GB", "apple-m2-16gb"),
    ],
)
def test_names_reach_their_own_entry(name: str, gpu_id: str) -> None:
    assert get_catalog().gpu(name).id == gpu_id


# Base chips: bandwidth as Apple publishes it (#4167's table: M1 68, M2 100, M3 100, M4 120
# GB/s), RAM options (M1 8 GB; M2 and M3 8/16/24 GB; M4 16/24/32 GB), and macOS's default GPU
# working set: 2/3 of the RAM (in GiB) up to 36 GB: M4 16 GB → 10,922 MiB (exo PR #1672
# observed ~10.67 GB on a 16 GB M4).
BASE_CHIPS = [
    ("apple-m1", 68, (8,)),
    ("apple-m2", 100, (8, 16, 24)),
    ("apple-m3", 100, (8, 16, 24)),
    ("apple-m4", 120, (16, 24, 32)),
]


@pytest.mark.parametrize(("chip", "gb_s", "options"), BASE_CHIPS)
def test_base_chips_and_their_ram_options(chip: str, gb_s: int, options: tuple[int, ...]) -> None:
    catalog = get_catalog()
    gpu = catalog.gpu(chip)
    assert gpu.memory_bandwidth_bytes_per_s == gb_s * GB
    assert gpu.unified_memory is not None
    assert gpu.unified_memory.ram_options_bytes == tuple(o * GB for o in options)
    configs = {g.memory_bytes: g for g in catalog.ram_configurations(chip)}
    for ram in options:
        assert configs[ram * GB].usable_memory_bytes == ram * 1024 * 2 // 3 * MiB


def test_m4_16gb_working_set_matches_the_observed_limit() -> None:
    # exo PR #1672: max_recommended_working_set_size ~10.67 GB on a 16 GB M4.
    limit = get_catalog().gpu("apple-m4-16gb").usable_memory_bytes
    assert limit == 10_922 * MiB and abs(limit / GiB - 10.67) < 0.01


def test_the_cli_flags_take_the_new_names(capsys: pytest.CaptureFixture[str]) -> None:
    # Llama 3.1 8B Q4_K_M (4.92 GB of weights) fits a 16 GB RTX 4090 Laptop GPU.
    code = main(
        [
            "memory",
            "--model",
            "llama-3.1-8b",
            "--weights",
            "q4_k_m",
            "--gpu",
            "rtx-4090-laptop",
            "--json",
        ]
    )
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["gpu"] == "rtx-4090-laptop" and data["fits"] is True
    code = main(["memory", "--model", "llama-3.1-8b", "--gpu", "apple-m1", "--json"])
    data = json.loads(capsys.readouterr().out)
    # bf16 Llama 3.1 8B is 16.06 GB of weights: more than an 8 GB M1's 5.33 GiB working set.
    assert code == 0 and data["fits"] is False
    assert data["usable_bytes_per_gpu"] == 8 * 1024 * 2 // 3 * MiB
