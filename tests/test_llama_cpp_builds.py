"""A llama.cpp build is a typed input (issue 31 item 1): `engine_version` with engine generic
names a build number, a date or an era; it selects the build era's constants and measurements,
and a build that cannot be dated takes the newest builds' with the assumption stated.

Published anchors: b4404 was llama.cpp's latest release on 2024-12-31 (janhq/cortex.llamacpp PR
355); llama-bench prints 'build: 858f6b73 (2797)' (XiongjieDai's May-2024 M1 Max run, Llama 3
8B Q4_K_M tg1024 34.49 tok/s; Ollama on an M1 Max in October 2024 45.32 tok/s,
geerlingguy/ai-benchmarks README); normiebench issue 40 (2026-03-08): the same chip and model at
46.2 tok/s tg128; llama.cpp PR 2290 (2023-07-20): Q4_K 7B on an M2 Max at 19.5 ms/token."""

from __future__ import annotations

import json

import pytest

from assistant.cli import main
from tools.errors import ToolInputError
from tools.local_serving import LocalServingRequest, plan_local_serving
from tools.memory import validate_request
from tools.performance.llama_builds import read_llama_build


@pytest.mark.parametrize(
    ("text", "era", "assumed"),
    [
        ("b2797", "2023-24", False),
        ("build 2797", "2023-24", False),
        ("build: 858f6b73 (2797)", "2023-24", False),  # llama-bench's own line
        ("llama.cpp b4404", "2023-24", False),  # the last release of 2024
        ("b4405", None, False),
        ("b8000", None, False),
        ("2024-05", "2023-24", False),
        ("2023-11-21", "2023-24", False),
        ("2025-01", None, False),
        ("2023-24", "2023-24", False),
        ("v0.4.0", None, False),  # semantic versions since August 2026
        ("latest", None, False),
        ("8e672ef", None, True),  # a commit hash: not dated here
    ],
)
def test_a_build_is_read_into_its_era(text: str, era: str | None, assumed: bool) -> None:
    build = read_llama_build(text)
    assert build is not None
    assert (build.era, build.assumed) == (era, assumed)


@pytest.mark.parametrize("text", ["2022-05", "foo bar", "b 12 34"])
def test_what_names_no_build_is_none(text: str) -> None:
    assert read_llama_build(text) is None


def test_the_request_reads_the_version_by_its_engine() -> None:
    ok = validate_request({"model": "llama-3.1-8b", "engine": "generic", "engine_version": "b2797"})
    assert ok.engine_version == "b2797"
    with pytest.raises(ToolInputError) as err:
        validate_request({"model": "llama-3.1-8b", "engine_version": "b2797"})
    assert err.value.field == "engine_version" and "engine generic" in err.value.problem
    with pytest.raises(ToolInputError) as err:
        validate_request({"model": "llama-3.1-8b", "engine": "generic", "engine_version": "x y"})
    assert err.value.field == "engine_version"


def _option(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[dict, dict]:
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    return data["options"][0], data


M1_MAX = ["recommend", "--model", "llama-3.1-8b", "--weights", "q4_k_m", "--engine", "generic"]
M1_MAX += ["--gpu", "apple-m1-max", "--context", "512", "--json"]


def test_the_build_picks_the_measurement_of_its_era(capsys: pytest.CaptureFixture[str]) -> None:
    old, data = _option(capsys, [*M1_MAX, "--engine-version", "b2797"])
    assert old["speed_basis"] == "measured" and old["decode_tokens_per_s_per_seq"] == 34.49
    assert any("2023-24 era" in a for a in data["assumptions"])
    # The era's other 2024 row (Ollama, geerlingguy/ai-benchmarks README, 2024-10-28) is
    # stated beside it; a 2024 build with no row of its own gets that newest one of the era.
    assert "45.32 tok/s" in old["speed_source"]
    other, _ = _option(capsys, [*M1_MAX, "--engine-version", "b3600"])
    assert other["decode_tokens_per_s_per_seq"] == 45.32 and "34.49" in other["speed_source"]
    new, _ = _option(capsys, [*M1_MAX, "--engine-version", "2026-03"])
    assert new["speed_basis"] == "measured" and new["decode_tokens_per_s_per_seq"] == 46.2
    # The other era's row is not this build's: no spread stated.
    assert "34.49" not in new["speed_source"]


def test_the_2023_k_quant_pr_row_is_asked_with_its_build(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["recommend", "--model", "llama-2-7b", "--weights", "q4_k_m", "--engine", "generic"]
    argv += ["--gpu", "apple-m2-max", "--context", "64", "--json"]
    old, _ = _option(capsys, [*argv, "--engine-version", "2023-07-20"])
    assert old["speed_basis"] == "measured"
    assert old["decode_tokens_per_s_per_seq"] == round(1000 / 19.5, 2)
    # No newer build's row of this setup: a newer build is timed with the newest constants,
    # never shown the 2023 row as its measurement.
    new, _ = _option(capsys, [*argv, "--engine-version", "b8000"])
    assert new["speed_basis"] == "calibrated" and "pull/2290" not in new["speed_source"]


def test_an_undated_build_takes_the_newest_and_says_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    hashed, data = _option(capsys, [*M1_MAX, "--engine-version", "8e672ef"])
    newest, _ = _option(capsys, [*M1_MAX, "--engine-version", "latest"])
    assert hashed["decode_tokens_per_s_per_seq"] == newest["decode_tokens_per_s_per_seq"] == 46.2
    (note,) = [n for n in data["notes"] if "cannot be dated" in n]
    assert "'8e672ef'" in note and "newest builds" in note


def test_a_vllm_request_refuses_a_llama_cpp_build(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["recommend", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--engine-version"]
    assert main([*argv, "b2797"]) == 2
    assert "engine generic" in capsys.readouterr().err


def test_memory_on_cuda_with_a_llama_cpp_build(capsys: pytest.CaptureFixture[str]) -> None:
    # vLLM's accounting is for vLLM only: a llama.cpp build sizes llama.cpp's overhead.
    argv = ["memory", "--model", "llama-3.1-8b", "--weights", "q4_k_m", "--engine", "generic"]
    assert main([*argv, "--gpu", "rtx-4090", "--engine-version", "b2797"]) == 0
    assert capsys.readouterr().out


def test_ask_reads_the_build_said(capsys: pytest.CaptureFixture[str]) -> None:
    question = "llama-3.1-8b q4_k_m on an M1 Max with llama.cpp build 2797, 512 tokens of context"
    assert main(["ask", "--offline", "--no-save", "--json", question]) == 0
    data = json.loads(capsys.readouterr().out)
    (call,) = [c for c in data["tool_calls"] if c["name"] == "size"]
    assert call["arguments"]["workload"]["engine_version"] == "b2797"


def test_the_local_plan_times_the_build_named() -> None:
    base = {"model": "llama-3.1-8b", "weights": "q4_k_m", "gpu": "apple-m1-max", "context": 512}
    old = plan_local_serving(LocalServingRequest(**base, engine_version="b2797"))
    new = plan_local_serving(LocalServingRequest(**base))
    assert old.decode_tokens_per_s and new.decode_tokens_per_s
    assert old.decode_tokens_per_s < new.decode_tokens_per_s
    assert any("2023-24 era" in n for n in old.assumptions)
