"""Issue 18 phase B: the answer classes 4, 5, 7-12, each over several phrasings, with expected
values from hand arithmetic or published configs written out here.

Reports are sized once per question (module cache) through the planner, as the offline engine
sizes them; parse-only checks cover the other phrasings.
"""

from __future__ import annotations

from functools import cache

import pytest

from assistant.conversation import WORKLOAD_KEY, Conversation
from assistant.llm.planner import offline_planner
from assistant.offline.parser import parse_workload
from assistant.offline.planner import LONG_CONTEXT_READING, plan_tool_calls
from assistant.render import render_answer
from tests.offline_turns import after_reading, answer, last_answer, lines_after_reading
from tools.catalog import get_catalog
from tools.sizing import SizingReport, SizingRequest, size
from tools.units import GB, GiB

# Llama 3.1 8B (meta-llama/Llama-3.1-8B config.json, counted on the meta device).
LLAMA_31_8B = 8_030_261_248
# Llama 3.1 405B: 405,853,388,800 parameters (same source).
LLAMA_31_405B = 405_853_388_800
# ECB euro reference rate, 30 October 2026, USD column of eurofxref-hist.csv.
ECB_USD_PER_EUR = 1.1172


@cache
def _report(question: str) -> SizingReport:
    parsed = parse_workload(question)
    calls = plan_tool_calls(parsed)
    assert calls and calls[-1].name == "size", question
    return size(SizingRequest.model_validate(calls[-1].arguments))


def _lead(question: str) -> str:
    """The lead section of the offline answer (the lines an answer opens with)."""
    report = _report(question)
    answer_ = render_answer(parse_workload(question), report)
    return after_reading(answer_.sections[0].markdown)


# --- class 4: rules of thumb are claims to check -------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind", "value", "high"),
    [
        ("so 18 bytes per parameter means 126 GB for a 7B?", "bytes_per_parameter", 18, None),
        ("is it really 16 bytes/param for llama 3.1 8b training?", "bytes_per_parameter", 16, None),
        ("rule of thumb: 20 B per parameter to fine-tune a 13B", "bytes_per_parameter", 20, None),
        ("full fine-tuning is 4× the model, so 64 GB for an 8B?", "multiple_of_model", 4, None),
        ("fine-tuning Llama 3.1 8B takes 3 times the model?", "multiple_of_model", 3, None),
        ("LoRA adds 10–20%?", "percent_over_model", 10, 20),
        ("does LoRA on Llama 3.1 8B add only 10-20% over the model?", "percent_over_model", 10, 20),
        ("qlora of mistral 7b adds about 15% on top", "percent_over_model", 15, None),
    ],
)
def test_a_rule_of_thumb_is_read_as_a_claim_not_left_unplaced(
    text: str, kind: str, value: float, high: float | None
) -> None:
    parsed = parse_workload(text)
    claim = next(c for c in parsed.claims if c.kind == kind)
    assert (claim.value, claim.high) == (value, high)
    assert parsed.unplaced == [], text


@pytest.mark.parametrize(
    ("text", "gb"),
    [
        ("so 18 bytes per parameter means 126 GB for a 7B?", 126),
        ("full fine-tuning is 4x the model, so 64 GB for an 8B?", 64),
        ("7B at 16 bytes per param = 112 GB?", 112),
    ],
)
def test_a_memory_figure_drawn_from_the_rule_is_a_claim_in_its_unit(text: str, gb: float) -> None:
    parsed = parse_workload(text)
    memory = next(c for c in parsed.claims if c.kind == "memory")
    assert (memory.value, memory.unit) == (gb, "GB")
    # A training rule with no task said is read as full fine-tuning, and said so.
    assert parsed.task == "full" and not parsed.gpus and parsed.gpu_memory_bytes is None


def test_18_bytes_per_parameter_is_partly_right_the_model_states_not_the_whole() -> None:
    report = _report("so 18 bytes per parameter means 126 GB for a 7B?")
    per_param, memory = report.claim_checks
    # HF Trainer mixed precision: 6 (fp32 + bf16 weights) + 4 (fp32 grads) + 8 (AdamW) = 18 B;
    # 7e9 × 18 = 126e9 B = 126.0 GB of model states — the user's arithmetic holds for them.
    assert memory.part == pytest.approx(126.0, rel=1e-6) and memory.unit == "GB"
    assert per_param.part == pytest.approx(18.0, rel=1e-6) and per_param.unit == "B/param"
    # Activations at 4,096 tokens and the runtime come on top: the whole need is more.
    extra = memory.components["activations"] + memory.components["overhead"]
    assert memory.computed == pytest.approx(126.0 + extra / GB, rel=1e-6)
    assert memory.verdict == per_param.verdict == "partly"
    assert "Hugging Face Trainer" in per_param.matches_accounting[0]
    lead = _lead("so 18 bytes per parameter means 126 GB for a 7B?")
    assert lead.startswith("**Partly.**") and "against your 126.0 GB" in lead


