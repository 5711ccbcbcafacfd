"""The parser's workload as a `Reading`: each field read becomes a slot with its value, the
value in words and its provenance (`ParsedWorkload.sources`); the unread words are classified by
the coverage gate; the figure asked for is the question kind the parser read."""

from __future__ import annotations

from collections.abc import Callable

from pydantic import JsonValue

from assistant.offline.parser.scope import instead_of
from assistant.reading.coverage import classify
from assistant.reading.model import (
    AskedFigure,
    OutOfScope,
    Reading,
    ReadSlot,
    SlotSource,
    Span,
    Unread,
)
from assistant.reading.parsed import GpuMention, ParsedWorkload
from tools.catalog import get_catalog
from tools.units import GB, spoken_count


def _tokens(n: int) -> str:
    return f"{n:,}"


def _model_name(model_id: str) -> str:
    """A catalog model's name ('Llama 3.2 1B'), or the id as read when the catalog lacks it."""
    entry = get_catalog().models.get(model_id)
    return entry.name if entry is not None else model_id


def _model(p: ParsedWorkload) -> str | None:
    models = get_catalog().models
    if p.model_file is not None:
        return f"the model file {p.model_file}"
    if p.model is not None:
        entry = models.get(p.model)
        name = entry.name if entry is not None else p.model
        if p.stand_in_for is not None:
            return f"{name} in place of '{p.stand_in_for}' (not in the catalog)"
        return name
    if p.params is not None:
        words = f" ('{p.model_text}')" if p.model_text else ""
        return f"a generic {spoken_count(p.params)}-parameter model{words}"
    return None


def _gpu(mention: GpuMention) -> str:
    gpus = get_catalog().gpus
    name = gpus[mention.gpu].name.removeprefix("NVIDIA ") if mention.gpu in gpus else mention.text
    if mention.gpu is None and mention.memory_bytes is not None:
        name = f"{mention.text} ({mention.memory_bytes / GB:g} GB)"
    count = f"{mention.count:,}× " if mention.count is not None else ""
    return f"{count}{name}"


_TASKS = {"full": "full fine-tune", "lora": "LoRA fine-tune", "qlora": "QLoRA fine-tune"}

_ENGINES_SHOWN = {
    "vllm": "vLLM",
    "transformers": "Transformers",
    "sglang": "SGLang",
    "tensorrt-llm": "TensorRT-LLM",
}


def _engine_shown(p: ParsedWorkload) -> str | None:
    sized = _ENGINES_SHOWN.get(p.serve_engine or p.engine or "")
    if p.engine_named == "tgi" and sized is not None:
        return f"TGI (sized like {sized})"
    return sized


