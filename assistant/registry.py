"""The tool registry the model calls: names, JSON schemas, validation, typed results.

Each tool is a `ToolSpec(name, description, input_model, func)`; its function-calling schema is
generated from the pydantic input model, so the schema and the validation can never disagree.
Every failure a model can cause — invalid JSON, a field that does not validate, a `ToolInputError`,
an unknown tool name — comes back as an error *result* (`assistant.results.ToolError`) that says
what to fix, never as an exception. A call's `value` is the tool's typed result; what the model
reads of it (`content`: lean JSON, bytes as `*_GB`, large results summarised) is derived in
`assistant.wire`.

The calculators are imported directly: a tool that cannot be imported is an import error of
this module (a test failure, a crash at start), never a tool quietly left out.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from pydantic import BaseModel, ValidationError

from assistant.cost_tool import CostRequest, run_cost_request
from assistant.guard import (
    MAX_ARGUMENT_CHARS,
    internal_error_result,
    loads_arguments,
    unserialisable_result,
)
from assistant.lookups import (
    FindGpuInput,
    FindModelInput,
    ListGpusInput,
    ListModelsInput,
    find_gpu,
    find_model,
    list_gpus,
    list_models,
)
from assistant.recommend_tool import run_recommend
from assistant.results import Problem, ToolError
from assistant.schemas import compact_schema
from assistant.sizing_tool import run_size
from assistant.wire import SIGNIFICANT_DIGITS, compact_json, lean, lean_result, model_content
from assistant.workload_tools import run_embed
from tools.deployment import (
    BuyVsRentRequest,
    EngineRequest,
    SpeedupRequest,
    buy_vs_rent,
    plan_engine,
    plan_speedups,
)
from tools.errors import ToolInputError, closest_names, field_problems
from tools.fits import FitsRequest, fits_on_hardware
from tools.local_serving import LocalServingRequest, plan_local_serving
from tools.memory import MemoryRequest, estimate_memory
from tools.nesting import MAX_DEPTH, NestingError, too_deep
from tools.sizing import SIZE_HIDDEN, SizingRequest
from tools.workload import Workload
from tools.workloads.embedding import EmbeddingRequest

__all__ = [
    "SIGNIFICANT_DIGITS",
    "Registry",
    "ToolOutcome",
    "ToolSpec",
    "compact_json",
    "default_registry",
    "lean",
    "parse_arguments",
]


@dataclass(frozen=True)
class ToolSpec:
    """One callable tool. `func` takes the validated input model and returns a pydantic
    model (its typed result)."""

    name: str
    description: str
    input_model: type[BaseModel]
    func: Callable[[Any], BaseModel]
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
    """What a call produced: `value` (the typed result, or a `ToolError`), whether it is an
    error, and the arguments as parsed (empty when they were not valid JSON)."""

    name: str
    arguments: dict[str, Any]
    value: BaseModel
    is_error: bool = False

    # Both forms are computed once per outcome: the registry's guard reads `result` on every
    # call and callers read it (and `content`) again; `value` is not changed after the call.
    # Treat the returned dict as read-only.

    @cached_property
    def result(self) -> dict[str, Any]:
        """The lean JSON form of `value` (bytes as `*_GB`), as the wire carries it."""
        return lean_result(self.value)

    @cached_property
    def content(self) -> str:
        """The tool message content sent back to the model (`wire.model_content`)."""
        return model_content(self.name, self.value, self.result)


def error_result(message: str, **details: Any) -> ToolError:
    """An error result the model can act on: what went wrong and what to send instead."""
    return ToolError(error=message, **details)


def validation_error_result(
    exc: ValidationError, model: type[BaseModel], hidden: Iterable[str] = ()
) -> ToolError:
    """Turn pydantic errors into a short list naming each field and the problem. The fields
    listed as allowed are the ones the tool's schema offers (`hidden` ones left out: an error
    never points a model or an agent at a field it was not shown)."""
    problems = [
        Problem(field=field or "arguments", problem=problem)
        for field, problem, _ in field_problems(exc, model)[:5]
    ]
    left_out = set(hidden)
    return error_result(
        "invalid arguments; fix these fields and call again",
        problems=problems,
        allowed_fields=sorted(f for f in model.model_fields if f not in left_out),
    )


class Registry:
    """The tools offered to the model, by name."""

    def __init__(self, specs: Iterable[ToolSpec]):
        self.specs: dict[str, ToolSpec] = {s.name: s for s in specs}

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
            problem = unserialisable_result(outcome.result) or unserialisable_result(
                outcome.arguments
            )
        except Exception as exc:  # the guard itself must not be the thing that raises
            return ToolOutcome(str(name)[:100], {}, _guard_error(internal_error_result(exc)), True)
        if problem is not None:
            arguments_ok = unserialisable_result(outcome.arguments) is None
            if outcome.is_error and unserialisable_result(outcome.result) is None:
                # NaN/inf in the arguments only (a dict from MCP): the tool's own error, which
                # names the field and what it allows, is the answer; the arguments are dropped.
                return ToolOutcome(outcome.name, {}, outcome.value, is_error=True)
            return ToolOutcome(
                outcome.name,
                outcome.arguments if arguments_ok else {},
                _guard_error(problem),
                is_error=True,
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
                name,
                parsed,
                validation_error_result(exc, spec.input_model, spec.hidden),
                is_error=True,
            )
        try:
            result = spec.func(validated)
            if not isinstance(result, BaseModel):
                raise TypeError(f"{name} returned {type(result).__name__}, not a result model")
        except ToolInputError as exc:
            return ToolOutcome(name, parsed, ToolError.from_input_error(exc), is_error=True)
        except ValidationError as exc:  # a tool validating a nested model itself
            return ToolOutcome(
                name,
                parsed,
                validation_error_result(exc, spec.input_model, spec.hidden),
                is_error=True,
            )
        except Exception as exc:  # a tool bug or limit must not end the conversation
            return ToolOutcome(name, parsed, _guard_error(internal_error_result(exc)), True)
        return ToolOutcome(name, parsed, result)


def _guard_error(data: dict[str, Any]) -> ToolError:
    """A guard's error result (`assistant.guard`) as a typed `ToolError`."""
    return ToolError.model_validate(data)