def test_4x_the_model_is_partly_right_for_pure_bf16_training_not_mixed_precision() -> None:
    report = _report("full fine-tuning is 4× the model, so 64 GB for an 8B?")
    multiple, memory = report.claim_checks
    # A bare 8B: 8e9 × 2 B = 16 GB of bf16 weights; 18 B/param of model states = 9× (144 GB).
    assert multiple.model_bytes == 16 * GB
    assert multiple.part == pytest.approx(9.0) and memory.part == pytest.approx(144.0)
    # 4× is 8 B/param (64 GB / 8e9): pure bf16 weights 2 + gradients 2 + AdamW moments 4 —
    # right for that accounting, not for the mixed precision sized: partly, and both named.
    assert multiple.verdict == memory.verdict == "partly"
    for check in (multiple, memory):
        assert any("pure bf16" in m and "8 B/param" in m for m in check.matches_accounting)
        assert check.sized_accounting is not None and "18 B/param" in check.sized_accounting
    lead = _lead("full fine-tuning is 4× the model, so 64 GB for an 8B?")
    assert lead.startswith("**Partly.**") and "against your 64.0 GB" in lead
    assert "sized here as mixed precision as Hugging Face Trainer holds it" in lead


@pytest.mark.parametrize(
    ("text", "params", "memory_gb"),
    [
        ("is it really 16 bytes/param for llama 3.1 8b training?", LLAMA_31_8B, None),
        ("7B at 16 bytes per param = 112 GB?", 7e9, 112),
        ("full fine-tune of a 13B: 16 bytes per parameter, so 208 GB?", 13e9, 208),
    ],
)
def test_16_bytes_per_parameter_is_the_zero_papers_accounting_partly_right(
    text: str, params: float, memory_gb: float | None
) -> None:
    report = _report(text)
    checks = {c.claim.kind: c for c in report.claim_checks}
    per_param = checks["bytes_per_parameter"]
    # ZeRO paper §3.1: 2Ψ + 2Ψ + KΨ with K = 12 is 16 B/param; sized here with the HF Trainer
    # accounting, 6 (fp32 + bf16 weights) + 4 (fp32 gradients) + 8 (AdamW) = 18 B/param.
    assert per_param.part == pytest.approx(18.0, rel=1e-6)
    assert per_param.verdict == "partly"
    assert any("ZeRO paper" in m and "16 B/param" in m for m in per_param.matches_accounting)
    assert per_param.sized_accounting is not None and "18 B/param" in per_param.sized_accounting
    if memory_gb is not None:
        # The user's GB are 16 × the parameters; the model states sized are 18 ×.
        assert memory_gb == pytest.approx(16 * params / GB)
        memory = checks["memory"]
        assert memory.part == pytest.approx(18 * params / GB, rel=1e-6)
        assert memory.verdict == "partly" and memory.matches_accounting
    assert _lead(text).startswith("**Partly.**")


@pytest.mark.parametrize(
    "text",
    [
        "fine-tuning Llama 3.1 8B takes 3 times the model?",
        "full fine-tune of a 7B at 5 bytes per parameter?",
        "so training a 7B needs 40 GB?",
    ],
)
def test_a_figure_no_accounting_gives_is_no(text: str) -> None:
    # 3× the bf16 model is 6 B/param, 5 B/param and 40 GB / 7e9 = 5.7 B/param: under every
    # accounting's model states (bf16 8, mixed 16 or 18, fp32 16) and the whole need.
    report = _report(text)
    assert report.claim_checks and all(c.verdict == "no" for c in report.claim_checks), text
    assert all(not c.matches_accounting for c in report.claim_checks), text
    assert _lead(text).startswith("**No.**")


