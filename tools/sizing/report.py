"""`SizingReport`: the one answer to a `SizingRequest` that every surface presents.

Named fields, never list positions: the memory estimate of each configuration the user named
(`memory`), the recommender's ranking (`recommendation`), the prices (`costs`, and `priced`:
each priced configuration's cheapest row in the quote tier), the option the answer leads with
(`headline`, chosen by the one rule in `tools.sizing.headline`), the load $/M tokens is priced
at (`price_load`, with its reason), and the follow-ups: `zero3_resize`, `scale_out`,
`lower_formats`, `layout_breakdown`, `longest_context`, `budget_check`, `question` when a
name the user gave must be resolved first, and `shape_question` when a model known only by its
size fits with some plausible architectures and not with others. Surfaces select, label and
convert units; they never compute a figure or decide which option leads.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from tools.cost import CostComparison
from tools.cost.exchange import RateUsed
from tools.deployment.buy_vs_rent import BuyVsRent
from tools.deployment.engines import EnginePlan
from tools.deployment.speedups import Speedups
from tools.field_factories import empty_list
from tools.local_serving import LocalServingPlan
from tools.memory import MemoryEstimate
from tools.notes import Note
from tools.performance.basis import SpeedBasis
from tools.recommend import Option, Recommendation
from tools.sizing.claims import ClaimCheck
from tools.sizing.configuration import ShapeFit as ShapeFit
from tools.sizing.configuration import ShapeQuestion as ShapeQuestion
from tools.sizing.configuration import SizedConfiguration as SizedConfiguration
from tools.sizing.configuration import SizingError as SizingError
from tools.sizing.request import AskedFigure, PriceLoadBasis, SizingRequest
from tools.workload import Workload
from tools.workloads import LoraServingResult
from tools.workloads.batch import BatchJobResult
from tools.workloads.request_rate import RequestRateResult

HeadlineRule = Literal[
    "named_configuration", "scale_out", "cheapest", "recommender_first", "request_rate"
]


class PriceLoad(BaseModel):
    """The load at which $/M tokens are priced, and why (one rule, stated in every answer)."""

    basis: PriceLoadBasis | Literal["training_job"]
    reason: str = Field(description="One line a surface prints next to a $/M figure.")

    @property
    def label(self) -> str:
        """' at full load' / ' at the stated load' / '' for training: for column headers."""
        return {"full_load": " at full load", "stated_load": " at the stated load"}.get(
            self.basis, ""
        )


class PricedConfiguration(BaseModel):
    """A priced configuration's row in the quote tier by `tools.pricing.quote_order` (fresh
    before stale, confirmed before low confidence, then the lower USD figure): what an answer
    quotes for it."""

    gpu: str
    count: int
    tier: str
    price_id: str
    provider: str
    as_of: str
    age: str | None = Field(
        default=None, description="How old the price is on the caller's clock ('74 days old')."
    )
    stale: bool = False
    low_confidence: bool = Field(
        default=False,
        description="A low-confidence (unconfirmed) rate: quoted only where no confirmed row "
        "as fresh prices the configuration; every surface says so beside it.",
    )
    source: str | None = Field(default=None, description="The price entry's source.")
    confidence: str | None = Field(
        default=None, description="The price entry's research confidence, as written."
    )
    price_notes: str | None = Field(
        default=None, description="The price entry's own notes (why a rate is in doubt)."
    )
    billed_gpus: int
    per_hour: float = Field(description="Hourly price as published, in `currency`.")
    currency: str
    region: str | None = Field(default=None, description="The offer's region as stated.")
    eu: bool = Field(default=False, description="The region is inside the EU.")
    usd_per_hour: float | None = Field(
        default=None, description="USD per hour of the whole configuration (serving rows)."
    )
    usd_per_month: float | None = None
    billed_hours_per_month: float | None = Field(
        default=None, description="Hours a month `usd_per_month` bills (serving rows)."
    )
    usd_per_million_tokens: float | None = Field(
        default=None, description="USD per million output tokens at the report's price load."
    )
    usd_job: float | None = Field(default=None, description="Training: the job's USD.")
    tokens_per_s: float | None = Field(
        default=None,
        description="Output tokens/s of the whole configuration at the price load (what the "
        "$/M figure divides by).",
    )
    sequences_per_replica: int | None = Field(
        default=None, description="Concurrent sequences per replica at the price load."
    )
    tokens_per_s_per_sequence: float | None = Field(
        default=None, description="Decode tokens/s each sequence sees at the price load."
    )
    throughput_basis: SpeedBasis | None = Field(
        default=None,
        description="How the throughput (and so the $/M figure) was obtained: measured, "
        "calibrated or estimated (tools.performance.basis).",
    )

    @property
    def usd(self) -> float:
        """What 'cheapest' compares: the job's USD for training, else USD per hour."""
        value = self.usd_job if self.usd_job is not None else self.usd_per_hour
        assert value is not None  # only rows with a USD figure are quoted
        return value


