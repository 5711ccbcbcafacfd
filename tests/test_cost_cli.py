"""`gpu-sizer cost` through the dispatcher: JSON rows, filters, user price file errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assistant.cli import main


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:  # type: ignore[type-arg]
    assert main(["cost", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_json_rows_carry_provider_tier_as_of(capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(capsys, "--gpu", "h100-sxm", "--count", "8", "--tokens-per-s", "10000")
    row = next(r for r in out["rows"] if r["price_id"] == "aws-p5-48xlarge-h100-sxm-on-demand")
    # AWS p5.48xlarge $55.04/h × 730 h = $40,179.20; 10,000 tok/s × 3,600 × 730 = 26.28e9
    # tokens → $1.528889 per million output tokens (hand calculation in tests/test_cost.py).
    assert row["usd_per_hour"] == pytest.approx(55.04)
    assert row["usd_per_month"] == pytest.approx(40_179.20)
    assert row["usd_per_million_tokens"] == pytest.approx(1.528889, rel=1e-6)
    for key in ("provider", "gpu", "count", "tier", "region", "as_of", "source", "currency"):
        assert key in row
    tiers = [r["tier"] for r in out["rows"]]
    assert tiers == sorted(tiers, key=["on_demand", "spot", "reserved", "commitment",
                                       "serverless", "marketplace"].index)  # fmt: skip
    assert out["cheapest_by_tier"]["spot"] != out["cheapest_by_tier"]["on_demand"]


def test_eu_only_and_tier_filters(capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(capsys, "--gpu", "H100", "--count", "8", "--eu-only", "--tier", "on_demand")
    assert out["rows"] and all(r["eu"] and r["tier"] == "on_demand" for r in out["rows"])
    # EUR rows are compared in USD at the catalog's ECB reference rate unless --eur-usd is
    # given (30 October 2026: 1.1172 USD per EUR).
    eur = [r for r in out["rows"] if r["currency"] == "EUR"]
    assert eur and all(r["usd_per_hour"] == pytest.approx(r["per_hour"] * 1.1172) for r in eur)


def test_training_hours_direct(capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(capsys, "--gpu", "h100-sxm", "--count", "8", "--training-hours", "100",
                "--provider", "aws", "--tier", "on_demand", "--tier", "spot")  # fmt: skip
    rows = {r["price_id"]: r for r in out["training"]["rows"]}
    # 55.04 $/h × 100 h = 5,504 $; spot 20.784 $/h × 110 h (+10% overhead) = 2,286.24 $.
    assert rows["aws-p5-48xlarge-h100-sxm-on-demand"]["usd_cost"] == pytest.approx(5_504.0)
    assert rows["aws-p5-48xlarge-h100-sxm-spot"]["usd_cost"] == pytest.approx(2_286.24)


def test_invalid_user_price_file_exits_2_naming_file_entry_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "prices.toml"
    bad.write_text(
        '[[price]]\nid = "mine"\nprovider = "Me"\ngpu_label = "H100"\ntier = "on_demand"\n'
        'pricing_type = "x"\nprice_per_gpu_hour = "cheap"\ncurrency = "USD"\neu = false\n'
        'as_of = "2026-09-01"\nsource = "my contract"\n',
        encoding="utf-8",
    )
    assert main(["cost", "--gpu", "h100", "--prices", str(bad)]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and "'mine'" in err and "price_per_gpu_hour" in err
    # The built-in catalog still works afterwards.
    assert main(["cost", "--gpu", "h100", "--json"]) == 0


def test_no_configuration_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cost"]) == 2
    assert "gpu" in capsys.readouterr().err


def test_text_output_labels_tiers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cost", "--gpu", "h100-sxm", "--count", "8", "--tokens-per-s", "5000"]) == 0
    text = capsys.readouterr().out
    assert "on-demand prices" in text and "spot prices" in text and "USD/hour" in text


def test_model_with_only_a_throughput_target_prices_only_options_meeting_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """QA finding 3: `cost --model llama-3.1-8b --tokens-per-s 1000 --eu-only` priced 1× L4 at
    ~14 tok/s (users defaulted to 1). Every priced row must now deliver ≥ 1,000 tok/s:
    tokens/s = output tokens a month / (3,600 s × 730 h) at 100% utilization."""
    out = _json(capsys, "--model", "llama-3.1-8b", "--tokens-per-s", "1000", "--eu-only")
    assert out["rows"]
    for row in out["rows"]:
        assert row["output_tokens_per_month"] / (3600 * 730) >= 1000
    assert not any(r["gpu"] == "l4" and r["count"] == 1 for r in out["rows"])


def test_no_option_meeting_the_target_prices_none_and_says_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # One L4 (max 1 GPU) cannot reach 10,000 tok/s of an 8B model: nothing is priced.
    argv = ["--model", "llama-3.1-8b", "--tokens-per-s", "10000", "--gpu", "l4", "--max-gpus"]
    out = _json(capsys, *argv, "1")
    assert "rows" not in out
    assert any("no configuration meets the targets, so none is priced" in n for n in out["notes"])