def test_lora_adds_10_to_20_percent_is_no_at_4k_tokens_the_adapters_are_under_2() -> None:
    report = _report("does LoRA on Llama 3.1 8B add only 10-20% over the model?")
    (check,) = report.claim_checks
    # The model: 8,030,261,248 × 2 B = 16.06 GB of bf16 weights.
    assert check.model_bytes == 2 * LLAMA_31_8B
    # Rank 8 (PEFT's default) on q, k, v, o, gate, up, down of 32 layers (hidden 4,096, KV 1,024,
    # FFN 14,336): 8 × (8,192 + 5,120 + 5,120 + 8,192 + 3 × 18,432) × 32 = 20,971,520 adapter
    # parameters, 12 B each (bf16 weights 2 + grads 2 + fp32 AdamW 8): 1.567 % of the weights.
    adapters = 8 * (8192 + 5120 + 5120 + 8192 + 3 * 18432) * 32
    assert adapters == 20_971_520
    assert check.part == pytest.approx(adapters * 12 / (2 * LLAMA_31_8B) * 100, rel=1e-3)
    # Activations at 4,096 tokens dominate: the whole need is far over 20 %.
    assert check.computed > 40 and check.verdict == "no"


# --- class 5: "full precision" gives both readings -----------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "serve Llama 3.1 8B in full precision on a 4090",
        "can a 4090 run llama 3.1 8b at full-precision?",
        "Llama 3.1 8B, full precision weights, one RTX 4090, 4 users",
    ],
)
def test_full_precision_sizes_fp32_beside_bf16(text: str) -> None:
    report = _report(text)
    (bf16,) = report.memory
    assert report.alternative is not None and report.alternative.weights == "fp32"
    (fp32,) = report.alternative.memory
    assert bf16.estimate is not None and fp32.estimate is not None
    # 2 and 4 bytes per weight: 16.06 GB (14.96 GiB) and 32.12 GB (29.92 GiB).
    assert bf16.estimate.breakdown["weights"] == 2 * LLAMA_31_8B
    assert fp32.estimate.breakdown["weights"] == 4 * LLAMA_31_8B
    # The 4090's 24 GB hold BF16, not FP32; two 4090s (TP 2) hold FP32's 16.06 GB each.
    assert bf16.fits is True and fp32.fits is False
    (two,) = report.alternative.fewest
    assert two.count == 2 and two.estimate is not None
    assert two.estimate.breakdown["weights"] == pytest.approx(2 * LLAMA_31_8B, rel=1e-3)
    lead = _lead(text)
    assert "**In FP32**" in lead and "29.9 GiB of weights" in lead


# --- class 7: the hardware the user named leads --------------------------------------------------


@pytest.mark.parametrize(
    ("text", "count", "tokens"),
    [
        ("pretrain a 7B on 1T tokens on 256 H100s", 256, 1e12),
        ("pre-training a 7B model on 256 H100 GPUs with 1T tokens, how long?", 256, 1e12),
        ("full fine-tune of Llama 3.1 8B on 16 H100s, 2B tokens", 16, 2e9),
    ],
)
def test_a_named_training_cluster_leads_with_its_hours_gpu_hours_and_cost(
    text: str, count: int, tokens: float
) -> None:
    report = _report(text)
    headline = report.headline
    assert headline is not None and headline.rule == "named_configuration"
    option, price = headline.option, headline.price
    assert (option.gpu, option.count) == ("h100-sxm", count)
    assert option.tp * option.pp * option.dp == count and option.fits
    assert option.training_hours is not None and price is not None and price.usd_job is not None
    # GPU-hours = hours × GPUs; the job = the cluster's hourly price × its hours, in USD (a EUR
    # price at the rate the report states).
    assert option.gpu_hours == pytest.approx(option.training_hours * count, rel=1e-6)
    rate = 1.0 if price.currency == "USD" else report.exchange_rate.usd_per_eur
    expected = price.per_hour * rate * option.training_hours
    assert price.usd_job == pytest.approx(expected, rel=1e-3)
    assert report.request.workload.train_tokens == tokens
    lead = _lead(text)
    assert lead.startswith(f"**{count}× H100 SXM5 as TP {option.tp} × PP {option.pp}")
    assert f"{option.gpu_hours:,.0f} GPU-hours" in lead and f"{price.usd_job:,.0f} USD" in lead


def test_a_named_serving_configuration_says_what_it_costs() -> None:
    report = _report("serve Llama 3.1 70B on 4x H100 for 20 users")
    headline = report.headline
    assert headline is not None and headline.rule == "named_configuration"
    price = headline.price
    assert price is not None and price.usd_per_hour is not None and price.usd_per_month
    # A billing month is 730 hours (tools/cost/inputs.py HOURS_PER_MONTH).
    assert price.usd_per_month == pytest.approx(price.usd_per_hour * 730, rel=1e-6)
    lead = _lead("serve Llama 3.1 70B on 4x H100 for 20 users")
    assert f"4× H100 SXM5 costs {price.usd_per_hour:,.2f} USD per hour" in lead


# --- class 8: "what fits" lists the fewest larger GPUs, a count is not a node --------------------


