"""The tool registry the model calls: names, JSON schemas, validation, compact results.

Each tool is a `ToolSpec(name, description, input_model, func)`; its function-calling schema is
generated from the pydantic input model, so the schema and the validation can never disagree.
Every failure a model can cause — invalid JSON, a field that does not validate, a `ToolInputError`,
an unknown tool name — comes back as an error *result* that says what to fix, never as an
exception. Results are compact JSON (no spaces, no nulls); byte fields are converted to GB
(10^9 bytes) and renamed `*_GB`, so the unit is in every field name and numbers stay short.

The calculators are written by other modules and imported lazily: a tool whose module is not
importable is left out and listed in `Registry.unavailable` (never a stub).
"""

from __future__ import annotations

import importlib
import json
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from assistant.guard import (
    MAX_ARGUMENT_CHARS,
    internal_error_result,
    loads_arguments,
    unserialisable_result,
)
from assistant.schemas import compact_schema
from tools.catalog import GpuSpec, ModelEntry, get_catalog
from tools.errors import ToolInputError, closest_names, field_problems
from tools.limits import FINITE, MAX_MEMORY_GB, MAX_NAME_CHARS
from tools.units import GB

SIGNIFICANT_DIGITS = 6
"""Floats in results keep 6 significant digits: well below any display rounding, fewer tokens."""


@dataclass(frozen=True)
class ToolSpec:
    """One callable tool. `func` takes the validated input model and returns a pydantic model
    or a JSON-ready dict."""

    name: str
    description: str
    input_model: type[BaseModel]
    func: Callable[[Any], Any]
    hidden: tuple[str, ...] = ()
    """Optional expert fields validation accepts but the model is not offered (tokens)."""
    offered: bool = True
    """False: callable (offline engine, the LLM engine's pre-computed calls) but left out of
    the schemas sent to the model, whose prompt budget it would exceed."""

    def schema(self, strict: bool = False) -> dict[str, Any]:
        """The OpenAI `tools` entry for this tool: the compact schema of `input_model`."""
        params = compact_schema(self.input_model, strict, self.hidden)
        function: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "parameters": params,
        }
        if strict:
            function["strict"] = True
        return {"type": "function", "function": function}


@dataclass(frozen=True)
class ToolOutcome:
    """What a call produced: `result` (compact-JSON-ready), whether it is an error, and the
    arguments as parsed (empty when they were not valid JSON)."""

    name: str
    arguments: dict[str, Any]
    result: dict[str, Any]
    is_error: bool = False

    @property
    def content(self) -> str:
        """The tool message content sent back to the model."""
        return compact_json(self.result)


def _round(value: float) -> float | int:
    if not math.isfinite(value) or value == 0:
        return value
    digits = SIGNIFICANT_DIGITS - 1 - math.floor(math.log10(abs(value)))
    rounded = round(value, digits)
    return int(rounded) if float(rounded).is_integer() and abs(rounded) < 2**53 else rounded


def lean(value: Any) -> Any:
    """JSON-ready, token-lean form: nulls dropped, `*_bytes` → `*_GB`, floats rounded."""
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if item is None:
                continue
            name = str(key)
            if isinstance(item, int | float) and not isinstance(item, bool):
                if name.endswith("_bytes"):
                    name, item = name.removesuffix("_bytes") + "_GB", item / GB
                elif name.endswith("_bytes_per_s"):
                    name, item = name.removesuffix("_bytes_per_s") + "_GB_per_s", item / GB
            out[name] = lean(item)
        return out
    if isinstance(value, list | tuple):
        return [lean(v) for v in value]
    if isinstance(value, float):
        return _round(value)
    return value


