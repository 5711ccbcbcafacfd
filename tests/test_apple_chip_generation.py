"""An Apple chip generation's term on llama.cpp Metal decode (issue 31, family "llama.cpp
Metal"): at the same tier and datasheet bandwidth, the M1 generation's GPU streams weights at a
smaller share than the M2's, the M4's at a larger one. Published figures (llama.cpp discussion
4167, build 8e672ef, Llama 2 7B tg128): Q4_0 at 400 GB/s, M1 Max 32-core 61.19 tok/s against
the M2 Max 38-core's 65.95; Q8_0 at 800 GB/s, M1 Ultra 59.87 against the 60-core M2 Ultra's
62.14 (build 8e672ef's later M2 Ultra rows)."""

from __future__ import annotations

from bench.perf_rows import family_of, reference_rows, source_of, split
from tools.catalog import get_catalog
from tools.performance import calibration, resolve
from tools.performance.efficiency import CHIP_REFERENCE, chip_keys, with_chip


def test_the_term_is_added_to_the_inverse_share() -> None:
    # Hand arithmetic: η 0.8 is 1.25 s per byte-at-peak; +0.05 gives 1.30, a share of 0.76923.
    assert abs(with_chip(0.8, 0.05) - 1 / 1.30) < 1e-12
    assert with_chip(0.8, None) == 0.8


def test_only_non_reference_apple_generations_under_llama_cpp_have_a_key() -> None:
    assert CHIP_REFERENCE == "m2"
    assert chip_keys("llama.cpp", "apple", "m1") == ["llama.cpp/apple/m1"]
    assert chip_keys("llama.cpp", "apple", "m2") == []
    assert chip_keys("mlx", "apple", "m1") == []
    assert chip_keys("llama.cpp", "nvidia-gddr", None) == []


def test_chip_terms_rest_on_fit_rows_of_two_publications() -> None:
    rows = {str(r["id"]): r for r in reference_rows()}
    part = split()
    own = [c for c in calibration().all() if c.table == "chip_bandwidth"]
    assert own, "no fitted chip-generation term"
    for c in own:
        assert len(c.rows) >= 3, c.key
        assert len({source_of(rows[r]) for r in c.rows}) >= 2, c.key
        assert all(part[r] == "fit" and family_of(rows[r]) == "llama.cpp Metal" for r in c.rows)


def test_an_m1_max_decodes_q4_0_slower_than_an_m2_max_at_the_same_bandwidth() -> None:
    catalog = get_catalog()
    m1, m2 = catalog.gpu("apple-m1-max"), catalog.gpu("apple-m2-max")
    assert m1.memory_bandwidth_bytes_per_s == m2.memory_bandwidth_bytes_per_s
    share_m1 = resolve(m1, "q4_0", "llama.cpp").bandwidth_eff
    share_m2 = resolve(m2, "q4_0", "llama.cpp").bandwidth_eff
    published = 61.19 / 65.95  # 0.928: discussion 4167, tg128 Q4_0
    assert share_m1 < share_m2
    # The memory term is most of a 7B step (the rest is per-layer and per-step time), so
    # the share ratio lies between the published speed ratio and 1.
    assert published - 0.03 < share_m1 / share_m2 < 1.0
