"""Embedding a corpus (issue 30 item 2): an embedding or reranker model's memory, its
throughput in tokens and documents per second, and the time and cost to embed a corpus on each
GPU — a deadline gives the GPU count that meets it.

Encoders run compute-bound (every token of a batch goes through every weight at once), so a
GPU's rate is its dense 16-bit tensor FLOP/s (`tools.performance.hardware.compute_rate`) × the
GEMM efficiency the performance model uses for vLLM prefill on that GPU class
(`tools.performance.efficiency`) ÷ the model's FLOPs per token (`embedding_models`). That
efficiency was fitted on LLM prefill, not on encoders: every speed here is *estimated*.
"""

from __future__ import annotations

import math
from datetime import date

from pydantic import BaseModel, ConfigDict, Field, model_validator

from tools.catalog import GpuSpec, get_catalog
from tools.errors import ToolInputError
from tools.field_factories import empty_list
from tools.limits import FINITE, MAX_GPUS, MAX_HOURS, MAX_LIST_ITEMS, MAX_NAME_CHARS, MIN_RATE
from tools.memory.overhead import (
    CUBLAS_WORKSPACE,
    CUDA_CONTEXT,
    VLLM_LARGE_GPU_BYTES,
    VLLM_SERVER_DEFAULTS,
    VLLM_SERVER_DEFAULTS_LARGE,
)
from tools.performance.basis import SpeedBasis
from tools.performance.efficiency import resolve
from tools.performance.hardware import compute_rate
from tools.pricing import PriceBook, Tier, builtin_price_book, quote_order
from tools.workloads.embedding_models import (
    EmbeddingModel,
    activation_width,
    embedding_model,
    flops_per_token,
    parameters,
)
from tools.workloads.prices import HourlyQuote, hourly_quotes

MAX_DOCUMENTS = 10**13
MAX_CORPUS_TOKENS = 10**16
DEFAULT_TOKENS_PER_DOCUMENT = 512
"""Tokens per document when none is said: the input limit of most BERT-sized embedders (and
the chunk size retrieval pipelines commonly split documents into)."""
WEIGHT_BYTES = 2
"""Bytes per weight: embedding servers load these checkpoints in fp16 / bf16."""
MAX_OPTIONS = 4
"""GPUs listed when none is named: the cheapest for the corpus."""


class EmbeddingRequest(BaseModel):
    """Embed (or rerank) a corpus: the model, the corpus, the GPUs, a deadline."""

    model_config = ConfigDict(extra="forbid", **FINITE)

    model: str = Field(max_length=MAX_NAME_CHARS, description="Embedding/reranker model.")
    documents: int | None = Field(
        default=None,
        ge=1,
        le=MAX_DOCUMENTS,
        description="Texts to embed (reranker: query-document pairs).",
    )
    tokens_per_document: int | None = Field(
        default=None, ge=1, le=2**24, description="Average tokens per text (default 512)."
    )
    total_tokens: float | None = Field(
        default=None, ge=1, le=MAX_CORPUS_TOKENS, description="Corpus size in tokens."
    )
    gpus: list[str] = Field(
        default_factory=empty_list, max_length=MAX_LIST_ITEMS, description="GPUs to size on."
    )
    count: int | None = Field(default=None, ge=1, le=MAX_GPUS, description="GPUs of each.")
    deadline_hours: float | None = Field(
        default=None, ge=MIN_RATE, le=MAX_HOURS, description="Finish within, hours."
    )

    @model_validator(mode="after")
    def _deadline_needs_a_corpus(self) -> EmbeddingRequest:
        if self.deadline_hours is not None and not (self.documents or self.total_tokens):
            raise ValueError("a deadline needs the corpus: documents or total_tokens")
        return self


