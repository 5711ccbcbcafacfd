"""Calibrated performance constants: `catalog/performance.toml`, fitted by bench/fit_performance.py.

Each constant names the reference rows (bench/data/perf_references.json) it was fitted on, with
the median |error| of those rows at the fitted value and their median leave-one-out (held-out)
error. A constant exists only where at least two rows support it, so none is tuned to a single
measurement. Keys run from specific to general ("graph/nvidia-hbm/ampere/16bit" before
"graph/nvidia-hbm/16bit"); `lookup` takes the first key that has a constant, and a figure built on
a constant of its own engine family and GPU class is *calibrated*, one that falls back further is
*estimated* (tools/performance/basis.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from tools.catalog import catalog_dir
from tools.toml_cache import parse_toml_cached

TABLES = (
    "decode_bandwidth",
    "chip_bandwidth",
    "layer_overhead",
    "step_overhead",
    "allreduce_base",
    "allreduce_per_gpu",
    "dequant",
    "gemm_mfu",
    "moe_gemm",
    "training_mfu",
    "apple_core_flops",
)


@dataclass(frozen=True)
class Constant:
    """One fitted constant: its table and key, value (unit per table) and provenance."""

    table: str
    key: str
    value: float
    rows: tuple[str, ...]
    fit_error_pct: float | None = None
    heldout_error_pct: float | None = None


@dataclass(frozen=True)
class SourcedValue:
    """A constant taken from a publication rather than fitted."""

    value: float
    source: str


@dataclass(frozen=True)
class Calibration:
    """All fitted constants, by table and key, plus the sourced wall-clock efficiency."""

    constants: dict[str, dict[str, Constant]] = field(default_factory=dict)
    wallclock_efficiency: SourcedValue | None = None
    as_of: str = ""
    method: str = ""

    def lookup(self, table: str, keys: Iterable[str]) -> Constant | None:
        """The first of `keys` (most specific first) that `table` has a constant for."""
        entries = self.constants.get(table, {})
        for key in keys:
            if key in entries:
                return entries[key]
        return None

    def all(self) -> list[Constant]:
        """Every constant, table by table."""
        return [c for table in TABLES for c in self.constants.get(table, {}).values()]


def calibration_path() -> Path:
    """Where the fitted constants live."""
    return catalog_dir() / "performance.toml"


def parse_calibration(text: str) -> Calibration:
    """A Calibration from the TOML text of catalog/performance.toml."""
    import tomllib

    return calibration_from(tomllib.loads(text))


def calibration_from(data: Mapping[str, Any]) -> Calibration:
    """A Calibration from the parsed document of catalog/performance.toml."""
    constants: dict[str, dict[str, Constant]] = {}
    for table in TABLES:
        entries: dict[str, Constant] = {}
        for item in data.get(table, []):
            entries[str(item["key"])] = Constant(
                table=table,
                key=str(item["key"]),
                value=float(item["value"]),
                rows=tuple(str(r) for r in item.get("rows", ())),
                fit_error_pct=item.get("fit_error_pct"),
                heldout_error_pct=item.get("heldout_error_pct"),
            )
        constants[table] = entries
    wall = data.get("wallclock_efficiency")
    meta = data.get("meta", {})
    return Calibration(
        constants=constants,
        wallclock_efficiency=None
        if wall is None
        else SourcedValue(float(wall["value"]), str(wall["source"])),
        as_of=str(meta.get("as_of", "")),
        method=str(meta.get("method", "")),
    )


@lru_cache(maxsize=1)
def calibration() -> Calibration:
    """The catalog's calibration (empty when the file is missing: every figure estimated)."""
    path = calibration_path()
    if not path.is_file():
        return Calibration()
    # The parsed form cached as the catalog's is (tools/toml_cache.py): tomllib took ~11 ms of
    # every start that sizes a speed for these 100 KB, the cached JSON ~1 ms.
    return calibration_from(parse_toml_cached(path, path.read_text(encoding="utf-8")))


def keys_from(parts: Sequence[Sequence[str]]) -> list[str]:
    """Keys joined from alternatives, most specific first: [["a"], ["b", "c"]] → a/b, a/c."""
    out = [""]
    for options in parts:
        out = [f"{prefix}/{o}" if prefix else o for prefix in out for o in options]
    return out
