"""The verdict of a sizing report as typed items, decided once for every surface.

`verdict(report)` selects, from the report, what an answer's verdict states: each configuration
sized (fits or not, the memory needed per GPU against the budget, and, when it fits, the
recommender's option at exactly that count with its KV capacity); the configuration that works
(what holds the load the named GPUs cannot, else the headline option when no named
configuration fits); the longest context per named configuration; the asked figure and a
yes/no question's answer; the ways out that fit. Selection only: every figure is the tools'
(`MemoryEstimate`, `Option`, `PricedConfiguration`), and the words are the surfaces' (the text
verdict `assistant.render.verdict`, the app's card `assistant.app.verdict`, `ask --json`, MCP).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from tools.field_factories import empty_list
from tools.local_serving import LocalServingPlan
from tools.notes import Note, NoteCode
from tools.recommend import Option
from tools.sizing.report import (
    AskedAnswer,
    ContextFit,
    HeadlineRule,
    PricedConfiguration,
    SizedConfiguration,
    SizingReport,
    WayOut,
)


class ConfigurationFit(BaseModel):
    """One configuration sized, with the figures that decide its fit."""

    gpu: str | None = Field(description="Catalog GPU id; None: sized without a GPU.")
    count: int = Field(description="GPUs sized, count.")
    zero: int | None = Field(default=None, description="ZeRO stage sized (training).")
    fits: bool
    need_bytes_per_gpu: int = Field(description="Memory needed per GPU, bytes.")
    capacity_bytes_per_gpu: int | None = Field(
        description="What it is compared with per GPU, bytes: the engine's budget, else the "
        "GPU's usable memory (`capacity_basis`)."
    )
    capacity_basis: Literal["budget", "usable"]
    headroom_bytes: int | None = Field(description="Capacity minus need per GPU, bytes.")
    plain_data_parallel: bool = Field(
        default=False, description="Full training replicated on every GPU (no ZeRO, TP, PP)."
    )
    zero3_resize: bool = Field(
        default=False, description="The named configuration sized again with ZeRO-3."
    )
    option: Option | None = Field(
        default=None,
        description="When it fits (serving): the recommender's option at exactly this GPU and "
        "count, whose KV capacity the verdict states.",
    )
    within: Option | None = Field(
        default=None,
        description="When plain data parallelism does not fit (training, no named cluster "
        "leading): the recommender's layout within the GPUs named, which shards with TP / PP "
        "where plain replicas cannot — stated first, as the answer.",
    )
    larger: Option | None = Field(
        default=None,
        description="When it does not fit and no scale-out answers it: the fitting option of "
        "this GPU above the count (`SizingReport.larger_on`) — the count the user asked about "
        "('on H100s' → how many), stated before the 'does not fit'.",
    )


WorkingRole = Literal["holds_load", "headline"]


class WorkingOption(BaseModel):
    """The configuration the verdict says works."""

    role: WorkingRole = Field(
        description="'holds_load': what holds the load the named GPUs cannot (the recommender "
        "without their count limit); 'headline': the report's headline option, stated because "
        "no configuration sized fits."
    )
    option: Option
    rule: HeadlineRule | None = Field(
        default=None, description="The headline rule that chose it ('headline' role)."
    )
    price: PricedConfiguration | None = Field(
        default=None, description="Its quoted price ('headline' role), if priced."
    )
    named_gpus: bool = Field(
        default=False,
        description="GPUs were named (and none fits): the option is what they need, not a "
        "choice among every GPU.",
    )


class VerdictItems(BaseModel):
    """The verdict items of a report, in the order an answer states them."""

    local: list[LocalServingPlan] = Field(
        default_factory=empty_list,
        description="Owned hardware (`SizingReport.leads_with_local`): the local plans that "
        "lead; the configurations after them are the datacenter alternative.",
    )
    configurations: list[ConfigurationFit] = Field(default_factory=empty_list)
    working: WorkingOption | None = None
    longest_context: list[ContextFit] = Field(default_factory=empty_list)
    asked: AskedAnswer | None = Field(default=None, description="The figure asked for.")
    yes: bool | None = Field(default=None, description="A yes/no fit question's answer.")
    ways_out: list[WayOut] = Field(
        default_factory=empty_list, description="The levers that make a named configuration fit."
    )
    cautions: list[Note] = Field(
        default_factory=empty_list,
        description="What the tools found that bears on the verdict and is said before it: a "
        "context past the model's own maximum (`LEADING_CAUTIONS`).",
    )

    def record(self) -> dict[str, Any]:
        """The items as compact JSON (`ask --json` `sizing.verdict`, MCP `verdict_items`):
        the figures that decide each item, bytes as integers, no option's whole record."""
        working = self.working
        return {
            "local": [
                {
                    "gpu": plan.gpu_label,
                    "gpus": plan.gpus,
                    "launcher": plan.launcher,
                    "weights_format": plan.weights_format,
                    "fits_fully": plan.fits_fully,
                    "gpu_layers": plan.gpu_layers,
                    "n_layers": plan.n_layers,
                }
                for plan in self.local
            ],
            "configurations": [
                {
                    **fit.model_dump(mode="json", exclude={"option", "within", "larger"}),
                    "kv_cache_capacity_tokens": None
                    if fit.option is None
                    else fit.option.kv_cache_capacity_tokens,
                    "within": None if fit.within is None else _layout(fit.within),
                    "larger": None if fit.larger is None else _layout(fit.larger),
                }
                for fit in self.configurations
            ],
            "working": None
            if working is None
            else {
                "role": working.role,
                "rule": working.rule,
                **_layout(working.option),
                "usd_per_hour": None if working.price is None else working.price.usd_per_hour,
                "usd_per_million_tokens": None
                if working.price is None
                else working.price.usd_per_million_tokens,
            },
            "longest_context": [
                {"gpu": c.gpu, "count": c.count, "context_tokens": c.context_tokens}
                for c in self.longest_context
            ],
            "yes": self.yes,
            "ways_out": [{"lever": w.lever, "gpu": w.gpu, "count": w.count} for w in self.ways_out],
            "cautions": [{"code": c.code, "text": c.text} for c in self.cautions],
        }


