"""The workload the recommender sizes: model, serving/training targets and hardware constraints.

`Workload` is the function-calling schema of the `recommend` tool, so every field carries a
description with its unit and allowed values. Model fields (`model`, `params`, `config_path`,
`weights`, `kv_dtype`, `engine`, ...) mean the same as in `tools.memory.MemoryRequest`; the
recommender hands them to `estimate_memory` unchanged, so the memory calculator validates the
format names and the model look-up.

Validation errors say which field, what was wrong and what is allowed; `validate_workload`
turns pydantic's error into the project's `ToolInputError` in one place.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

from tools.defaults import (
    DEFAULT_CONTEXT_TOKENS,
    DEFAULT_OUTPUT_TOKENS,
    DEFAULT_PROMPT_TOKENS,
    default_request_shape,
)
from tools.errors import ToolInputError, from_validation_error
from tools.field_factories import empty_list
from tools.limits import (
    FINITE,
    MAX_BATCH_SEQUENCES,
    MAX_CONTEXT_TOKENS,
    MAX_GPUS,
    MAX_HOURS,
    MAX_LIST_ITEMS,
    MAX_LORA_ADAPTERS,
    MAX_LORA_RANK,
    MAX_NAME_CHARS,
    MAX_SECONDS,
    MAX_SEQUENCES,
    MAX_TOKENS_PER_S,
    MAX_TOKENS_PER_S_PER_USER,
    MAX_TRAIN_TOKENS,
    MAX_USD_PER_HOUR,
    MIN_RATE,
)
from tools.memory.model import resolve_model
from tools.memory.request import ModelChoice

Objective = Literal["cheapest", "cheapest_per_token", "fastest", "fewest_gpus"]
Batching = Literal["continuous", "static"]

# Request lengths when the user gives none: the shape shared with the memory tool
# (tools/defaults.py: 3,072 + 1,024 = 4,096 tokens, capped at the model's maximum context).
# `Workload.default_notes` states them; they are never used silently.

# Beyond this many GPUs the search stops (a 16-node H100 cluster); the user can raise it.
DEFAULT_MAX_GPUS = 128


class Constraints(BaseModel):
    """Hardware constraints: which GPUs may be used and how many."""

    model_config = ConfigDict(extra="forbid", **FINITE)

    only_gpus: list[Annotated[str, Field(max_length=MAX_NAME_CHARS)]] = Field(
        default_factory=empty_list,
        max_length=MAX_LIST_ITEMS,
        description="GPU ids or names to allow; empty = all.",
    )
    exclude_gpus: list[Annotated[str, Field(max_length=MAX_NAME_CHARS)]] = Field(
        default_factory=empty_list,
        max_length=MAX_LIST_ITEMS,
        description="Deny-list of catalog GPU ids or names.",
    )
    max_gpus: int = Field(
        default=DEFAULT_MAX_GPUS,
        ge=1,
        le=MAX_GPUS,
        description="Most GPUs, all replicas together.",
    )
    single_node: bool = Field(
        default=False,
        description="True: one server only (count <= the GPU's gpus_per_node; no multi-node "
        "pipeline parallelism, no replicas across nodes).",
    )
    allow_pipeline_parallel: bool = Field(
        default=True,
        description="Allow pipeline parallelism (PP) across nodes when one node's tensor-"
        "parallel group is too small for the model.",
    )
    require_fast_interconnect: bool = Field(
        default=False,
        description="Only GPUs with NVLink / Infinity Fabric class GPU-to-GPU links.",
    )
    budget_usd_per_hour: float | None = Field(
        default=None,
        gt=0,
        le=MAX_USD_PER_HOUR,
        description="Most USD per hour for the whole configuration (needs prices).",
    )
    region: str | None = Field(
        default=None,
        max_length=MAX_NAME_CHARS,
        description="'eu': rank by EU-region prices only.",
    )

    @property
    def eu_only(self) -> bool:
        """True when the region asks for EU prices only ('eu' or 'europe')."""
        return (self.region or "").strip().lower() in ("eu", "europe")


class Workload(ModelChoice):
    """An inference or training workload to size, with targets and constraints.

    Inference: `prompt_tokens` + `output_tokens` per request (or `context` to set the KV length
    directly), `users` concurrent sequences or a target `tokens_per_s` aggregate, optional
    latency targets (`ttft_s`, `tokens_per_s_per_user`). Training: `task` full/lora/qlora,
    `sequence_length`, `global_batch_sequences`, `train_tokens`, optional `deadline_hours`.
    """

    model_config = ConfigDict(extra="forbid", **FINITE)

    # model, params, config_path, task, weights, kv_dtype, engine, gpu_memory_utilization:
    # inherited from tools.memory.ModelChoice (one definition shared with MemoryRequest).

    # --- inference sizes and targets ---
    prompt_tokens: int = Field(
        default=DEFAULT_PROMPT_TOKENS,
        ge=1,
        le=MAX_CONTEXT_TOKENS,
        description=f"Input tokens per request (default {DEFAULT_PROMPT_TOKENS}; with "
        "no lengths given, the default shape is scaled to a shorter model maximum, keeping 3:1).",
    )
    output_tokens: int = Field(
        default=DEFAULT_OUTPUT_TOKENS,
        ge=1,
        le=MAX_CONTEXT_TOKENS,
        description=f"Output tokens per request (default {DEFAULT_OUTPUT_TOKENS}).",
    )
    context: int | None = Field(
        default=None,
        ge=1,
        le=MAX_CONTEXT_TOKENS,
        description="KV-cache length per sequence, tokens (default prompt + output = "
        f"{DEFAULT_CONTEXT_TOKENS}, or the model's maximum when smaller).",
    )
    users: int = Field(
        default=1,
        ge=1,
        le=MAX_SEQUENCES,
        description="Concurrent users (sequences); leave unset when only tokens_per_s is known.",
    )
    tokens_per_s: float | None = Field(
        default=None,
        ge=MIN_RATE,
        le=MAX_TOKENS_PER_S,
        description="Target output tokens/s over all users.",
    )
    replicas: int | None = Field(
        default=None,
        ge=1,
        le=MAX_GPUS,
        description="Fixed replica count; 1 = one saturated replica (users past its cap wait).",
    )
    tokens_per_s_per_user: float | None = Field(
        default=None,
        ge=MIN_RATE,
        le=MAX_TOKENS_PER_S_PER_USER,
        description="Target decode tokens/s each user sees.",
    )
    ttft_s: float | None = Field(
        default=None,
        ge=MIN_RATE,
        le=MAX_SECONDS,
        description="Target time to first token (no queueing), seconds.",
    )
    max_output_tokens: int | None = Field(
        default=None,
        ge=1,
        le=MAX_CONTEXT_TOKENS,
        description="Longest output in a batch, tokens (static batching waits for it; default "
        "2 × output_tokens, i.e. lengths spread evenly up to twice the mean).",
    )
    batching: Batching = Field(
        default="continuous",
        description="continuous (vLLM/TGI: finished sequences leave, new ones join every step) "
        "or static (a batch runs until its longest sequence ends).",
    )

    # --- training ---
    sequence_length: int | None = Field(
        default=None,
        ge=1,
        le=MAX_CONTEXT_TOKENS,
        description="Training sequence length, tokens (default: context, else prompt + output "
        f"= {DEFAULT_CONTEXT_TOKENS}, or the model's maximum when smaller).",
    )
    global_batch_sequences: int = Field(
        default=256,
        ge=1,
        le=MAX_BATCH_SEQUENCES,
        description="Training global batch, sequences.",
    )
    micro_batch_sequences: int = Field(
        default=1,
        ge=1,
        le=MAX_SEQUENCES,
        description="Training micro-batch per GPU, sequences.",
    )
    train_tokens: float | None = Field(
        default=None,
        ge=1,
        le=MAX_TRAIN_TOKENS,
        description="Tokens to train on (dataset tokens × epochs).",
    )
    deadline_hours: float | None = Field(
        default=None,
        ge=MIN_RATE,
        le=MAX_HOURS,
        description="Training wall-clock limit, hours.",
    )
    lora_rank: int | None = Field(
        default=None, ge=1, le=MAX_LORA_RANK, description="LoRA/QLoRA adapter rank."
    )
    lora_slots: int | None = Field(
        default=None,
        ge=1,
        le=MAX_LORA_ADAPTERS,
        description="Serving: vLLM LoRA adapter slots counted in every layout (set from "
        "`SizingRequest.lora_serving`).",
    )
    lora_slot_rank: int | None = Field(
        default=None, ge=1, le=512, description="Rank of the served adapter slots."
    )
    checkpointing: bool | None = Field(
        default=None,
        description="Activation checkpointing; default on for training.",
    )
    zero: Literal[0, 1, 2, 3] | None = Field(
        default=None, description="ZeRO / FSDP sharding stage for data-parallel training."
    )

    # --- ranking and constraints ---
    objective: Objective = Field(
        default="cheapest",
        description="cheapest: $/h; cheapest_per_token: $/M output tokens at full load; "
        "no prices: fewest_gpus.",
    )
    constraints: Constraints = Field(default_factory=Constraints)

    # The default-shape statements for the assumptions, filled by `_default_shape`.
    _default_notes: list[str] = PrivateAttr(default_factory=list)

    @field_validator("tokens_per_s", "tokens_per_s_per_user", "ttft_s", "train_tokens")
    @classmethod
    def _finite(cls, value: float | None) -> float | None:
        if value is not None and not math.isfinite(value):
            raise ValueError("must be a finite number")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> Workload:
        if self.is_training and self.train_tokens is None and self.deadline_hours is not None:
            raise ToolInputError(
                "deadline_hours",
                "needs train_tokens (how much data to train on)",
                "train_tokens with deadline_hours, or no deadline",
            )
        if self.micro_batch_sequences > self.global_batch_sequences:
            raise ToolInputError(
                "micro_batch_sequences",
                f"{self.micro_batch_sequences} exceeds global_batch_sequences "
                f"({self.global_batch_sequences})",
                "at most global_batch_sequences",
            )
        return self

    @model_validator(mode="after")
    def _default_shape(self) -> Workload:
        """With no lengths given, size the shared default shape, capped at the model's maximum
        context like the memory tool's default, and say so. Lengths the user gave are used as
        given (the memory calculator warns past the maximum)."""
        given = self.model_fields_set
        if given & {"context", "prompt_tokens", "output_tokens"}:
            return self
        if self.is_training and "sequence_length" in given:
            return self
        try:
            resolved = resolve_model(self.model, self.params, self.config_path, self.model_file)
        except ToolInputError:
            # The sizing reports an unknown model with suggestions; the default shape needs
            # only the maximum context, so it waits for a model that resolves.
            return self
        limit = resolved.architecture.max_context
        shape = default_request_shape(limit)
        # Assigned, not re-validated: the values come from the shared defaults, scaled down.
        self.prompt_tokens = shape.prompt_tokens
        self.output_tokens = shape.output_tokens
        # Still defaults, not the user's lengths: keep them out of the fields the user set, so a
        # re-validated dump (exclude_unset) derives the same shape and note again.
        self.__pydantic_fields_set__ -= {"prompt_tokens", "output_tokens"}
        capped = shape.context_tokens < DEFAULT_CONTEXT_TOKENS
        maximum = f"the model's maximum context of {limit:,} tokens (max_position_embeddings)"
        if self.is_training:
            how = (
                f"the default {DEFAULT_CONTEXT_TOKENS:,} capped at {maximum}"
                if capped
                else "default"
            )
            self._default_notes = [
                f"Training sequence length: {shape.context_tokens:,} tokens ({how}; set "
                "sequence_length)."
            ]
        else:
            how = (
                f"the default {DEFAULT_PROMPT_TOKENS:,} + {DEFAULT_OUTPUT_TOKENS:,} scaled down "
                f"to {maximum}, keeping the 3:1 prompt:output split"
                if capped
                else "default"
            )
            self._default_notes = [
                f"Request shape: {shape.prompt_tokens:,} prompt + {shape.output_tokens:,} "
                f"output = {shape.context_tokens:,} tokens per sequence ({how}; set "
                "prompt_tokens/output_tokens or context)."
            ]
        return self

    @property
    def default_notes(self) -> list[str]:
        """Assumption lines for the request lengths this workload took from the defaults
        (empty when the user gave them)."""
        return list(self._default_notes)

    @property
    def context_tokens(self) -> int:
        """KV length per sequence for serving, tokens: `context`, else prompt + output."""
        return self.context or self.prompt_tokens + self.output_tokens

    @property
    def training_sequence_tokens(self) -> int:
        """Training sequence length, tokens."""
        return self.sequence_length or self.context_tokens


def validate_workload(data: Mapping[str, Any]) -> Workload:
    """Build a Workload from tool-call or CLI arguments; bad input → `ToolInputError`."""
    try:
        return Workload.model_validate(dict(data))
    except ValidationError as exc:
        raise workload_error(exc) from None


def revalidated(w: Workload, data: dict[str, Any]) -> Workload:
    """`data` (`w`'s fields, some changed) validated as a Workload that keeps how `w`'s weights
    spelling was read ('int4' as int4-awq: an assumption every surface states)."""
    out = validate_workload(data)
    if out.weights_reading is None and w.weights_reading and out.weights == w.weights:
        out._weights_reading = w.weights_reading
    return out


def workload_error(exc: ValidationError) -> ToolInputError:
    """The first pydantic error as a ToolInputError naming the field and what is allowed."""
    return from_validation_error(exc, Workload)
