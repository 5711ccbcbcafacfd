"""`ParsedWorkload` → the tool calls that answer it: one `size` call (`tools.sizing`) and, for
llama.cpp / Ollama / GGUF questions, the `plan_local_serving` calls.

The arguments are exactly what a model would send: `size` takes `tools.sizing.SizingRequest`
fields (the workload as `tools.workload.Workload` fields, the GPU configurations named, the
pricing scope, a budget, a max-context question). Only what the text said is passed: the tools
fill in the defaults and state them in their assumptions. Policy — which option leads, at which
load $/M is priced, what a named GPU count means, the follow-ups — is decided by
`tools.sizing`, not here. No figure is computed here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from assistant.offline.names import gpus_with_capacity
from assistant.offline.parser.scope import sizes_something
from assistant.reading.of_parsed import asked_figure
from assistant.reading.parsed import GpuMention, ParsedWorkload
from tools.cost.inputs import HOURS_PER_MONTH
from tools.memory.kv_cache import EXLLAMAV2_KV_DTYPES, LLAMA_CPP_KV_DTYPES
from tools.workload import Workload

# How many GPUs of an unnamed capacity ("a single 80 GB GPU") to size one by one: the catalog's
# largest same-capacity group (24 GB: A10G, A10, L4, RTX 4090; 80 GB: A100 ×2, H100 ×2), so a
# card is never left out of the memory verdict for coming late in catalog order.
_MAX_CAPACITY_MATCHES = 4
_GLOBAL_BATCH_DEFAULT = Workload.model_fields["global_batch_sequences"].default


@dataclass(frozen=True)
class PlannedCall:
    """One tool call: the registered tool `name` and its JSON-ready `arguments`."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


def _model_args(parsed: ParsedWorkload) -> dict[str, Any]:
    args: dict[str, Any] = {}
    if parsed.model_file is not None:
        args["model_file"] = parsed.model_file
    elif parsed.model is not None:
        args["model"] = parsed.model
    elif parsed.params is not None:
        args["params"] = parsed.params
    for name in ("weights", "kv_dtype", "engine", "engine_version", "lora_rank", "checkpointing"):
        if name == "lora_rank" and parsed.lora_adapters is not None:
            continue  # the served adapters' rank: the LoRA serving part's (issue 30)
        value = getattr(parsed, name)
        if value is not None:
            args[name] = value
    if parsed.task is not None:
        args["task"] = parsed.task
    return args


def _context(parsed: ParsedWorkload) -> int | None:
    if parsed.context is not None:
        return parsed.context
    if parsed.tokens_per_example is not None:
        return parsed.tokens_per_example
    return None


def described_gpus(parsed: ParsedWorkload) -> list[str]:
    """Catalog ids of an unnamed GPU described by its memory and/or as a consumer card ('a 24 GB
    consumer card'); empty when neither was said or nothing in the catalog matches."""
    if parsed.gpu_memory_bytes is None and not parsed.consumer_gpu:
        return []
    return gpus_with_capacity(parsed.gpu_memory_bytes, consumer=parsed.consumer_gpu)


def workload_arguments(parsed: ParsedWorkload) -> dict[str, Any]:
    """`tools.workload.Workload` fields for the recommender (only what the text said)."""
    training = parsed.task not in (None, "inference")
    args = _model_args(parsed) | _shape_arguments(parsed, training)
    args |= _target_arguments(parsed, training)
    constraints = _search_constraints(parsed)
    if constraints:
        args["constraints"] = constraints
    return args


def _shape_arguments(parsed: ParsedWorkload, training: bool) -> dict[str, Any]:
    """The request or sequence shape said: token lengths, the context (a training job's
    sequence length), concurrent users for serving (a serving batch is that many users) or the
    per-GPU and global batch for training."""
    args: dict[str, Any] = {}
    if parsed.prompt_tokens is not None:
        args["prompt_tokens"] = parsed.prompt_tokens
    if parsed.output_tokens is not None:
        args["output_tokens"] = parsed.output_tokens
    context = _context(parsed)
    if context is not None:
        args["sequence_length" if training else "context"] = context
    users = parsed.users or parsed.batch
    if users is not None and not training:
        args["users"] = users
    if parsed.batch is not None and training:
        # A training batch is per GPU (the memory tool's micro-batch), for every layout sized.
        args["micro_batch_sequences"] = parsed.batch
        args["global_batch_sequences"] = max(parsed.batch, _GLOBAL_BATCH_DEFAULT)
    return args


