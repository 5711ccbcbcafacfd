"""llama.cpp's Metal K-quant kernels calibrate per build era (issue 31 item 1, family
"llama.cpp Metal"): builds up to 2024 run ikawrakow's 2023 kernels, slower than the 2026 builds'
on the same chip and model (Llama 3.1 8B Q4_K_M on an M1 Max: 34.49 tok/s on build 2797,
XiongjieDai/GPU-Benchmarks-on-LLM-Inference, May 2024; 46.2 tok/s on a March-2026 build,
brand-o/normiebench issue 40). The era's constants rest on fit rows of two 2023 publications
(llama.cpp PRs 2290 and 2307); a setup with no era takes the newest builds'."""

from __future__ import annotations

from bench.perf_rows import build_era_of, engine_of, family_of, reference_rows, source_of, split
from tools.catalog import get_catalog
from tools.performance import calibration, resolve
from tools.performance.efficiency import decode_keys
from tools.performance.engines import base_engine, build_era, engine_family, with_build_era

ERA = "2023-24"
OLD = with_build_era("llama.cpp", ERA)


def test_an_era_tags_the_engine_without_changing_its_family() -> None:
    assert OLD == "llama.cpp@2023-24"
    assert build_era(OLD) == ERA and base_engine(OLD) == "llama.cpp"
    assert engine_family(OLD) == "llama.cpp"
    assert build_era("llama.cpp") is None and build_era("llama.cpp@1999") is None
    assert with_build_era("llama.cpp", None) == "llama.cpp"


def test_era_keys_go_first_for_k_quants_only() -> None:
    args = ("llama.cpp", "apple", "apple-max", "gguf", False)
    plain = decode_keys(*args, "q4_k_m", "m1")
    assert decode_keys(*args, "q4_k_m", "m1", era=ERA) == [
        f"llama.cpp/apple/apple-max/k-quant@{ERA}",
        f"llama.cpp/apple/k-quant@{ERA}",
        *plain,
    ]
    # Q4_0 and 16-bit weights run other kernels: the era adds no key.
    assert decode_keys(*args, "q4_0", "m1", era=ERA) == decode_keys(*args, "q4_0", "m1")


def test_a_row_takes_its_era_from_its_publication_date() -> None:
    rows = {str(r["id"]): r for r in reference_rows()}
    # XiongjieDai's README commit of 2024-05-12, build 2797.
    assert build_era_of(rows["xd-apple-m1-max-l3-70b-q4km-tg1024"]) == ERA
    # normiebench issue 40, 2026-03-08.
    nb40 = "cs-apple-m1-max-macbook-pro-64-gb-llama-3-1-8b-q4-k-m-tg128-llama-cpp-metal-normieb"
    assert build_era_of(rows[nb40]) is None
    assert engine_of(rows[nb40]) == "llama.cpp"
    assert engine_of(rows["llamacpp-pr2290-m2max-7b-q4km-tg"]) == OLD


def test_the_2023_rows_carry_the_published_ms_per_token() -> None:
    rows = {str(r["id"]): r for r in reference_rows()}
    # llama.cpp PR 2290, 'token generation time in ms/t on M2 Max with 30-core GPU', This PR.
    assert rows["llamacpp-pr2290-m2max-7b-q4km-tg"]["value"] == round(1000 / 19.5, 2)
    assert rows["llamacpp-pr2290-m2max-65b-q4km-tg"]["value"] == round(1000 / 141.0, 2)
    # PR 2294: Q5_K_S 65B 181.1 ms/t; PR 2307: Q3_K_S TG-128 13B 37.5 ms/t (M2 Max 30-core).
    assert rows["llamacpp-pr2294-m2max-65b-q5ks-tg"]["value"] == round(1000 / 181.1, 2)
    assert rows["llamacpp-pr2307-m2max-13b-q3ks-tg"]["value"] == round(1000 / 37.5, 2)
    # PR 2995: llama-bench 'LLaMA 7B mostly Q3_K - Small | Metal | tg 128 | ... | 52.26'.
    assert rows["llamacpp-pr2995-m2max-7b-q3ks-tg"]["value"] == 52.26


def test_era_constants_rest_on_fit_rows_of_two_publications() -> None:
    rows = {str(r["id"]): r for r in reference_rows()}
    part = split()
    own = [c for c in calibration().all() if f"k-quant@{ERA}" in c.key and c.rows]
    assert own, "no fitted constant of the 2023-24 era"
    for c in own:
        assert len(c.rows) >= 3, c.key
        assert len({source_of(rows[r]) for r in c.rows}) >= 2, c.key
        for r in c.rows:
            assert family_of(rows[r]) == "llama.cpp Metal" and part[r] == "fit"
            assert build_era_of(rows[r]) == ERA


def test_an_m1_max_decodes_k_quants_slower_on_a_2024_build_than_on_the_newest() -> None:
    # Published direction: 34.49 tok/s on build 2797 (2024) against 46.2 on a 2026 build.
    gpu = get_catalog().gpu("apple-m1-max")
    old = resolve(gpu, "q4_k_m", OLD)
    new = resolve(gpu, "q4_k_m", "llama.cpp")
    assert old.bandwidth_eff < new.bandwidth_eff
    assert any(f"k-quant@{ERA}" in c.key for c in old.constants)
    assert all("@" not in c.key for c in new.constants)


def test_the_geerlingguy_rows_carry_the_published_figures() -> None:
    rows = {str(r["id"]): r for r in reference_rows()}
    # README commit bd20c8f (2024-10-28): 'M1 Max Mac Studio (10 core - 64GB) | GPU |
    # llama3.1:8b | 45.32 Tokens/s'; issue 2 (2024-11-20): M4 Mac mini llama3.1:8b 20.89;
    # issue 42 / README commit 1e3bc7f (2025-12-07): M3 Ultra 512GB Llama 3.1 70B 14.08.
    assert rows["gg-aib-readme-m1max-l31-8b-q4km"]["value"] == 45.32
    assert rows["gg-aib2-m4-l31-8b-q4km"]["value"] == 20.89
    assert rows["gg-aib42-m3ultra-l31-70b-q4km-tg128"]["value"] == 14.08
    # Dated 2024: the 2023-24 era; 2025 on: the newest builds.
    assert build_era_of(rows["gg-aib-readme-m1max-l31-8b-q4km"]) == ERA
    assert build_era_of(rows["gg-aib11-m1ultra48-l31-8b-q4km"]) is None
    # One publication each, split by the unchanged rule (README, issue 2, PR 11 held out).
    part = split()
    assert part["gg-aib-readme-m1max-l31-8b-q4km"] == "held-out"
    assert part["gg-aib42-m3ultra-l31-70b-q4km-tg128"] == "fit"