_TOO_DEEP = f"arguments nest more than {MAX_DEPTH} levels deep; send one flat JSON object"


def parse_arguments(arguments: object) -> dict[str, Any] | str:
    """Parse model-sent arguments; returns the dict, or a message saying what to fix."""
    if arguments is None:
        return {}
    if isinstance(arguments, Mapping):
        if not all(isinstance(key, str) for key in arguments):
            return "argument names must be strings"
        if too_deep(arguments):
            return _TOO_DEEP
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
    except NestingError:
        return _TOO_DEEP
    except json.JSONDecodeError as exc:
        try:
            # Literal newlines/tabs inside strings are a common small-model mistake.
            value = loads_arguments(text, strict=False)
        except ValueError:
            return (
                f"arguments are not valid JSON ({exc.msg} at character {exc.pos}); send one "
                'JSON object, e.g. {"model": "llama-3.1-8b"}'
            )
    if not isinstance(value, dict):
        return f"arguments must be a JSON object, got {type(value).__name__}"
    return value


# --- catalog look-ups (assistant/lookups.py) ---------------------------------------------


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


# --- calculators ---------------------------------------------------------------------------


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
    "engine_version",
    "split_mode",
    # Training-expert knobs rarely said in a chat, and vLLM's utilisation (which `size` hides
    # too): hidden to pay for issue 30's workload parts.
    "adapter_dtype",
    "offload_optimizer",
    "gpu_memory_utilization",
    "optimizer",
    # Served adapters' slots: the `size` tool's `lora_serving` part sets them.
    "lora_slots",
)
_WORKLOAD_HIDDEN = (
    "config_path",
    "model_file",
    "gpu_memory_utilization",
    "max_output_tokens",
    "batching",
    "micro_batch_sequences",
    "engine_version",
    "constraints.allow_pipeline_parallel",
    "constraints.require_fast_interconnect",
    "lora_slots",
    "lora_slot_rank",
)

_LOCAL_HIDDEN = (
    "config_path",
    "model_file",
    "task",
    "engine",
    "gpu_memory_utilization",
    "kv_dtype",
    "gpu_bandwidth_gb_s",
    "gpu_unified_memory",
    "ram_bandwidth_gb_s",
    "flash_attention",
    "gpus",
    "gpu_name",
    "weights",
    "params",
    "engine_version",
)

