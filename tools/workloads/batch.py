"""Batch / offline jobs (issue 30 item 3): a total of input and output tokens → GPU-hours at
full load on the report's headline layout, wall-clock hours on it and on more replicas, the
job's cost on demand and on spot, the replica count a deadline needs, and the hosted APIs'
price for the same tokens (with a batch discount only where a provider's own page states it).

Full load is the serving model's steady state with every KV slot in use
(`Option.full_load_tokens_per_s`): decode of the batch plus the prefill of the requests that
replace finished ones, at the job's own input:output ratio (`SizingRequest` sets the request
shape from the job). Hours = output tokens ÷ that rate; replicas scale it linearly.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from tools.errors import ToolInputError
from tools.field_factories import empty_list
from tools.limits import FINITE, MAX_CONTEXT_TOKENS, MAX_HOURS, MIN_RATE
from tools.performance.basis import SpeedBasis
from tools.workloads.prices import HourlyQuote

if TYPE_CHECKING:
    from tools.cost.results import ApiComparisonRow
    from tools.recommend import Option

MAX_JOB_TOKENS = 10**16
"""Tokens one job may total (10 quadrillion: far past any corpus named)."""
MAX_REQUESTS = 10**13


class BatchJob(BaseModel):
    """An offline job: its tokens in total (not per request), optionally its request count."""

    model_config = ConfigDict(extra="forbid", **FINITE)

    input_tokens: float = Field(ge=1, le=MAX_JOB_TOKENS)
    output_tokens: float = Field(ge=1, le=MAX_JOB_TOKENS)
    requests: int | None = Field(
        default=None, ge=1, le=MAX_REQUESTS, description="Requests (documents) in the job."
    )
    deadline_hours: float | None = Field(
        default=None, ge=MIN_RATE, le=MAX_HOURS, description="Finish within, hours."
    )

    def request_shape(self, prompt_default: int) -> tuple[int, int]:
        """(prompt, output) tokens per request: the job's totals over its requests, else the
        default prompt with the output at the job's ratio (at least one token each). A shape
        longer than a request may be (`MAX_CONTEXT_TOKENS`) is scaled down to it at the same
        ratio: the shape sets the speed per token, the job's totals stay as said."""
        if self.requests is not None:
            prompt = self.input_tokens / self.requests
            output = self.output_tokens / self.requests
        else:
            prompt = float(prompt_default)
            output = prompt_default * self.output_tokens / self.input_tokens
        scale = min(1.0, MAX_CONTEXT_TOKENS / max(prompt, output))
        return max(1, round(prompt * scale)), max(1, round(output * scale))


class BatchDiscount(BaseModel):
    """A hosted API's batch discount as its provider publishes it."""

    provider: str = Field(description="Provider name substring it applies to.")
    fraction: float = Field(gt=0, lt=1, description="Off the real-time price (0.5: half).")
    up_to: bool = Field(default=False, description="'Up to': the page gives a maximum.")
    source: str
    as_of: str


BATCH_DISCOUNTS: tuple[BatchDiscount, ...] = (
    BatchDiscount(
        provider="openai",
        fraction=0.5,
        source="OpenAI API docs, Batch API guide (https://platform.openai.com/docs/guides/batch): "
        "'Better cost efficiency: 50% cost discount compared to synchronous APIs', as quoted "
        "by OpenAI staff at https://community.openai.com/t/why-batch-api-over-synchronous-apis/"
        "866627/8 (the guide itself is not in the research store)",
        as_of="2026-12-02",
    ),
    BatchDiscount(
        provider="anthropic",
        fraction=0.5,
        source="Anthropic docs, Batch processing (https://platform.claude.com/docs/en/build-"
        "with-claude/batch-processing, formerly docs.anthropic.com): the Message Batches API "
        "'reducing costs by 50%'",
        as_of="2026-12-02",
    ),
    BatchDiscount(
        provider="together",
        fraction=0.5,
        up_to=True,
        source="Together AI docs, Batch inference overview (https://docs.together.ai/docs/"
        "inference/batch/overview): 'up to 50% off serverless rates', on selected models",
        as_of="2026-12-02",
    ),
)
"""Batch discounts with a cited page; providers without one are priced at real-time rates."""


class BatchQuote(BaseModel):
    """The job at one tier's hourly price."""

    quote: HourlyQuote
    job_usd: float = Field(description="Hours × the configuration's USD per hour.")