class Headline(BaseModel):
    """The one option the answer leads with, the rule that chose it and its price."""

    option: Option
    rule: HeadlineRule
    reason: str = Field(description="Why this option leads, in words.")
    weights_format: str
    price: PricedConfiguration | None = None
    gpus_named: int | None = Field(
        default=None,
        description="A GPU count the user named without a GPU type ('on 4 GPUs'): the "
        "options the rule chose among are that many GPUs.",
    )

    @property
    def label(self) -> str:
        """'2× NVIDIA H100 SXM5 (TP 2 × PP 1 × 1 replica(s))'."""
        o = self.option
        return f"{o.count}× {o.gpu_name} (TP {o.tp} × PP {o.pp} × {o.dp} replica(s))"


class ScaleOut(BaseModel):
    """The GPUs the user named do not hold the load: what they hold and what count does."""

    gpu: str
    count: int = Field(description="GPUs named, count.")
    weights_format: str | None = None
    within: Option | None = Field(
        default=None, description="The largest fitting layout within the named GPUs."
    )
    recommendation: Recommendation | None = Field(
        default=None, description="The recommender again without the GPU limit."
    )
    holds: Option | None = Field(
        default=None, description="Its fitting option on the named GPU: what holds the load."
    )


class FormatFit(BaseModel):
    """The named GPUs at a lower weight format: does it fit?"""

    weights: str
    gpu: str
    count: int
    estimate: MemoryEstimate | None = None
    error: SizingError | None = None
    shorter_context: int | None = Field(
        default=None,
        description="When it does not fit one sequence as asked: the longest context per "
        "sequence (tokens, shorter than asked) at which it fits; None otherwise.",
    )


class AlternativeReading(BaseModel):
    """The configurations sized again in another reading of the weight format ('full
    precision' as fp32 beside bf16), with, for a named GPU it does not fit, the fewest of that
    GPU that hold it."""

    weights: str
    memory: list[SizedConfiguration] = Field(default_factory=empty_list)
    fewest: list[SizedConfiguration] = Field(
        default_factory=empty_list,
        description="Per named GPU that does not fit: the fewest that do.",
    )


class ContextFit(BaseModel):
    """The longest context one named configuration holds at batch 1."""

    gpu: str
    count: int
    context_tokens: int = Field(description="Longest fitting context, tokens (0: none fits).")
    gpu_memory_utilization: float | None = Field(
        default=None,
        description="The raised utilisation it needed (or, with none found, was tried at); "
        "None: the engine's default.",
    )
    estimate: MemoryEstimate | None = Field(
        default=None, description="The estimate at that context (or at the one asked)."
    )


class VariantQuestion(BaseModel):
    """A GPU name covers variants on which the verdict differs: ask which one."""

    text: str = Field(description="The words used.")
    fits_on: list[str] = Field(description="Variant names it fits on.")
    not_on: list[str] = Field(description="Variant names it does not fit on.")

    @property
    def question(self) -> str:
        """The question to ask, in words."""
        return (
            f"Which '{self.text}' do you mean? It fits on {', '.join(self.fits_on)} "
            f"but not on {', '.join(self.not_on)}."
        )


