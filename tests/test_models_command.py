"""`gpu-sizer models NAME`: MoE active counts in both conventions, and which one the
publisher's figure uses (QA review finding 13: 5.71B shown next to OpenAI's 5.1B unexplained)."""

from __future__ import annotations

import json

import pytest

from assistant.cli import main

# shared/research/params.json (meta-device counts): active_params_per_token and
# embedding_params_input per model.
GPT_OSS_120B_ACTIVE = 5_711_982_912
GPT_OSS_20B_ACTIVE = 4_187_440_704
GPT_OSS_INPUT_EMBEDDING = 579_133_440  # vocab 201,088 × hidden 2,880
QWEN3_30B_A3B_ACTIVE = 3_353_032_704
QWEN3_INPUT_EMBEDDING = 311_164_928  # vocab 151,936 × hidden 2,048


def _detail(capsys: pytest.CaptureFixture[str], name: str) -> str:
    assert main(["models", name]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize(
    ("model_id", "active", "published"),
    [
        # openai/gpt-oss README: "117B total, 5.1B active" / "21B total, 3.6B active".
        # By hand: 5,711,982,912 − 579,133,440 = 5,132,849,472 (5.1B); 4,187,440,704 −
        # 579,133,440 = 3,608,307,264 (3.6B); with the embedding they would be 5.7B / 4.2B.
        ("gpt-oss-120b", GPT_OSS_120B_ACTIVE, "5.1B"),
        ("gpt-oss-20b", GPT_OSS_20B_ACTIVE, "3.6B"),
    ],
)
def test_gpt_oss_active_counts_say_which_convention(
    capsys: pytest.CaptureFixture[str], model_id: str, active: int, published: str
) -> None:
    out = _detail(capsys, model_id)
    without = active - GPT_OSS_INPUT_EMBEDDING
    assert f"active per token (computed, input embedding counted): {active:,}" in out
    assert (
        f"active per token without the input embedding (a row lookup, no matmul): {without:,}"
        in out
    )
    assert f"the publisher's {published} active is the count without the input embedding" in out


def test_qwen3_publisher_counts_the_embedding(capsys: pytest.CaptureFixture[str]) -> None:
    # Qwen3-30B-A3B model card: "3.3B activated"; 3,353,032,704 (3.35B) includes the
    # embedding; without it 3,041,867,776 (3.0B) — so the card counts it.
    out = _detail(capsys, "qwen3-30b-a3b")
    assert f"{QWEN3_30B_A3B_ACTIVE - QWEN3_INPUT_EMBEDDING:,}" in out
    assert "the publisher's 3.3B active is the count with the input embedding" in out


def test_mixtral_rounding_cannot_tell(capsys: pytest.CaptureFixture[str]) -> None:
    # Mixtral paper: "13B active"; 12.88B with and 12.75B without the embedding both round to 13.
    out = _detail(capsys, "mixtral-8x7b")
    assert "the publisher's 13B active agrees with both counts at its rounding" in out


def test_dense_model_detail_has_no_active_lines(capsys: pytest.CaptureFixture[str]) -> None:
    out = _detail(capsys, "llama-3.1-8b")
    assert "active per token" not in out and "publisher's" in out


def test_json_carries_both_active_counts(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["models", "gpt-oss-120b", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["active_params"] == GPT_OSS_120B_ACTIVE
    assert (
        record["active_params_without_input_embedding"]
        == GPT_OSS_120B_ACTIVE - GPT_OSS_INPUT_EMBEDDING
    )