def _target_arguments(parsed: ParsedWorkload, training: bool) -> dict[str, Any]:
    """The targets and the objective said: speeds, TTFT, the training data, its deadline (only
    with the data size, which the recommender needs to use one), the ZeRO stage (training)."""
    args: dict[str, Any] = {}
    for name in ("tokens_per_s", "tokens_per_s_per_user", "ttft_s", "deadline_hours"):
        value = getattr(parsed, name)
        if value is not None:
            args[name] = value
    if parsed.train_tokens is not None:
        args["train_tokens"] = parsed.train_tokens
    else:
        args.pop("deadline_hours", None)
    if parsed.zero is not None and training:
        args["zero"] = parsed.zero
    if parsed.objective is not None:
        args["objective"] = parsed.objective
    return args


def _search_constraints(parsed: ParsedWorkload) -> dict[str, Any]:
    """`tools.workload.Constraints` fields said: the GPUs named (else those described by
    memory or as a consumer card), a GPU count said without a GPU, NVLink, the region, an
    hourly USD budget. Empty when none was said."""
    constraints: dict[str, Any] = {}
    named = parsed.named_gpu_ids or described_gpus(parsed)
    if named:
        constraints["only_gpus"] = named
    # A GPU count named with the GPU ("on 8× H200") bounds the search in tools.sizing.
    if parsed.gpu_count is not None and not parsed.gpus:
        constraints["max_gpus"] = parsed.gpu_count
    if parsed.interconnects == ["nvlink"]:
        constraints["require_fast_interconnect"] = True
    if parsed.region is not None:
        constraints["region"] = parsed.region
    hourly_usd = parsed.budget_currency == "USD" and parsed.budget_period == "hour"
    if hourly_usd and parsed.budget_amount is not None:
        constraints["budget_usd_per_hour"] = parsed.budget_amount
    return constraints


def configurations(parsed: ParsedWorkload) -> list[dict[str, Any]]:
    """The GPU configurations named (`tools.sizing.GpuConfiguration` fields): each GPU mention
    with its count and the variants its words could mean; else the catalog GPUs of a capacity
    described ('a 24 GB card'); else GPUs counted without a name ('on 4 GPUs')."""
    out: list[dict[str, Any]] = []
    for mention in parsed.gpus:
        if mention.memory_bytes is not None:
            continue  # a GPU the catalog lacks: the local-serving plan sizes it
        config: dict[str, Any] = {"words": mention.text}
        if mention.gpu is not None:
            config["gpu"] = mention.gpu
        if mention.count is not None:
            config["count"] = mention.count
        if mention.variants:
            config["variants"] = list(mention.variants)
        if config not in out:
            out.append(config)
    if not out and not parsed.gpus:
        out = [
            {"gpu": gpu_id, **({} if parsed.gpu_count is None else {"count": parsed.gpu_count})}
            for gpu_id in described_gpus(parsed)[:_MAX_CAPACITY_MATCHES]
        ]
    if not out and parsed.gpu_count is not None:
        out = [{"count": parsed.gpu_count}]
    return out