class BudgetCheck(BaseModel):
    """A budget against the cheapest priced option in the quote tier, compared in USD."""

    amount: float = Field(description="The budget as stated, in `currency`.")
    currency: Literal["USD", "EUR"] = "USD"
    usd_per_eur: float | None = Field(
        default=None, description="The rate a EUR budget was compared at (the report's)."
    )
    amount_usd: float = Field(description="The budget in USD, as compared.")

    @model_validator(mode="before")
    @classmethod
    def _usd_budget(cls, data: object) -> object:
        """Reports saved before budgets had a currency hold only `amount_usd`: a USD budget."""
        if isinstance(data, dict) and "amount" not in data and "amount_usd" in data:
            return {**data, "amount": data["amount_usd"], "currency": "USD"}
        return data

    period: Literal["hour", "month"]
    within: bool | None = Field(description="None when nothing was priced.")
    cheapest: PricedConfiguration | None = None

    @property
    def cheapest_usd(self) -> float | None:
        """The cheapest option's USD per the budget's period."""
        if self.cheapest is None:
            return None
        if self.period == "hour":
            return self.cheapest.usd_per_hour
        return self.cheapest.usd_per_month


Lever = Literal[
    "shorter_sequence",
    "lower_lora_rank",
    "8bit_optimizer",
    "checkpointing",
    "all_together",
    "lighter_method",
    "more_gpus",
    "shorter_context",
    "fp8_kv_cache",
]


class WayOut(BaseModel):
    """One lever pulled on the closest named configuration, re-sized (training: the levers of
    `tools.sizing.ways_out.ways_out`; serving: a shorter context or an 8-bit KV cache, see
    `serving_ways_out`; what count of the GPU holds a serving load is `SizingReport.scale_out`)."""

    lever: Lever
    gpu: str
    count: int
    zero: int | None = Field(default=None, description="The ZeRO stage of the subject, if any.")
    changes: dict[str, Any] = Field(description="Memory-request fields changed, and to what.")
    estimate: MemoryEstimate | None = None

    @property
    def fits(self) -> bool:
        """Whether the configuration fits with this lever pulled."""
        return self.estimate is not None and bool(self.estimate.fits)


AskedUnit = Literal["bytes", "tokens_per_s", "usd_per_month", "usd_per_hour", "hours"]


class AskedAnswer(BaseModel):
    """The answer to the figure asked: yes/no, or a value in `unit`, and the configuration."""

    asked: AskedFigure
    yes: bool | None = Field(default=None, description="A yes/no question's answer.")
    gpu: str | None = Field(default=None, description="Catalog GPU id the answer is about.")
    count: int | None = Field(default=None, description="GPUs of it, count.")
    replicas: int | None = Field(default=None, description="Data-parallel replicas of it.")
    value: float | None = Field(default=None, description="The figure, in `unit`.")
    unit: AskedUnit | None = None
    total: float | None = Field(
        default=None, description="Throughput: over all replicas of the option, tokens/s."
    )
    basis: SpeedBasis | None = Field(default=None, description="A speed's basis.")
    budget_bytes: int | None = Field(default=None, description="`fits`: budget per GPU, bytes.")
    sequences: int | None = Field(
        default=None, description="`kv_cache`: the sequences the cache holds, count."
    )
    tokens_per_sequence: int | None = Field(
        default=None, description="`kv_cache`: tokens per sequence, tokens."
    )
    bytes_per_token: int | None = Field(
        default=None, description="`kv_cache`: KV cache per token (all layers), bytes."
    )
    kv_dtype: str | None = Field(default=None, description="`kv_cache`: the cache's dtype.")
    holds_load: bool | None = Field(
        default=None, description="`fits` with a load stated: the count named holds it."
    )
    on_gpu_bytes: int | None = Field(
        default=None, description="`memory` on owned hardware: the part on the GPU(s), bytes."
    )


