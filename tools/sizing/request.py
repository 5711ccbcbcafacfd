"""`SizingRequest`: one sizing question, as every surface asks it.

The workload (`tools.workload.Workload`: model, load, targets, constraints), the GPU
configurations the user named (each a GPU and a count), the pricing scope (EU only, the EUR→USD
rate, tiers, providers, usage), the load at which $/M tokens are priced (by default the one
rule in `tools.sizing.headline.price_load`), a budget to check, and whether the question asks
for the longest context that fits. `tools.sizing.size` answers it with a `SizingReport`.

This is also the `size` tool's function-calling schema: descriptions carry units and allowed
values; expert fields the chat does not offer are listed in `SIZE_HIDDEN`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from tools.cost import PriceFilter, UsageProfile
from tools.cost.inputs import HOURS_PER_MONTH, Name
from tools.deployment.buy_vs_rent import BuyOptions
from tools.deployment.engine_rules import ServeEngine
from tools.deployment.speedups import SpeedupOptions
from tools.limits import (
    FINITE,
    MAX_EXCHANGE_RATE,
    MAX_GPUS,
    MAX_LIST_ITEMS,
    MAX_NAME_CHARS,
    MAX_USD_PER_HOUR,
    MIN_EXCHANGE_RATE,
)
from tools.memory.request import OptimizerName
from tools.pricing import DEFAULT_MAX_PRICE_AGE_DAYS, Tier
from tools.sizing.claims import Claim
from tools.workload import Workload
from tools.workloads import LoraServing
from tools.workloads.batch import BatchJob
from tools.workloads.request_rate import RequestRate

PriceLoadBasis = Literal["stated_load", "full_load"]
AskedFigure = Literal[
    "fits",
    "hardware",
    "gpu_count",
    "memory",
    "kv_cache",
    "speed",
    "ttft",
    "throughput",
    "cost",
    "max_context",
    "capacity",
    "compare",
    "training_time",
    "which_models",
]
"""What a question asks for: yes or no (`fits`), what to run it on (`hardware`), how many GPUs,
memory, the KV cache's size, speed per user, time to first token, the full-load throughput, a
cost, the longest context, how many sequences fit, which of several options, how long training
takes, which models the hardware runs."""
BudgetPeriod = Literal["hour", "month"]

MAX_CONFIGURATIONS = 8
"""GPU configurations sized in one request (a comparison names a few)."""


class GpuConfiguration(BaseModel):
    """A GPU configuration the user named: which GPU and how many ('2× H100', 'an L40S')."""

    model_config = ConfigDict(extra="forbid", **FINITE)

    gpu: str | None = Field(
        default=None,
        max_length=MAX_NAME_CHARS,
        description="GPU id or name, e.g. 'h100-sxm'; omit for GPUs not named ('on 4 GPUs').",
    )
    count: int | None = Field(
        default=None,
        ge=1,
        le=MAX_GPUS,
        description="GPUs of it; omit when not said (one GPU is sized, the search finds more).",
    )
    variants: list[Name] = Field(
        default_factory=list,
        max_length=MAX_LIST_ITEMS,
        description="Other catalog GPU ids the same words could mean ('A100': 40 and 80 GB).",
    )
    words: str | None = Field(
        default=None,
        max_length=MAX_NAME_CHARS,
        description="The words the user named it with (quoted in a question).",
    )


class PricingScope(BaseModel):
    """Which prices count and how the configuration is used: the scope every cost figure of
    the report shares (the recommender ranks by the same rows). Bounds as `PriceFilter`'s."""

    model_config = ConfigDict(extra="forbid", **FINITE)

    eu_only: bool = Field(default=False, description="Only prices in EU regions.")
    eur_to_usd: float | None = Field(
        default=None,
        ge=MIN_EXCHANGE_RATE,
        le=MAX_EXCHANGE_RATE,
        description="US dollars per euro, to compare EUR prices in USD.",
    )
    tiers: list[Tier] = Field(
        default_factory=list, max_length=MAX_LIST_ITEMS, description="Price tiers (default all)."
    )
    providers: list[Name] = Field(
        default_factory=list, max_length=MAX_LIST_ITEMS, description="Provider name substrings."
    )
    max_usd_per_hour: float | None = Field(
        default=None,
        gt=0,
        le=MAX_USD_PER_HOUR,
        description="Most USD per hour for a whole configuration.",
    )
    include_superseded: bool = Field(default=False, description="Also historical prices.")
    api_providers: list[Name] = Field(
        default_factory=list,
        max_length=MAX_LIST_ITEMS,
        description="Hosted API providers to compare with (substrings).",
    )
    api_models: list[Name] = Field(
        default_factory=list,
        max_length=MAX_LIST_ITEMS,
        description="Hosted API models to compare with instead of the model's own hosted "
        "prices ('gpt-4o-mini'): another model, compared on price only.",
    )
    max_price_age_days: int = Field(
        default=DEFAULT_MAX_PRICE_AGE_DAYS,
        ge=0,
        le=36_500,
        description="Older prices are stale, days (at most 100 years).",
    )
    usage: UsageProfile = Field(
        default_factory=UsageProfile, description="Utilisation and hours billed a month."
    )
    spot_interruption_overhead: float | None = Field(
        default=None, ge=0, lt=10, description="Spot training: wall-clock lost, fraction."
    )

    @property
    def quote_tier(self) -> Tier:
        """The tier the headline price and $/M tokens are quoted in: on demand unless the
        tiers exclude it (then the first tier asked for)."""
        return "on_demand" if not self.tiers or "on_demand" in self.tiers else self.tiers[0]

    def price_filter(self) -> PriceFilter:
        """The cost tool's filter for this scope."""
        return PriceFilter(
            providers=self.providers,
            eu_only=self.eu_only,
            tiers=self.tiers,
            max_usd_per_hour=self.max_usd_per_hour,
            eur_to_usd=self.eur_to_usd,
            include_superseded=self.include_superseded,
            api_providers=self.api_providers,
            api_models=self.api_models,
        )