def sizing_arguments(parsed: ParsedWorkload) -> dict[str, Any]:
    """`tools.sizing.SizingRequest` fields for `parsed` (only what the text said)."""
    training = parsed.task not in (None, "inference")
    args: dict[str, Any] = {"workload": workload_arguments(parsed)}
    configs = configurations(parsed)
    if configs:
        args["configurations"] = configs
    if parsed.alternatives:
        args["named_count_is_limit"] = False
    pricing = pricing_arguments(parsed, training)
    if pricing:
        args["pricing"] = pricing
    budget = budget_argument(parsed)
    if budget is not None:
        args["budget"] = budget
    if parsed.optimizer is not None and training:
        args["optimizer"] = parsed.optimizer
    if parsed.max_context and not training:
        args["longest_context"] = True
    if parsed.alternative_weights is not None and parsed.weights != parsed.alternative_weights:
        args["alternative_weights"] = parsed.alternative_weights
    if parsed.price_period is not None:
        args["price_period"] = parsed.price_period
    if training and parsed.use == "pre-train" and parsed.task == "full":
        args["pretraining"] = True
    if parsed.claims:
        args["claims"] = [c.model_dump(mode="json", exclude_defaults=True) for c in parsed.claims]
    args |= deployment_arguments(parsed, training)
    asked = asked_figure(parsed)
    if asked != "hardware":
        args["asked"] = asked
    if runs_locally(parsed) and not training:
        args["owned"] = owned_argument(parsed)
    return with_workload_parts(args, parsed)  # issue 30 items 1-4


_SERVING_ENGINES = ("vllm", "sglang", "tgi", "tensorrt-llm", "lmdeploy")


def runs_locally(parsed: ParsedWorkload) -> bool:
    """Owned hardware run as owners run it (llama.cpp / Ollama, issue 29) — unless the question
    names a serving engine for it ('my H100 with vLLM'): that is the engine it runs, sized as
    such, never a llama.cpp plan put in its place — or asks how many GPUs it needs: then the
    count leads (issue 27 item 5)."""
    if parsed.asked == "gpu_count":
        return False  # 'how many 3090s do I need?': the count leads, not a plan for the ones had
    if (
        parsed.engine == "exllamav2"
        or (parsed.weights or "").startswith("exl2-")
        or parsed.kv_dtype in EXLLAMAV2_KV_DTYPES
    ):
        return False  # ExLlamaV2 / EXL2 / its Q cache is not a llama.cpp plan: exllamav2 leads
    engine = parsed.serve_engine or parsed.engine_named
    return parsed.owned and (parsed.launcher is not None or engine not in _SERVING_ENGINES)


def deployment_arguments(parsed: ParsedWorkload, training: bool) -> dict[str, Any]:
    """The issue 30 items 5-7 fields for `parsed`: the serving engine whose rule and launch
    line to give, buying against renting, and the speed-ups to model (serving only)."""
    args: dict[str, Any] = {}
    if parsed.buy_asked:
        buy = {
            k: v
            for k in ("usd_per_kwh", "pue", "purchase_usd_per_gpu")
            if (v := getattr(parsed, k)) is not None
        }
        args["buy"] = buy
    if training:
        return args
    if parsed.serve_engine is not None:
        args["serve_engine"] = parsed.serve_engine
    if parsed.speculative or parsed.prefix_caching or parsed.disaggregated:
        fields = (
            *("speculative", "draft_model", "draft_params", "acceptance_rate", "draft_tokens"),
            *("cached_prefix_fraction", "prefix_caching", "disaggregated"),
        )
        args["speedups"] = {k: v for k in fields if (v := getattr(parsed, k)) not in (None, False)}
    return args


def pricing_arguments(parsed: ParsedWorkload, training: bool) -> dict[str, Any]:
    """`tools.sizing.PricingScope` fields for `parsed`: EU only, the hosted APIs named and the
    token volume said (serving only for the last two)."""
    pricing: dict[str, Any] = {}
    if parsed.region == "eu":
        pricing["eu_only"] = True
    if training:
        return pricing
    if parsed.api_providers:
        pricing["api_providers"] = list(dict.fromkeys(parsed.api_providers))
    if parsed.api_models:
        pricing["api_models"] = list(dict.fromkeys(parsed.api_models))
    if parsed.output_tokens_per_day is not None:
        # The volume said, per billing month (730 h = 730/24 days): both bills at it.
        volume = parsed.output_tokens_per_day * HOURS_PER_MONTH / 24
        pricing["usage"] = {"output_tokens_per_month": volume}
    return pricing


