"""`gpu-sizer models` and `gpu-sizer gpus` through the real dispatcher (assistant.cli.main)."""

from __future__ import annotations

import json
import re

import pytest

from assistant.cli import main
from assistant.render.output import Column, Document, Table, plain_text
from tools.architecture import vision_params
from tools.catalog import get_catalog


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_models_json_lists_all_with_integer_counts(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "models", "--json")
    assert code == 0
    records = {r["id"]: r for r in json.loads(out)}
    # The twenty + LLaMA-65B, and the 48 of the 2026-12 research pass (issue 15).
    assert len(records) >= 69
    # shared/research/params.json (meta-device instantiation, transformers 5.24).
    assert records["llama-3.1-8b"]["total_params"] == 8_030_261_248
    assert records["mixtral-8x7b"]["active_params"] == 12_879_925_248
    # tests/data/research/params-new.json (count_params_new.py, meta device): Llama 4 Scout with
    # its vision tower, and Kimi K2's active count (8 of 384 experts + 1 shared).
    assert records["llama-4-scout"]["total_params"] == 108_641_793_536
    assert records["kimi-k2"]["active_params"] == 32_861_477_888
    assert all(r["as_of"] and r["source"] for r in records.values())


def test_models_table_shows_computed_counts_and_as_of(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "models")
    assert code == 0
    header = out.splitlines()[0]
    assert "params (computed)" in header and "as_of" in header
    # Llama 3.1 70B: 70,553,706,496 parameters (params.json) -> "70.55B".
    row = next(line for line in out.splitlines() if line.startswith("llama-3.1-70b "))
    assert "70.55B" in row


def test_models_detail_by_hf_repo_id(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "models", "meta-llama/Llama-3.1-70B-Instruct")
    assert code == 0
    assert "llama-3.1-70b" in out
    assert "70,553,706,496" in out
    assert "as_of:" in out


