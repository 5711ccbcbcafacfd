"""Speculative decoding, prefix caching and a prefill/decode split (issue 30 item 7), against
Leviathan et al. 2023's formulas worked by hand, the published ranges, and the offline
phrasings that reach them."""

from __future__ import annotations

import json

import pytest

from assistant.app.results import card_view
from assistant.cli import main
from assistant.mcp.text import render_result
from assistant.offline.parser import parse_workload
from assistant.offline.planner import plan_tool_calls
from assistant.proposal.page_one import recommendation_blocks
from assistant.registry import default_registry
from tools.deployment import SpeedupRequest, Speedups, plan_speedups
from tools.deployment.speedups import best_gamma, tokens_per_step, walltime_speedup
from tools.sizing import SizingRequest, size


def test_expected_tokens_per_step_by_hand() -> None:
    # Leviathan et al. 2023, eq. 1: (1 − α^(γ+1)) / (1 − α).
    # α 0.8, γ 4: (1 − 0.8^5) / 0.2 = (1 − 0.32768) / 0.2 = 3.3616.
    assert tokens_per_step(0.8, 4) == pytest.approx(3.3616)
    # α 0.6, γ 3: (1 − 0.6^4) / 0.4 = (1 − 0.1296) / 0.4 = 2.176.
    assert tokens_per_step(0.6, 3) == pytest.approx(2.176)
    # The limit γ → ∞ is 1 / (1 − α): α 0.5 → 2 tokens per step.
    assert tokens_per_step(0.5, 60) == pytest.approx(2.0)


def test_walltime_speedup_by_hand() -> None:
    # Theorem 3.8: speed-up = tokens per step / (γc + 1). α 0.8, γ 4, c 0.05:
    # 3.3616 / 1.2 = 2.8013.
    assert walltime_speedup(0.8, 4, 0.05) == pytest.approx(3.3616 / 1.2)
    # A free draft (c = 0) gains exactly the tokens per step.
    assert walltime_speedup(0.7, 5, 0.0) == pytest.approx(tokens_per_step(0.7, 5))


def test_best_gamma_maximises_the_speedup() -> None:
    for alpha, c in ((0.6, 0.1), (0.8, 0.05), (0.9, 0.01)):
        g = best_gamma(alpha, c)
        assert all(
            walltime_speedup(alpha, g, c) >= walltime_speedup(alpha, k, c) for k in range(1, 9)
        )
    # A costly draft (c = 0.5) at a low acceptance rate: one draft token is best.
    assert best_gamma(0.5, 0.5) == 1


def test_draft_cost_ratio_is_its_bytes_over_the_targets_per_gpu() -> None:
    # Llama 3.2 1B: 1,235,814,400 parameters × 2 B; Llama 3.1 8B: 8,030,261,248 × 2 B (bf16,
    # meta-device counts). At TP 1: c = 1,235,814,400 / 8,030,261,248 = 0.15390.
    out = plan_speedups(
        SpeedupRequest(
            model="llama-3.1-8b", draft_model="llama-3.2-1b", acceptance_rate=0.8, draft_tokens=4
        )
    )
    (row,) = out.speculative
    assert row.cost_ratio == pytest.approx(1_235_814_400 / 8_030_261_248, rel=1e-3)
    assert row.speedup == pytest.approx(3.3616 / (4 * row.cost_ratio + 1))
    assert out.draft_weights_bytes == 1_235_814_400 * 2


def test_without_alpha_both_published_ends_are_given() -> None:
    out = plan_speedups(
        SpeedupRequest(
            model="llama-3.1-70b", tp=4, draft_model="llama-3.2-1b", decode_tokens_per_s=30
        )
    )
    # Leviathan et al. 2023, Table 2: T5-small drafting T5-XXL on CNN/DM at T = 1 accepts
    # α = 0.53 (the lowest of their language-model drafts); T5-large on WMT EnDe at T = 0,
    # α = 0.82 (the highest).
    assert [r.acceptance_rate for r in out.speculative] == [0.53, 0.82]
    assert not any(r.acceptance_measured for r in out.speculative)
    low, high = out.speculative
    assert low.decode_tokens_per_s == pytest.approx(30 * low.speedup)
    assert high.speedup > low.speedup > 1


