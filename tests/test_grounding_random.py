"""Grounding that means something (issue 28, point 5): against what the model read of real
sizing reports, figures invented at random are flagged (at least 95 %), and the reports' own
figures — every figure of the summary the model reads, written the way a model writes them — are
never flagged.

Measured before this change against the 70B / 40-user report: 43-57 % of random GB figures and
87 % of random dollar figures passed, because any number of the full report (hundreds of options
and price rows) of the same unit family supported a figure. Now the evidence is the summary the
model was sent, money and speeds must match in quantity (per hour / month / million tokens; per
user / in total) and a count of a named GPU needs a count of that GPU."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from assistant.grounding import (
    source_evidence,
    turn_sources,
    unsupported_figures,
    unverified_figures,
)
from assistant.results import tool_message
from assistant.sizing_tool import run_size
from tools.catalog import get_catalog
from tools.sizing import SizingRequest

WORKLOADS = [
    {"model": "llama-3.1-70b", "users": 40},  # the measurement
    # Not on one H200: negative headrooms, which answers write as 'N GB over'.
    {
        "model": "deepseek-v3",
        "weights": "fp8",
        "configurations": [{"gpu": "h200-sxm"}],
    },
    {"model": "llama-3.1-8b", "users": 8},
    {"model": "qwen2.5-72b", "users": 100, "weights": "fp8"},
    {"model": "mixtral-8x7b", "users": 16, "context": 16384},
]


def _turn(workload: dict[str, Any]) -> list[dict[str, Any]]:
    workload = dict(workload)
    request = {"workload": workload, "configurations": workload.pop("configurations", [])}
    report = run_size(SizingRequest.model_validate(request))
    arguments = json.dumps(request)
    return [
        {"role": "user", "content": "How should I serve this?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "size", "arguments": arguments},
                }
            ],
        },
        tool_message("c1", "size", report, with_name=False),
    ]


@pytest.fixture(scope="module", params=WORKLOADS, ids=[w["model"] for w in WORKLOADS])
def turn(request: pytest.FixtureRequest) -> list[dict[str, Any]]:
    return _turn(request.param)


GPU_NAMES = ["H100", "H200", "MI300X", "MI325X", "L40S", "A100 80GB", "RTX 4090", "B200"]


def _invented(rng: random.Random) -> str:
    """A figure a model might write, in one of the forms answers use, with a random value."""
    kind = rng.randrange(10)
    if kind == 0:
        return f"{rng.randint(1, 400)} GB"
    if kind == 1:
        return f"{rng.uniform(1, 400):.1f} GB"
    if kind == 2:
        return f"{rng.uniform(1, 400):.1f} GiB"
    if kind == 3:
        return f"${rng.uniform(0.2, 120):.2f} per hour"
    if kind == 4:
        return f"${rng.randint(100, 90_000):,} per month"
    if kind == 5:
        return f"${rng.uniform(0.05, 20):.2f} per million tokens"
    if kind == 6:
        return f"{rng.randint(5, 5000):,} tokens/s in total"
    if kind == 7:
        return f"{rng.uniform(2, 200):.1f} tokens/s per user"
    if kind == 8:
        return f"{rng.uniform(0.05, 10):.2f} s"
    return f"{rng.randint(1, 16)}× {rng.choice(GPU_NAMES)}"


def _unverified(sources: list[Any], texts: list[str]) -> list[list[str]]:
    """`unverified_figures(text, sources)` of each text, the sources' evidence read once
    (`unsupported_figures`); the first texts also through `unverified_figures` itself, which
    must say the same."""
    evidence = source_evidence(sources)
    out = [unsupported_figures(text, evidence) for text in texts]
    for text, found in zip(texts[:20], out, strict=False):
        assert unverified_figures(text, sources) == found, text
    return out


def test_invented_figures_are_flagged(turn: list[dict[str, Any]]) -> None:
    sources = turn_sources(turn)
    rng = random.Random(28)
    figures = [_invented(rng) for _ in range(1000)]
    flagged = sum(map(bool, _unverified(sources, [f"The answer: {f}." for f in figures])))
    assert flagged / len(figures) >= 0.95, flagged


def _walk(value: Any, key: str = "") -> Iterator[tuple[str, Any, dict[str, Any] | None]]:
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, dict | list):
                yield from _walk(v, k)
            else:
                yield k, v, value
    elif isinstance(value, list):
        for v in value:
            yield from _walk(v, key)


def _own_figures(content: str) -> list[str]:
    """Every figure of the summary the model read, written as an answer would: GB at one
    decimal and whole, the same in GiB (÷ 2^30 × 10^9), money with its period, speeds with whom
    they are for, a count with its GPU's catalog name."""
    gpus = get_catalog().gpus
    out: list[str] = []
    for key, value, parent in _walk(json.loads(content)):
        if type(value) not in (int, float):
            continue
        value = abs(value)  # a negative headroom is written as its size, 'N GB over'
        if key.endswith("_GB"):
            gib = value * 1e9 / 2**30
            out += [f"{value:.1f} GB", f"{round(value)} GB", f"{gib:.1f} GiB"]
        elif key == "usd_per_hour":
            out.append(f"${value:.2f} per hour")
        elif key == "usd_per_month":
            out.append(f"${value:,.0f} per month")
        elif key == "usd_per_million_tokens":
            out.append(f"${value:.2f} per million tokens")
        elif key.endswith("tokens_per_s_per_seq"):
            out.append(f"{value:.1f} tokens/s per user")
        elif key in ("aggregate_tokens_per_s", "full_load_tokens_per_s"):
            out.append(f"{value:,.0f} tokens/s in total")
        elif key == "ttft_s":
            out.append(f"{value:.2f} s")
        elif key == "count" and parent is not None and parent.get("gpu") in gpus:
            out.append(f"{value}× {gpus[parent['gpu']].name}")
    return out


def test_the_reports_own_figures_are_never_flagged(turn: list[dict[str, Any]]) -> None:
    sources = turn_sources(turn)
    own = _own_figures(turn[-1]["content"])
    assert len(own) >= 20  # memory, prices, speeds and counts of several options
    found = _unverified(sources, [f"The answer: {f}." for f in own])
    flagged = [f for f, missing in zip(own, found, strict=True) if missing]
    assert flagged == []