def _layout(option: Option) -> dict[str, Any]:
    return {
        "gpu": option.gpu,
        "count": option.count,
        "tp": option.tp,
        "pp": option.pp,
        "dp": option.dp,
        "per_gpu_bytes": option.per_gpu_bytes,
        "budget_bytes_per_gpu": option.budget_bytes_per_gpu,
    }


def sized_configurations(report: SizingReport) -> list[SizedConfiguration]:
    """The configurations the verdict speaks of: the named ones, then their ZeRO-3 re-sizes."""
    return [*report.memory, *report.zero3_resize]


def configuration_fit(
    report: SizingReport, sized: SizedConfiguration, zero3_resize: bool = False
) -> ConfigurationFit | None:
    """The fit item of one configuration sized; None without an estimate or a GPU verdict."""
    est = sized.estimate
    if est is None or est.fits is None:
        return None
    basis: Literal["budget", "usable"] = (
        "budget" if est.budget_bytes_per_gpu is not None else "usable"
    )
    option = None
    rec = report.recommendation
    if est.fits and rec is not None and not report.is_training:
        option = rec.fitting_at(sized.gpu, sized.count)
    within, larger = (None, None) if est.fits else _short_leads(report, sized)
    return ConfigurationFit(
        gpu=sized.gpu,
        count=sized.count,
        zero=sized.zero,
        fits=est.fits,
        need_bytes_per_gpu=est.per_gpu_bytes,
        capacity_bytes_per_gpu=est.budget_bytes_per_gpu or est.usable_bytes_per_gpu,
        capacity_basis=basis,
        headroom_bytes=est.headroom_bytes,
        plain_data_parallel=sized.plain_data_parallel,
        zero3_resize=zero3_resize,
        option=option,
        within=within,
        larger=larger,
    )