def test_no_draft_model_gets_the_published_range_line() -> None:
    out = plan_speedups(SpeedupRequest(model="llama-3.1-8b", speculative=True))
    assert not out.speculative
    assert any("EAGLE" in line and "2.7–3.5×" in line for line in out.lines)


def test_prefix_cache_saves_its_share_of_prefill() -> None:
    # TTFT 0.50 s of which 0.40 s prefill; 75 % cached → 0.50 − 0.40 × 0.75 = 0.20 s.
    out = plan_speedups(
        SpeedupRequest(model="llama-3.1-8b", cached_prefix_fraction=0.75, ttft_s=0.5, prefill_s=0.4)
    )
    assert out.prefill_work_saved == 0.75
    assert out.ttft_cached_s == pytest.approx(0.2)
    line = plan_speedups(SpeedupRequest(model="llama-3.1-8b", prefix_caching=True)).lines
    assert line and "share" in line[0]


def test_prefill_decode_pools_by_hand() -> None:
    # 100 users, 500 output tokens at 25 tokens/s + 0.5 s TTFT: 20.5 s per request,
    # λ = 100 / 20.5 = 4.878 requests/s; 2,000-token prompts, half cached: 1,000 tokens each,
    # 4,878 tokens/s of prefill at 3,000 tokens/s per replica → ⌈1.626⌉ = 2 prefill replicas;
    # the 3 decode replicas of 4 GPUs stay: (2 + 3) × 4 = 20 GPUs against 12 colocated.
    out = plan_speedups(
        SpeedupRequest(
            model="llama-3.1-70b",
            disaggregated=True,
            cached_prefix_fraction=0.5,
            users=100,
            prompt_tokens=2000,
            output_tokens=500,
            decode_tokens_per_s=25,
            ttft_s=0.5,
            prefill_tokens_per_s=3000,
            replicas=3,
            gpus_per_replica=4,
        )
    )
    assert out.requests_per_s == pytest.approx(100 / 20.5)
    assert (out.prefill_replicas, out.decode_replicas) == (2, 3)
    assert (out.gpus_disaggregated, out.gpus_colocated) == (20, 12)
    assert any("DistServe" in line and "7.4×" in line for line in out.lines)


@pytest.mark.parametrize(
    ("question", "expect"),
    [
        (
            "Llama 3.1 70B on 4 H100s, 10 users, speculative decoding using Llama 3.2 1B as draft "
            "model, acceptance rate 0.7, 5 draft tokens",
            {"draft_model": "llama-3.2-1b", "acceptance_rate": 0.7, "draft_tokens": 5},
        ),
        (
            "Qwen2.5 32B with Qwen2.5 0.5B as the draft, alpha=0.8, on 2 A100 80GB",
            {"draft_model": "qwen2.5-0.5b", "acceptance_rate": 0.8},
        ),
        (
            "How much faster is Llama 3.1 70B with a draft model Llama 3.2 1B on 4 H100s?",
            {"draft_model": "llama-3.2-1b"},
        ),
        # A draft named by its size alone: sized as a generic model of that many parameters.
        (
            "speculative decoding speedup for Llama 3.1 70B with an 8B draft on 4x H100",
            {"draft_params": 8e9},
        ),
        (
            "Llama 3.3 70B on 2x H200 with a 1B draft model, how much faster?",
            {"draft_params": 1e9},
        ),
        (
            "spec decoding with a 0.5B drafter for Qwen2.5 72B on 4 H100s",
            {"draft_params": 0.5e9},
        ),
        (
            "Llama 3.1 8B on an H100, 50 users, 2000-token prompts of which 1500 are a shared "
            "system prompt, prefix caching on",
            {"cached_prefix_fraction": 0.75},
        ),
        (
            "Llama 3.1 70B on 8 H100, 40 users, 60% of prompts cached",
            {"cached_prefix_fraction": 0.6},
        ),
        (
            "Disaggregated prefill/decode for Llama 3.1 70B on H100s, 100 users",
            {"disaggregated": True},
        ),
        (
            "Llama 3.1 70B, 100 users: separate prefill and decode pools on H100",
            {"disaggregated": True},
        ),
    ],
)
def test_offline_questions_reach_the_speedups(question: str, expect: dict[str, object]) -> None:
    parsed = parse_workload(question)
    assert not parsed.questions, parsed.questions
    args = next(c.arguments for c in plan_tool_calls(parsed) if c.name == "size")
    for key, value in expect.items():
        assert args["speedups"][key] == value
    report = size(SizingRequest.model_validate(args))
    assert report.speedups is not None, report.speedups_error
    if "draft_model" in expect or "draft_params" in expect:
        assert report.speedups.speculative and report.speedups.speculative[0].speedup > 1
    if "cached_prefix_fraction" in expect:
        assert report.speedups.prefill_work_saved == expect["cached_prefix_fraction"]
    if "disaggregated" in expect:
        assert report.speedups.gpus_disaggregated is not None
        assert report.headline is not None
        assert report.speedups.gpus_colocated == report.headline.option.count


