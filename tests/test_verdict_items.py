"""The verdict is data (`tools.sizing.verdict`): every surface words the same items.

Over generated workloads (model × GPUs named × load × format): the card's lines are the items
in order, the text's card-marked lines state the same fit for the same configuration, `ask
--json` carries the same items, and nothing contradicts the headline: the configuration said to
work is the headline option (or, where the named GPUs cannot hold the load, the recommender's
option without their count limit), it is never said to work while a configuration sized fits,
a bar marked "(recommended)" names the headline's configuration, and no two bars or lines with
the same label give opposite verdicts.

Hand-checked cases: Llama 3.1 70B in bf16 is 70,553,706,496 × 2 B = 131.4 GiB of weights, more
than two L40S hold in all (2 × 48 GB = 89.4 GiB): 2× L40S does not fit. Llama 3.1 8B in bf16 is
8,030,261,248 × 2 B = 14.96 GiB of weights: it fits one 24 GB RTX 4090 (22.5 GiB).
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.app.verdict import card_lines, verdict_bars
from assistant.cli import main
from assistant.offline.parser import parse_workload
from assistant.offline.planner import plan_tool_calls
from assistant.render.results import config_label
from assistant.render.verdict import verdict_answer
from tools.sizing import SizedConfiguration, SizingReport, SizingRequest, size
from tools.sizing.verdict import VerdictItems, verdict

MODELS = ("Llama 3.1 8B", "Llama 3.1 70B", "Qwen2.5 32B", "Mixtral 8x7B")
GPUS = (
    "",
    " on one RTX 4090",
    " on 2x L40S",
    " on an H100",
    " on 4x A100 80GB",
    " on L40S",
    " on 2x L40S or 4x A100 80GB",
    " on L40S or H100",
)
LOADS = ("", " for 20 users", " for 200 users")
FORMATS = ("", " in 4-bit", " in fp8")


@st.composite
def questions(draw: st.DrawFn) -> str:
    parts = (MODELS, FORMATS, GPUS, LOADS)
    return "serve " + "".join(draw(st.sampled_from(p)) for p in parts)


def _report(question: str) -> SizingReport:
    calls = plan_tool_calls(parse_workload(question))
    return size(SizingRequest.model_validate(calls[-1].arguments))


def _label(gpu: str | None, count: int, zero: int | None = None) -> str:
    return config_label(SizedConfiguration(gpu=gpu, count=count, zero=zero))


def _card_lines_of_text(report: SizingReport) -> list[str]:
    answer = verdict_answer(report)
    return [s.lines[i] for s in answer.sections for i in s.card_lines]


def check_one_verdict(report: SizingReport) -> VerdictItems:
    """Every property of the module docstring, on one report."""
    items = verdict(report)
    card = card_lines(report, items)
    heads = [line.head for line in card]
    # The card states the items, in order: one line per configuration, then what works.
    for line, fit in zip(card, items.configurations, strict=False):
        label = _label(fit.gpu, fit.count, fit.zero)
        assert line.kind == ("fits" if fit.fits else "does_not_fit"), (heads, fit)
        assert label in line.head, (heads, label)
    expected = len(items.configurations) + (items.working is not None)
    assert len(card) == expected + len(items.longest_context), heads
    # What works never contradicts the headline or the configurations sized.
    working = items.working
    headline = report.headline
    if working is not None:
        assert not any(f.fits for f in items.configurations), (heads, "works beside a fit")
        line = card[len(items.configurations)]
        assert line.kind == "works" and f"{working.option.count}× " in line.head, heads
        if working.role == "headline":
            assert headline is not None and working.option.same_layout(headline.option)
        else:
            assert report.scale_out is not None and report.scale_out.holds is not None
            assert working.option.same_layout(report.scale_out.holds)
            assert working.option.count > report.scale_out.count  # more than the GPUs named
    # The text's lines the card states give the same fit for the same configuration.
    text = " ".join(_card_lines_of_text(report))
    for fit in items.configurations:
        label = re.escape(_label(fit.gpu, fit.count, fit.zero))
        fits_said = re.search(rf"\*\*Fits on {label}\*\*", text) is not None
        short_said = re.search(rf"\*\*Does not fit on [^*]*{label}[^*]*\*\*", text) is not None
        assert fits_said == fit.fits and short_said == (not fit.fits), (text, fit)
    # Bars: one verdict per label, and the recommended one is the headline's configuration.
    verdicts: dict[str, bool] = {}
    for bar in verdict_bars(report):
        if bar.headroom_bytes is None:
            continue
        fits = bar.headroom_bytes >= 0
        assert verdicts.setdefault(bar.label, fits) == fits, ("opposite bars", bar.label)
        if "(recommended" in bar.label:
            assert headline is not None
            assert bar.label.startswith(f"{headline.option.count}× "), (bar.label, headline)
            assert fits, bar.label  # the layout recommended fits
    for fit in items.configurations:
        label = _label(fit.gpu, fit.count, fit.zero)
        if label in verdicts:
            assert verdicts[label] == fit.fits, (label, "bar and line disagree")
    # The items round-trip as the JSON record every JSON surface carries.
    record = items.record()
    assert [c["fits"] for c in record["configurations"]] == [f.fits for f in items.configurations]
    return items


@settings(
    max_examples=14,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(questions())
def test_no_surface_contradicts_the_verdict_items(question: str) -> None:
    check_one_verdict(_report(question))


def test_seventy_b_on_two_l40s_does_not_fit_and_says_what_holds_it() -> None:
    items = check_one_verdict(_report("serve Llama 3.1 70B on 2x L40S for 20 users"))
    (fit,) = items.configurations
    # 131.4 GiB of bf16 weights over 2 GPUs is 65.7 GiB per GPU, above an L40S's 44.7 GiB.
    assert (fit.gpu, fit.count, fit.fits) == ("l40s", 2, False)
    assert fit.need_bytes_per_gpu > 70_553_706_496 * 2 // 2
    assert items.working is not None and items.working.role == "holds_load"
    assert items.working.option.gpu == "l40s" and items.working.option.count > 2


def test_a_scale_out_never_stands_beside_a_configuration_that_fits() -> None:
    # Two configurations named: 2× L40S does not hold 70B (131.4 GiB of weights, 89.4 GiB in
    # all), 4× A100 80GB does (4 × 74.5 GiB = 298 GiB). The card once said 'Fits on 4× A100'
    # and then 'What holds this load: 8× L40S' — two configurations said to work.
    report = _report("Llama 3.1 70B on 2x L40S or 4x A100 80GB for 50 users")
    items = check_one_verdict(report)
    assert [(f.gpu, f.fits) for f in items.configurations] == [
        ("l40s", False),
        ("a100-80gb-sxm4", True),
    ]
    assert items.working is None
    assert all("8× L40S" not in bar.label for bar in verdict_bars(report))


def test_eight_b_on_a_4090_fits_with_its_kv_capacity() -> None:
    items = check_one_verdict(_report("Does Llama 3.1 8B fit on one RTX 4090?"))
    (fit,) = items.configurations
    assert (fit.gpu, fit.count, fit.fits) == ("rtx-4090", 1, True)
    # 14.96 GiB of weights: what is left of the budget holds the KV cache.
    assert fit.option is not None and fit.option.kv_cache_capacity_tokens > 0
    assert items.working is None  # a configuration sized fits: nothing else is said to work
    assert items.yes is True


@pytest.mark.parametrize(
    "question",
    ["serve Llama 3.1 70B on 2x L40S for 20 users", "Does Llama 3.1 8B fit on one RTX 4090?"],
)
def test_ask_json_carries_the_same_items(
    question: str, capsys: pytest.CaptureFixture[str], tmp_path: object
) -> None:
    assert main(["ask", "--offline", "--json", "--no-save", question]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["sizing"]["verdict"] == verdict(_report(question)).record()
