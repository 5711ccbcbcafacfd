"""'Measured' means this setup and build era (issue 31 point 3): among the published rows of
one setup the newest build's is the figure, the others are stated beside it when they disagree
by more than 10%, and a named engine version only matches its own release's row."""

from __future__ import annotations

import json

import pytest

from assistant.cli import main
from tools.performance.measured import find_measurement


def test_the_newest_row_leads_and_the_spread_is_stated() -> None:
    # Llama 3.1 8B Q4_K_M on an M1 Max, llama.cpp Metal: XiongjieDai (May 2024, llama-bench
    # build 2797) 34.49 tok/s; brand-o/normiebench#40 (March 2026) 46.2 tok/s — 34% apart.
    m = find_measurement("llama-3.1-8b", "apple-m1-max", "q4_k_m", "generic", 1, 1)
    assert m is not None
    assert m.tokens_per_s == 46.2 and m.source_date.startswith("2026-03")
    assert m.spread is not None and "34.49 tok/s" in m.spread and "46.2 tok/s" in m.spread


def test_rows_that_agree_carry_no_spread() -> None:
    # One published row of this setup: no spread to state.
    m = find_measurement("llama-3.1-8b", "rtx-4080", "q4_k_m", "generic", 1, 1)
    assert m is not None and m.spread is None


@pytest.mark.parametrize(("version", "found"), [(None, True), ("0.21", True), ("0.11", False)])
def test_a_named_engine_version_matches_only_its_release(version: str | None, found: bool) -> None:
    # The H100 row is vLLM 0.21.0 (yobitelcomm concurrency sweep): a 0.11 request is not it.
    m = find_measurement("llama-3.1-8b", "h100-sxm", "bf16", "vllm", 1, 1, version)
    assert (m is not None) is found


def test_the_cli_states_the_spread(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["recommend", "--model", "llama-3.1-8b", "--weights", "q4_k_m", "--engine", "generic"]
    argv += ["--gpu", "apple-m1-max", "--context", "512", "--json"]
    assert main(argv) == 0
    option = json.loads(capsys.readouterr().out)["options"][0]
    assert option["speed_basis"] == "measured"
    assert option["decode_tokens_per_s_per_seq"] == 46.2
    assert "disagree by more than 10%" in option["speed_source"]
    assert "34.49" in option["speed_source"]