def test_the_draft_is_not_sized_as_the_model() -> None:
    parsed = parse_workload("Llama 3.1 70B with Llama 3.2 1B as draft model on 4 H100s")
    assert parsed.model == "llama-3.1-70b" and parsed.draft_model == "llama-3.2-1b"


def test_speedups_on_every_surface(capsys: pytest.CaptureFixture[str]) -> None:
    question = "Llama 3.1 70B on 4 H100s, 10 users, with Llama 3.2 1B as draft model, alpha 0.7"
    assert main(["ask", "--offline", "--json", question]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["sizing"]["speedups"]["speculative"][0]["acceptance_rate"] == 0.7
    assert "Speculative decoding with Llama 3.2 1B" in out["answer"]
    report = size(
        SizingRequest.model_validate(
            {
                "workload": {"model": "llama-3.1-70b", "users": 10},
                "configurations": [{"gpu": "h100-sxm", "count": 4}],
                "speedups": {"draft_model": "llama-3.2-1b", "acceptance_rate": 0.7},
            }
        )
    )
    assert "Speculative decoding" in render_result(report)
    assert any(line.startswith("speculative decoding: ×") for line in card_view(report).lines)
    text = " ".join(getattr(b, "text", "") for b in recommendation_blocks(report))
    assert "Speculative decoding" in text
    registry = default_registry()
    result = registry.call(
        "plan_speedups", {"model": "llama-3.1-8b", "draft_model": "llama-3.2-1b"}
    )
    assert not result.is_error and isinstance(result.value, Speedups)
    assert "Leviathan" in render_result(result.value)
    assert any("Speculative" in line for line in card_view(result.value).lines)


def test_a_draft_named_by_size_costs_its_bytes_over_the_targets_per_gpu() -> None:
    # 'an 8B draft' for Llama 3.1 70B bf16 at TP 4: c = the draft's bf16 weights, run whole on
    # one GPU (8e9 × 2 B = 16.0e9 B, a generic model's count), over the target's weights per
    # GPU (141,107,412,992 B / 4 = 35,276,853,248 B): c ≈ 0.4536.
    question = "speculative decoding speedup for Llama 3.1 70B with an 8B draft on 4x H100"
    parsed = parse_workload(question)
    assert parsed.draft_params == 8e9 and parsed.draft_model is None
    assert "speedup" not in parsed.unplaced and not parsed.questions
    args = next(c.arguments for c in plan_tool_calls(parsed) if c.name == "size")
    report = size(SizingRequest.model_validate(args))
    assert report.speedups is not None and report.headline is not None
    assert report.headline.option.tp == 4
    (low, high) = report.speedups.speculative
    assert low.cost_ratio == pytest.approx(16.0e9 / (141_107_412_992 / 4), rel=0.02)
    # α at Leviathan et al.'s published ends (0.53 and 0.82): speed-up grows with α.
    assert 1 < low.speedup < high.speedup