class EmbeddingOption(BaseModel):
    """The corpus on `count` × one GPU: memory, speed, time, cost."""

    gpu: str
    gpu_name: str
    count: int
    fits: bool
    memory_bytes_per_gpu: int = Field(description="Weights + runtime + one batch, bytes.")
    budget_bytes_per_gpu: int = Field(description="Usable memory per GPU, bytes.")
    tokens_per_s_per_gpu: float
    tokens_per_s: float = Field(description="All `count` GPUs, tokens/s.")
    documents_per_s: float = Field(description="All `count` GPUs, texts/s.")
    hours: float | None = Field(
        default=None, description="Wall-clock hours on `count` GPUs at full load (a corpus)."
    )
    gpu_hours: float | None = None
    quotes: list[HourlyQuote] = Field(default_factory=empty_list)
    job_usd: dict[Tier, float] = Field(
        default_factory=dict, description="The corpus's USD per tier (hours × hourly price)."
    )
    gpus_for_deadline: int | None = Field(
        default=None, description="GPUs of this kind that finish within the deadline."
    )
    compute: str = Field(description="The FLOP/s and efficiency the speed rests on.")

    @property
    def on_demand_usd(self) -> float | None:
        """The job's on-demand USD, if priced."""
        return self.job_usd.get("on_demand")


class EmbeddingResult(BaseModel):
    """One corpus sized: the model, the corpus, each GPU option (cheapest first)."""

    model: EmbeddingModel
    parameters: int
    weights_bytes: int
    flops_per_token: float
    documents: int | None
    tokens_per_document: int | None
    total_tokens: float | None = Field(description="The corpus, tokens; None: speed only.")
    chunks_per_document: int = Field(description="Texts longer than the model's input split.")
    deadline_hours: float | None = None
    options: list[EmbeddingOption]
    unrated: list[str] = Field(
        default_factory=empty_list,
        description="GPUs named that publish no tensor throughput: no speed estimated.",
    )
    basis: SpeedBasis = "estimated"
    assumptions: list[str] = Field(default_factory=empty_list)

    @property
    def headline(self) -> EmbeddingOption | None:
        """The option the answer leads with: the first that fits (cheapest on demand, or the
        GPU named first)."""
        return next((o for o in self.options if o.fits), None)


def _batch_tokens(gpu: GpuSpec) -> int:
    """vLLM's max_num_batched_tokens on this GPU (its server defaults by memory)."""
    large = gpu.memory_bytes >= VLLM_LARGE_GPU_BYTES and "a100" not in gpu.id
    return (VLLM_SERVER_DEFAULTS_LARGE if large else VLLM_SERVER_DEFAULTS)[1]


def _option(
    model: EmbeddingModel,
    gpu: GpuSpec,
    count: int,
    tokens: float | None,
    texts_per_token: float,
    attended: int,
    deadline: float | None,
    book: PriceBook,
    today: date,
) -> EmbeddingOption | None:
    rate = compute_rate(gpu, "bf16")
    if rate is None:
        return None
    # Apple's rate is already effective (published pp rows); others at vLLM's prefill GEMM MFU.
    published = gpu.bf16_tflops is not None or gpu.fp16_tflops is not None
    mfu = resolve(gpu, "bf16", "vllm").gemm_mfu if published else 1.0
    per_gpu = rate.flops_per_s * mfu / flops_per_token(model, attended)
    weights = parameters(model) * WEIGHT_BYTES
    batch = _batch_tokens(gpu) * activation_width(model) * WEIGHT_BYTES
    memory = int(weights + CUDA_CONTEXT.value + CUBLAS_WORKSPACE.value + batch)
    gpu_hours = None if tokens is None else tokens / per_gpu / 3600
    hours = None if gpu_hours is None else gpu_hours / count
    quotes = hourly_quotes(book, gpu.id, count, today)
    need = None
    if deadline is not None and gpu_hours is not None:
        need = max(1, math.ceil(gpu_hours / deadline))
    return EmbeddingOption(
        gpu=gpu.id,
        gpu_name=gpu.name,
        count=count,
        fits=memory <= gpu.usable_memory_bytes,
        memory_bytes_per_gpu=memory,
        budget_bytes_per_gpu=gpu.usable_memory_bytes,
        tokens_per_s_per_gpu=per_gpu,
        tokens_per_s=per_gpu * count,
        documents_per_s=per_gpu * count * texts_per_token,
        hours=hours,
        gpu_hours=gpu_hours,
        quotes=quotes,
        job_usd={} if hours is None else {q.tier: q.usd_per_hour * hours for q in quotes},
        gpus_for_deadline=need,
        compute=f"{rate.flops_per_s / 1e12:,.0f} TFLOP/s ({rate.reason}) × {mfu:.0%} efficiency",
    )


