"""`ParsedWorkload` → the tool calls that answer it (names and arguments of registered tools).

The arguments are exactly what a model would send: `estimate_memory` takes
`tools.memory.MemoryRequest` fields, `recommend` takes `tools.workload.Workload` fields and
`compare_costs` the cost tool's request. Defaults the parser did not get from the text are left
to the tools, which state them in their assumptions. No figure is computed here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from assistant.offline.names import gpus_with_capacity
from assistant.offline.parsed import ParsedWorkload
from tools.catalog import get_catalog
from tools.cost.inputs import HOURS_PER_MONTH
from tools.errors import ToolInputError
from tools.workload import validate_workload

# How many GPUs of an unnamed capacity ("a single 80 GB GPU") to size one by one: the catalog's
# largest same-capacity group (24 GB: A10G, A10, L4, RTX 4090; 80 GB: A100 ×2, H100 ×2), so a
# card is never left out of the memory verdict for coming late in catalog order.
_MAX_CAPACITY_MATCHES = 4


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
    for name in ("weights", "kv_dtype", "engine", "lora_rank", "checkpointing"):
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


def _recommender_context(parsed: ParsedWorkload) -> int | None:
    """The sequence length the recommender sizes when the text gave prompt/output lengths but
    no context: prompt + output, read from its own schema, so one answer never holds two
    contexts ("does not fit" next to "fits").

    With no length at all both tools take the one default shape (tools/defaults.py), so the
    memory calls leave `context` out and the memory tool states its default.
    """
    if parsed.prompt_tokens is None and parsed.output_tokens is None:
        return None
    try:
        workload = validate_workload(workload_arguments(parsed))
    except ToolInputError:
        return None
    if workload.is_training:
        return workload.training_sequence_tokens
    return workload.context_tokens


def memory_calls(parsed: ParsedWorkload) -> list[PlannedCall]:
    """One `estimate_memory` call per GPU configuration the user named (or none named)."""
    base = _model_args(parsed)
    context = _context(parsed) or _recommender_context(parsed)
    if context is not None:
        base["context"] = context
    batch = parsed.users or parsed.batch
    if batch is not None:
        base["batch"] = batch
    if parsed.optimizer is not None and parsed.task not in (None, "inference"):
        base["optimizer"] = parsed.optimizer
    if parsed.zero is not None and parsed.task not in (None, "inference"):
        base["zero"] = parsed.zero
    configs: list[tuple[str | None, int | None]] = [
        (m.gpu, m.count) for m in parsed.gpus if m.memory_bytes is None
    ]
    if not configs and any(m.memory_bytes is not None for m in parsed.gpus):
        configs = [(None, None)]  # a GPU the catalog lacks: its fit is the local-serving call
    if not configs:
        matches = described_gpus(parsed)[:_MAX_CAPACITY_MATCHES]
        configs = [(gpu_id, parsed.gpu_count) for gpu_id in matches]
    if not configs:
        configs = [(None, parsed.gpu_count)]
    calls: list[PlannedCall] = []
    for gpu_id, count in configs:
        args = dict(base)
        if gpu_id is not None:
            args["gpu"] = gpu_id
        if count is not None and count > 1:
            args["gpus"] = count
            if parsed.task in (None, "inference"):
                args["tp"] = count  # serving shards one replica across the GPUs named
        call = PlannedCall("estimate_memory", args)
        if call not in calls:
            calls.append(call)
    return calls


def workload_arguments(parsed: ParsedWorkload) -> dict[str, Any]:
    """`tools.workload.Workload` fields for the recommender (only what the text said)."""
    args = _model_args(parsed)
    training = parsed.task not in (None, "inference")
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
    for name in ("tokens_per_s", "tokens_per_s_per_user", "ttft_s", "deadline_hours"):
        value = getattr(parsed, name)
        if value is not None:
            args[name] = value
    if parsed.train_tokens is not None:
        args["train_tokens"] = parsed.train_tokens
    if parsed.zero is not None and training:
        args["zero"] = parsed.zero
    if parsed.objective is not None:
        args["objective"] = parsed.objective
    constraints: dict[str, Any] = {}
    named = parsed.named_gpu_ids
    if not named:
        named = described_gpus(parsed)
    if named:
        constraints["only_gpus"] = named
    if parsed.gpu_count is not None and not parsed.gpus:
        constraints["max_gpus"] = parsed.gpu_count
    counts = [m.count for m in parsed.gpus if m.count is not None]
    if counts and not parsed.alternatives:
        # "on 32 H100s" is the hardware the user has: the recommender answers within it
        # (how it does against the targets), unless other options were asked for.
        constraints["max_gpus"] = max(counts)
        if not training and parsed.objective is None:
            # Serving on "8× H200" asks about those 8 GPUs, not the smallest layout within
            # them (QA round 4, 1): "fastest" makes the recommender size every layout within
            # the count, so the one at exactly the named count is in its result to answer for.
            args["objective"] = "fastest"
    if parsed.interconnects == ["nvlink"]:
        constraints["require_fast_interconnect"] = True
    if parsed.region is not None:
        constraints["region"] = parsed.region
    hourly_usd = parsed.budget_currency == "USD" and parsed.budget_period == "hour"
    if hourly_usd and parsed.budget_amount is not None:
        constraints["budget_usd_per_hour"] = parsed.budget_amount
    if constraints:
        args["constraints"] = constraints
    if "deadline_hours" in args and "train_tokens" not in args:
        del args["deadline_hours"]  # the recommender needs the data size to use a deadline
    return args


def plan_tool_calls(parsed: ParsedWorkload) -> list[PlannedCall]:
    """The calls that answer `parsed`, in order; empty while a verdict-changing fact is missing.

    Memory for each named configuration first (the verdict), then the recommender over the
    allowed GPUs (options, throughput, latency). The cost call depends on the recommender's
    options, so the engine plans it afterwards with `plan_cost_call`.
    """
    if parsed.questions or not parsed.has_model:
        return []
    local = local_serving_calls(parsed)
    if any(m.memory_bytes is not None for m in parsed.gpus):
        # A GPU the catalog lacks, sized on the memory the user gave: the answer is about that
        # GPU; a recommender over catalog GPUs would put another in its place.
        return local
    return [*memory_calls(parsed), *local, PlannedCall("recommend", workload_arguments(parsed))]


def _is_local(parsed: ParsedWorkload) -> bool:
    from tools.memory.formats import GGUF_FORMATS

    return (
        parsed.launcher is not None
        or parsed.model_file is not None
        or parsed.weights in GGUF_FORMATS
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
    for mention in parsed.gpus:
        args = dict(base)
        if mention.memory_bytes is not None:
            args |= {"gpu_memory_gb": mention.memory_bytes / 1e9, "gpu_name": mention.text}
        elif mention.gpu is not None:
            args["gpu"] = mention.gpu
        else:
            continue
        if mention.count is not None and mention.count > 1:
            args["gpus"] = mention.count
        call = PlannedCall("plan_local_serving", args)
        if call not in calls:
            calls.append(call)
    if not calls:
        for gpu_id in described_gpus(parsed)[:_MAX_CAPACITY_MATCHES]:
            calls.append(PlannedCall("plan_local_serving", {**base, "gpu": gpu_id}))
    return calls


def prices_full_load(parsed: ParsedWorkload) -> bool:
    """Serving with no load stated (no user count, batch or throughput target): $/M tokens are
    priced at full load. A stated batch ('batch 64') is the load, sized as that many users."""
    return (
        parsed.task in (None, "inference")
        and parsed.users is None
        and parsed.batch is None
        and parsed.tokens_per_s is None
    )


def zero3_alternative(
    parsed: ParsedWorkload, memory: PlannedCall, fits: bool | None
) -> PlannedCall | None:
    """The same named multi-GPU full-training configuration sharded with ZeRO-3 / FSDP, when
    the user said no ZeRO stage and plain data parallelism (the tools' default: every GPU holds
    the whole weights, gradients and optimizer state) does not fit. None otherwise."""
    args = memory.arguments
    if fits is not False or parsed.task != "full" or parsed.zero is not None:
        return None
    if args.get("gpu") is None or int(args.get("gpus", 1)) < 2 or "zero" in args:
        return None
    return PlannedCall("estimate_memory", {**args, "zero": 3})


def layout_memory_call(parsed: ParsedWorkload, option: dict[str, Any]) -> PlannedCall | None:
    """`estimate_memory` for the recommender's headline option (a compact option dict) when no
    GPU count was named and it spans several GPUs (or serves another load than the first memory
    call), so the per-GPU breakdown shown is the layout the answer recommends, not one unsharded
    GPU at one sequence. Serving sizes one replica (TP × PP GPUs) at the sequences it serves;
    training the whole data-parallel group."""
    counted = any(m.count is not None for m in parsed.gpus) or parsed.gpu_count is not None
    if counted or not option.get("gpu"):
        return None  # a count the user named is the configuration shown
    base = memory_calls(parsed)[0].arguments
    serving = parsed.task in (None, "inference")
    per_replica = option.get("sequences_per_replica")
    per_replica = per_replica if isinstance(per_replica, int) and per_replica >= 1 else None
    # One GPU at the load the first memory call already sized adds nothing; one GPU serving
    # more sequences per replica than that call (a tokens/s target) is the figure to show.
    other_load = serving and per_replica is not None and per_replica != base.get("batch", 1)
    if int(option.get("count", 1)) < 2 and not other_load:
        return None
    args: dict[str, Any] = {k: v for k, v in base.items() if k not in ("gpus", "tp")}
    tp, pp = int(option.get("tp") or 1), int(option.get("pp") or 1)
    args |= {"gpu": option["gpu"], "tp": tp, "pp": pp}
    if serving:
        args["gpus"] = tp * pp
        if per_replica is not None:
            args["batch"] = per_replica
    else:
        args["gpus"] = int(option["count"])
    return PlannedCall("estimate_memory", args)


def plan_cost_call(
    parsed: ParsedWorkload, recommend_result: dict[str, Any], limit: int = 3
) -> PlannedCall | None:
    """A `compare_costs` call pricing the recommender's best `limit` fitting options.

    `recommend_result` is the recommend tool's compact result (registry form). None when no
    option fits. Training is priced by GPU-hours, serving by the option's aggregate tokens/s.
    """
    options = [o for o in recommend_result.get("options", []) if o.get("fits")][:limit]
    if not options:
        return None
    training = parsed.task not in (None, "inference")
    # No load stated: a $/M-token figure at one user is the worst case, not what "per million
    # tokens" asks; price the configuration run full (every KV slot in use), as the answer says.
    rate_key = "full_load_tokens_per_s" if prices_full_load(parsed) else "aggregate_tokens_per_s"
    rows: list[dict[str, Any]] = []
    for option in options:
        row: dict[str, Any] = {"gpu": option["gpu"], "count": option["count"]}
        if training and option.get("training_hours") is not None:
            row["hours"] = option["training_hours"]
        elif option.get(rate_key) is not None:
            row["aggregate_tokens_per_s"] = option[rate_key]
        if option.get("tp"):
            row["tp"] = option["tp"]
        rows.append(row)
    args: dict[str, Any] = {"options": rows}
    if recommend_result.get("model_id"):
        args["model_id"] = recommend_result["model_id"]
    if parsed.region == "eu":
        args["eu_only"] = True
    if parsed.deadline_hours is not None and training:
        args["deadline_hours"] = parsed.deadline_hours
    if parsed.api_providers and not training:
        args["api_providers"] = list(dict.fromkeys(parsed.api_providers))
    if parsed.output_tokens_per_day is not None and not training:
        # The volume said, per billing month (730 h = 730/24 days): both bills at it.
        args["output_tokens_per_month"] = parsed.output_tokens_per_day * HOURS_PER_MONTH / 24
    return PlannedCall("compare_costs", args)


# Lower weight formats tried on the GPUs the user named when they do not hold the load: from
# 16-bit, 8-bit (fp8 where the GPU computes in fp8, else int8: the same bytes per weight) and
# 4-bit AWQ; from 8-bit, 4-bit AWQ. Already 4-bit or GGUF: nothing lower is tried.
_SIXTEEN_BIT = ("bf16", "fp16", "fp32")
_EIGHT_BIT = ("fp8", "int8")


def _lower_formats(current: str | None, gpu_id: str) -> list[str]:
    gpu = get_catalog().gpus.get(gpu_id)
    eight = "fp8" if gpu is not None and gpu.fp8_tflops else "int8"
    if current in _SIXTEEN_BIT:
        return [eight, "int4-awq"]
    if current in _EIGHT_BIT:
        return ["int4-awq"]
    return []


def scale_out_calls(
    parsed: ParsedWorkload, memory: PlannedCall, memory_result: dict[str, Any] | None
) -> list[PlannedCall]:
    """When the GPUs the user named ('4 A100 40GB for 10 users') do not hold the load (the
    recommender has no layout within them that meets the targets): the recommender again
    without the GPU limit (what count does hold it, its own smallest layout) and the named GPUs
    at each lower weight format (does a smaller format fit them). Serving only: a training
    count bounds the search and its verdict says so."""
    args = memory.arguments
    if parsed.task not in (None, "inference") or args.get("gpu") is None:
        return []
    if int(args.get("gpus", 1)) < 2:
        return []  # one GPU: the recommender's larger layout is the answer ("Needs 2×")
    workload = workload_arguments(parsed)
    constraints = dict(workload.get("constraints", {}))
    constraints.pop("max_gpus", None)
    workload["constraints"] = constraints
    if parsed.objective is None:
        workload.pop("objective", None)  # the recommender's own order: fewest GPUs that fit
    calls = [PlannedCall("recommend", workload)]
    current = None if memory_result is None else memory_result.get("weights_format")
    for fmt in _lower_formats(None if current is None else str(current), str(args["gpu"])):
        calls.append(PlannedCall("estimate_memory", {**args, "weights": fmt}))
    return calls