def _short_leads(
    report: SizingReport, sized: SizedConfiguration
) -> tuple[Option | None, Option | None]:
    """(`within`, `larger`) of a configuration that does not fit (see `ConfigurationFit`):
    the layout within the GPUs named when plain data parallelism is what did not fit, else
    the larger option of the same GPU when no scale-out says what holds the load."""
    rec = report.recommendation
    if rec is None or sized.gpu is None:
        return None, None
    named_cluster = report.is_training and (
        report.headline is not None and report.headline.rule == "named_configuration"
    )
    if sized.plain_data_parallel and not named_cluster:
        within = rec.fitting_on(sized.gpu, at_most=sized.count)
        if within is not None:
            return within, None
    if report.scale_out is not None:
        return None, None
    return None, report.larger_on(sized.gpu, sized.count)


def states_headline(report: SizingReport) -> bool:
    """Whether the verdict states the headline option as what works: no configuration that
    holds the load was found beyond the named GPUs, and no configuration sized fits."""
    if report.headline is None:
        return False
    if report.scale_out is not None and report.scale_out.holds is not None:
        return False
    return not any(m.fits for m in sized_configurations(report))


def working_option(report: SizingReport) -> WorkingOption | None:
    """The configuration that works (see `WorkingOption`); None when the verdict states none:
    when a configuration sized fits, that is what works (a scale-out of another GPU named
    beside it, 'What holds this load: 8× L40S' under 'Fits on 4× A100', would contradict it)."""
    if any(m.fits for m in sized_configurations(report)):
        return None
    scale_out = report.scale_out
    if scale_out is not None and scale_out.holds is not None:
        return WorkingOption(role="holds_load", option=scale_out.holds)
    headline = report.headline
    if headline is None or not states_headline(report):
        return None
    return WorkingOption(
        role="headline",
        option=headline.option,
        rule=headline.rule,
        price=headline.price,
        named_gpus=any(m.gpu is not None for m in report.memory),
    )


def verdict(report: SizingReport) -> VerdictItems:
    """The verdict items of `report` (see the module docstring)."""
    configurations = [
        fit
        for sized, resized in [
            *((m, False) for m in report.memory),
            *((z, True) for z in report.zero3_resize),
        ]
        if (fit := configuration_fit(report, sized, zero3_resize=resized)) is not None
    ]
    asked = report.asked_answer
    yes = None if asked is None or asked.asked != "fits" else asked.yes
    return VerdictItems(
        local=list(report.local) if report.leads_with_local else [],
        configurations=configurations,
        working=working_option(report),
        longest_context=list(report.longest_context),
        asked=asked,
        yes=yes,
        ways_out=[w for w in report.ways_out if w.fits],
        cautions=leading_cautions(report),
    )


LEADING_CAUTIONS: tuple[NoteCode, ...] = ("context_above_maximum",)
"""Tool warnings an answer states before its verdict: a context past the model's maximum is
not a question of memory (the model was not trained for it), so a 'fits' must not hide it."""


def leading_cautions(report: SizingReport) -> list[Note]:
    """The `LEADING_CAUTIONS` warnings of the report's estimates and recommendation, once each."""
    warnings = [w for m in report.memory if m.estimate is not None for w in m.estimate.warnings]
    if report.recommendation is not None:
        warnings += report.recommendation.warnings
    found: dict[str, Note] = {}
    for note in warnings:
        if note.code in LEADING_CAUTIONS:
            found.setdefault(note.text, note)
    return list(found.values())


def fastest_local(report: SizingReport) -> LocalServingPlan | None:
    """Owned hardware compared for speed ('my 7900 XTX and a 4090, which is faster?'): the
    local plan that decodes one sequence fastest, when two or more lead with a speed each;
    the datacenter comparison, under its own heading, is another engine's."""
    if not report.leads_with_local or report.request.workload.objective != "fastest":
        return None
    timed = [p for p in report.local if p.decode_tokens_per_s is not None]
    if len(timed) < 2:
        return None
    return max(timed, key=lambda p: p.decode_tokens_per_s or 0.0)