class SizingReport(BaseModel):
    """Everything one sizing question's answer is made of (see the module docstring)."""

    request: SizingRequest
    model_id: str | None = Field(default=None, description="The model sized (catalog id).")
    weights_format: str | None = Field(default=None, description="Weight format sized.")
    memory: list[SizedConfiguration] = Field(default_factory=empty_list)
    question: VariantQuestion | None = None
    shape_question: ShapeQuestion | None = Field(
        default=None,
        description="A model known by its size only whose fit depends on its architecture: "
        "the answer is given for the generic reading, and this asks for the config.",
    )
    search: Workload | None = Field(
        default=None, description="The workload the recommender sized (limits derived)."
    )
    recommendation: Recommendation | None = None
    recommendation_error: SizingError | None = None
    costs: CostComparison | None = None
    costs_error: SizingError | None = None
    priced: list[PricedConfiguration] = Field(default_factory=empty_list)
    priced_nearest: bool = Field(
        default=False,
        description="Nothing meets the targets: the nearest fitting options were priced.",
    )
    price_load: PriceLoad
    users_stated: bool = Field(
        default=True,
        description="False: the request gave no user count, so memory and speed are for one "
        "sequence at a time; what named GPUs hold is said as sequences, no user count invented.",
    )
    headline: Headline | None = None
    zero3_resize: list[SizedConfiguration] = Field(default_factory=empty_list)
    scale_out: ScaleOut | None = None
    lower_formats: list[FormatFit] = Field(default_factory=empty_list)
    layout_breakdown: SizedConfiguration | None = None
    longest_context: list[ContextFit] = Field(default_factory=empty_list)
    budget_check: BudgetCheck | None = None
    alternative: AlternativeReading | None = Field(
        default=None, description="The same configurations in the other reading of the format."
    )
    ways_out: list[WayOut] = Field(
        default_factory=empty_list,
        description="Nothing named fits a training job: each lever pulled, and all together. "
        "A named serving configuration that does not fit: the longest context it holds at the "
        "format and load asked, and an 8-bit KV cache when that makes it fit (or fit longer).",
    )
    claim_checks: list[ClaimCheck] = Field(
        default_factory=empty_list, description="The user's rules of thumb, checked."
    )
    exchange_rate: RateUsed | None = Field(
        default=None, description="The EUR→USD rate the USD figures of EUR prices used."
    )
    asked_answer: AskedAnswer | None = Field(
        default=None, description="The figure the question asked for (`tools.sizing.asked`)."
    )
    notes: list[Note] = Field(default_factory=empty_list)
    # --- Owned hardware (issue 29): the local plans, and whether they lead ---
    local: list[LocalServingPlan] = Field(
        default_factory=empty_list,
        description="The llama.cpp / Ollama plan of each named configuration (owned hardware).",
    )
    local_errors: list[SizingError] = Field(default_factory=empty_list)
    leads_with_local: bool = Field(
        default=False,
        description="The local plan is the answer's verdict; the datacenter sizing (vLLM, "
        "several GPUs) is the alternative (`tools.sizing.headline.local_leads`).",
    )
    # issue 30 items 5-7
    engine_plan: EnginePlan | None = Field(
        default=None,
        description="The leading option under the serving engine asked for: its own KV-pool "
        "rule and the launch line (`tools.deployment.engines`).",
    )
    engine_plan_error: SizingError | None = None
    speedups: Speedups | None = Field(
        default=None,
        description="Speculative decoding, prefix caching, prefill/decode split on the leading "
        "option (`tools.deployment.speedups`).",
    )
    speedups_error: SizingError | None = None
    buy_vs_rent: BuyVsRent | None = Field(
        default=None,
        description="Buying the leading option's GPUs against renting them at its quoted "
        "price (`tools.deployment.buy_vs_rent`).",
    )
    # issue 30 items 1-4: the workload parts, each on the headline layout (`tools.workloads`).
    lora_serving: LoraServingResult | None = Field(
        default=None, description="The LoRA adapters' memory and the vLLM launch line."
    )
    batch_job: BatchJobResult | None = Field(
        default=None, description="An offline job's hours, GPU-hours and cost on the headline."
    )
    request_rate: RequestRateResult | None = Field(
        default=None, description="A request rate's concurrency, percentiles and replicas."
    )
    workloads_error: SizingError | None = Field(
        default=None, description="A workload part that could not be sized, and why."
    )

    @property
    def is_training(self) -> bool:
        """Whether a training task (full, LoRA, QLoRA) was sized."""
        return self.request.workload.is_training

    def results(self) -> list[BaseModel]:
        """Every tool result the report holds, in the order the tools ran: memory per
        configuration named, the recommender, the serving costs, then the follow-ups (ZeRO-3,
        the scale-out search, lower formats, the recommended layout)."""
        out: list[BaseModel] = [*self.local]
        out += [m.estimate for m in self.memory if m.estimate is not None]
        if self.recommendation is not None:
            out.append(self.recommendation)
        if self.costs is not None and self.costs.serving is not None:
            out.append(self.costs.serving)
        out += [z.estimate for z in self.zero3_resize if z.estimate is not None]
        if self.scale_out is not None and self.scale_out.recommendation is not None:
            out.append(self.scale_out.recommendation)
        out += [f.estimate for f in self.lower_formats if f.estimate is not None]
        layout = self.layout_breakdown
        if layout is not None and layout.estimate is not None:
            out.append(layout.estimate)
        return out

    @property
    def assumptions(self) -> list[str]:
        """Every assumption the tools stated, once each, in the order they ran."""
        items = [str(a) for r in self.results() for a in getattr(r, "assumptions", [])]
        return list(dict.fromkeys(items))

    @property
    def warnings(self) -> list[str]:
        """Every warning the tools gave about the request, once each."""
        items = [str(w) for r in self.results() for w in getattr(r, "warnings", [])]
        return list(dict.fromkeys(items))

    @property
    def converted_eur(self) -> bool:
        """Whether a EUR price was converted into a USD figure this report shows or ranks."""
        costs = self.costs
        if costs is None or self.exchange_rate is None:
            return False
        rows: list[Any] = []
        if costs.serving is not None:
            rows += [*costs.serving.rows, *costs.serving.api_comparison]
        if costs.training is not None:
            rows += costs.training.rows
        return any(getattr(r, "currency", "USD") == "EUR" for r in rows)

    @property
    def eur_rate_leads(self) -> bool:
        """Whether the EUR→USD rate bears on what the answer leads with, so it is stated up
        front rather than with the tools' other assumptions: the headline's price is a EUR
        offer, EU-only prices were asked, or the rate is the user's own."""
        if not self.converted_eur or self.exchange_rate is None:
            return False
        headline = None if self.headline is None else self.headline.price
        return (
            self.exchange_rate.basis == "given"
            or self.request.pricing.eu_only
            or (headline is not None and headline.currency != "USD")
        )

    def option_at(self, gpu: str | None, count: int) -> Option | None:
        """The recommender's fitting option of `gpu` at exactly `count` GPUs
        (`Recommendation.fitting_at`, the one selector); None without a recommendation."""
        rec = self.recommendation
        return None if rec is None else rec.fitting_at(gpu, count)

    def larger_on(self, gpu: str, count: int) -> Option | None:
        """The fitting option of `gpu` above `count` GPUs that the verdict states: the
        headline when a request rate chose it on that GPU (its count is the replicas the
        rate needs, `tools.sizing.workloads.rate_deployment`), else the recommender's own
        choice for that GPU (`Recommendation.fitting_on`); None without a recommendation."""
        head = self.headline
        option = None if head is None or head.rule != "request_rate" else head.option
        if option is not None and option.fits and option.gpu == gpu and option.count > count:
            return option
        rec = self.recommendation
        return None if rec is None else rec.fitting_on(gpu, above=count)

    def price_of(self, gpu: str, count: int) -> PricedConfiguration | None:
        """The priced row quoted for (GPU, count), if that configuration was priced."""
        return next((p for p in self.priced if p.gpu == gpu and p.count == count), None)