class Budget(BaseModel):
    """A budget in USD or EUR, checked against the cheapest priced option."""

    # A EUR budget is compared in USD at the rate the report states (`tools.cost.exchange`).

    model_config = ConfigDict(extra="forbid", **FINITE)

    amount: float = Field(
        gt=0, le=MAX_USD_PER_HOUR * HOURS_PER_MONTH, description="Budget, in `currency`."
    )
    currency: Literal["USD", "EUR"] = "USD"
    period: BudgetPeriod = Field(description="Per 'hour' or per 'month'.")

    @model_validator(mode="before")
    @classmethod
    def _usd_amount(cls, data: object) -> object:
        """`amount_usd` (the field's name in sessions saved before currencies) is a USD
        amount."""
        if isinstance(data, dict) and "amount_usd" in data and "amount" not in data:
            rest = {k: v for k, v in data.items() if k != "amount_usd"}
            return {**rest, "amount": data["amount_usd"], "currency": "USD"}
        return data


class OwnedHardware(BaseModel):
    """The user runs it on hardware they own (issue 29): the llama.cpp / Ollama plan of each
    named configuration, in the best GGUF type that fits, leads the answer."""

    model_config = ConfigDict(extra="forbid", **FINITE)

    launcher: Literal["llama-server", "ollama"] = Field(
        default="llama-server", description="The launcher said (llama.cpp unless Ollama)."
    )
    system_ram_gb: float | None = Field(
        default=None, gt=0, le=100_000, description="System RAM, GB, for offloaded layers."
    )
    mlx: bool = Field(default=False, description="MLX was asked for: add mlx_lm lines.")
    gpu_memory_gb: float | None = Field(
        default=None,
        gt=0,
        le=100_000,
        description="A GPU said only by its memory ('a 24 GB GPU'), GB: the local plan is "
        "sized on it; the catalog cards of that memory are the datacenter alternative.",
    )
    ollama_tag: str | None = Field(
        default=None,
        max_length=MAX_NAME_CHARS,
        description="The Ollama tag the user gave ('qwen3:32b'): the Modelfile's FROM line.",
    )