def _what_fits(report: SizingReport) -> str:
    assert report.recommendation is not None
    return next(n.text for n in report.recommendation.notes if n.code == "no_single_node")


@pytest.mark.parametrize(
    "text", ["Llama 3.1 405B on H100s", "serve llama 3.1 405b in bf16 on h100", "405B on H100 SXM?"]
)
def test_what_fits_lists_larger_gpus_by_memory_at_the_fewest_that_fit(text: str) -> None:
    note = _what_fits(_report(text))
    listed = note.split("the fewest that fit in bf16: ")[1]
    # 405,853,388,800 × 2 B = 811.7 GB of weights: 4 × 256 GB MI325X hold them (2 × 256 =
    # 512 GB do not); 141 GB H200s need 8, the next TP that splits 128 heads after 4 (564 GB).
    assert pytest.approx(811.7, abs=0.1) == 2 * LLAMA_31_405B / GB
    # AMD MI325X datasheet: 256 GB HBM3E; NVIDIA H200 SXM: 141 GB HBM3e.
    catalog = get_catalog()
    assert (catalog.gpu("mi325x").memory_bytes, catalog.gpu("h200-sxm").memory_bytes) == (
        256 * GB,
        141 * GB,
    )
    assert 2 * 256 * GB < 2 * LLAMA_31_405B < 4 * 256 * GB and 4 * 141 * GB < 2 * LLAMA_31_405B
    assert "4× AMD Instinct MI325X (256 GB each)" in listed
    assert "8× NVIDIA H200 SXM (141 GB each)" in listed
    sizes = [float(s.split(" GB each")[0]) for s in listed.split("(")[1:] if "GB each" in s]
    # Ordered by memory per GPU, every one larger than the 80 GB H100; no A10 (24 GB) listed.
    assert sizes == sorted(sizes) and min(sizes) > 80 and "A10" not in listed


def test_a_count_limit_is_not_called_a_node_limit() -> None:
    note = _what_fits(_report("Llama 3.1 405B in bf16 on 4 GPUs"))
    assert "does not fit the 4 GPUs allowed" in note and "one node" not in note
    assert "4× AMD Instinct MI325X (256 GB each)" in note


# --- class 9: a way out when nothing fits --------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "QLoRA of a 70B on a 48 GB card at 4k tokens",
        "qlora fine-tune a 70b model on one RTX A6000 with 4096-token sequences",
        "can I QLoRA a 70B on an L40S at 4k context?",
    ],
)
def test_nothing_fits_says_what_does_with_the_figures(text: str) -> None:
    report = _report(text)
    ways = {w.lever: w for w in report.ways_out}
    assert {"shorter_sequence", "lower_lora_rank", "8bit_optimizer", "all_together"} <= set(ways)
    asked = next(m.estimate for m in report.memory if m.gpu == ways["all_together"].gpu)
    assert asked is not None and not asked.fits
    trainable = asked.trainable_params
    eight_bit = ways["8bit_optimizer"].estimate
    assert eight_bit is not None
    # AdamW keeps two fp32 moments (8 B per adapter parameter); 8-bit AdamW two 1-byte ones.
    assert asked.breakdown["optimizer"] == 8 * trainable
    assert eight_bit.breakdown["optimizer"] == 2 * trainable
    # Rank 8 instead of QLoRA's 64: an eighth of the adapter parameters.
    lower = ways["lower_lora_rank"].estimate
    assert lower is not None and lower.trainable_params * 8 == trainable
    together = ways["all_together"]
    assert together.fits and together.changes["lora_rank"] == 8
    assert together.changes["optimizer"] == "adamw-8bit" and together.changes["context"] % 256 == 0
    lead = _lead(text)
    assert "**A way out on" in lead and "**fits**" in lead


# Rank-64 QLoRA (its default) on q, k, v, o, gate, up, down of Llama 3.1 70B's 80 layers (hidden
# 8,192, KV 8 × 128 = 1,024, FFN 28,672): per layer and rank (8,192 + 8,192) + 2 × (8,192 +
# 1,024) + (8,192 + 8,192) + 3 × (8,192 + 28,672) = 161,792 parameters.
QLORA_70B_ADAPTERS = 64 * 161_792 * 80
# Rank-8 LoRA (PEFT's default) on Llama 3.1 8B (class 4 above): 20,971,520 parameters.
LORA_8B_ADAPTERS = 8 * (8192 + 5120 + 5120 + 8192 + 3 * 18432) * 32


