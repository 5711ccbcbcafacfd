"""Across configurations, `tools.pricing.quote_order` decides too: an option priced only by a
low-confidence rate ranks after the confirmed-priced ones (as a stale-only one does), in the
recommender's order and in the headline's "cheapest" rule, on every surface.

No catalog layout is priced only by a fresh low-confidence row, so a user price file makes one:
it replaces the catalog's one RTX 4090 row (RunPod Secure Cloud, 0.74 USD/h, confidence high)
by the row below — 0.20 USD/h per GPU, confidence "low", as_of 2026-11-20 (11 days old on the
pinned clock, within the 180-day limit: fresh). Llama 3.1 8B to 20 users needs 3× RTX 4090
(21.0 GiB of 21.3 GiB each, one replica holds 7 sequences) = 3 × 0.20 = 0.60 USD/h, far under
any L4 layout's confirmed price (the cheapest fresh L4 row, OVHcloud, is 0.75 USD/h for ONE
GPU). By USD alone the 4090s would lead; by the rule, the confirmed L4 layout leads.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assistant.cli import main
from tools.pricing import builtin_price_book

LOW_ROW = """
[[price]]
id = "runpod-secure-cloud-pod-rtx-4090-on-demand"
provider = "RunPod"
instance = "Secure Cloud pod"
gpu = "rtx-4090"
gpu_label = "RTX 4090"
gpus_per_instance = 1
tier = "on_demand"
pricing_type = "on_demand"
price_per_gpu_hour = 0.20
currency = "USD"
eu = false
as_of = "2026-11-20"
source = "a reseller's forum post"
source_type = "forum post"
confidence = "low"
notes = "'from' price; no price page confirms it"
"""

QUESTIONS = {
    "cheapest": "cheapest way to serve Llama 3.1 8B to 20 users on RTX 4090s or L4s",
    "cheapest_per_token": (
        "cheapest per million tokens for Llama 3.1 8B to 20 users on RTX 4090s or L4s"
    ),
}
FLAGS = ("--model", "llama-3.1-8b", "--users", "20")


@pytest.fixture(autouse=True)
def _low_confidence_4090(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    config = tmp_path / "config"
    (config / "gpu-sizer").mkdir(parents=True)
    (config / "gpu-sizer" / "prices.toml").write_text(LOW_ROW, encoding="utf-8")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    monkeypatch.setenv("GPU_SIZER_NOW", "2026-12-01T12:00:00Z")


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(list(argv)) == 0, capsys.readouterr().err
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def _key(headline: dict[str, Any]) -> tuple[Any, ...]:
    price = headline["price"]
    return (
        headline["gpu"],
        headline["count"],
        price["price_id"],
        bool(price.get("low_confidence")),
        price["usd_per_hour"],
    )


@pytest.mark.parametrize("objective", list(QUESTIONS))
def test_a_low_confidence_only_option_ranks_after_confirmed_ones_everywhere(
    objective: str, capsys: pytest.CaptureFixture[str]
) -> None:
    extra = ("--objective", objective)
    recommend = _cli(capsys, "recommend", *FLAGS, "--only", "rtx-4090", "l4", *extra, "--json")
    options = [(o["gpu"], o["count"]) for o in recommend["options"]]
    by_gpu = {o["gpu"]: o for o in recommend["options"]}
    low = by_gpu["rtx-4090"]
    # The 4090 layout is the low-confidence row's, at 3 × 0.20 USD/h, the lowest USD figure.
    assert (low["count"], low["price_id"]) == (3, "runpod-secure-cloud-pod-rtx-4090-on-demand")
    assert low["usd_per_hour"] == pytest.approx(3 * 0.20)
    assert low["usd_per_hour"] < by_gpu["l4"]["usd_per_hour"]
    # ... and ranks after the confirmed L4 layout all the same.
    assert options.index(("l4", by_gpu["l4"]["count"])) < options.index(("rtx-4090", 3))
    confirmed = {p.id: p.confidence for p in builtin_price_book().prices}
    assert confirmed[by_gpu["l4"]["price_id"]] != "low"

    headline = recommend["headline"]
    assert (headline["gpu"], headline["count"]) == options[0], "headline = first option"
    assert headline["rule"] == "cheapest"
    expected = _key(headline)
    assert expected[3] is False, "the headline's quote is a confirmed row"

    cost = _cli(capsys, "cost", *FLAGS, "--gpu", "rtx-4090", "--gpu", "l4", *extra, "--json")
    assert _key(cost["headline"]) == expected, "cost"
    asked = _cli(capsys, "ask", "--offline", "--json", "--no-save", QUESTIONS[objective])
    assert asked["sizing"]["headline"]["rule"] == "cheapest"
    assert _key(asked["sizing"]["headline"]) == expected, "ask --offline"