def owned_argument(parsed: ParsedWorkload) -> dict[str, Any]:
    """`tools.sizing.OwnedHardware` of an owned-hardware question (issue 29)."""
    owned: dict[str, Any] = {"launcher": parsed.launcher or "llama-server"}
    if parsed.system_ram_bytes is not None:
        owned["system_ram_gb"] = parsed.system_ram_bytes / 1e9
    if parsed.local_app == "mlx":
        owned["mlx"] = True
    if parsed.gpu_memory_bytes is not None and not any(m.gpu for m in parsed.gpus):
        owned["gpu_memory_gb"] = parsed.gpu_memory_bytes / 1e9  # 'a 24 GB GPU', as said
    if parsed.launcher == "ollama" and parsed.model_text and ":" in parsed.model_text:
        owned["ollama_tag"] = parsed.model_text  # the tag itself: the Modelfile's FROM line
    return owned


def hardware_arguments(mention: GpuMention) -> dict[str, Any] | None:
    """The hardware fields of `plan_local_serving` and `fits_on_hardware` for one GPU said:
    a catalog id, or the memory (and unified-memory rule) of one the catalog lacks, and a
    count above one (as said: a count past a tool's bound is its error to state); None when
    neither was read."""
    args: dict[str, Any]
    if mention.memory_bytes is not None:
        args = {"gpu_memory_gb": mention.memory_bytes / 1e9}
        if mention.unified_memory is not None:
            args["gpu_unified_memory"] = mention.unified_memory
    elif mention.gpu is not None:
        args = {"gpu": mention.gpu}
    else:
        return None
    if mention.count is not None and mention.count > 1:
        args["gpus"] = mention.count
    return args


def fits_calls(parsed: ParsedWorkload) -> list[PlannedCall]:
    """`fits_on_hardware` per hardware named, for 'what can I run on my 24 GB GPU?'."""
    said: dict[str, Any] = {}
    if parsed.context is not None:
        said["context"] = parsed.context
    if parsed.fits_rank is not None:
        said["rank_by"] = parsed.fits_rank
    calls: list[PlannedCall] = []
    for mention in parsed.gpus:
        hardware = hardware_arguments(mention)
        if hardware is not None:
            calls.append(PlannedCall("fits_on_hardware", {**said, **hardware}))
    if not calls and parsed.gpu_memory_bytes is not None:
        memory = {"gpu_memory_gb": parsed.gpu_memory_bytes / 1e9}
        calls.append(PlannedCall("fits_on_hardware", {**said, **memory}))
    return calls


def with_workload_parts(args: dict[str, Any], parsed: ParsedWorkload) -> dict[str, Any]:
    """`args` with the workload parts said: a batch job's cost and hours, and a rate's
    percentiles, lead their answer in place of the figure asked; a rate's TTFT target is its
    percentile target (the size request bounds the search by it)."""
    args |= workload_parts(parsed)
    if "batch_job" in args and args.get("asked") in ("cost", "throughput", "hardware"):
        del args["asked"]
    if "request_rate" in args:
        args["workload"].pop("ttft_s", None)
        if args.get("asked") in ("ttft", "speed", "hardware"):
            del args["asked"]
    return args


def embedding_arguments(parsed: ParsedWorkload) -> dict[str, Any]:
    """`tools.workloads.embedding.EmbeddingRequest` fields (issue 30 item 2): the model, the
    corpus said, the GPUs named with their count, a deadline."""
    args: dict[str, Any] = {"model": parsed.embedding_model}
    for name, key in (
        ("documents", "documents"),
        ("tokens_per_document", "tokens_per_document"),
        ("corpus_tokens", "total_tokens"),
    ):
        value = getattr(parsed, name)
        if value is not None:
            args[key] = value
    named = parsed.named_gpu_ids or described_gpus(parsed)
    if named:
        args["gpus"] = named
    count = next((m.count for m in parsed.gpus if m.count is not None), parsed.gpu_count)
    if count is not None:
        args["count"] = count
    if parsed.deadline_hours is not None and ("documents" in args or "total_tokens" in args):
        args["deadline_hours"] = parsed.deadline_hours
    return args


