"""Shared helpers for benchmarks: repeat timings and results files.

Each `bench/bench_<area>.py` exposes `run() -> dict` (JSON-ready, with its own sources for any
accuracy rows); `bench/run.py` calls them all and writes bench/results/<area>.json plus the
Markdown summary bench/results/SUMMARY.md.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

RESULTS_DIR = Path(__file__).resolve().parent / "results"


def time_call(fn: Callable[[], object], repeat: int = 200, warmup: int = 5) -> dict[str, float]:
    """Median and spread (p10/p90) of `fn()` wall time, in milliseconds."""
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return {
        "median_ms": statistics.median(samples),
        "p10_ms": samples[int(0.1 * (len(samples) - 1))],
        "p90_ms": samples[int(0.9 * (len(samples) - 1))],
        "runs": repeat,
    }


def percent_error(predicted: float, reference: float) -> float:
    """Signed error of `predicted` against `reference`, in percent."""
    return (predicted - reference) / reference * 100.0


def write_result(area: str, data: dict[str, Any]) -> Path:
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    path = RESULTS_DIR / f"{area}.json"
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path