def compact_json(value: Any) -> str:
    """Serialise without spaces (the model reads it; people see the rendered events)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def error_result(message: str, **details: Any) -> dict[str, Any]:
    """An error result the model can act on: what went wrong and what to send instead."""
    return {"error": message, **details}


def validation_error_result(exc: ValidationError, model: type[BaseModel]) -> dict[str, Any]:
    """Turn pydantic errors into a short list naming each field and the problem."""
    problems = [
        {"field": field or "arguments", "problem": problem}
        for field, problem, _ in field_problems(exc, model)[:5]
    ]
    return error_result(
        "invalid arguments; fix these fields and call again",
        problems=problems,
        allowed_fields=sorted(model.model_fields),
    )


class Registry:
    """The tools offered to the model, by name."""

    def __init__(self, specs: Iterable[ToolSpec], unavailable: Mapping[str, str] | None = None):
        self.specs: dict[str, ToolSpec] = {s.name: s for s in specs}
        self.unavailable: dict[str, str] = dict(unavailable or {})
        """Tool name → why it is not registered (its module could not be imported)."""

    @property
    def names(self) -> list[str]:
        return list(self.specs)

    def schemas(self, strict: bool = False) -> list[dict[str, Any]]:
        """OpenAI `tools` list for every registered tool offered to the model."""
        return [s.schema(strict) for s in self.specs.values() if s.offered]

    def call(self, name: object, arguments: object) -> ToolOutcome:
        """Run tool `name` on raw `arguments` (a JSON string from the model, or a dict).

        Never raises, for any input: bad JSON, bad fields, unknown tools and `ToolInputError`
        become error results; so do a bug inside a tool ("internal_error") and a calculation
        that overflows, divides by zero or runs out of memory ("internal_limit"); a result with
        NaN/inf becomes an error naming the field (`assistant.guard`), so `content` is always
        strict JSON and the caller can always record a tool message.
        """
        try:
            outcome = self._call(name, arguments)
        except Exception as exc:  # the guard itself must not be the thing that raises
            return ToolOutcome(str(name)[:100], {}, internal_error_result(exc), is_error=True)
        problem = unserialisable_result(outcome.result) or unserialisable_result(outcome.arguments)
        if problem is not None:
            arguments_ok = unserialisable_result(outcome.arguments) is None
            return ToolOutcome(
                outcome.name, outcome.arguments if arguments_ok else {}, problem, is_error=True
            )
        return outcome

    def _call(self, name: object, arguments: object) -> ToolOutcome:
        if not isinstance(name, str):
            return ToolOutcome(
                str(name)[:100],
                {},
                error_result(
                    f"the tool name must be a string, got {type(name).__name__}",
                    field="name",
                    available_tools=self.names,
                ),
                is_error=True,
            )
        spec = self.specs.get(name)
        if spec is None:
            return ToolOutcome(
                name,
                {},
                error_result(
                    f"unknown tool {name[:100]!r}",
                    field="name",
                    available_tools=self.names,
                    did_you_mean=closest_names(name[:100], self.names),
                ),
                is_error=True,
            )
        parsed = parse_arguments(arguments)
        if isinstance(parsed, str):
            return ToolOutcome(name, {}, error_result(parsed, field="arguments"), is_error=True)
        try:
            validated = spec.input_model.model_validate(parsed)
        except ValidationError as exc:
            return ToolOutcome(
                name, parsed, validation_error_result(exc, spec.input_model), is_error=True
            )
        try:
            result = spec.func(validated)
        except ToolInputError as exc:
            return ToolOutcome(name, parsed, dict(exc.to_dict()), is_error=True)
        except ValidationError as exc:  # a tool validating a nested model itself
            return ToolOutcome(
                name, parsed, validation_error_result(exc, spec.input_model), is_error=True
            )
        except Exception as exc:  # a tool bug or limit must not end the conversation
            return ToolOutcome(name, parsed, internal_error_result(exc), is_error=True)
        data = lean(result)
        if not isinstance(data, dict):
            data = {"result": data}
        return ToolOutcome(name, parsed, data)


def parse_arguments(arguments: object) -> dict[str, Any] | str:
    """Parse model-sent arguments; returns the dict, or a message saying what to fix."""
    if arguments is None:
        return {}
    if isinstance(arguments, Mapping):
        if not all(isinstance(key, str) for key in arguments):
            return "argument names must be strings"
        return dict(arguments)
    if isinstance(arguments, bytes | bytearray):
        arguments = bytes(arguments).decode("utf-8", errors="replace")
    if not isinstance(arguments, str):
        return f"arguments must be a JSON object, got {type(arguments).__name__}"
    text = arguments.strip()
    if not text:
        return {}  # llama.cpp and Ollama send "" for a call without arguments
    if len(text) > MAX_ARGUMENT_CHARS:
        return f"arguments are {len(text):,} characters long; at most {MAX_ARGUMENT_CHARS:,}"
    try:
        value = loads_arguments(text)
    except RecursionError:
        return "arguments nest too deeply; send one flat JSON object"
    except json.JSONDecodeError as exc:
        try:
            # Literal newlines/tabs inside strings are a common small-model mistake.
            value = loads_arguments(text, strict=False)
        except (ValueError, RecursionError):
            return (
                f"arguments are not valid JSON ({exc.msg} at character {exc.pos}); send one "
                'JSON object, e.g. {"model": "llama-3.1-8b"}'
            )
    if not isinstance(value, dict):
        return f"arguments must be a JSON object, got {type(value).__name__}"
    return value


# --- catalog look-ups -------------------------------------------------------------------------


class FindModelInput(BaseModel):
    """Look up one model in the catalog."""

    model_config = ConfigDict(extra="forbid", **FINITE)
    name: str = Field(
        max_length=MAX_NAME_CHARS,
        description="Model id, alias or Hugging Face id, e.g. 'llama-3.1-70b'.",
    )


class FindGpuInput(BaseModel):
    """Look up one GPU in the catalog."""

    model_config = ConfigDict(extra="forbid", **FINITE)
    name: str = Field(
        max_length=MAX_NAME_CHARS, description="GPU id or alias, e.g. 'h100-sxm', 'A100 80GB'."
    )


class ListModelsInput(BaseModel):
    """List catalog models, optionally filtered."""

    model_config = ConfigDict(extra="forbid", **FINITE)
    contains: str | None = Field(
        default=None, max_length=MAX_NAME_CHARS, description="Substring of id or name."
    )


class ListGpusInput(BaseModel):
    """List catalog GPUs, optionally filtered."""

    model_config = ConfigDict(extra="forbid", **FINITE)
    vendor: str | None = Field(
        default=None, max_length=MAX_NAME_CHARS, description="NVIDIA, AMD or Intel."
    )
    min_memory_gb: float | None = Field(
        default=None,
        ge=0,
        le=MAX_MEMORY_GB,
        description="Minimum vendor memory, GB (10^9 bytes).",
    )


def _short_source(source: str, limit: int = 100) -> str:
    """The first cited source, cut to `limit` characters: the full list is in the catalog and
    would cost hundreds of tokens per look-up."""
    first = source.split(" | ")[0]
    return first if len(first) <= limit else first[: limit - 1] + "…"


def _model_summary(entry: ModelEntry) -> dict[str, Any]:
    counts = entry.params
    arch = entry.architecture
    out: dict[str, Any] = {
        "id": entry.id,
        "name": entry.name,
        "total_params": counts.total,
        "active_params_per_token": counts.active_per_token,
        "layers": arch.num_layers,
        "hidden_size": arch.hidden_size,
        "attention_heads": arch.num_attention_heads,
        "kv_heads": arch.num_kv_heads,
        "max_context_tokens": arch.max_context,
        "source": _short_source(entry.source),
    }
    return out


def _gpu_summary(gpu: GpuSpec) -> dict[str, Any]:
    return {
        "id": gpu.id,
        "name": gpu.name,
        "vendor": gpu.vendor,
        "memory_bytes": gpu.memory_bytes,
        "usable_memory_bytes": gpu.usable_memory_bytes,
        "memory_bandwidth_bytes_per_s": gpu.memory_bandwidth_bytes_per_s,
        "bf16_tflops": gpu.bf16_tflops,
        "fp8_tflops": gpu.fp8_tflops,
        "interconnect": gpu.interconnect,
        "interconnect_bytes_per_s": gpu.interconnect_bytes_per_s,
        "form_factor": gpu.form_factor,
        "source": _short_source(gpu.source),
    }


def find_model(req: FindModelInput) -> dict[str, Any]:
    """Catalog facts for one model (parameter counts exact from its architecture)."""
    try:
        return _model_summary(get_catalog().model(req.name))
    except ToolInputError as exc:
        raise exc.renamed("name") from None


def find_gpu(req: FindGpuInput) -> dict[str, Any]:
    """Catalog facts for one GPU (bytes and bytes/s; presented as GB and GB/s)."""
    try:
        return _gpu_summary(get_catalog().gpu(req.name))
    except ToolInputError as exc:
        raise exc.renamed("name") from None


def list_models(req: ListModelsInput) -> dict[str, Any]:
    """Ids, names and total parameters of catalog models matching `contains`."""
    needle = (req.contains or "").lower()
    rows = [
        {"id": m.id, "name": m.name, "total_params": m.params.total}
        for m in get_catalog().models.values()
        if needle in m.id.lower() or needle in m.name.lower()
    ]
    return {"models": rows, "count": len(rows)}


def list_gpus(req: ListGpusInput) -> dict[str, Any]:
    """Ids, names and memory of catalog GPUs matching the filters."""
    vendor = (req.vendor or "").lower()
    min_bytes = (req.min_memory_gb or 0) * GB
    rows = [
        {"id": g.id, "name": g.name, "memory_bytes": g.memory_bytes}
        for g in get_catalog().gpus.values()
        if (not vendor or g.vendor.lower() == vendor) and g.memory_bytes >= min_bytes
    ]
    return {"gpus": rows, "count": len(rows)}


LOOKUP_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "find_model",
        "Catalog facts for one LLM: exact parameter counts, shape.",
        FindModelInput,
        find_model,
    ),
    ToolSpec(
        "find_gpu",
        "Catalog facts for one GPU: memory, bandwidth, TFLOPS, interconnect.",
        FindGpuInput,
        find_gpu,
    ),
    ToolSpec(
        "list_models",
        "List catalog models (id, name, total parameters).",
        ListModelsInput,
        list_models,
    ),
    ToolSpec("list_gpus", "List catalog GPUs (id, name, memory).", ListGpusInput, list_gpus),
)


# --- calculators, imported lazily ------------------------------------------------------------


@dataclass(frozen=True)
class _LazyTool:
    name: str
    description: str
    module: str
    input_attr: str
    func_module: str
    func_attr: str
    hidden: tuple[str, ...] = ()
    offered: bool = True


# Expert overrides not offered to the model: each costs ~20-30 tokens in every request, users
# rarely state them in a chat, and the CLI (`gpu-sizer memory/recommend --help`) offers them all.
# Validation still accepts them, so a model that sends one anyway is not refused.
_MEMORY_HIDDEN = (
    "config_path",
    "model_file",
    "group_size",
    "keep_16bit",
    "flash_attention",
    "precision",
    "lora_targets",
    "prefill_chunk_tokens",
    "cuda_context_bytes",
    "cuda_graph_bytes",
    "max_num_seqs",
)
_WORKLOAD_HIDDEN = (
    "config_path",
    "model_file",
    "gpu_memory_utilization",
    "max_output_tokens",
    "batching",
    "micro_batch_sequences",
    "constraints.allow_pipeline_parallel",
    "constraints.require_fast_interconnect",
)

_LOCAL_HIDDEN = (
    "config_path",
    "model_file",
    "task",
    "engine",
    "gpu_memory_utilization",
    "kv_dtype",
    "gpu_bandwidth_gb_s",
    "ram_bandwidth_gb_s",
    "flash_attention",
    "gpus",
    "gpu_name",
    "weights",
    "params",
)

# The API providers to compare with: the offline planner's, from a named API ('the Groq API').
_COST_HIDDEN = ("api_providers",)

_CALCULATORS: tuple[_LazyTool, ...] = (
    _LazyTool(
        "estimate_memory",
        "GPU memory per GPU for a model + workload: breakdown, assumptions, fit on `gpu`.",
        "tools.memory",
        "MemoryRequest",
        "tools.memory",
        "estimate_memory",
        _MEMORY_HIDDEN,
    ),
    _LazyTool(
        "recommend",
        "Smallest configuration per GPU type that fits and meets the targets, ranked.",
        "tools.workload",
        "Workload",
        "assistant.recommend_tool",
        "run_recommend",
        _WORKLOAD_HIDDEN,
    ),
    _LazyTool(
        "plan_local_serving",
        "llama.cpp/Ollama on own GPU(s): layers that fit (-ngl), rest in RAM, est. tok/s, "
        "launch line.",
        "tools.local_serving",
        "LocalServingRequest",
        "tools.local_serving",
        "plan_local_serving",
        _LOCAL_HIDDEN,
        offered=False,  # ~250 prompt tokens; the engines pre-compute it from the question
    ),
    _LazyTool(
        "compare_costs",
        "Cloud cost ($/hour, $/month, $/M tokens) per tier of configurations, API comparison, "
        "break-even; training cost for options with hours.",
        "assistant.cost_tool",
        "CostRequest",
        "assistant.cost_tool",
        "run_cost_request",
        _COST_HIDDEN,
    ),
)


def _load_calculators() -> tuple[list[ToolSpec], dict[str, str]]:
    specs: list[ToolSpec] = []
    missing: dict[str, str] = {}
    for tool in _CALCULATORS:
        try:
            input_model = getattr(importlib.import_module(tool.module), tool.input_attr)
            func = getattr(importlib.import_module(tool.func_module), tool.func_attr)
        except (ImportError, AttributeError) as exc:
            missing[tool.name] = f"{tool.func_module}.{tool.func_attr} unavailable ({exc})"
            continue
        specs.append(
            ToolSpec(tool.name, tool.description, input_model, func, tool.hidden, tool.offered)
        )
    return specs, missing


def default_registry() -> Registry:
    """The calculators that are importable, plus the catalog look-ups."""
    calculators, missing = _load_calculators()
    return Registry([*calculators, *LOOKUP_TOOLS], missing)
