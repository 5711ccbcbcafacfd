"""The risks of a sizing report's answer, in one order: the first that applies is the main risk.

A proposal (or any surface) states one main risk on its first page and lists the others after
it; the rule is decided here, once, over typed fields (never over a note's text). In order —
`risks(report)` lists every rule that applies, `main_risk(report)` is the first, or `none`:

0. `question_pending` (high): the report asks which GPU was meant (`report.question`): its
   variants get different verdicts, so nothing is recommended until it is answered.
1. `nothing_meets_targets` (high): no headline — nothing evaluated fits and meets the targets.
2. `over_budget` (high): the budget stated is below the cheapest priced option.
3. `tool_warning` (high): a tool warning (`Note.severity == "warning"`) about the request or the
   recommended GPU — a context above the model's maximum, ZeRO on one rank, a device caveat.
4. `tight_memory` (medium): the recommended layout's headroom is under `TIGHT_HEADROOM_FRACTION`
   (10 %) of its per-GPU memory budget: a longer context, more users or an engine update that
   reserves more can push it out of memory. `step_up` names the first option that keeps it.
5. `stale_price` (medium): the recommended configuration's quoted price is stale (undated, or
   older than the report's staleness limit on the day it was sized).
6. `low_confidence_price` (medium): the recommended configuration's quoted price is a rate the
   research marks low confidence (`tools.pricing.is_low_confidence`: no confirmed row as fresh
   prices it) — after `stale_price`, as `tools.pricing.quote_order` puts staleness first.
7. `api_cheaper` (medium): a hosted API of the model costs less than the recommended
   configuration at its quoted price — at the user's volume, or at any volume the configuration
   can produce (its break-even is out of reach).
8. `speed_target_estimated` (medium): a speed target was stated (tokens/s per user, aggregate
   tokens/s, time to first token, a training deadline) and the figure checked against it is
   estimated (default efficiencies), not measured or calibrated: the GPU count depends on it.
9. `single_replica` (low): serving on one replica (DP 1): one GPU or server failure stops the
   service.
10. `estimated_speed` (low): the speed the $/M tokens or the job's hours rest on is estimated.

With no rule applying, the main risk is `none` (the report's own figures say why: headroom, a
fresh and confirmed price, a measured or calibrated speed). Rules 4 and 7 qualify the headline
itself (`caveats`): a surface that states the headline states them with it, whichever risk
leads.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, Field

from tools.cost.results import BreakEven
from tools.notes import Note
from tools.performance.basis import SpeedBasis
from tools.recommend import Option
from tools.sizing.report import SizingReport

RiskCode = Literal[
    "question_pending",
    "nothing_meets_targets",
    "over_budget",
    "tool_warning",
    "tight_memory",
    "stale_price",
    "low_confidence_price",
    "api_cheaper",
    "speed_target_estimated",
    "single_replica",
    "estimated_speed",
    "none",
]
RiskSeverity = Literal["high", "medium", "low", "none"]
SpeedTarget = Literal["tokens_per_s_per_user", "tokens_per_s", "ttft_s", "deadline_hours"]

TIGHT_HEADROOM_FRACTION = 0.10
"""Headroom under this fraction of the per-GPU budget is a risk (rule 4): vLLM's own default
utilisation step between releases (0.90 → 0.92) already moves about 2 % of the GPU, and one
more long sequence is a few GiB."""


class Risk(BaseModel):
    """One risk of the answer: which rule, how severe, and the typed facts it is about."""

    code: RiskCode
    severity: RiskSeverity
    option: Option | None = Field(default=None, description="The option the risk is about.")
    note: Note | None = Field(default=None, description="tool_warning: the warning.")
    break_even: BreakEven | None = Field(
        default=None, description="api_cheaper: the comparison that says so."
    )
    target: SpeedTarget | None = Field(
        default=None, description="speed_target_estimated: the target whose figure is estimated."
    )
    basis: SpeedBasis | None = Field(
        default=None, description="The basis of the speed figure the risk is about."
    )


def _estimated(basis: SpeedBasis | None) -> bool:
    """A speed with no stated basis (a result saved before bases existed) counts as estimated:
    nothing says it was measured."""
    return basis is None or basis == "estimated"


def _warnings(report: SizingReport, option: Option | None) -> list[Note]:
    """Warning-severity notes about the request (no subject) or the recommended GPU, once each,
    in the order the tools ran."""
    found: list[Note] = []
    rec = report.recommendation
    sources: list[Iterable[Note]] = []
    if rec is not None:
        sources += [rec.warnings, rec.notes]
    sized = [*report.memory, *report.zero3_resize]
    if report.layout_breakdown is not None:
        sized.append(report.layout_breakdown)
    sources += [s.estimate.warnings for s in sized if s.estimate is not None]
    gpu = None if option is None else option.gpu
    for notes in sources:
        for note in notes:
            if note.severity != "warning" or note.text in (n.text for n in found):
                continue
            if note.gpu is None or note.gpu == gpu:
                found.append(note)
    return found


def _speed_targets(report: SizingReport, option: Option) -> list[tuple[SpeedTarget, SpeedBasis]]:
    """(target stated, basis of the figure checked against it) for each speed target."""
    w = report.request.workload
    if w.is_training:
        if w.deadline_hours is None or not _estimated(option.speed_basis):
            return []
        return [("deadline_hours", "estimated")]
    stated: list[tuple[SpeedTarget, SpeedBasis | None]] = []
    if w.tokens_per_s_per_user is not None:
        stated.append(("tokens_per_s_per_user", option.speed_basis))
    if w.tokens_per_s is not None:
        stated.append(("tokens_per_s", option.throughput_basis))
    if w.ttft_s is not None:
        stated.append(("ttft_s", option.ttft_basis))
    return [(t, b or "estimated") for t, b in stated if _estimated(b)]


def _api_cheaper(report: SizingReport) -> BreakEven | None:
    """The break-even row of the headline's quoted price that says a hosted API costs less
    (at the user's volume, or unreachable): an API of the same model before a comparable one,
    then the lowest price per output token."""
    headline = report.headline
    costs = report.costs
    if headline is None or headline.price is None or costs is None or costs.serving is None:
        return None
    same = {a.api_id for a in costs.serving.api_comparison if a.match == "same"}
    rows = [
        b
        for b in costs.serving.break_even
        if b.price_id == headline.price.price_id
        and (b.cheaper_at_volume == "api" or b.reachable is False)
    ]
    # The same model before a comparable one (as the alternative's rule), then the cheapest.
    return (
        min(rows, key=lambda b: (b.api_id not in same, b.api_usd_per_million_output_tokens))
        if rows
        else None
    )


def risks(report: SizingReport) -> list[Risk]:
    """Every rule of the module docstring that applies, in its order (never empty: `none`
    when nothing applies)."""
    headline = report.headline
    option = None if headline is None else headline.option
    out: list[Risk] = []
    if report.question is not None:
        out.append(Risk(code="question_pending", severity="high"))
    elif option is None:
        out.append(Risk(code="nothing_meets_targets", severity="high"))
    budget = report.budget_check
    if budget is not None and budget.within is False:
        out.append(Risk(code="over_budget", severity="high", option=option))
    out += [Risk(code="tool_warning", severity="high", note=n) for n in _warnings(report, option)]
    if option is None:
        return out
    if is_tight(option):
        out.append(Risk(code="tight_memory", severity="medium", option=option))
    assert headline is not None
    if headline.price is not None and headline.price.stale:
        out.append(Risk(code="stale_price", severity="medium", option=option))
    if headline.price is not None and headline.price.low_confidence:
        out.append(Risk(code="low_confidence_price", severity="medium", option=option))
    cheaper = _api_cheaper(report)
    if cheaper is not None:
        out.append(Risk(code="api_cheaper", severity="medium", option=option, break_even=cheaper))
    out += [
        Risk(
            code="speed_target_estimated",
            severity="medium",
            option=option,
            target=target,
            basis=basis,
        )
        for target, basis in _speed_targets(report, option)
    ]
    training = report.is_training
    if not training and option.dp == 1:
        out.append(Risk(code="single_replica", severity="low", option=option))
    basis = option.speed_basis if training else option.throughput_basis
    if _estimated(basis) and not any(r.code == "speed_target_estimated" for r in out):
        out.append(
            Risk(code="estimated_speed", severity="low", option=option, basis=basis or "estimated")
        )
    return out or [Risk(code="none", severity="none", option=option)]


def main_risk(report: SizingReport) -> Risk:
    """The first risk that applies (module docstring), the one a first page states."""
    return risks(report)[0]


HEADLINE_CAVEATS: tuple[RiskCode, ...] = ("tight_memory", "api_cheaper")
"""Risks that qualify the recommendation itself: a layout under the headroom rule this module
states (rule 4), and a hosted API that costs less than the configuration recommended (rule
7). A surface that states the headline states these with it — a proposal's first page, not
only its list of other risks — whichever risk comes first."""


def caveats(report: SizingReport) -> list[Risk]:
    """The `HEADLINE_CAVEATS` that apply to the report's headline, in the rules' order."""
    return [r for r in risks(report) if r.code in HEADLINE_CAVEATS]


def is_tight(option: Option) -> bool:
    """Rule 4: headroom under `TIGHT_HEADROOM_FRACTION` of the per-GPU budget."""
    return option.headroom_bytes < TIGHT_HEADROOM_FRACTION * option.budget_bytes_per_gpu


def step_up(report: SizingReport) -> Option | None:
    """'Size one step up', made concrete: the first option, in the order the headline's rule
    ranks them (by the same price under a price rule, else the recommender's order), that
    fits, meets the targets within the GPUs allowed and keeps the headroom rule 4 asks; None
    when the headline is not tight or no option does."""
    from tools.sizing.headline import PRICE_OBJECTIVES, candidates, price_key

    headline, rec = report.headline, report.recommendation
    if headline is None or rec is None or not is_tight(headline.option):
        return None
    workload = report.search or report.request.workload
    roomy = [o for o in candidates(rec, workload.constraints.max_gpus) if not is_tight(o)]
    if headline.rule == "cheapest" and workload.objective in PRICE_OBJECTIVES:

        def key(option: Option) -> tuple[int, float]:
            priced = report.price_of(option.gpu, option.count)
            value = None if priced is None else price_key(workload.objective, priced)
            return (1, 0.0) if value is None else (0, value)

        roomy.sort(key=key)  # stable: unpriced options keep the recommender's order
    return roomy[0] if roomy else None