@pytest.mark.parametrize(
    ("text", "method", "adapters", "optimizer_bytes"),
    [
        # Full fine-tuning at 8k without checkpointing: even all the levers at 256 tokens leave
        # the whole model's gradients and AdamW state; LoRA's adapters fit. AdamW keeps two
        # fp32 moments, 8 B per trainable parameter.
        (
            "full fine-tune of Llama 3.1 8B on one H100 without gradient checkpointing at 8k",
            "lora",
            LORA_8B_ADAPTERS,
            8,
        ),
        # A 70B's bf16 weights alone (141 GB) exceed an H100, LoRA or not: QLoRA's 4-bit base.
        ("full fine-tune of Llama 3.1 70B on one H100", "qlora", QLORA_70B_ADAPTERS, 8),
        # LoRA of a 70B: QLoRA with the other levers (8-bit AdamW: two 1-byte moments).
        (
            "LoRA of Llama 3.1 70B on one A100 80GB at 8k tokens, no activation checkpointing",
            "qlora",
            QLORA_70B_ADAPTERS,
            2,
        ),
    ],
)
def test_when_no_lever_is_enough_the_lighter_method_is_sized(
    text: str, method: str, adapters: int, optimizer_bytes: int
) -> None:
    report = _report(text)
    ways = report.ways_out
    assert ways and not any(w.fits for w in ways if w.lever != "lighter_method"), text
    lighter = ways[-1]
    assert lighter.lever == "lighter_method" and lighter.changes["task"] == method
    assert lighter.fits and lighter.estimate is not None
    assert lighter.estimate.trainable_params == adapters
    assert lighter.estimate.breakdown["optimizer"] == optimizer_bytes * adapters
    lead = _lead(text)
    assert "- A lighter method: " in lead and "**fits**" in lead.split("A lighter method")[1]


# Llama 3.1 70B: 70,553,706,496 parameters (meta-llama/Llama-3.1-70B config.json, meta device).
LLAMA_31_70B = 70_553_706_496


@pytest.mark.parametrize(
    "text",
    [
        "pretrain Llama 3.1 70B on 8x H100",
        "pre-train Llama 3.1 70B from scratch on 8 H100 GPUs",
        "train Llama 3.1 70B from scratch on 8× H100",
    ],
)
def test_pretraining_has_no_adapter_way_out_and_the_zero3_resize_is_the_subject(
    text: str,
) -> None:
    report = _report(text)
    ways = report.ways_out
    assert ways and report.request.pretraining
    # LoRA and QLoRA train adapters on a pretrained model: no way out for pre-training.
    assert all(w.lever != "lighter_method" for w in ways)
    # Plain data parallelism holds the whole state per GPU; ZeRO-3 over the 8 is closer to
    # fitting, so the levers are pulled on it.
    assert all((w.gpu, w.count, w.zero) == ("h100-sxm", 8, 3) for w in ways)
    eight_bit = next(w for w in ways if w.lever == "8bit_optimizer").estimate
    assert eight_bit is not None
    # ZeRO paper accounting with 8-bit AdamW: the optimizer keeps the fp32 master copy (4 B)
    # and two 1-byte moments (2 B) per parameter, partitioned over 8 ranks.
    assert eight_bit.breakdown["optimizer"] == pytest.approx(6 * LLAMA_31_70B / 8, rel=1e-6)
    assert "**A way out on 8× H100 SXM5 with ZeRO-3**" in _lead(text)
    # What does: ZeRO-3 over more H100s, in whole 8-GPU nodes. The ZeRO paper's 16 B/param
    # over 16 GPUs is 16 × 70.55e9 / 16 = 70.6 GB = 65.7 GiB of model states alone, before
    # activations and the runtime, against a 79.6 GiB budget; 24 GPUs hold the job.
    more = ways[-1]
    assert more.lever == "more_gpus" and more.fits and more.changes == {"gpus": 24, "zero": 3}
    assert more.estimate is not None
    assert more.estimate.breakdown["optimizer"] == pytest.approx(12 * LLAMA_31_70B / 24, rel=1e-6)
    assert "- More GPUs: 24× H100 SXM5 with ZeRO-3: **fits**" in _lead(text)


def test_a_7b_pretraining_on_one_h100_needs_a_second_with_zero3() -> None:
    # 16 B/param × 7e9 = 112 GB of model states on one 80 GB H100; ZeRO-3 over two: 56 GB.
    report = _report("pretrain a 7B from scratch on one H100")
    more = report.ways_out[-1]
    assert more.lever == "more_gpus" and more.changes == {"gpus": 2, "zero": 3} and more.fits
    assert more.estimate is not None
    states = sum(more.estimate.breakdown[k] for k in ("optimizer", "gradients"))
    assert more.estimate.breakdown["optimizer"] == pytest.approx(12 * 7e9 / 2, rel=1e-6)
    assert states >= (12 + 2) * 7e9 / 2


