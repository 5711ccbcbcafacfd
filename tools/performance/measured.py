"""Published batch-1 decode measurements of exact setups (catalog/performance.toml `measured`).

A figure is *measured* only when a published measurement matches the setup — model, GPU,
weight format, engine, tensor and pipeline parallelism, one sequence — and the context
the user asked for changes the modelled speed by less than `CONTEXT_TOLERANCE` from the
context the measurement ran at (so the measurement still describes the request).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import lru_cache

from tools.performance.calibration import calibration_path

CONTEXT_TOLERANCE = 0.05


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


@lru_cache(maxsize=1)
def measurements() -> tuple[Measurement, ...]:
    """Every `[[measured]]` entry of catalog/performance.toml."""
    path = calibration_path()
    if not path.is_file():
        return ()
    data = tomllib.loads(path.read_text(encoding="utf-8"))
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
        )
        for item in data.get("measured", [])
    )


# The engine a measurement names, for each engine a request can select: the same server, not
# just the same family (gpt-fast is a CUDA-graph engine like vLLM, not vLLM).
MEASURED_ENGINES: dict[str, tuple[str, ...]] = {
    "vllm": ("vllm",),
    "generic": ("llama.cpp",),
    "transformers": ("transformers",),
}


def find_measurement(
    model: str, gpu: str, weights: str, engine: str | None, tp: int, pp: int
) -> Measurement | None:
    """The published batch-1 decode measurement of this setup, if any (first listed)."""
    engines = MEASURED_ENGINES.get((engine or "vllm").lower(), ((engine or "").lower(),))
    for m in measurements():
        if (m.model, m.gpu, m.weights, m.tp, m.pp) == (model, gpu, weights, tp, pp) and (
            m.engine in engines
        ):
            return m
    return None