_SHOWN: dict[str, Callable[[ParsedWorkload], str | None]] = {
    "weights": lambda p: p.weights,
    "alternative_weights": lambda p: f"or {p.alternative_weights}",
    "kv_dtype": lambda p: f"{p.kv_dtype} KV cache",
    "task": lambda p: (
        "pre-training"
        if p.use == "pre-train"
        else (_TASKS.get(p.task or "") if p.task != "inference" else None)
    ),
    "launcher": lambda p: {"ollama": "Ollama", "llama-server": "llama.cpp"}.get(p.launcher or ""),
    # issue 30 items 5-7: the engine whose own KV rule and launch line the answer gives; one
    # named but sized by another's rule says both ('TGI (sized like vLLM)').
    "engine": lambda p: _engine_shown(p),
    "engine_version": lambda p: f"llama.cpp {p.engine_version}",
    "gpu_count": lambda p: f"{p.gpu_count:,} GPU{'s' if p.gpu_count != 1 else ''}",
    "gpu_memory_bytes": lambda p: f"GPUs with {(p.gpu_memory_bytes or 0) / GB:g} GB",
    "consumer_gpu": lambda p: "consumer cards",
    "multi_gpu": lambda p: "several GPUs",
    "interconnects": lambda p: " or ".join(
        i.upper() if i == "pcie" else "NVLink" for i in p.interconnects
    ),
    "system_ram_bytes": lambda p: f"{(p.system_ram_bytes or 0) / GB:g} GB system RAM",
    "users": lambda p: f"{p.users:,} concurrent users",
    "batch": lambda p: f"batch of {p.batch:,}",
    "tokens_per_s": lambda p: f"{p.tokens_per_s:,.0f} tokens/s in total",
    "tokens_per_s_per_user": lambda p: f"{p.tokens_per_s_per_user:,.3g} tokens/s per user",
    "ttft_s": lambda p: f"first token within {p.ttft_s:g} s",
    "output_tokens_per_day": lambda p: (
        f"{spoken_count(p.output_tokens_per_day or 0)} output tokens a day"
    ),
    "context": lambda p: f"{_tokens(p.context or 0)}-token context",
    "long_context": lambda p: "long context" if p.context is None else None,
    "prompt_tokens": lambda p: f"{_tokens(p.prompt_tokens or 0)}-token prompts",
    "output_tokens": lambda p: f"{_tokens(p.output_tokens or 0)}-token answers",
    "budget_amount": lambda p: (
        f"budget {p.budget_amount:,.0f} {p.budget_currency or ''}"
        + (
            " in total (not checked)"
            if p.budget_period in (None, "total")
            else f" a {p.budget_period}"
        )
    ),
    "region": lambda p: {"eu": "EU only", "us": "US only"}.get(p.region or "", p.region),
    "train_tokens": lambda p: f"{spoken_count(p.train_tokens or 0)} training tokens",
    "train_examples": lambda p: f"{p.train_examples:,} examples",
    "tokens_per_example": lambda p: f"{p.tokens_per_example:,} tokens each",
    "epochs": lambda p: f"{p.epochs:g} epochs",
    "deadline_hours": lambda p: f"within {p.deadline_hours:g} h",
    "optimizer": lambda p: p.optimizer,
    "zero": lambda p: f"ZeRO-{p.zero}",
    "lora_rank": lambda p: f"rank {p.lora_rank}",
    "checkpointing": lambda p: (
        "activation checkpointing" if p.checkpointing else "no checkpointing"
    ),
    "objective": lambda p: (p.objective or "").replace("_", " "),
    "api_models": lambda p: "vs " + ", ".join(p.api_models),
    "api_providers": lambda p: "vs the " + ", ".join(p.api_providers) + " API",
    "api_comparison": lambda p: (
        "vs a hosted API" if not p.api_models and not p.api_providers else None
    ),
    "claims": lambda p: "checks " + ", ".join(f"'{c.words}'" for c in p.claims),
    "lora_adapters": lambda p: f"serving {p.lora_adapters:,} LoRA adapters",  # issue 30
    "embedding_model": lambda p: f"embedding model {p.embedding_model}",
    "documents": lambda p: f"{spoken_count(p.documents or 0)} texts",
    "tokens_per_document": lambda p: f"{p.tokens_per_document:,} tokens each",
    "corpus_tokens": lambda p: f"{spoken_count(p.corpus_tokens or 0)} tokens in the corpus",
    "batch_input_tokens": lambda p: (
        f"a job of {spoken_count(p.batch_input_tokens or 0)} input tokens"
    ),
    "batch_output_tokens": lambda p: (
        f"{spoken_count(p.batch_output_tokens or 0)} output tokens in total"
    ),
    "batch_requests": lambda p: f"a job of {spoken_count(p.batch_requests or 0)} documents",
    "requests_per_s": lambda p: f"{p.requests_per_s:,.4g} requests/s",
    "peak_factor": lambda p: f"peak × {p.peak_factor:g}",
    "latency_percentile": lambda p: f"at p{p.latency_percentile}",
    "inter_token_target_s": lambda p: f"inter-token ≤ {(p.inter_token_target_s or 0) * 1000:g} ms",
    # issue 30 items 5-7: what the deployment parts were asked to answer.
    "buy_asked": lambda p: "buy vs rent",
    "usd_per_kwh": lambda p: f"{p.usd_per_kwh:g} USD/kWh",
    "pue": lambda p: f"PUE {p.pue:g}",
    "purchase_usd_per_gpu": lambda p: f"{p.purchase_usd_per_gpu:,.0f} USD a card",
    "speculative": lambda p: (
        "speculative decoding" if p.draft_model is None and p.draft_params is None else None
    ),
    "draft_model": lambda p: f"speculative decoding with {_model_name(p.draft_model or '')}",
    "draft_params": lambda p: (
        f"speculative decoding, a draft of {spoken_count(p.draft_params or 0)} parameters"
    ),
    "acceptance_rate": lambda p: f"α {p.acceptance_rate:g}",
    "draft_tokens": lambda p: f"γ {p.draft_tokens}",
    "prefix_caching": lambda p: "prefix caching" if p.cached_prefix_fraction is None else None,
    "cached_prefix_fraction": lambda p: (
        f"{(p.cached_prefix_fraction or 0) * 100:g}% of each prompt cached"
    ),
    "disaggregated": lambda p: "prefill/decode split",
}
"""How each field read is shown on the 'Read as' line (model and GPUs apart); None: not shown."""