def workload_parts(parsed: ParsedWorkload) -> dict[str, Any]:
    """The `SizingRequest` workload parts the text said (issue 30 items 1-4)."""
    parts: dict[str, Any] = {}
    if parsed.lora_adapters is not None:
        lora: dict[str, Any] = {"adapters": parsed.lora_adapters}
        if parsed.lora_rank is not None:
            lora["max_lora_rank"] = parsed.lora_rank
        parts["lora_serving"] = lora
    job = batch_job_argument(parsed)
    if job is not None:
        parts["batch_job"] = job
    if parsed.requests_per_s is not None:
        rate: dict[str, Any] = {"requests_per_s": parsed.requests_per_s}
        if parsed.peak_factor is not None:
            rate["peak_factor"] = parsed.peak_factor
        targets = {"ttft_s": parsed.ttft_s, "inter_token_s": parsed.inter_token_target_s}
        targets = {k: v for k, v in targets.items() if v is not None}
        if targets or parsed.latency_percentile is not None:
            # A target said without a percentile is the median's.
            rate["percentile"] = parsed.latency_percentile or 50
        parts["request_rate"] = rate | targets
    return parts


def batch_job_argument(parsed: ParsedWorkload) -> dict[str, Any] | None:
    """`tools.workloads.batch.BatchJob` fields: the totals said, or documents × the lengths
    per document; None when no job was said (the parser asks for a missing length)."""
    job: dict[str, Any] = {}
    if parsed.batch_input_tokens is not None and parsed.batch_output_tokens is not None:
        job = {"input_tokens": parsed.batch_input_tokens}
        job["output_tokens"] = parsed.batch_output_tokens
    elif parsed.batch_requests is not None:
        if parsed.prompt_tokens is None or parsed.output_tokens is None:
            return None
        job = {"input_tokens": parsed.batch_requests * parsed.prompt_tokens}
        job["output_tokens"] = parsed.batch_requests * parsed.output_tokens
        job["requests"] = parsed.batch_requests
    else:
        return None
    if parsed.deadline_hours is not None:
        job["deadline_hours"] = parsed.deadline_hours
    return job


_PER_MONTH = {"day": HOURS_PER_MONTH / 24, "year": 1 / 12}
"""A budget per day or per year as one per billing month (730 h)."""


def budget_argument(parsed: ParsedWorkload) -> dict[str, Any] | None:
    """The `tools.sizing.Budget` of the budget said, in USD or EUR per hour or month (a day's or
    a year's per month); None when none was said, or it is a total (checked by no rental
    price) or in a currency the catalog has no rate for (asked back by the parser)."""
    amount, currency, period = parsed.budget_amount, parsed.budget_currency, parsed.budget_period
    if amount is None or currency not in ("USD", "EUR") or period in (None, "total"):
        return None
    if period in _PER_MONTH:
        return {"amount": amount * _PER_MONTH[period], "currency": currency, "period": "month"}
    return {"amount": amount, "currency": currency, "period": period}


LONG_CONTEXT_READING = 32_768
"""Tokens a 'long-context' question with no length is sized at to show figures while it is
asked how long (32k: the context length most long-context serving guides start from)."""


@dataclass(frozen=True)
class DefaultReading:
    """The workload a clarifying question's figures are for, and how it was read."""

    workload: ParsedWorkload
    readings: list[str]


def default_reading(parsed: ParsedWorkload) -> DefaultReading | None:
    """The workload to show figures for while a question is asked (issue 18, class 12): the
    facts read so far, without the ones in doubt — GPUs the catalog lacks left out (sized on
    no GPU), out-of-range figures left out, 'long-context' at `LONG_CONTEXT_READING` tokens.
    None when no model was resolved (a figure of another model would mislead)."""
    if not parsed.has_model or not parsed.questions:
        return None
    readings: list[str] = []
    update: dict[str, Any] = {"questions": [], "unplaced": []}
    unknown = [m for m in parsed.gpus if m.gpu is None and m.memory_bytes is None]
    if unknown:
        update["gpus"] = [m for m in parsed.gpus if m not in unknown]
        names = ", ".join(f"'{m.text}'" for m in unknown)
        readings.append(f"without {names}: the model on one GPU of any kind")
    if parsed.long_context and parsed.context is None and parsed.prompt_tokens is None:
        update["context"] = LONG_CONTEXT_READING
        readings.append(f"long context read as {LONG_CONTEXT_READING:,} tokens")
    if parsed.unplaced:
        readings.append("without " + "; ".join(f"'{u}'" for u in parsed.unplaced))
    return DefaultReading(parsed.model_copy(update=update), readings)