def test_a_job_no_method_fits_says_so() -> None:
    # Llama 3.1 405B in QLoRA: 405.9e9 × 0.5 B = 203 GB of 4-bit weights against a 24 GB 4090.
    report = _report("full fine-tune of Llama 3.1 405B on one RTX 4090")
    lighter = report.ways_out[-1]
    assert lighter.lever == "lighter_method" and lighter.changes["task"] == "qlora"
    assert lighter.estimate is not None and not lighter.fits
    assert lighter.estimate.breakdown["weights"] > LLAMA_31_405B * 0.5


# --- class 10: regional cheapest with currencies -------------------------------------------------


@pytest.mark.parametrize(
    ("text", "period"),
    [
        ("cheapest EU-only option for Llama 3.1 70B per month", "month"),
        ("cheapest way to serve llama 3.1 8b in the EU, monthly cost?", "month"),
        ("llama 3.1 8b in europe, cheapest, what is it per hour?", "hour"),
    ],
)
def test_the_period_and_region_asked_are_read(text: str, period: str) -> None:
    parsed = parse_workload(text)
    assert (parsed.price_period, parsed.region, parsed.objective) == (period, "eu", "cheapest")


@pytest.mark.parametrize(
    "text",
    [
        "cheapest EU-only option for Llama 3.1 70B per month",
        "what does Llama 3.1 70B cost per month in Europe, cheapest?",
        "cheapest way to serve Llama 3.1 70B in the EU, monthly cost?",
    ],
)
def test_eu_cheapest_per_month_names_the_region_and_compares_eur_at_the_ecb_rate(
    text: str,
) -> None:
    report = _report(text)
    rate = report.exchange_rate
    assert rate is not None and (rate.basis, rate.usd_per_eur, rate.as_of) == (
        "reference",
        ECB_USD_PER_EUR,
        "2026-10-30",
    )
    assert report.costs is not None and report.costs.serving is not None
    eur = [r for r in report.costs.serving.rows if r.currency == "EUR"]
    assert eur and all(r.usd_per_hour == pytest.approx(r.per_hour * ECB_USD_PER_EUR) for r in eur)
    assert report.headline is not None and report.headline.price is not None
    price = report.headline.price
    assert price.eu and price.region
    assert price.usd_per_month == pytest.approx(price.usd * 730, rel=1e-6)
    lead = _lead(text)
    assert f"{price.usd_per_month:,.0f} USD a month" in lead and f"region {price.region}" in lead
    # The hosted-API table is EU-only too: Scaleway, OVHcloud, IONOS.
    apis = report.costs.serving.api_comparison
    assert apis and all(a.provider.startswith(("Scaleway", "OVHcloud", "IONOS")) for a in apis)


def test_the_users_rate_overrides_the_reference_and_is_said() -> None:
    request = SizingRequest.model_validate(
        plan_tool_calls(parse_workload("cheapest EU-only option for Llama 3.1 70B"))[-1].arguments
    )
    report = size(
        request.model_copy(
            update={"pricing": request.pricing.model_copy(update={"eur_to_usd": 1.05})}
        )
    )
    assert report.exchange_rate is not None and report.exchange_rate.basis == "given"
    assert report.costs is not None and report.costs.serving is not None
    eur = [r for r in report.costs.serving.rows if r.currency == "EUR"]
    assert eur and all(r.usd_per_hour == pytest.approx(r.per_hour * 1.05) for r in eur)
    assert "your rate of 1.05 USD per EUR" in report.exchange_rate.statement


# --- class 11: the asked number leads; one screen ------------------------------------------------

_ECB_LINE = "EUR prices compared in USD at the ECB euro reference rate of 2026-10-30"