def _on_demand(option: EmbeddingOption) -> HourlyQuote | None:
    return next((q for q in option.quotes if q.tier == "on_demand"), None)


def _per_token_order(option: EmbeddingOption) -> tuple[bool, bool, float]:
    """`tools.pricing.quote_order` over USD per token on demand: fresh and confirmed first."""
    q = _on_demand(option)
    assert q is not None
    return quote_order(q.stale, q.low_confidence, q.usd_per_hour / option.tokens_per_s)


def embed_corpus(
    request: EmbeddingRequest, book: PriceBook | None = None, today: date | None = None
) -> EmbeddingResult:
    """Size `request` (see the module docstring); ToolInputError for an unknown model or GPU."""
    model = embedding_model(request.model)
    book = book or builtin_price_book()
    today = today or date.today()
    assumptions: list[str] = []
    per_doc = request.tokens_per_document
    docs = request.documents
    tokens: float | None = request.total_tokens
    if tokens is not None and docs and per_doc is None:
        per_doc = max(1, round(tokens / docs))  # the corpus and its documents said
    if per_doc is None:
        per_doc = min(DEFAULT_TOKENS_PER_DOCUMENT, model.max_tokens)
        assumptions.append(
            f"{per_doc:,} tokens per text (not stated): the input limit of most BERT-sized "
            "embedders and a common chunk size; documents/s scale inversely with it."
        )
    if tokens is None and docs is not None:
        tokens = float(docs) * per_doc
    length = per_doc
    chunks = math.ceil(length / model.max_tokens)
    if chunks > 1:
        assumptions.append(
            f"Texts of {length:,} tokens exceed {model.name}'s {model.max_tokens:,}-token input: "
            f"split into {chunks} chunks each (the same tokens embedded)."
        )
    attended = min(length, model.max_tokens)
    catalog = get_catalog()
    named: list[GpuSpec] = []
    for index, name in enumerate(request.gpus):
        try:
            named.append(catalog.gpu(name))
        except ToolInputError as exc:
            raise exc.renamed(f"gpus.{index}") from None
    candidates = named or catalog.default_candidates()
    count = request.count or 1
    options: list[EmbeddingOption] = []
    unrated: list[str] = []
    for g in candidates:
        o = _option(
            model, g, count, tokens, 1 / length, attended, request.deadline_hours, book, today
        )
        if o is None:
            unrated.append(g.name)
        else:
            options.append(o)
    if not named:
        # Unnamed GPUs: the cheapest per token on demand (per hour ÷ tokens/s), those priced.
        priced = [o for o in options if o.fits and _on_demand(o) is not None]
        options = sorted(priced, key=_per_token_order)
        options = options[:MAX_OPTIONS]
        if not options:
            raise ToolInputError("gpus", "no default GPU has a price to rank by", "name a GPU")
    assumptions.append(
        "Speed estimated: compute-bound at the GPU's dense 16-bit tensor FLOP/s × the GEMM "
        "efficiency fitted on vLLM's LLM prefill for its class (not fitted on encoders); "
        f"{WEIGHT_BYTES}-byte weights; batches of vLLM's max_num_batched_tokens."
    )
    assumptions.append(
        "Hours at full load: tokenization, I/O and writing the vectors are not counted."
    )
    return EmbeddingResult(
        model=model,
        parameters=parameters(model),
        weights_bytes=parameters(model) * WEIGHT_BYTES,
        flops_per_token=flops_per_token(model, attended),
        documents=request.documents,
        tokens_per_document=length,
        total_tokens=tokens,
        chunks_per_document=chunks,
        deadline_hours=request.deadline_hours,
        options=options,
        unrated=unrated if named else [],
        assumptions=assumptions,
    )