class SizingRequest(BaseModel):
    """One sizing question: a workload, the GPUs named, the pricing scope, what to answer."""

    model_config = ConfigDict(extra="forbid", **FINITE)

    workload: Workload = Field(description="Model, load, targets and constraints.")
    configurations: list[GpuConfiguration] = Field(
        default_factory=list,
        max_length=MAX_CONFIGURATIONS,
        description="GPUs the user named, each sized; their counts bound the search.",
    )
    named_count_is_limit: bool = Field(
        default=True,
        description="False when other options were asked for: a named count is not a limit.",
    )
    pricing: PricingScope = Field(default_factory=PricingScope, description="Price scope.")
    price_tokens_at: PriceLoadBasis | None = Field(
        default=None,
        description="Load $/M tokens is priced at; default: the stated load, else full load.",
    )
    budget: Budget | None = Field(default=None, description="A USD budget to check.")
    optimizer: OptimizerName | None = Field(
        default=None, description="Training optimizer of the named configurations (adamw)."
    )
    longest_context: bool = Field(
        default=False, description="Find the longest context each named GPU setup holds."
    )
    alternative_weights: str | None = Field(
        default=None,
        max_length=MAX_NAME_CHARS,
        description="Another reading of the weight format the words allow ('full precision': "
        "fp32 beside bf16): each configuration is sized in it too.",
    )
    price_period: BudgetPeriod | None = Field(
        default=None, description="The period a cost is asked in: 'hour' or 'month'."
    )
    pretraining: bool = Field(
        default=False,
        description="A full-training job from scratch (pre-training), not a fine-tune: "
        "adapters (LoRA, QLoRA) are no way out for it.",
    )
    asked: AskedFigure | None = Field(
        default=None,
        description="The figure the question asks for ('fits' for yes/no, 'gpu_count', "
        "'throughput', 'cost', 'memory', 'training_time' …): the answer leads with it.",
    )
    claims: list[Claim] = Field(
        default_factory=list,
        max_length=MAX_LIST_ITEMS,
        description="Rules of thumb the user stated, to check (18 B/param, 126 GB, 4× the "
        "model, 10-20 % more).",
    )
    # --- Owned hardware (issue 29) ---
    owned: OwnedHardware | None = Field(
        default=None,
        description="Hardware the user owns ('my 3090', a Mac, Ollama): the local plan "
        "(llama.cpp/Ollama, best GGUF type that fits) leads; datacenter sizing follows.",
    )
    # issue 30 items 5-7
    serve_engine: ServeEngine | None = Field(
        default=None,
        description="Serving engine whose own KV-pool rule and launch line to give for the "
        "leading option: vllm, sglang, tensorrt-llm, llama.cpp, ollama, mlx.",
    )
    speedups: SpeedupOptions | None = Field(
        default=None,
        description="Speculative decoding, prefix caching or a prefill/decode split to model "
        "on the leading option.",
    )
    buy: BuyOptions | None = Field(
        default=None,
        description="Buying the leading option's GPUs against renting them: tariff, PUE, "
        "card and server prices (defaults stated).",
    )
    # issue 30 items 1-4: workloads beyond plain serving, each sized on the headline layout.
    lora_serving: LoraServing | None = Field(
        default=None, description="LoRA adapters served (not training)."
    )
    batch_job: BatchJob | None = Field(
        default=None, description="Offline job token totals (not per request)."
    )
    request_rate: RequestRate | None = Field(
        default=None, description="Requests/s; a TTFT target (s) at a percentile."
    )

    @model_validator(mode="after")
    def _rate_target(self) -> SizingRequest:
        """A percentile TTFT target bounds the options searched by their TTFT without
        queueing (a prefill slower than the target meets it at no rate), unless the workload
        states its own (issue 30 item 4)."""
        rate = self.request_rate
        w = self.workload
        if rate is None or rate.ttft_s is None or "ttft_s" in w.model_fields_set:
            return self
        self.workload = Workload.model_validate(
            {**w.model_dump(exclude_unset=True), "ttft_s": rate.ttft_s}
        )
        return self

    @model_validator(mode="after")
    def _lora_slots(self) -> SizingRequest:
        """Served adapters' GPU slots are sized in every layout (issue 30 item 4): the
        workload carries `lora_serving`'s slot count and rank, so the recommender's memory
        need includes them and the GPUs it recommends hold them."""
        lora = self.lora_serving
        w = self.workload
        if lora is None or w.is_training or "lora_slots" in w.model_fields_set:
            return self
        users = w.users if "users" in w.model_fields_set else None
        self.workload = Workload.model_validate(
            {
                **w.model_dump(exclude_unset=True),
                "lora_slots": lora.slots(users),
                "lora_slot_rank": lora.slot_rank,
            }
        )
        return self

    @model_validator(mode="after")
    def _batch_job_shape(self) -> SizingRequest:
        """A batch job sets the request shape the serving model runs at (its totals over its
        requests, else its input:output ratio) and ranks by $/M tokens at full load, unless
        the workload says otherwise (issue 30 item 3)."""
        job = self.batch_job
        if job is None:
            return self
        w = self.workload
        update: dict[str, object] = {}
        told = {"prompt_tokens", "output_tokens"} & w.model_fields_set
        if not told:
            prompt, output = job.request_shape(w.prompt_tokens)
            update |= {"prompt_tokens": prompt, "output_tokens": output}
        if "objective" not in w.model_fields_set or w.objective == "cheapest":
            update["objective"] = "cheapest_per_token"  # a fixed job's cheapest: per token
        if update:
            self.workload = Workload.model_validate({**w.model_dump(exclude_unset=True), **update})
        return self

    @model_validator(mode="after")
    def _one_region(self) -> SizingRequest:
        """EU-only in the pricing scope and region 'eu' in the constraints mean one thing:
        either one sets both, so ranking and costs use the same rows."""
        constraints = self.workload.constraints
        if constraints.eu_only and not self.pricing.eu_only:
            self.pricing = self.pricing.model_copy(update={"eu_only": True})
        elif self.pricing.eu_only and not constraints.eu_only:
            self.workload = self.workload.model_copy(
                update={"constraints": constraints.model_copy(update={"region": "eu"})}
            )
        return self


SIZE_HIDDEN = (
    "configurations.variants",
    "configurations.words",
    "pricing.tiers",
    "pricing.providers",
    "pricing.max_usd_per_hour",
    "pricing.include_superseded",
    "pricing.api_providers",
    "pricing.api_models",
    "pricing.max_price_age_days",
    "pricing.usage",
    "pricing.spot_interruption_overhead",
    "optimizer",
    "named_count_is_limit",
    "claims",
    "price_period",
    "alternative_weights",
    "asked",
    "owned",
    "serve_engine",
    "buy",
    "speedups",
    # issue 30 items 1-4: the parts' expert fields (the parser and the CLI set them).
    "lora_serving.max_loras",
    "lora_serving.max_cpu_loras",
    "lora_serving.max_lora_rank",
    "batch_job.requests",
    "batch_job.deadline_hours",
    "request_rate.peak_factor",
    "request_rate.inter_token_s",
)
"""Expert fields the `size` tool does not offer the model (the CLI and the parser set them)."""
