"""llama.cpp's Vulkan backend calibrates apart from the default one (issue 31, family
"llama.cpp Vulkan"): on NVIDIA cards its own decode constants rest on NVIDIA-on-Vulkan rows of
at least two publications (llama.cpp PR 14903's RTX 5090, PR 21024's RTX 3090, geerlingguy's
RTX 3060 12GB), where the backend's rows are too few (AMD, Intel: one scoreboard) they keep
the class's constants, and no Vulkan row moves a default-backend (CUDA) constant."""

from __future__ import annotations

from bench.perf_rows import family_of, reference_rows, source_of, split
from tools.catalog import get_catalog
from tools.performance import calibration, resolve
from tools.performance.efficiency import decode_keys, dequant_keys, gemm_keys, step_keys
from tools.performance.engines import engine_family, llama_backend

VULKAN_KEY = "llama.cpp/nvidia-gddr/vulkan"


def test_the_vulkan_engine_is_llama_cpp_on_its_own_backend() -> None:
    assert engine_family("llama.cpp-vulkan") == "llama.cpp"
    assert llama_backend("llama.cpp-vulkan") == "vulkan"
    assert llama_backend("llama.cpp") is None and llama_backend("generic") is None


def test_the_backend_key_goes_first_and_the_class_keys_stay() -> None:
    plain = decode_keys("llama.cpp", "nvidia-gddr", "ampere", "gguf")
    assert decode_keys("llama.cpp", "nvidia-gddr", "ampere", "gguf", backend="vulkan") == [
        VULKAN_KEY,
        *plain,
    ]
    assert step_keys("llama.cpp", "nvidia-gddr", "vulkan")[0] == VULKAN_KEY
    assert gemm_keys("llama.cpp", "nvidia-gddr", "ampere", "gguf", "vulkan")[0] == VULKAN_KEY
    assert dequant_keys("gguf", "llama.cpp", "nvidia-gddr", "vulkan") == [
        f"{VULKAN_KEY}/gguf",
        "gguf",
    ]
    assert dequant_keys("gguf", "llama.cpp") == ["gguf"]


def test_nvidia_vulkan_constants_rest_on_fit_rows_of_two_publications() -> None:
    rows = {str(r["id"]): r for r in reference_rows()}
    part = split()
    own = [c for c in calibration().all() if c.key.startswith(VULKAN_KEY)]
    assert {c.table for c in own} >= {"decode_bandwidth", "layer_overhead", "step_overhead"}
    for c in own:
        assert len(c.rows) >= 3, f"{c.table} {c.key}"
        assert len({source_of(rows[r]) for r in c.rows}) >= 2, f"{c.table} {c.key}"
        for r in c.rows:
            assert family_of(rows[r]) == "llama.cpp Vulkan" and part[r] == "fit"
            assert str(rows[r]["gpu"]).startswith("rtx-")


def test_no_vulkan_row_calibrates_a_default_backend_constant_on_nvidia() -> None:
    rows = {str(r["id"]): r for r in reference_rows()}
    for c in calibration().all():
        if "vulkan" in c.key.split("/"):
            continue
        for r in c.rows:
            row = rows[r]
            nvidia_vulkan = family_of(row) == "llama.cpp Vulkan" and str(row["gpu"]).startswith(
                "rtx-"
            )
            assert not nvidia_vulkan, f"{c.table} {c.key} rests on {r}"


def test_an_nvidia_card_on_vulkan_runs_at_the_vulkan_constants() -> None:
    gpu = get_catalog().gpu("rtx-3090")
    vulkan = resolve(gpu, "q4_0", "llama.cpp-vulkan")
    cuda = resolve(gpu, "q4_0", "llama.cpp")
    keys = {c.table: c.key for c in vulkan.constants}
    assert keys["decode_bandwidth"] == VULKAN_KEY
    assert keys["step_overhead"] == VULKAN_KEY
    assert vulkan.decode_basis == "calibrated"
    assert all("vulkan" not in c.key for c in cuda.constants)
    # No NVIDIA-on-Vulkan prefill constant yet (one fit row): the CUDA class's is used and the
    # figure says it is an estimate.
    assert vulkan.prefill_basis == "estimated"


def test_a_backend_with_too_few_rows_keeps_its_class_constants() -> None:
    # AMD and Intel on Vulkan: one publication (the llama.cpp Vulkan scoreboard) only.
    gpu = get_catalog().gpu("rx-7900-xtx")
    vulkan = resolve(gpu, "q4_0", "llama.cpp-vulkan")
    default = resolve(gpu, "q4_0", "llama.cpp")
    assert vulkan.bandwidth_eff == default.bandwidth_eff
    assert vulkan.layer_overhead_s == default.layer_overhead_s
    assert vulkan.decode_basis == "estimated"


def test_a_vulkan_run_is_not_the_measurement_of_a_default_backend_request() -> None:
    from tools.performance.measured import find_measurement

    setup = ("llama-3.2-3b", "rtx-4090", "q4_k_m")
    assert find_measurement(*setup, "generic", 1, 1) is None
    assert find_measurement(*setup, "llama.cpp", 1, 1) is None
    found = find_measurement(*setup, "llama.cpp-vulkan", 1, 1)
    assert found is not None and found.tokens_per_s == 334.67