@pytest.mark.parametrize(
    ("text", "up_front"),
    [
        # EU-only prices asked: the rate ranks every offer shown, so it is stated up front.
        ("cheapest EU-only option for Llama 3.1 70B per month", True),
        ("cheapest way to serve llama 3.1 8b in the EU, monthly cost?", True),
        # A USD offer leads: EUR offers were ranked at the rate, which goes with the folded
        # tool assumptions, not the six lines of what was read.
        ("Can I serve Llama 3.1 8B to 10 users with 8k context on one L40S?", False),
        ("Full fine-tune of Llama 3.1 8B on H100s: how many GPUs?", False),
        # An EUR offer leads: 4× H100 is quoted at OVHcloud's h100-1520 (4 GPUs, 2.80 EUR/GPU-h,
        # confidence "high", as_of 2026-09-26: 11.20 EUR = 12.51 USD/h) since confirmed rates
        # lead (Voltage Park's 1.99 USD/GPU-h is confidence "low"), so the rate bears on it.
        ("serve Llama 3.1 70B on 4x H100 for 20 users", True),
    ],
)
def test_the_reference_rate_is_stated_up_front_only_where_it_bears_on_the_lead(
    text: str, up_front: bool
) -> None:
    report = _report(text)
    assert report.converted_eur  # EUR offers were compared in every one of these
    price = None if report.headline is None else report.headline.price
    assert price is not None and (price.currency != "USD" or report.request.pricing.eu_only) == (
        up_front
    )
    answer_ = render_answer(parse_workload(text), report)
    shown = "\n".join(s.markdown for s in answer_.sections if not s.folded)
    folded = "\n".join(s.markdown for s in answer_.sections if s.folded)
    assert (_ECB_LINE in shown) == up_front, text
    # Folded or not, the rate used is said: the cost tool's assumption, and the recommender's.
    assert f"EUR prices converted at {ECB_USD_PER_EUR:g} USD per EUR" in shown + folded
    assert f"USD, EUR at {ECB_USD_PER_EUR:g} USD per EUR" in shown + folded


@pytest.mark.parametrize(
    "text",
    [
        "how much VRAM does Llama 3.1 70B need?",
        "how many GB do I need for Llama 3.1 70B?",
        "what is the memory footprint of Llama 3.1 70B",
    ],
)
def test_a_memory_question_opens_with_the_memory_not_a_price(text: str) -> None:
    assert parse_workload(text).asked == "memory"
    report = _report(text)
    (one_gpu,) = report.memory
    assert one_gpu.estimate is not None
    first = _lead(text).splitlines()[0]
    # 70,553,706,496 × 2 B = 141.1 GB of bf16 weights alone; the whole need is more.
    assert first.startswith(f"**Needs {one_gpu.estimate.per_gpu_bytes / GiB:,.1f} GiB**")
    assert one_gpu.estimate.breakdown["weights"] == 2 * 70_553_706_496
    assert "USD" not in first


@pytest.mark.parametrize(
    ("text", "asked", "gpu", "count"),
    [
        ("how many tokens per second does Llama 3.1 8B get on one H100?", "speed", "h100-sxm", 1),
        ("what tok/s would Llama 3.1 8B get on an RTX 4090?", "speed", "rtx-4090", 1),
        ("how fast is Llama 3.1 70B in 4-bit on 2x H100 for 20 users?", "speed", "h100-sxm", 2),
        ("what's the time to first token for Llama 3.1 8B on one L40S?", "ttft", "l40s", 1),
        ("what TTFT would users get with Llama 3.1 70B in fp8 on 2 H100s?", "ttft", "h100-sxm", 2),
        ("how long until the first token for Llama 3.1 8B on an A100 80GB?", "ttft", None, 1),
    ],
)
def test_a_speed_or_ttft_question_opens_with_that_figure_for_the_gpus_named(
    text: str, asked: str, gpu: str | None, count: int
) -> None:
    assert parse_workload(text).asked == asked
    report = _report(text)
    (named,) = report.memory
    assert named.count == count and (gpu is None or named.gpu == gpu)
    assert report.recommendation is not None
    option = next(
        o
        for o in [*report.recommendation.options, *report.recommendation.rejected]
        if (o.gpu, o.count) == (named.gpu, named.count) and o.fits
    )
    first = _lead(text).splitlines()[0]
    label = f"{count}× {first.split(f'{count}× ')[1].split('**')[0]}"
    if asked == "speed":
        assert option.decode_tokens_per_s_per_seq is not None
        assert first.startswith(f"**{option.decode_tokens_per_s_per_seq:,.1f} tokens/s per user")
    else:
        assert option.ttft_s is not None
        assert first.startswith(f"**Time to first token {option.ttft_s:,.2f} s")
    # The figure is for the configuration named, and says how far to trust it.
    assert label.startswith(f"{count}× ") and "USD" not in first
    assert any(b in first for b in ("measured", "calibrated", "estimated"))