def test_models_detail_says_what_is_on_disk_and_in_memory(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # DeepSeek-R1: one MTP module in the checkpoint, not in the 671,026,404,352 total.
    code, out, _ = _run(capsys, "models", "R1")
    assert code == 0 and "671,026,404,352" in out
    assert "MTP modules: 1" in out and "not in memory" in out
    assert "the same as deepseek-v3" in out
    # Gemma 3 27B: SigLIP + projector 423,060,336 (meta device), 52 of 62 layers capped at 1,024.
    # config.json: 62 layers, every 6th global (sliding_window_pattern 6): 62 − 62 // 6 = 52
    # local layers with sliding_window 1024.
    arch = get_catalog().model("gemma-3-27b").architecture
    assert vision_params(arch) == 423_060_336
    assert (arch.num_layers, arch.sliding_window_layers, arch.sliding_window) == (
        62,
        62 - 62 // 6,
        1024,
    )
    code, out, _ = _run(capsys, "models", "google/gemma-3-27b-it")
    assert f"vision tower: {423_060_336:,} parameters" in out and "--mmproj" in out
    assert "52 of 62 layers keep at most 1,024 tokens" in out


def test_gpus_json_has_bytes_and_sources(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "gpus", "--json")
    assert code == 0
    records = {r["id"]: r for r in json.loads(out)}
    # The 24 of the first research pass, the 55 of the 2026-12 pass (issue 15), the RTX 4060
    # Ti 8 GB (the 16 GB card's variant) and 13 consumer cards people own (RTX 3060 12/8 GB,
    # 3060 Ti, 3070, 4060, 4070, 4070 SUPER, 4070 Ti, 5060 Ti 16/8 GB, 5070, RX 7800 XT,
    # RX 9070 XT), then the nine RTX 40/50 laptop GPUs, the four base Apple chips (M1-M4), the
    # RTX 3080 Ti and the desktop RTX 5060 (issue 29); the RAM configurations of unified-memory
    # machines only with --all.
    assert len(records) == 93 + 9 + 4 + 2
    h100 = records["h100-sxm"]
    # NVIDIA H100 datasheet: 80 GB, 3.35 TB/s; NVLink 4 900 GB/s bidirectional -> 450 GB/s.
    assert h100["memory_bytes"] == 80_000_000_000
    assert h100["memory_bandwidth_bytes_per_s"] == 3.35e12
    assert h100["interconnect_bytes_per_s"] == 450e9
    # 81,559 MiB measured (shared research README) = 81,559 x 1,048,576 bytes.
    assert h100["usable_memory_bytes"] == 85_520_809_984
    assert all(r["source"] and r["as_of"] for r in records.values())


def test_gpus_all_lists_ram_configurations(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "gpus", "--all", "--json")
    assert code == 0
    records = {r["id"]: r for r in json.loads(out)}
    # M3 Max (40-core) sold with 48, 64 and 128 GB: 3/4 of 48 GiB = 36 GiB for the GPU.
    assert records["apple-m3-max-40c-48gb"]["usable_memory_bytes"] == 36 * 2**30
    assert records["apple-m3-max-40c-48gb"]["configuration_of"] == "apple-m3-max-40c"


def test_gpus_detail_of_a_mac_says_how_to_raise_the_limit(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = _run(capsys, "gpus", "M3 Max")
    assert code == 0
    # 128 GB: default 96 GiB (3/4); raised to 128 − 8 = 120 GiB = 122,880 MiB.
    raised_mib = (128 - 8) * 1024  # 120 GiB = 122,880 MiB
    assert "96.00 GiB" in out and f"sudo sysctl iogpu.wired_limit_mb={raised_mib}" in out


def test_gpus_one_json_record_by_alias(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "gpus", "A100", "--json")
    assert code == 0
    assert json.loads(out)["id"] == "a100-80gb-sxm4"


def _rows(out: str) -> dict[str, list[str]]:
    """The table's rows by id: piped, one row per line, cells two or more spaces apart."""
    return {
        cells[0]: cells
        for line in out.splitlines()[1:]  # under the header
        if (cells := re.split(r"\s{2,}", line.strip()))
        and re.fullmatch(r"[a-z0-9][\w.-]*", cells[0])
    }


def test_gpus_table_labels_units_and_never_mixes_gb_with_gib(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = _run(capsys, "gpus")
    assert code == 0
    header = out.splitlines()[0]
    # Memory in GiB, as every table (issue 33); GB only where the datasheet is quoted, labelled.
    assert "usable GiB" in header and "usable GB " not in header
    assert "marketed (datasheet)" in header and "bandwidth GB/s (datasheet)" in header
    assert "BF16 TFLOPS (dense)" in header and "as_of" in header
    cells = _rows(out)["h100-sxm"]
    # Datasheet 80 GB; 81,559 MiB usable = 81,559 / 1,024 = 79.647 GiB; BF16 1,979 sparse / 2
    # = 989.5; 3.35 TB/s = 3,350 GB/s.
    assert "80 GB" in cells and "79.65" in cells and "989.5" in cells and "3,350" in cells


def test_gpus_table_in_gb_on_request(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "gpus", "--unit", "GB")
    assert code == 0
    header = out.splitlines()[0]
    assert "usable GB" in header and "usable GiB" not in header
    cells = _rows(out)["h100-sxm"]
    # 81,559 × 1,048,576 = 85,520,809,984 B = 85.52 GB; the label stays the vendor's "80 GB"
    # (no 74.51 GiB: that would convert a product label as if it were a byte count).
    assert "85.52" in cells and "80 GB" in cells and "74.51" not in cells


def test_gpus_marketed_label_is_not_read_as_fewer_bytes_than_usable(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # QA round 2, finding 13. NVIDIA A100 datasheet: "40GB HBM2"; the catalog's rule: built as
    # 40 GiB = 40 x 2^30 B = 42,949,672,960 B, less 361 MiB the driver keeps
    # = 42,949,672,960 - 378,535,936 = 42,571,137,024 B = 39.65 GiB usable.
    assert 40 * 2**30 - 361 * 2**20 == 42_571_137_024
    code, out, _ = _run(capsys, "gpus")
    assert code == 0
    rows = _rows(out)
    assert "40 GB" in rows["a100-40gb-sxm4"] and "39.65" in rows["a100-40gb-sxm4"]
    # Both figures shown: the difference is explained under the table, on a row's figures.
    assert "not a byte count" in out and "carries N GiB" in out
    # H100 SXM5: 81,559 MiB usable (nvidia-smi) = 85,520,809,984 B = 79.65 GiB.
    h100 = get_catalog().gpu("h100-sxm")
    assert (h100.memory_bytes, h100.usable_memory_bytes) == (80 * 10**9, 81_559 * 2**20)
    usable_gib = 81_559 * 2**20 / 2**30
    assert f"marketed as 80 GB; one process can allocate {usable_gib:.2f} GiB" in out
    # Every row: the marketed column holds a label ("N GB"), never a bare number.
    # One row per listed device (tools.catalog: the machines' RAM configurations apart).
    listed = len(get_catalog().devices())
    assert len(rows) == listed and all(re.fullmatch(r"[\d,]+ GB", r[3]) for r in rows.values())
    _, detail, _ = _run(capsys, "gpus", "a100-40gb-sxm4")
    assert "marketed as: 40 GB HBM2 (the datasheet's label" in detail
    usable = 40 * 2**30 - 361 * 2**20
    assert get_catalog().gpu("a100-40gb-sxm4").usable_memory_bytes == usable
    assert f"usable: {usable / 2**30:.2f} GiB ({usable:,} bytes" in detail


def test_gpus_detail_shows_basis_and_sources(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "gpus", "B200")
    assert code == 0
    assert "b200-hgx" in out and "source:" in out and "as_of:" in out
    assert "192 GB" in out  # the 180 vs 192 GB conflict is shown, not hidden


@pytest.mark.parametrize(("command", "name"), [("gpus", "H300"), ("models", "llama-9")])
def test_unknown_name_exits_2_with_suggestions(
    capsys: pytest.CaptureFixture[str], command: str, name: str
) -> None:
    code, out, err = _run(capsys, command, name)
    assert code == 2
    assert out == ""
    assert "Did you mean" in err and "Traceback" not in err


def test_plain_tables_align_and_check_their_rows() -> None:
    table = Table((Column("name"), Column("GB", numeric=True)), [("a", "1"), ("bbb", "100")])
    lines = plain_text(Document([table])).splitlines()
    assert lines[0].split() == ["name", "GB"] and lines[2:] == ["a       1", "bbb   100"]
    with pytest.raises(ValueError):
        Table((Column("a"), Column("b")), [("only one",)])