_ORDER = (
    "model", "embedding_model", "documents", "tokens_per_document", "corpus_tokens", "weights",
    "alternative_weights", "kv_dtype", "task", "lora_adapters", "batch_input_tokens",
    "batch_output_tokens", "batch_requests", "requests_per_s", "peak_factor",
    "latency_percentile", "inter_token_target_s", "launcher", "engine", "engine_version",
    "users", "batch", "tokens_per_s", "tokens_per_s_per_user", "ttft_s",
    "output_tokens_per_day", "context", "long_context", "prompt_tokens", "output_tokens",
    "gpus", "gpu_count", "gpu_memory_bytes", "consumer_gpu", "multi_gpu", "interconnects",
    "system_ram_bytes", "train_tokens", "train_examples", "tokens_per_example", "epochs",
    "deadline_hours", "optimizer", "zero", "lora_rank", "checkpointing", "budget_amount",
    "region", "objective", "api_models", "api_providers", "api_comparison", "claims",
    "buy_asked", "usd_per_kwh", "pue", "purchase_usd_per_gpu", "speculative", "draft_model",
    "draft_params", "acceptance_rate", "draft_tokens", "prefix_caching",
    "cached_prefix_fraction", "disaggregated",
)  # fmt: skip


def asked_figure(p: ParsedWorkload) -> AskedFigure:
    """The figure the question asks for, from the question kind the parser read: a comparison
    of two or more GPUs said with 'or' / 'vs' first ('A100 or H100: is one enough?')."""
    if p.compare and len({m.gpu or m.text for m in p.gpus}) > 1 and p.asked in (None, "fits"):
        return "compare"
    if p.asked is not None:
        return p.asked
    if p.capacity:
        return "capacity"
    if p.max_context:
        return "max_context"
    if p.compare:
        return "compare"
    if p.task not in (None, "inference") and (p.how_long or p.train_tokens is not None):
        return "training_time"
    if p.owned and p.gpus:
        return "fits"
    return "hardware"


def _value(p: ParsedWorkload, name: str) -> JsonValue:
    raw = getattr(p, name)
    if isinstance(raw, list):
        return [
            item.model_dump(mode="json") if hasattr(item, "model_dump") else item for item in raw
        ]
    return raw  # type: ignore[no-any-return]


def _unread(p: ParsedWorkload) -> list[Unread]:
    """The unread words, classified; those a question already asks about do not count again."""
    asked = {q.words for q in p.questions if q.words and q.why != "unread"}
    return [
        u.model_copy(update={"matters": False}) if u.span.text in asked else u
        for u in classify(p.unread)
    ]


def reading_of(p: ParsedWorkload) -> Reading:
    """`p` as a Reading: slots in the 'Read as' order, each with its provenance."""
    blank = ParsedWorkload()
    slots: list[ReadSlot] = []
    for name in _ORDER:
        source = p.sources.get(name, SlotSource())
        if name == "model":
            shown = _model(p)
            if shown is not None:
                model_source = p.sources.get("model") or p.sources.get("params") or source
                value: JsonValue = p.model or p.model_file or p.params
                slots.append(ReadSlot(slot="model", value=value, shown=shown, source=model_source))
            continue
        if name == "gpus":
            for mention in p.gpus:
                slots.append(
                    ReadSlot(
                        slot="gpus",
                        value=mention.model_dump(mode="json", exclude_defaults=True),
                        shown=_gpu(mention),
                        source=source,
                    )
                )
            continue
        if getattr(p, name) == getattr(blank, name):
            continue
        text = _SHOWN[name](p)
        if name in p.assumed:
            source = SlotSource(origin="default", spans=source.spans)
            text = f"{text} (assumed)" if text else text
        if text:
            slots.append(ReadSlot(slot=name, value=_value(p, name), shown=text, source=source))
    scope = p.sources.get("out_of_scope", SlotSource()).spans
    out_of_scope = [
        OutOfScope(
            topic=topic,
            span=scope[i] if i < len(scope) else Span(start=0, end=0, text=""),
            instead=instead_of(topic),
        )
        for i, topic in enumerate(p.out_of_scope)
    ]
    return Reading(
        question=p.text,
        out_of_scope=out_of_scope,
        slots=slots,
        asked=asked_figure(p),
        unread=_unread(p),
        questions=list(p.questions),
    )
