"""Start-up cost of the commands people type, as CPU seconds and as a ratio to `python -c pass`.

Each command runs in a fresh interpreter (`python -m assistant ...`), so imports, the catalog,
the parser's patterns and saving the session are all counted, as a user typing it would see
them. CPU time (user + system, from `getrusage(RUSAGE_CHILDREN)` around each run) is what a
shared, loaded machine does not inflate much; the best of `RUNS` is the figure judged, the
median is shown beside it. Runs share one user cache folder, so after the first run the
catalog is read from its cached parse (`tools/toml_cache.py`); the first run's cost, with an
empty cache, is recorded as `cold_cache`.

Targets (issue 32): `ask --offline` and `memory` under 0.4 CPU-seconds; `--help` and
`--version` import no tool module (checked from `-X importtime`, recorded as
`tools_imported_by_*`). The app's first paint (target 0.5 s) is bench_app's.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RUNS = 7
TARGET_CPU_S = 0.4
QUESTION = "Llama 3 70B on 2x H100 for 50 users"

COMMANDS: dict[str, tuple[str, ...]] = {
    "python_c_pass": ("-c", "pass"),
    "help": ("-m", "assistant", "--help"),
    "version": ("-m", "assistant", "--version"),
    "ask_offline": ("-m", "assistant", "ask", "--offline", "--no-pager", QUESTION),
    "memory": ("-m", "assistant", "memory", "--model", "llama-3.1-70b", "--gpu", "h100-sxm"),
}
TARGETS_S = {"ask_offline": TARGET_CPU_S, "memory": TARGET_CPU_S}


def _env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        GPU_SIZER_DATA_DIR=str(home / "data"),
        GPU_SIZER_CACHE_DIR=str(home / "cache"),
        XDG_CONFIG_HOME=str(home / "config"),
        PYTHONDONTWRITEBYTECODE="",  # use (and write) the .pyc files, as an install has them
    )
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "GPU_SIZER_MODEL"):
        env.pop(name, None)
    return env


def cpu_seconds(args: tuple[str, ...], env: dict[str, str]) -> float:
    """CPU seconds (user + system) of one run of `python ARGS`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        [sys.executable, *args], env=env, cwd=ROOT, capture_output=True, check=True, timeout=120
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def tools_imported(args: tuple[str, ...], env: dict[str, str]) -> list[str]:
    """The `tools.*` modules a run imports (from `-X importtime`)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    names = (line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines())
    return sorted(n for n in names if n == "tools" or n.startswith("tools."))


def measure(runs: int = RUNS) -> dict[str, Any]:
    """Best and median CPU seconds per command, ratios to `python -c pass`, the cold-cache
    first runs, and which tool modules `--help` / `--version` import."""
    with tempfile.TemporaryDirectory() as tmp:
        env = _env(Path(tmp))
        cold = {name: cpu_seconds(args, env) for name, args in COMMANDS.items()}
        samples = {n: [cpu_seconds(a, env) for _ in range(runs)] for n, a in COMMANDS.items()}
        imported = {name: tools_imported(COMMANDS[name], env) for name in ("help", "version")}
    base = min(samples["python_c_pass"])
    cpu_speed: dict[str, dict[str, float]] = {}
    measurements: dict[str, Any] = {}
    for name, values in samples.items():
        best = min(values)
        entry = {
            "best_ms": best * 1000,
            "median_ms": statistics.median(values) * 1000,
            "p90_ms": sorted(values)[int(0.9 * (len(values) - 1))] * 1000,
            "runs": len(values),
        }
        if name in TARGETS_S:
            entry["target_ms"] = TARGETS_S[name] * 1000
        cpu_speed[name] = entry
        measurements[f"{name}_cpu_s"] = round(best, 3)
        measurements[f"{name}_ratio_to_python"] = round(best / base, 1) if base else None
        measurements[f"{name}_cold_cache_cpu_s"] = round(cold[name], 3)
    for name, modules in imported.items():
        measurements[f"tools_imported_by_{name}"] = len(modules)
    measurements["within_target"] = all(min(samples[n]) <= t for n, t in TARGETS_S.items())
    measurements["load_average_1m"] = round(os.getloadavg()[0], 2)
    return {"cpu_speed": cpu_speed, "measurements": measurements, "tools_imported": imported}


def run() -> dict[str, Any]:
    """The start-up figures (JSON-ready)."""
    return measure()


if __name__ == "__main__":
    import json

    print(json.dumps(measure(int(sys.argv[1]) if len(sys.argv) > 1 else RUNS), indent=1))