# --- class 12: a clarifying question keeps the figures, in both engines --------------------------


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("Llama 3.1 70B long-context serving on H100s", f"{LONG_CONTEXT_READING:,} tokens"),
        ("Does Llama 3.1 70B fit on 2 A100?", "the catalog's default for 'A100'"),
        ("Llama 3.1 8B on an H300", "without 'H300'"),
    ],
)
async def test_a_clarifying_question_shows_the_default_readings_figures_then_asks(
    text: str, reading: str
) -> None:
    _, conversation = await answer(text)
    lead = lines_after_reading(last_answer(conversation).sections[0].lines)
    assert lead[0].startswith("For the default reading (") and reading in lead[0]
    assert any(line.startswith(("**Fits", "**Needs", "**Does not", "**Cheapest")) for line in lead)
    assert lead[-1].startswith("**One question before I size this exactly:**")
    # The workload read so far stays with the turn, questions and all.
    stored = conversation.messages[-1][WORKLOAD_KEY]
    assert stored["questions"] and stored.get("model")


@pytest.mark.parametrize(
    ("first", "reply", "model", "kept", "config"),
    [
        # 16k = 16,384 tokens; "4x L40S" is four of them.
        (
            "serve 40 users with 16k context on 4x L40S",
            "Llama 3.1 70B in 4-bit",
            "llama-3.1-70b",
            {"users": 40, "context": 16_384, "task": "inference"},
            ("l40s", 4),
        ),
        # 2B tokens = 2e9 training tokens on 8 H100s (the SXM5 by the catalog's default).
        (
            "full fine-tune on 8 H100s with 2B tokens",
            "Llama 3.1 8B",
            "llama-3.1-8b",
            {"task": "full", "train_tokens": 2e9},
            ("h100-sxm", 8),
        ),
        # 100 concurrent chats at 8k = 100 users at 8,192 tokens; no GPU named.
        (
            "what GPUs do I need for 100 concurrent chats at 8k context?",
            "qwen2.5 72b",
            "qwen2.5-72b",
            {"users": 100, "context": 8_192},
            None,
        ),
    ],
)
def test_the_llm_planner_keeps_what_was_said_before_the_models_clarifying_question(
    first: str,
    reply: str,
    model: str,
    kept: dict[str, object],
    config: tuple[str, int] | None,
) -> None:
    conversation = Conversation()
    conversation.add({"role": "user", "content": first})
    # No model: nothing is planned, the model asks, and the workload read so far is kept.
    assert offline_planner(first, conversation) == []
    assert conversation.messages[-1][WORKLOAD_KEY]["questions"]
    conversation.add({"role": "assistant", "content": "Which model do you mean?"})
    conversation.add({"role": "user", "content": reply})
    ((name, arguments),) = offline_planner(reply, conversation)
    workload = arguments["workload"]
    assert name == "size" and workload["model"] == model
    assert {k: workload[k] for k in kept} == kept
    configs = arguments.get("configurations") or []
    assert [(c["gpu"], c["count"]) for c in configs] == ([config] if config else [])


@pytest.mark.parametrize(
    ("text", "opening"),
    [
        (
            "how fast is Llama 3.1 8B long-context serving on an L40S?",
            "tokens/s per user on 1× L40S",
        ),
        (
            "what's the time to first token for Llama 3.1 70B long-context serving on H100s?",
            "**Time to first token ",
        ),
    ],
)
async def test_the_default_readings_figures_open_with_the_number_asked(
    text: str, opening: str
) -> None:
    _, conversation = await answer(text)
    lead = lines_after_reading(last_answer(conversation).sections[0].lines)
    # Long context read as 32,768 tokens for the figures, then asked about.
    assert (
        lead[0]
        == f"For the default reading (long context read as {LONG_CONTEXT_READING:,} tokens):"
    )
    assert opening in lead[1] and lead[1].startswith("**")
    assert lead[-1].startswith("**One question before I size this exactly:**")


def test_the_llm_planner_keeps_the_workload_across_a_clarifying_turn() -> None:
    conversation = Conversation()
    conversation.add({"role": "user", "content": "Mixtral long-context serving on two H100s"})
    assert offline_planner("Mixtral long-context serving on two H100s", conversation) == []
    stored = conversation.messages[-1][WORKLOAD_KEY]
    assert stored["questions"] and stored["long_context"] is True
    # The model asks which Mixtral; the reply names only the rest, and the workload survives.
    conversation.add({"role": "assistant", "content": "Which Mixtral model, and how long?"})
    conversation.add({"role": "user", "content": "8x7b at 32k context"})
    ((name, arguments),) = offline_planner("8x7b at 32k context", conversation)
    assert name == "size" and arguments["workload"]["model"] == "mixtral-8x7b"
    assert arguments["workload"]["context"] == 32_768
    (config,) = arguments["configurations"]
    assert (config["gpu"], config["count"]) == ("h100-sxm", 2)
