"""Absurd values in files and flags, refused where they come in (issue 34, items 2-4, 6, 7).

Each test is one repro of the issue: the input that printed a traceback, exited 0 after a
failure, allocated from an unchecked header or printed a wrong figure, and what it gets now.
"""

from __future__ import annotations

import json
import struct
import tracemalloc
from pathlib import Path
from typing import Any

import gguf
import numpy as np
import pytest

from assistant.cli import main
from assistant.sanitize import clean_text
from tools.errors import ToolInputError

# --- helpers ----------------------------------------------------------------------------------


def _config_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    folder = tmp_path / "config" / "gpu-sizer"
    folder.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return folder


def _one_line_exit_2(code: int, err: str, *needles: str) -> None:
    assert code == 2, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    for needle in needles:
        assert needle in err, (needle, err)


def api_price(price: str, as_of: str = "2026-11-01") -> str:
    """A user prices.toml holding one hosted-API price for Llama 3.1 8B."""
    return f"""[[api_price]]
id = "mine"
provider = "Mine"
model = "llama-3.1-8b-instruct"
model_id = "llama-3.1-8b"
input_per_mtok = {price}
output_per_mtok = {price}
currency = "USD"
as_of = "{as_of}"
source = "https://example.com/prices"
"""


def gpu_price(per_hour: float, as_of: str) -> str:
    """A user prices.toml holding one on-demand H100 SXM price."""
    return f"""[[price]]
id = "mine"
provider = "Mine"
gpu = "h100-sxm"
gpu_label = "H100 SXM"
gpus_per_instance = 1
tier = "on_demand"
pricing_type = "on_demand"
price_per_gpu_hour = {per_hour}
currency = "USD"
eu = false
as_of = "{as_of}"
source = "https://example.com/prices"
"""


# --- GGUF: validation before allocation (item 2) ---------------------------------------------


