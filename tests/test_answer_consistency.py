"""No answer's headline contradicts its own table (issue 18 acceptance), over generated
workloads: questions written from a grammar of models, GPUs, counts, loads, lengths and formats,
parsed, planned, sized and rendered as the offline engine does, then the lead checked against
the report's table and estimates. Bounded and derandomized (hypothesis) so CI is repeatable.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.offline.parser import parse_workload
from assistant.offline.planner import plan_tool_calls
from assistant.render import options_table, render_answer
from assistant.render.results import config_label, gpu_name
from tools.sizing import SizingRequest, size
from tools.sizing.headline import candidates

MODELS = ("Llama 3.1 8B", "Llama 3.1 70B", "Mistral 7B", "Qwen2.5 72B", "Mixtral 8x7B")
GPUS = ("", " on one H100", " on 2x H100", " on 4 L40S", " on an RTX 4090", " on 8x A100 80GB")
LOADS = ("", " for 8 users", " for 40 users")
LENGTHS = ("", " with 16k context", " with 2k in and 500 out")
FORMATS = ("", " in fp8", " in 4-bit")
GOALS = ("", ", cheapest", ", cheapest per million tokens", ", fastest")


@st.composite
def questions(draw: st.DrawFn) -> str:
    parts = (MODELS, GPUS, LOADS, LENGTHS, FORMATS, GOALS)
    return "serve " + "".join(draw(st.sampled_from(p)) for p in parts)


BOUNDED = settings(
    max_examples=14,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
"""Repeatable and bounded for CI: derandomized, no example database, no deadline."""


@BOUNDED
@given(questions())
def test_the_headline_never_contradicts_the_table(question: str) -> None:
    parsed = parse_workload(question)
    calls = plan_tool_calls(parsed)
    assert calls, question
    report = size(SizingRequest.model_validate(calls[-1].arguments))
    lead = render_answer(parsed, report).sections[0].lines
    rec = report.recommendation
    assert rec is not None, question
    # Every "fits" / "does not fit" the lead says about a configuration is its estimate's.
    for sized in report.memory:
        if sized.gpu is None or sized.estimate is None:
            continue
        label = config_label(sized)
        if any(line.startswith(f"**Fits on {label}**") for line in lead):
            assert sized.estimate.fits, (question, label)
        if any(line.startswith("**Does not fit on") and label in line for line in lead):
            assert sized.estimate.fits is False, (question, label)
    headline = report.headline
    if headline is None:
        assert not any(line.startswith(("**Cheapest", "**Recommended")) for line in lead)
        return
    option = headline.option
    evaluated = [*rec.options, *rec.rejected]
    if report.scale_out is not None and report.scale_out.recommendation is not None:
        evaluated += report.scale_out.recommendation.options
    assert option in evaluated and option.fits, question
    assert option.per_gpu_bytes <= option.budget_bytes_per_gpu
    # The headline's row in the options table (when shown) says what the headline says.
    name = gpu_name(option.gpu)
    rows = [r for r in options_table(report) if r.startswith(f"| {name} | {option.count} |")]
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        if cells[2] != f"{option.tp}×{option.pp}×{option.dp}":
            continue
        assert cells[3] == "yes", (question, row)
        if headline.rule != "scale_out":
            assert cells[4] == "yes", (question, row)
        if headline.price is not None:
            assert cells[-1].startswith(f"{headline.price.usd:,.2f}"), (question, row)
    # A "cheapest" headline is the lowest price among the options it was chosen from.
    if headline.rule == "cheapest" and headline.price is not None and report.search is not None:
        per_token = report.search.objective == "cheapest_per_token"
        key = headline.price.usd_per_million_tokens if per_token else headline.price.usd
        for other in candidates(rec, report.search.constraints.max_gpus):
            price = report.price_of(other.gpu, other.count)
            value = (
                None
                if price is None
                else (price.usd_per_million_tokens if per_token else price.usd)
            )
            if value is not None and key is not None:
                assert key <= value + 1e-9, (question, other.gpu, other.count)
    # The count and GPU the lead names for the headline are the headline's.
    named = [line for line in lead if line.startswith(("**Cheapest", "**Recommended"))]
    for line in named:
        match = re.search(r"\*\*[^*]*?(\d+)× ([^*]+)\*\*", line)
        assert match is not None, line
        assert (int(match.group(1)), match.group(2)) == (option.count, name), (question, line)


TASKS = ("full fine-tune of ", "LoRA of ", "QLoRA of ", "pretrain ")
TRAIN_MODELS = ("Llama 3.1 8B", "Llama 3.1 70B", "Mistral 7B", "a 13B")
TRAIN_GPUS = ("", " on one H100", " on 8x H100", " on 4 A100 80GB", " on an RTX 4090")
TRAIN_DATA = ("", " on 2B tokens", " with 8k sequences", " without gradient checkpointing")


@st.composite
def training_questions(draw: st.DrawFn) -> str:
    parts = (TASKS, TRAIN_MODELS, TRAIN_GPUS, TRAIN_DATA)
    return "".join(draw(st.sampled_from(p)) for p in parts)


@settings(BOUNDED, max_examples=10)
@given(training_questions())
def test_a_training_lead_never_contradicts_its_estimates(question: str) -> None:
    parsed = parse_workload(question)
    calls = plan_tool_calls(parsed)
    assert calls, question
    report = size(SizingRequest.model_validate(calls[-1].arguments))
    lead = render_answer(parsed, report).sections[0].lines
    for sized in [*report.memory, *report.zero3_resize]:
        if sized.gpu is None or sized.estimate is None:
            continue
        label = config_label(sized)
        if any(line.startswith(f"**Fits on {label}**") for line in lead):
            assert sized.estimate.fits, (question, label)
        if any(line.startswith(f"**Does not fit on {label}**") for line in lead):
            assert sized.estimate.fits is False, (question, label)
    headline = report.headline
    if headline is not None:
        option = headline.option
        assert option.fits and option.per_gpu_bytes <= option.budget_bytes_per_gpu, question
        # A job's GPU-hours are its wall-clock hours on every GPU of the cluster.
        if option.training_hours is not None and option.gpu_hours is not None:
            assert option.gpu_hours == pytest.approx(option.training_hours * option.count)
    # A way out is offered only when nothing named fits, and "fits" only where it does.
    ways = report.ways_out
    if ways:
        assert not any(m.fits for m in report.memory if m.gpu is not None), question
    for way in ways:
        est = way.estimate
        if est is not None and way.fits:
            assert est.per_gpu_bytes <= (est.budget_bytes_per_gpu or 0), question
        if way.lever == "lighter_method":
            assert not report.request.pretraining, question
            levers = [w for w in ways if w.lever not in ("lighter_method", "more_gpus")]
            assert not any(w.fits for w in levers), question
        if way.lever == "more_gpus":
            # Only when nothing lighter fits, and then more GPUs than named, with ZeRO-3.
            assert not any(w.fits for w in ways if w.lever != "more_gpus"), question
            assert way.changes["gpus"] > way.count and way.changes["zero"] == 3, question
