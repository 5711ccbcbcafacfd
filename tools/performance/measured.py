"""Published batch-1 decode measurements of exact setups (catalog/performance.toml `measured`).

A figure is *measured* only when a published measurement matches the setup — model, GPU,
weight format, engine, tensor and pipeline parallelism, one sequence, and the engine version
where the request names one (a vLLM 0.11 request is not a vLLM 0.21 row) — and the context
the user asked for changes the modelled speed by less than `CONTEXT_TOLERANCE` from the
context the measurement ran at (so the measurement still describes the request); a named
llama.cpp build matches only the rows of its build era (`tools.performance.llama_builds`).
Where several published rows match, the newest build's is the figure, and when they disagree
by more than `SPREAD_TOLERANCE` every one is stated beside it (`Measurement.spread`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache

from tools.performance.calibration import calibration_path
from tools.performance.engines import base_engine, engine_family
from tools.performance.llama_builds import era_of_date, read_llama_build
from tools.toml_cache import parse_toml_cached

CONTEXT_TOLERANCE = 0.05
SPREAD_TOLERANCE = 0.10


@dataclass(frozen=True)
class Measurement:
    """One published decode speed at batch 1."""

    row: str
    model: str
    gpu: str
    weights: str
    engine: str
    engine_family: str
    tp: int
    pp: int
    context_tokens: float
    tokens_per_s: float
    source: str
    engine_version: str = ""
    source_date: str = ""
    others: tuple[tuple[float, str], ...] = ()
    """The other published rows of the same setup: (tokens/s, date and build)."""

    @property
    def spread(self) -> str | None:
        """The published rows of this setup in words when they disagree by more than
        SPREAD_TOLERANCE (None: one row, or they agree)."""
        values = [self.tokens_per_s, *(v for v, _ in self.others)]
        if not self.others or max(values) / min(values) - 1 <= SPREAD_TOLERANCE:
            return None
        rows = [(self.tokens_per_s, self.engine_version or self.source_date), *self.others]
        listed = "; ".join(f"{v:g} tok/s ({what})" for v, what in rows)
        limit = f"{SPREAD_TOLERANCE:.0%}"
        return f"published rows of this setup disagree by more than {limit}: {listed}"


@lru_cache(maxsize=1)
def measurements() -> tuple[Measurement, ...]:
    """Every `[[measured]]` entry of catalog/performance.toml."""
    path = calibration_path()
    if not path.is_file():
        return ()
    data = parse_toml_cached(path, path.read_text(encoding="utf-8"))  # calibration()'s cache
    return tuple(
        Measurement(
            row=str(item["row"]),
            model=str(item["model"]),
            gpu=str(item["gpu"]),
            weights=str(item["weights"]),
            engine=str(item["engine"]),
            engine_family=str(item["engine_family"]),
            tp=int(item["tp"]),
            pp=int(item.get("pp", 1)),
            context_tokens=float(item["context_tokens"]),
            tokens_per_s=float(item["tokens_per_s"]),
            source=str(item["source"]),
            engine_version=str(item.get("engine_version", "")),
            source_date=str(item.get("source_date", "")),
        )
        for item in data.get("measured", [])
    )


# The engine a measurement names, for each engine a request can select: the same server, not
# just the same family (gpt-fast is a CUDA-graph engine like vLLM, not vLLM).
MEASURED_ENGINES: dict[str, tuple[str, ...]] = {
    "vllm": ("vllm",),
    "generic": ("llama.cpp",),
    "mlx": ("mlx",),
    "transformers": ("transformers",),
    "exllamav2": ("exllamav2",),
}


def _version(text: str) -> tuple[int, int] | None:
    found = re.search(r"\b(\d+)\.(\d+)(?:\.\d+)?\b", text)
    return None if found is None else (int(found.group(1)), int(found.group(2)))


def _same_release(engine_version: str | None, llama_cpp: bool) -> Callable[[Measurement], bool]:
    """Whether a measurement ran the release named: any without one; for llama.cpp a row of
    the named build's era (`llama_builds.era_of_date` of the row's date: an undated row is of
    the newest builds), for other engines the same minor release."""
    if engine_version is None:
        return lambda m: True
    if llama_cpp:
        build = read_llama_build(engine_version)
        era = None if build is None else build.era
        return lambda m: era_of_date(m.source_date) == era
    wanted = _version(engine_version)
    return lambda m: _version(m.engine_version) == wanted


def _date_key(text: str) -> str:
    """A row's date as it sorts: the first date written in it ('build 8e672ef (2023-11-21);
    …' is 2023-11-21), empty when it names none."""
    found = re.search(r"20\d\d(?:-[01]\d(?:-[0-3]\d)?)?", text)
    return "" if found is None else found.group(0)


def _of_build(matches: list[Measurement], engine_version: str | None) -> list[Measurement]:
    """The rows that publish the very build number named ('b2797': llama-bench's
    'build 858f6b73 (2797)'), which lead the era's other rows; none without a number."""
    build = None if engine_version is None else read_llama_build(engine_version)
    number = None if build is None else re.fullmatch(r"build (\d+)", build.reading)
    if number is None:
        return []
    n = number.group(1)
    said = re.compile(rf"\({n}\)|\bb{n}\b|\bbuild {n}\b")
    return [m for m in matches if said.search(m.engine_version)]


def find_measurement(
    model: str,
    gpu: str,
    weights: str,
    engine: str | None,
    tp: int,
    pp: int,
    engine_version: str | None = None,
) -> Measurement | None:
    """The published batch-1 decode measurement of this setup, if any: among the matching rows
    (the engine version's minor release too when one is named, a llama.cpp build's era) the
    row of the very build named, else the newest by its date, with the others beside it
    (`Measurement.others`). `engine` may carry
    a llama.cpp build era (`generic@2023-24`); the era that counts is `engine_version`'s."""
    name = base_engine(engine or "vllm").lower()
    engines = MEASURED_ENGINES.get(name, (name,))
    same_release = _same_release(engine_version, llama_cpp=engine_family(name) == "llama.cpp")
    matches = [
        m
        for m in measurements()
        if (m.model, m.gpu, m.weights, m.tp, m.pp) == (model, gpu, weights, tp, pp)
        and m.engine in engines
        and same_release(m)
    ]
    if not matches:
        return None
    exact = _of_build(matches, engine_version) if engine_family(name) == "llama.cpp" else []
    newest = max(exact or matches, key=lambda m: _date_key(m.source_date))
    others = tuple(
        (m.tokens_per_s, m.engine_version or m.source_date) for m in matches if m is not newest
    )
    return replace(newest, others=others)