# The `size` tool's input nests the workload: its expert fields are hidden there too.
_SIZE_HIDDEN = (
    *(f"workload.{name}" for name in _WORKLOAD_HIDDEN),
    "workload.global_batch_sequences",
    "workload.constraints.exclude_gpus",
    "workload.constraints.allow_pipeline_parallel",
)

# The API providers and models to compare with: the offline planner's, from a named API ('the
# Groq API', 'vs GPT-4o mini').
_COST_HIDDEN = ("api_providers", "api_models")

_CALCULATORS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "size",
        "Size a workload in one call: memory per named GPU setup, ranked options, costs, "
        "the leading option (`headline`) and follow-ups.",
        SizingRequest,
        run_size,
        tuple(dict.fromkeys((*SIZE_HIDDEN, *_SIZE_HIDDEN))),
    ),
    ToolSpec(
        "estimate_memory",
        "GPU memory per GPU for a model + workload: breakdown, assumptions, fit on `gpu`.",
        MemoryRequest,
        estimate_memory,
        _MEMORY_HIDDEN,
    ),
    ToolSpec(
        "recommend",
        "Smallest configuration per GPU type that fits and meets the targets, ranked.",
        Workload,
        run_recommend,
        _WORKLOAD_HIDDEN,
        offered=False,  # `size` answers it (and more) within the prompt budget
    ),
    ToolSpec(
        "plan_local_serving",
        "llama.cpp/Ollama on own GPU(s): layers that fit (-ngl), rest in RAM, est. tok/s, "
        "launch line.",
        LocalServingRequest,
        plan_local_serving,
        _LOCAL_HIDDEN,
        offered=False,  # ~250 prompt tokens; the engines pre-compute it from the question
    ),
    ToolSpec(  # issue 30 items 5-7
        "plan_engine",
        "A model on a GPU setup under vLLM, SGLang, TensorRT-LLM, llama.cpp, Ollama or MLX: "
        "that engine's own KV pool and launch line.",
        EngineRequest,
        plan_engine,
        ("engine", "gpu_memory_utilization", "config_path", "model_file", "split_mode"),
        offered=False,  # the prompt budget is spent; `size` carries it for the leading option
    ),
    ToolSpec(
        "buy_vs_rent",
        "Buying GPUs vs renting them: purchase, power at a kWh price and PUE, break-even "
        "months against the cheapest rental, energy per million tokens.",
        BuyVsRentRequest,
        buy_vs_rent,
        offered=False,  # the prompt budget is spent; `size` carries it for the leading option
    ),
    ToolSpec(
        "plan_speedups",
        "Speculative decoding (Leviathan et al. 2023), prefix caching, prefill/decode split on "
        "a sized replica's speeds and load.",
        SpeedupRequest,
        plan_speedups,
        offered=False,  # the prompt budget is spent; `size` carries it for the leading option
    ),
    ToolSpec(
        "fits_on_hardware",
        "Which catalog models run on the user's GPU(s) or Mac: best GGUF type, context, est. "
        "tok/s, by size class.",
        FitsRequest,
        fits_on_hardware,
        (),
        offered=False,  # the prompt budget; the engines pre-compute it from the question
    ),
    ToolSpec(
        "compare_costs",
        "Cloud cost ($/hour, $/month, $/M tokens) per tier of configurations, API comparison, "
        "break-even; training cost for options with hours.",
        CostRequest,
        run_cost_request,
        _COST_HIDDEN,
        offered=False,  # `size` prices its options at the load it states
    ),
    # issue 30 item 2: an embedding / reranker corpus (no LLM), pre-computed like local plans.
    ToolSpec(
        "embed_corpus",
        "Embedding/reranker model: memory, tokens and documents/s, time and cost for a corpus.",
        EmbeddingRequest,
        run_embed,
        (),
        offered=False,  # ~150 prompt tokens past the budget; the engines pre-compute it
    ),
)


def default_registry() -> Registry:
    """The calculators and the catalog look-ups."""
    return Registry([*_CALCULATORS, *LOOKUP_TOOLS])
