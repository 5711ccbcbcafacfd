"""The parsed-catalog cache (tools/toml_cache.py): the same data as parsing the TOML, keyed by
the text, ignored when damaged, never holding what JSON cannot."""

from __future__ import annotations

import json
import os
import threading
import tomllib
from pathlib import Path

import pytest

from tools import toml_cache
from tools.catalog import catalog_dir
from tools.toml_cache import parse_toml_cached


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GPU_SIZER_CACHE_DIR", str(tmp_path))
    return tmp_path / "toml"


@pytest.mark.parametrize("name", ["models.toml", "gpus.toml", "prices.toml", "api_prices.toml"])
def test_a_cached_parse_is_the_toml_parse(name: str, cache: Path) -> None:
    path = catalog_dir() / name
    text = path.read_text(encoding="utf-8")
    expected = tomllib.loads(text)
    assert parse_toml_cached(path, text) == expected  # parsed, then written
    (written,) = cache.glob(f"{path.stem}-*.json")
    assert parse_toml_cached(path, text) == expected  # read from the cache
    assert json.loads(written.read_text())["data"] == expected


def test_an_edited_file_is_a_new_key_never_a_stale_hit(cache: Path, tmp_path: Path) -> None:
    path = tmp_path / "gpus.toml"
    assert parse_toml_cached(path, 'a = "one"') == {"a": "one"}
    assert parse_toml_cached(path, 'a = "two"') == {"a": "two"}
    assert parse_toml_cached(path, 'a = "one"') == {"a": "one"}
    assert len(list(cache.glob("gpus-*.json"))) == 2


@pytest.mark.parametrize(
    "damage",
    [
        "",
        "{not json",
        "[1, 2]",
        json.dumps({"format": 1, "sha256": "0" * 64, "data": {"a": "forged"}}),  # another key
        json.dumps({"format": 99, "sha256": None, "data": {"a": "forged"}}),
        "[" * 100_000,
    ],
)
def test_a_damaged_cache_file_is_ignored_and_rewritten(
    damage: str, cache: Path, tmp_path: Path
) -> None:
    path = tmp_path / "models.toml"
    text = 'a = "real"'
    parse_toml_cached(path, text)
    (written,) = cache.glob("models-*.json")
    written.write_text(damage)
    assert parse_toml_cached(path, text) == {"a": "real"}
    assert json.loads(written.read_text())["data"] == {"a": "real"}


def test_toml_dates_are_not_cached(cache: Path, tmp_path: Path) -> None:
    # JSON cannot hold a TOML date: such a file is parsed every time, never cached as a string.
    data = parse_toml_cached(tmp_path / "prices.toml", "as_of = 2026-09-26")
    assert data == tomllib.loads("as_of = 2026-09-26")
    assert not cache.exists() or not list(cache.glob("prices-*.json"))


def test_an_unwritable_cache_folder_only_means_parsing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("GPU_SIZER_CACHE_DIR", str(blocker))
    assert parse_toml_cached(tmp_path / "x.toml", "b = 2") == {"b": 2}


def test_concurrent_writers_leave_one_whole_file(cache: Path, tmp_path: Path) -> None:
    path = catalog_dir() / "gpus.toml"
    text = path.read_text(encoding="utf-8")
    expected = tomllib.loads(text)
    results: list[object] = []
    threads = [
        threading.Thread(target=lambda: results.append(parse_toml_cached(path, text)))
        for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [expected] * 4
    assert [p.name for p in cache.iterdir() if p.name.startswith(".tmp-")] == []
    assert parse_toml_cached(path, text) == expected


def test_old_cache_files_of_a_name_are_pruned(cache: Path, tmp_path: Path) -> None:
    path = tmp_path / "models.toml"
    for n in range(5):
        parse_toml_cached(path, f"n = {n}")
        for i, old in enumerate(sorted(cache.glob("models-*.json"))):
            os.utime(old, ns=(i, i))  # distinct mtimes on a coarse clock
    assert len(list(cache.glob("models-*.json"))) <= toml_cache._KEEP_PER_FILE


def test_the_calibration_read_through_the_cache_is_the_tomls(cache: Path) -> None:
    # catalog/performance.toml is read through this cache at every start that sizes a speed.
    import sys

    import tools.performance.measured  # noqa: F401  (registers the module below)

    calibration_module = sys.modules["tools.performance.calibration"]
    measured_module = sys.modules["tools.performance.measured"]
    path = calibration_module.calibration_path()
    expected = calibration_module.parse_calibration(path.read_text(encoding="utf-8"))
    for _ in range(2):  # parsed and written, then read back
        assert calibration_module.calibration.__wrapped__() == expected
    assert len(list(cache.glob("performance-*.json"))) == 1
    assert measured_module.measurements.__wrapped__()  # the same cached parse, rows found