def hostile_gguf(path: Path, arch: str = "llama", **keys: int) -> Path:
    """A 26 KB GGUF: a valid header with `keys` overriding its hyper-parameters, one real
    100 × 64 f32 token embedding."""
    writer = gguf.GGUFWriter(str(path), arch)
    values = {
        "block_count": 2,
        "context_length": 4096,
        "embedding_length": 64,
        "feed_forward_length": 128,
        "attention.head_count": 4,
        **keys,
    }
    for key, value in values.items():
        add = writer.add_uint64 if value >= 2**32 else writer.add_uint32
        add(f"{arch}.{key}", value)
    writer.add_tensor("token_embd.weight", np.zeros((100, 64), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def test_a_small_gguf_with_a_valid_header_loads(tmp_path: Path) -> None:
    from tools.model_sources.gguf_files import load_gguf

    loaded = load_gguf(hostile_gguf(tmp_path / "ok.gguf"))
    assert loaded.architecture.num_layers == 2
    assert loaded.total_params == 100 * 64  # the one tensor's elements


@pytest.mark.parametrize("layers", [10**8, 2**31, 2**40])
def test_a_huge_block_count_is_refused_before_anything_is_allocated(
    tmp_path: Path, layers: int
) -> None:
    from tools.model_sources.gguf_files import load_gguf

    path = hostile_gguf(tmp_path / "layers.gguf", block_count=layers)
    tracemalloc.start()
    try:
        with pytest.raises(ToolInputError) as caught:
            load_gguf(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert caught.value.field == "model_file.llama.block_count"
    assert f"{layers:,} layers" in caught.value.problem
    # 10^8 layers as a Python list is 800 MB; the refusal costs what reading a header costs.
    assert peak < 20 * 2**20, peak


@pytest.mark.parametrize(
    ("arch", "keys", "named"),
    [
        ("llama", {"expert_count": 10**6}, "llama.expert_count"),
        ("llama", {"expert_count": 8, "expert_used_count": 10**6}, "llama.expert_used_count"),
        (
            "deepseek2",
            {"attention.kv_lora_rank": 10**7, "rope.dimension_count": 16},
            "deepseek2.attention.kv_lora_rank",
        ),
    ],
)
def test_out_of_range_moe_and_mla_fields_name_their_gguf_key(
    tmp_path: Path, arch: str, keys: dict[str, int], named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = hostile_gguf(tmp_path / "moe.gguf", arch=arch, **keys)
    code = main(["memory", "--model-file", str(path)])
    _one_line_exit_2(code, capsys.readouterr().err, named, "GGUF header")


# --- safetensors and index sizes (item 6) -----------------------------------------------------


def _safetensors(path: Path, header: dict[str, Any]) -> Path:
    raw = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + b"\0" * 64)
    return path


@pytest.mark.parametrize(
    "tensor",
    [
        {"dtype": "F16", "shape": [-1, 5], "data_offsets": [0, 10]},
        {"dtype": "F16", "shape": [2.5, 2], "data_offsets": [0, 10]},
        {"dtype": "F16", "shape": [1, 5], "data_offsets": [10, 0]},
        {"dtype": "F16", "shape": [True, 5], "data_offsets": [0, 10]},
    ],
)
def test_a_safetensors_shape_or_offset_that_is_no_whole_number_is_refused(
    tmp_path: Path, tensor: dict[str, Any]
) -> None:
    from tools.model_sources.safetensors_files import header_size

    with pytest.raises(ToolInputError, match="tensor 'w'"):
        header_size(_safetensors(tmp_path / "m.safetensors", {"w": tensor}))


def test_a_valid_safetensors_header_counts_its_parameters(tmp_path: Path) -> None:
    from tools.model_sources.safetensors_files import header_size

    # 2 × 5 F16 elements = 10 parameters in 20 bytes; 3 F32 = 3 parameters in 12 bytes.
    size = header_size(
        _safetensors(
            tmp_path / "m.safetensors",
            {
                "a": {"dtype": "F16", "shape": [2, 5], "data_offsets": [0, 20]},
                "b": {"dtype": "F32", "shape": [3], "data_offsets": [20, 32]},
            },
        )
    )
    assert (size.total_bytes, size.total_params) == (32, 13)


@pytest.mark.parametrize("total", [1e308, 1e30, float("inf")])
def test_an_index_total_size_past_any_checkpoint_is_refused(tmp_path: Path, total: float) -> None:
    from tools.model_sources.safetensors_files import index_size

    index = tmp_path / "model.safetensors.index.json"
    text = json.dumps({"metadata": {"total_size": total}, "weight_map": {}})
    index.write_text(text.replace("Infinity", "1e999"), encoding="utf-8")
    with pytest.raises(ToolInputError) as caught:
        index_size(index)
    assert len(caught.value.message) < 300  # never a 300-digit byte count


# --- a unified-memory machine too small for its OS (item 6) ----------------------------------


def test_a_4_gb_coherent_machine_is_refused_not_a_negative_budget() -> None:
    from assistant.registry import default_registry

    registry = default_registry()
    arguments = {"model": "llama-3.1-8b", "gpu_memory_gb": 4, "gpu_unified_memory": "coherent"}
    outcome = registry.call("plan_local_serving", arguments)
    # 4 GB of RAM (4 GiB of DRAM) less the 8 GiB the OS keeps would be −4 GiB.
    assert outcome.is_error and outcome.value.field == "gpu_memory_gb"  # type: ignore[attr-defined]
    assert "-" not in outcome.value.error  # type: ignore[attr-defined]
    # 16 GB as sold is 16 GiB of DRAM (tools/hardware.py); the GPU gets 16 − 8 = 8 GiB.
    plan = registry.call("plan_local_serving", {**arguments, "gpu_memory_gb": 16})
    assert not plan.is_error
    assert plan.value.budget_bytes == 16 * 2**30 - 8 * 2**30  # type: ignore[attr-defined]


# --- prices: a free API, a vanishing one, impossible and future dates (items 3, 7) -----------


def test_a_free_api_price_has_no_break_even_and_no_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (_config_dir(monkeypatch, tmp_path) / "prices.toml").write_text(api_price("0"))
    assert main(["cost", "--gpu", "h100-sxm", "--model", "llama-3.1-8b", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    mine = [b for b in out["break_even"] if b["api_id"] == "mine"]
    assert mine, "the free API is the cheapest, so it is the one compared"
    for even in mine:
        assert even["break_even_output_tokens_per_month"] is None
        assert (
            even["reachable"] is False
            and "the API stays cheaper at any volume" in (even["explanation"])
        )


def _no_constant(text: str) -> float:
    raise AssertionError(f"{text} in --json output")


def test_a_5e_324_api_price_prints_no_infinity(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (_config_dir(monkeypatch, tmp_path) / "prices.toml").write_text(api_price("5e-324"))
    assert main(["cost", "--gpu", "h100-sxm", "--model", "llama-3.1-8b", "--json"]) == 0
    out = json.loads(capsys.readouterr().out, parse_constant=_no_constant)
    # 1 USD a month ÷ 5e-324 USD per million tokens overflows: no volume is stated at all.
    assert all(
        b["break_even_output_tokens_per_month"] is None
        for b in out["break_even"]
        if b["api_id"] == "mine"
    )


@pytest.mark.parametrize("as_of", ["2026-13-45", "2026-02-30", "2026-12-14T25:00:00Z"])
def test_an_impossible_as_of_is_one_line_exit_2(
    as_of: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (_config_dir(monkeypatch, tmp_path) / "prices.toml").write_text(api_price("1", as_of))
    code = main(["cost", "--gpu", "h100-sxm", "--model", "llama-3.1-8b"])
    _one_line_exit_2(code, capsys.readouterr().err, "prices.toml", "is not a calendar date")


def test_a_price_dated_in_the_future_is_flagged_and_never_ranks_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GPU_SIZER_NOW", "2026-12-14T09:00:00Z")
    # 0.50 USD/h is below every catalog H100 rate: dated today it would rank first.
    (_config_dir(monkeypatch, tmp_path) / "prices.toml").write_text(gpu_price(0.5, "2099-01-01"))
    assert main(["cost", "--gpu", "h100-sxm", "--model", "llama-3.1-8b", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    mine = next(r for r in out["rows"] if r["price_id"] == "mine")
    assert mine["age"] == "dated in the future" and mine["stale"] is True
    assert mine["age_hours"] is None
    assert out["cheapest_by_tier"]["on_demand"] != "mine"


def test_a_price_dated_today_in_the_earliest_time_zone_is_not_in_the_future() -> None:
    from datetime import UTC, datetime

    from tools.pricing import FUTURE, age_label, is_future

    # 09:00 UTC on 14 December is 23:00 in UTC+14 (Kiribati): its 'today' is still the 14th;
    # at 11:00 UTC it is already the 15th there.
    now = datetime(2026, 12, 14, 9, 0, tzinfo=UTC)
    assert not is_future("2026-12-15", datetime(2026, 12, 14, 11, 0, tzinfo=UTC))
    assert is_future("2026-12-16", now) and age_label("2026-12-16", now) == FUTURE
    assert age_label("2026-12-14", now) == "9 h old"


# --- exit codes that say what happened (item 4) ----------------------------------------------

QUESTION = "serve Llama 3.1 8B on an L4"


@pytest.mark.parametrize(
    ("config", "needle"),
    [
        ("timeout = 'x'\n", "timeout"),
        ("[[[\n", "not valid TOML"),
        ("request_timeout_s = -1\n", "request_timeout_s"),
        ("base_url = 'not a url'\n", "not an http(s) URL"),
    ],
)
def test_ask_offline_with_a_broken_config_toml_exits_2(
    config: str,
    needle: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (_config_dir(monkeypatch, tmp_path) / "config.toml").write_text(config)
    code = main(["ask", "--offline", "--no-save", QUESTION])
    captured = capsys.readouterr()
    _one_line_exit_2(code, captured.err, "config.toml", needle)
    assert captured.out == ""  # no answer carrying the error as its text


def test_ask_offline_with_a_broken_prices_toml_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (_config_dir(monkeypatch, tmp_path) / "prices.toml").write_text("[[[\n")
    code = main(["ask", "--offline", "--no-save", QUESTION])
    _one_line_exit_2(code, capsys.readouterr().err, "prices.toml")


@pytest.mark.parametrize(
    ("flags", "needle"),
    [
        (["--base-url", "not a url"], "--base-url: 'not a url' is not an http(s) URL"),
        (["--base-url", "localhost:8080/v1"], "--base-url"),
        (["--base-url", "http://127.0.0.1:9/v1"], "--base-url: cannot be used: no model"),
        (["--offline", "--timeout", "-5"], "--timeout: '-5.0' rejected"),
        (["--offline", "--timeout", "nan"], "--timeout"),
        (["--offline", "--timeout", "0"], "--timeout"),
    ],
)
def test_ask_refuses_endpoint_flags_it_cannot_use(
    flags: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["ask", "--no-save", *flags, QUESTION])
    _one_line_exit_2(code, capsys.readouterr().err, needle)


# --- proposal paths and --from-json (items 3, 7) ---------------------------------------------


def test_proposal_paths_that_cannot_be_written_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPU_SIZER_DATA_DIR", str(tmp_path / "data"))
    missing = tmp_path / "no-such-folder" / "x.html"
    for target, needle in (
        ("/proc/x.md", "--proposal: /proc/x.md"),
        (str(missing), "does not exist"),
        (str(tmp_path), "is a folder"),
    ):
        code = main(["ask", "--offline", "--no-save", "--proposal", target, QUESTION])
        _one_line_exit_2(code, capsys.readouterr().err, needle)
    assert not missing.parent.exists()  # a typed path never creates folders
    # The same refusals under `proposal --output`, before anything is read.
    code = main(["proposal", "--session", "nope", "--output", str(missing)])
    _one_line_exit_2(code, capsys.readouterr().err, "--output", "does not exist")


@pytest.mark.parametrize("document", ['{"a": 1}', "{}", '{"messages": []}', '{"messages": 5}'])
def test_proposal_from_json_needs_an_answered_question(
    document: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.json"
    path.write_text(document, encoding="utf-8")
    code = main(["proposal", "--from-json", str(path)])
    _one_line_exit_2(code, capsys.readouterr().err, "--from-json", "no tool result")


# --- characters that reorder or hide text (item 7) -------------------------------------------

BIDI = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069"]
MARKS = ["\u200e", "\u200f", "\u061c"]
ZERO_WIDTH = ["\u200b", "\u2060", "\ufeff"]


@pytest.mark.parametrize("char", BIDI + MARKS + ZERO_WIDTH)
def test_bidi_controls_and_zero_width_characters_are_removed(char: str) -> None:
    assert clean_text(f"h100{char}-sxm") == "h100-sxm"
    from assistant.sanitize import json_has_control

    assert json_has_control(json.dumps({"gpu": f"a{char}b"}))  # as a \\uXXXX escape too


def test_joiners_that_words_and_emoji_need_stay() -> None:
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # ZWJ sequence: one emoji
    persian = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"  # ZWNJ inside a word
    assert clean_text(family) == family and clean_text(persian) == persian


def test_an_rlo_in_a_question_never_reaches_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "--offline", "--no-save", "serve Llama 3.1 8B \u202eon an L4\u200b"]) == 0
    captured = capsys.readouterr()
    for char in BIDI + MARKS + ZERO_WIDTH:
        assert char not in captured.out and char not in captured.err