class ApiJobCost(BaseModel):
    """The job's tokens at a hosted API's per-token prices."""

    api_id: str
    provider: str
    model: str
    as_of: str
    usd: float = Field(description="Input and output tokens at the real-time prices, USD.")
    batch_usd: float | None = Field(
        default=None, description="With the provider's published batch discount, USD."
    )
    discount: BatchDiscount | None = None


class BatchJobResult(BaseModel):
    """The job on the headline layout: rate, hours, GPU-hours, cost, the deadline's count."""

    input_tokens: float
    output_tokens: float
    requests: int | None
    prompt_tokens_per_request: int
    output_tokens_per_request: int
    gpu: str
    gpu_name: str
    count: int = Field(description="GPUs of the layout (all its replicas).")
    tp: int
    replicas: int = Field(description="Replicas in the layout.")
    output_tokens_per_s: float = Field(description="Full-load output tokens/s of the layout.")
    input_tokens_per_s: float = Field(description="Input tokens/s at the job's ratio.")
    hours: float = Field(description="Wall-clock hours on the layout at full load.")
    gpu_hours: float
    basis: SpeedBasis | None = None
    deadline_hours: float | None = None
    replicas_for_deadline: int | None = None
    gpus_for_deadline: int | None = None
    hours_for_deadline: float | None = Field(
        default=None, description="Wall-clock hours on the deadline's GPU count."
    )
    quotes: list[BatchQuote] = Field(default_factory=empty_list)
    apis: list[ApiJobCost] = Field(default_factory=empty_list)
    assumptions: list[str] = Field(default_factory=empty_list)


def _discount(provider: str) -> BatchDiscount | None:
    name = provider.lower()
    return next((d for d in BATCH_DISCOUNTS if d.provider in name), None)


def api_job_costs(
    job: BatchJob, rows: list[ApiComparisonRow], usd_per_eur: float | None
) -> list[ApiJobCost]:
    """The job at each hosted API row's prices (EUR rows at `usd_per_eur`, else left out)."""
    out: list[ApiJobCost] = []
    for row in rows:
        rate = 1.0 if row.currency == "USD" else usd_per_eur if row.currency == "EUR" else None
        if rate is None:
            continue
        usd = job.input_tokens * row.input_per_mtok + job.output_tokens * row.output_per_mtok
        usd = usd / 1e6 * rate
        discount = _discount(row.provider)
        out.append(
            ApiJobCost(
                api_id=row.api_id,
                provider=row.provider,
                model=row.model,
                as_of=row.as_of,
                usd=usd,
                batch_usd=None if discount is None else usd * (1 - discount.fraction),
                discount=discount,
            )
        )
    return sorted(out, key=lambda a: a.batch_usd if a.batch_usd is not None else a.usd)


def size_batch_job(
    job: BatchJob,
    option: Option,
    shape: tuple[int, int],
    quotes: list[HourlyQuote],
    apis: list[ApiJobCost],
) -> BatchJobResult:
    """`job` on `option` (module docstring); ToolInputError when the option has no rate."""
    rate = option.full_load_tokens_per_s
    if rate is None or rate <= 0:
        raise ToolInputError(
            "batch_job", f"no full-load throughput for {option.gpu_name}", "a GPU with a rate"
        )
    hours = job.output_tokens / rate / 3600
    result = BatchJobResult(
        input_tokens=job.input_tokens,
        output_tokens=job.output_tokens,
        requests=job.requests,
        prompt_tokens_per_request=shape[0],
        output_tokens_per_request=shape[1],
        gpu=option.gpu,
        gpu_name=option.gpu_name,
        count=option.count,
        tp=option.tp,
        replicas=option.dp,
        output_tokens_per_s=rate,
        input_tokens_per_s=rate * job.input_tokens / job.output_tokens,
        hours=hours,
        gpu_hours=hours * option.count,
        basis=option.throughput_basis,
        quotes=[BatchQuote(quote=q, job_usd=q.usd_per_hour * hours) for q in quotes],
        apis=apis,
        assumptions=[
            f"Each request {shape[0]:,} tokens in, {shape[1]:,} out (the job's "
            + ("totals over its requests" if job.requests else "ratio, at the default prompt")
            + "); every KV slot busy the whole time (full load); replicas add linearly.",
        ],
    )
    deadline = job.deadline_hours
    if deadline is not None:
        per_replica_hours = hours * option.dp
        replicas = max(1, math.ceil(per_replica_hours / deadline))
        gpus = replicas * option.count // option.dp
        result = result.model_copy(
            update={
                "deadline_hours": deadline,
                "replicas_for_deadline": replicas,
                "gpus_for_deadline": gpus,
                "hours_for_deadline": per_replica_hours / replicas,
            }
        )
    return result
