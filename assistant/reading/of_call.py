"""A sizing tool call as a `Reading`: the model's reading of the question (issue 28).

When the model calls `size` (or `estimate_memory`, `recommend`, `plan_local_serving`), its
arguments say how it read the question. `call_slots` turns a call's validated arguments into
typed slots — the same slot names and values whoever made the call, so the model's reading and
the built-in parser's (its planned `size` call, read the same way) compare slot by slot
(`assistant.reading.reconcile`). Values are canonical: catalog ids for models and GPUs, weight
formats as the memory tool resolves them, effective lengths with the tools' defaults filled
in. `reading_of_call` is the Reading shown ("Read as: …"): the slots the call stated, origin
"model", each with the span of the question its number was read from (`assistant.reading.
grounded`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, JsonValue

from assistant.reading.grounded import Grounding
from assistant.reading.model import Reading, ReadSlot, SlotSource, Span
from tools.catalog import get_catalog
from tools.errors import ToolInputError
from tools.sizing import SizingRequest
from tools.units import spoken_count

VERDICT_SLOTS = (
    "model",
    "weights",
    "kv_dtype",
    "task",
    "users",
    "tokens_per_s",
    "tokens_per_s_per_user",
    "ttft_s",
    "context",
    "prompt_tokens",
    "output_tokens",
    "gpus",
    "max_gpus",
    "region",
    "budget",
    "train_tokens",
    "deadline_hours",
    "lora_rank",
    "longest_context",
    "objective",
)
"""The slots a sizing verdict depends on, in 'Read as' order: a difference in any of them is a
different question. (Engine and the expert fields the model is not offered are left out.)"""


@dataclass(frozen=True)
class CallSlot:
    """One slot of a call: its canonical value, the value in words, and the argument paths it
    came from (for provenance); `stated`: the call gave it (not a tool default)."""

    value: JsonValue
    shown: str
    paths: tuple[str, ...] = ()
    stated: bool = True


def _gpu_id(name: str) -> str:
    try:
        return get_catalog().gpu(name).id
    except ToolInputError:
        return name.lower()


def _gpu_name(gpu_id: str) -> str:
    gpus = get_catalog().gpus
    return gpus[gpu_id].name.removeprefix("NVIDIA ") if gpu_id in gpus else gpu_id


def _model(choice: Any) -> tuple[JsonValue, str] | None:
    """(canonical value, words) of the model a call names."""
    if getattr(choice, "model_file", None):
        return f"file:{choice.model_file}", f"the model file {choice.model_file}"
    name = getattr(choice, "model", None)
    if name:
        try:
            entry = get_catalog().model(name)
        except ToolInputError:
            return str(name).lower(), str(name)
        return entry.id, entry.name
    params = getattr(choice, "params", None)
    if params:
        from tools.memory.model import resolve_model

        try:
            count = float(resolve_model(params=params).params.total)
        except (ToolInputError, AttributeError, ValueError):
            return f"params:{params}", f"a generic {params}-parameter model"
        return count, f"a generic {spoken_count(count)}-parameter model"
    return None


_TASKS = {"full": "full fine-tune", "lora": "LoRA fine-tune", "qlora": "QLoRA fine-tune"}


def _constraint_slots(
    constraints: Any, craw: Mapping[str, Any], prefix: str
) -> dict[str, CallSlot]:
    """Slots of a workload's `constraints`: the GPUs it is held to, the region, a GPU limit
    other than the default, an hourly budget."""
    out: dict[str, CallSlot] = {}
    if constraints.only_gpus:
        ids = sorted({_gpu_id(g) for g in constraints.only_gpus})
        shown = "on " + " or ".join(_gpu_name(g) for g in ids)
        out["gpus"] = CallSlot(
            [{"gpu": g} for g in ids], shown, (f"{prefix}constraints.only_gpus",),
            "only_gpus" in craw,
        )  # fmt: skip
    region = "eu" if constraints.eu_only else constraints.region
    if region:
        shown = {"eu": "EU only", "us": "US only"}.get(region, region)
        out["region"] = CallSlot(region, shown, (f"{prefix}constraints.region",))
    default_max = type(constraints).model_fields["max_gpus"].default
    if constraints.max_gpus != default_max:
        out["max_gpus"] = CallSlot(
            constraints.max_gpus,
            f"at most {constraints.max_gpus:,} GPUs",
            (f"{prefix}constraints.max_gpus",),
        )
    if constraints.budget_usd_per_hour is not None:
        amount = constraints.budget_usd_per_hour
        out["budget"] = CallSlot(
            {"amount": amount, "currency": "USD", "period": "hour"},
            f"budget {amount:,.2f} USD an hour",
            (f"{prefix}constraints.budget_usd_per_hour",),
        )
    return out


def _workload_slots(work: Any, raw: Mapping[str, Any], prefix: str) -> dict[str, CallSlot]:
    """Slots of a `Workload`-like input (the `size` call's workload, `recommend`'s input)."""
    out: dict[str, CallSlot] = {}

    def put(slot: str, value: JsonValue, shown: str, *keys: str) -> None:
        stated = any(k in raw for k in keys)
        out[slot] = CallSlot(value, shown, tuple(f"{prefix}{k}" for k in keys), stated)

    model = _model(work)
    if model is not None:
        put("model", model[0], model[1], "model", "params", "model_file")
    if work.weights:
        put("weights", work.weights, work.weights, "weights")
    if work.kv_dtype:
        put("kv_dtype", work.kv_dtype, f"{work.kv_dtype} KV cache", "kv_dtype")
    put("task", work.task, _TASKS.get(work.task, "inference"), "task")
    training = work.task != "inference"
    users = getattr(work, "users", None)
    if users is not None and not training:
        put("users", users, f"{users:,} concurrent user{'s' if users != 1 else ''}", "users")
    for name, words in (
        ("tokens_per_s", "{:,.0f} tokens/s in total"),
        ("tokens_per_s_per_user", "{:,.3g} tokens/s per user"),
        ("ttft_s", "first token within {:g} s"),
        ("deadline_hours", "within {:g} h"),
        ("lora_rank", "rank {}"),
    ):
        value = getattr(work, name, None)
        if value is not None:
            put(name, value, words.format(value), name)
    train = getattr(work, "train_tokens", None)
    if train is not None:
        put("train_tokens", train, f"{spoken_count(train)} training tokens", "train_tokens")
    prompt, output = getattr(work, "prompt_tokens", None), getattr(work, "output_tokens", None)
    length = getattr(work, "sequence_length", None) if training else None
    context = length or getattr(work, "context", None)
    if context is None and prompt is not None and output is not None:
        context = prompt + output
    if context is not None:
        put("context", context, f"{context:,}-token context", "context", "sequence_length")
    if prompt is not None and not training:
        put("prompt_tokens", prompt, f"{prompt:,}-token prompts", "prompt_tokens")
    if output is not None and not training:
        put("output_tokens", output, f"{output:,}-token answers", "output_tokens")
    objective = getattr(work, "objective", None)
    if objective is not None:
        put("objective", objective, objective.replace("_", " "), "objective")
    constraints = getattr(work, "constraints", None)
    if constraints is not None:
        found = raw.get("constraints")
        craw: Mapping[str, Any] = found if isinstance(found, dict) else {}
        out |= _constraint_slots(constraints, craw, prefix)
    return out


def _configurations(configs: list[Any]) -> tuple[JsonValue, str]:
    named = sorted(
        ({"gpu": _gpu_id(c.gpu), "count": c.count or 1} for c in configs if c.gpu),
        key=lambda c: (str(c["gpu"]), int(c["count"])),
    )
    unnamed = [c.count for c in configs if not c.gpu and c.count]
    value: list[JsonValue] = [*named, *({"count": n} for n in unnamed)]
    shown = " or ".join(
        [
            *(f"{c['count']:,}× {_gpu_name(str(c['gpu']))}" for c in named),
            *(f"{n:,} GPUs" for n in unnamed),
        ]
    )
    return value, shown


def call_slots(tool: str, request: BaseModel, raw: Mapping[str, Any]) -> dict[str, CallSlot]:
    """The slots of a validated sizing call (`request`, the tool's input model; `raw`, the
    arguments as sent, to tell what the call stated from what the tool filled in)."""
    if isinstance(request, SizingRequest):
        workload = request.workload
        found = raw.get("workload")
        wraw: Mapping[str, Any] = found if isinstance(found, dict) else {}
        out = _workload_slots(workload, wraw, "workload.")
        configs = list(request.configurations)
        if configs:
            value, shown = _configurations(configs)
            out["gpus"] = CallSlot(value, shown, ("configurations",))
        budget = request.budget
        if budget is not None:
            period = "an hour" if budget.period == "hour" else "a month"
            out["budget"] = CallSlot(
                {"amount": budget.amount, "currency": budget.currency, "period": budget.period},
                f"budget {budget.amount:,.0f} {budget.currency} {period}",
                ("budget.amount",),
            )
        if request.longest_context:
            out["longest_context"] = CallSlot(True, "the longest context", ("longest_context",))
        if request.pricing.eu_only and "region" not in out:
            out["region"] = CallSlot("eu", "EU only", ("pricing.eu_only",))
        return out
    if tool == "recommend":
        return _workload_slots(request, raw, "")
    # estimate_memory, plan_local_serving: one model on one GPU setup.
    out = {}
    model = _model(request)
    if model is not None:
        out["model"] = CallSlot(model[0], model[1], ("model", "params"))
    for name in ("weights", "kv_dtype"):
        value = getattr(request, name, None)
        if value:
            shown = value if name == "weights" else f"{value} KV cache"
            out[name] = CallSlot(value, shown, (name,), name in raw)
    context = getattr(request, "context", None)
    if context is not None:
        out["context"] = CallSlot(context, f"{context:,}-token context", ("context",))
    for name in ("batch", "parallel"):
        value = getattr(request, name, None)
        if isinstance(value, int) and value > 1:
            out["users"] = CallSlot(value, f"{value:,} concurrent users", (name,), name in raw)
    gpu = getattr(request, "gpu", None)
    if gpu:
        count = getattr(request, "gpus", None) or getattr(request, "num_gpus", None) or 1
        gpu_id = _gpu_id(gpu)
        out["gpus"] = CallSlot(
            [{"gpu": gpu_id, "count": count}], f"{count:,}× {_gpu_name(gpu_id)}", ("gpu", "gpus")
        )
    return out


def reading_of_call(
    tool: str,
    request: BaseModel,
    raw: Mapping[str, Any],
    question: str,
    grounding: Grounding | None = None,
) -> Reading:
    """The call as a Reading shown to the user: the slots it stated, in 'Read as' order,
    origin "model", each with the question's spans its numbers were read from."""
    slots = call_slots(tool, request, raw)
    spans = {} if grounding is None else grounding.spans
    out: list[ReadSlot] = []
    for name in VERDICT_SLOTS:
        slot = slots.get(name)
        if slot is None or not slot.stated:
            continue
        found: list[Span] = [
            span
            for path, span in spans.items()
            if any(path == p or path.startswith((p + ".", p + "[")) for p in slot.paths)
        ]
        out.append(
            ReadSlot(
                slot=name,
                value=slot.value,
                shown=slot.shown,
                source=SlotSource(origin="model", spans=list(dict.fromkeys(found))),
            )
        )
    return Reading(question=question, slots=out)
