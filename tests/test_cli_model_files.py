"""`memory`, `recommend` and `cost` take the models a user points at (issue 15, item 2): a GGUF
file (written with the gguf package's GGUFWriter: a real header and tensor index), a model
folder and a safetensors index (config.json + model.safetensors.index.json), and a repo id in a
Hugging Face cache laid out as huggingface_hub lays it out. Driven through `gpu-sizer` itself;
the flags are the generated ones (`--model-file`, `--model org/name`).

Expected bytes: the GGUF's own tensor sizes as the gguf package computes them (GGML_QUANT_SIZES,
returned by tests/model_files.write_gguf), and the index's stated `total_size`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assistant.cli import main
from tests.model_files import fake_hf_cache, write_gguf
from tests.test_model_sources import INDEX_TOTAL, LLAMA_CONFIG, SMALL, TYPES

REPO = "acme/tiny-llama-1b"
INDEX = {"metadata": {"total_size": INDEX_TOTAL}, "weight_map": {}}
# A Llama 3.1 8B-shaped GGUF in Q4_K_M's types (the tensor data a sparse hole: no disk).
LLAMA_8B = {
    "layers": 32,
    "hidden": 4096,
    "ffn": 14336,
    "heads": 32,
    "kv_heads": 8,
    "vocab": 128256,
}


@pytest.fixture
def model_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Each kind of model source, with the weight bytes it must be sized at."""
    small = tmp_path / "small-q4_k_m.gguf"
    small_total = write_gguf(small, context=8192, file_type=15, types=TYPES, **SMALL)
    big = tmp_path / "llama-8b-q4_k_m.gguf"
    big_total = write_gguf(big, context=131072, file_type=15, types=TYPES, **LLAMA_8B)
    folder = tmp_path / "tiny-llama"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(LLAMA_CONFIG))
    (folder / "model.safetensors.index.json").write_text(json.dumps(INDEX))
    fake_hf_cache(
        tmp_path / "hub",
        REPO,
        {"config.json": LLAMA_CONFIG, "model.safetensors.index.json": INDEX},
    )
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return {
        "gguf": (["--model-file", str(small)], small_total, "q4_k_m"),
        "gguf-8b": (["--model-file", str(big)], big_total, "q4_k_m"),
        "folder": (["--model-file", str(folder)], INDEX_TOTAL, "bf16"),
        "index": (
            ["--model-file", str(folder / "model.safetensors.index.json")],
            INDEX_TOTAL,
            "bf16",
        ),
        "hf-cache": (["--model", REPO], INDEX_TOTAL, "bf16"),
    }


def _json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code = main(argv)
    out = capsys.readouterr()
    assert code == 0, out.err
    data: dict[str, Any] = json.loads(out.out)
    return data


SOURCES = ["gguf", "gguf-8b", "folder", "index", "hf-cache"]


@pytest.mark.parametrize("source", SOURCES)
def test_memory_sizes_the_files_own_bytes(
    source: str, model_files: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    flags, weights, fmt = model_files[source]
    out = _json(["memory", *flags, "--gpu", "l4", "--json"], capsys)
    assert out["breakdown"]["weights"] == weights
    assert out["weights_format"] == fmt
    # A GGUF is what llama.cpp runs: sized without vLLM's reserve.
    assert out["engine"] == ("generic" if fmt == "q4_k_m" else "vllm")


@pytest.mark.parametrize("source", SOURCES)
def test_recommend_ranks_the_file_at_its_bytes(
    source: str, model_files: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    flags, weights, fmt = model_files[source]
    out = _json(["recommend", *flags, "--gpu", "l4", "--json"], capsys)
    assert (out["weight_bytes"], out["weights_format"]) == (weights, fmt)
    assert {o["gpu"] for o in out["options"]} == {"l4"} and out["options"][0]["fits"]


@pytest.mark.parametrize("source", SOURCES)
def test_cost_prices_the_file(
    source: str, model_files: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    flags, _, fmt = model_files[source]
    out = _json(["cost", *flags, "--gpu", "l4", "--json"], capsys)
    assert out["headline"]["gpu"] == "l4" and out["headline"]["weights_format"] == fmt
    assert out["rows"] and all(r["gpu"] == "l4" for r in out["rows"])


def test_an_8b_gguf_fits_an_l4_and_the_fit_is_the_files(
    model_files: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    flags, weights, _ = model_files["gguf-8b"]
    out = _json(["memory", *flags, "--gpu", "l4", "--json"], capsys)
    # 32 layers of Q4_K/Q6_K tensors + a Q4_K embedding and Q6_K output ≈ 4.9 GB: a 24 GB L4
    # holds it, with the 4,096-token default's bf16 KV cache (32 layers × 8 heads × 128 × 2 ×
    # 2 B per token).
    assert 4.5e9 < weights < 5.5e9
    assert out["fits"] is True and out["breakdown"]["kv_cache"] == 32 * 2 * 8 * 128 * 2 * 4096


def test_an_unreadable_model_file_is_one_line_naming_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["memory", "--model-file", str(tmp_path / "none.gguf"), "--gpu", "l4"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "--model-file" in err[0]