def scope_only(parsed: ParsedWorkload) -> bool:
    """Only something gpu-sizer cannot answer was asked (`parser.scope`): nothing is sized, so
    no figure of another question stands in for it."""
    return bool(parsed.out_of_scope) and not sizes_something(parsed)


def plan_tool_calls(parsed: ParsedWorkload) -> list[PlannedCall]:
    """The calls that answer `parsed`; empty while a verdict-changing fact is missing.

    One `size` call (memory for each configuration named, the recommender, costs and the
    follow-ups, in `tools.sizing`), after the llama.cpp / Ollama plans when the question is
    about local serving; a GPU the catalog lacks gets the local plans only (a recommender over
    catalog GPUs would put another GPU in its place).
    """
    if parsed.asked == "which_models" and not parsed.questions:
        # 'I run Mistral 7B on my 3060, which bigger model can I run?': the list asked for,
        # never a sizing of the model named as what runs now (a different question).
        calls = fits_calls(parsed)
        if calls or not parsed.has_model:
            return calls
    if parsed.embedding_model is not None and not parsed.questions:
        return [PlannedCall("embed_corpus", embedding_arguments(parsed))]  # issue 30 item 2
    if parsed.questions or not parsed.has_model or scope_only(parsed):
        return []
    local = local_serving_calls(parsed)
    if any(m.memory_bytes is not None for m in parsed.gpus):
        return local
    return [*local, PlannedCall("size", sizing_arguments(parsed))]


def _is_local(parsed: ParsedWorkload) -> bool:
    from tools.memory.formats import GGUF_FORMATS

    return (
        parsed.launcher is not None
        or parsed.model_file is not None
        or parsed.weights in GGUF_FORMATS
        or parsed.kv_dtype in LLAMA_CPP_KV_DTYPES
        or any(m.memory_bytes is not None for m in parsed.gpus)
    )


def local_serving_calls(parsed: ParsedWorkload) -> list[PlannedCall]:
    """`plan_local_serving` per GPU named (catalog or given by its memory) when the question
    is about llama.cpp / Ollama / a GGUF, or a GPU the catalog lacks: how many layers fit, the
    system RAM for the rest, the estimated speed and the launch line."""
    if not _is_local(parsed):
        return []
    base = {k: v for k, v in _model_args(parsed).items() if k not in ("task", "engine")}
    base.pop("lora_rank", None)
    base.pop("checkpointing", None)
    if parsed.context is not None:
        base["context"] = parsed.context
    if (parsed.users or parsed.batch) is not None:
        base["parallel"] = parsed.users or parsed.batch
    if parsed.launcher is not None:
        base["launcher"] = parsed.launcher
    if parsed.launcher == "ollama" and parsed.model_text and ":" in parsed.model_text:
        base["model"] = parsed.model_text  # the tag itself: the Modelfile's FROM line
    if parsed.system_ram_bytes is not None:
        base["system_ram_gb"] = parsed.system_ram_bytes / 1e9
    calls: list[PlannedCall] = []
    owned_in_size = runs_locally(parsed) and parsed.task in (None, "inference")
    if owned_in_size and parsed.weights is None:
        base["choose_format"] = True
    for mention in parsed.gpus:
        args = dict(base)
        if mention.memory_bytes is None and owned_in_size:
            continue  # a catalog GPU's plan is in the sizing report (`owned`)
        hardware = hardware_arguments(mention)
        if hardware is None:
            continue
        args |= hardware
        if mention.memory_bytes is not None:
            args["gpu_name"] = mention.text
        call = PlannedCall("plan_local_serving", args)
        if call not in calls:
            calls.append(call)
    if not calls and not owned_in_size:
        for gpu_id in described_gpus(parsed)[:_MAX_CAPACITY_MATCHES]:
            calls.append(PlannedCall("plan_local_serving", {**base, "gpu": gpu_id}))
    return calls
