"""`LocalServingRequest` / `LocalServingPlan`: the local-serving tool's schema and result."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tools.field_factories import empty_list
from tools.hardware import GpuLimitRule
from tools.limits import MAX_CONTEXT_TOKENS
from tools.memory.request import ModelChoice
from tools.performance.basis import SpeedBasis

CacheType = Literal["f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1"]
"""llama.cpp --cache-type-k/-v values (common/arg.cpp kv_cache_types)."""
Launcher = Literal["llama-server", "ollama"]


class FormatTry(BaseModel):
    """One GGUF type tried for the user's hardware."""

    model_config = ConfigDict(frozen=True)

    weights_format: str
    fits_fully: bool
    n_gpu_layers: int
    gpu_bytes: int
    budget_bytes: int
    weights_bytes: int


class FormatChoice(BaseModel):
    """The GGUF types tried, best quality first, and the rule that chose one."""

    model_config = ConfigDict(frozen=True)

    tried: list[FormatTry]
    rule: Literal["best_that_fits", "offload", "none_runs"] = Field(
        description="best_that_fits: the best-quality type with every layer on the GPU; "
        "offload: none fits, Q4_K_M with layers in RAM; none_runs: not even that."
    )
    reason: str = Field(description="The rule in words, with the context it was applied at.")


class LaunchLines(BaseModel):
    """What a user pastes to run the plan: Ollama, llama-server, LM Studio, MLX."""

    model_config = ConfigDict(frozen=True)

    ollama_reference: str = Field(
        description="FROM / `ollama run` reference: a library tag "
        "(name:size[-variant]-quant) or a local GGUF path."
    )
    ollama_library_tag: bool = Field(description="The reference is a tag Ollama pulls.")
    ollama_run: str
    ollama_modelfile: str
    llama_server: str
    lm_studio: str = Field(description="LM Studio's load settings, in words.")
    mlx_server: str | None = Field(
        default=None, description="mlx_lm.convert + mlx_lm.server lines (MLX asked for)."
    )


class LocalServingRequest(ModelChoice):
    """A model served by llama.cpp (llama-server) or Ollama on the user's own GPU(s)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    gpu: str | None = Field(default=None, description="Catalog GPU id or name.")
    gpu_memory_gb: float | None = Field(
        default=None,
        gt=0,
        le=100_000,
        description="Memory of a GPU not in the catalog, GB (10^9 bytes), e.g. 24.",
    )
    gpu_name: str | None = Field(
        default=None, max_length=80, description="The name the user gave that GPU."
    )
    gpu_bandwidth_gb_s: float | None = Field(
        default=None, gt=0, le=100_000, description="That GPU's memory bandwidth, GB/s."
    )
    gpu_unified_memory: GpuLimitRule | None = Field(
        default=None,
        description="gpu_memory_gb is the RAM of a unified-memory machine not in the catalog "
        "(macos-working-set: Apple silicon); the GPU may use that rule's share of it.",
    )
    gpus: int = Field(default=1, ge=1, le=64, description="GPUs, layers split across them.")
    context: int | None = Field(
        default=None,
        ge=1,
        le=MAX_CONTEXT_TOKENS,
        description="Tokens per request (slot); default 4,096 or the model maximum.",
    )
    parallel: int = Field(default=1, ge=1, le=256, description="Parallel slots (requests).")
    cache_type: CacheType | None = Field(
        default=None, description="KV-cache type for K and V (default f16)."
    )
    flash_attention: bool = Field(default=True, description="-fa on (needed for a quantized V).")
    system_ram_gb: float | None = Field(
        default=None, gt=0, le=100_000, description="System RAM, GB, for the offloaded layers."
    )
    ram_bandwidth_gb_s: float | None = Field(
        default=None, gt=0, le=100_000, description="System-RAM bandwidth, GB/s (default 89.6)."
    )
    launcher: Launcher = Field(default="llama-server", description="llama-server or ollama.")
    # --- Owned hardware (issue 29): the format chosen for the user's hardware, MLX lines ---
    choose_format: bool = Field(
        default=False,
        description="With no weights given: the best-quality GGUF type that fits on the GPU "
        "at the context (Q8_0, Q6_K, Q5_K_M, Q4_K_M, Q3_K_M, Q2_K), else Q4_K_M offloaded.",
    )
    mlx: bool = Field(default=False, description="Also give the mlx_lm.server line (a Mac).")

    def runs_llama_cpp(self) -> bool:
        """llama.cpp serves every local plan: `engine_version` names its build."""
        return True


class LocalServingPlan(BaseModel):
    """Where each part of the model goes, whether it runs, how fast, and how to start it."""

    model_config = ConfigDict(frozen=True)

    model_id: str
    model_name: str
    weights_format: str
    launcher: Launcher
    gpu: str | None = Field(description="Catalog GPU id, None for a GPU given by its memory.")
    gpu_label: str = Field(description="The GPU as named (catalog name or the user's words).")
    gpu_memory_stated: bool = Field(description="True: sized on the memory the user gave.")
    gpus: int
    budget_bytes: int = Field(description="GPU memory available to llama.cpp, all GPUs.")
    n_layers: int
    gpu_layers: int = Field(description="Transformer layers on the GPU(s).")
    n_gpu_layers: int = Field(description="--n-gpu-layers / num_gpu: layers + the output layer.")
    output_on_gpu: bool
    fits_fully: bool = Field(description="Every layer and the output layer on the GPU(s).")
    fits_in_ram: bool | None = Field(
        description="The rest fits the stated system RAM (unified memory: GPU and CPU parts "
        "together fit the machine's RAM less the OS reserve); None when no RAM is known."
    )
    gpu_bytes: int = Field(description="Memory used on the GPU(s), bytes.")
    host_bytes: int = Field(description="System RAM for weights and KV on the CPU, bytes.")
    weights_bytes: int
    weights_gpu_bytes: int
    kv_cache_bytes: int
    kv_cache_gpu_bytes: int
    compute_and_overhead_bytes: int = Field(description="Compute buffers + runtime, all GPUs.")
    system_ram_bytes: int | None = Field(
        default=None, description="System RAM: as stated, or a unified-memory machine's own."
    )
    ram_needed_bytes: int = Field(
        default=0,
        description="RAM the plan needs: the CPU part (unified memory: CPU and GPU parts).",
    )
    ram_available_bytes: int | None = Field(
        default=None,
        description="RAM it may use: as stated, or a unified-memory machine's RAM less the OS "
        "reserve; None when unknown.",
    )
    unified_memory: bool = Field(
        default=False, description="GPU and CPU share one memory (Apple silicon, DGX Spark)."
    )
    gpu_limit_basis: str | None = Field(
        default=None,
        description="Unified memory: the rule that sets how much of the RAM the GPU may use "
        "(budget_bytes), in words with its figures; None for a discrete GPU.",
    )
    context_total: int = Field(description="-c: tokens over all slots.")
    context_per_slot: int
    parallel: int
    cache_type: CacheType
    decode_tokens_per_s: float | None = Field(
        default=None, description="Single-stream decode speed, tokens/s."
    )
    decode_basis: str | None = Field(
        default=None, description="What the decode speed rests on, in words (label first)."
    )
    decode_label: SpeedBasis | None = Field(
        default=None,
        description="calibrated (llama.cpp constants fitted on this GPU class, all on the GPU) "
        "or estimated.",
    )
    launch_command: str
    # --- Owned hardware (issue 29): the format chosen, the longest context, every launch line
    format_choice: FormatChoice | None = Field(
        default=None, description="How the GGUF type was chosen (choose_format), else None."
    )
    longest_context_tokens: int | None = Field(
        default=None,
        description="Longest context per slot that keeps every layer on the GPU(s), tokens, in "
        "steps of a power of two (or the model's maximum); None when the model does not fit.",
    )
    launch: LaunchLines | None = Field(default=None, description="Every launch line.")
    ollama_modelfile: str | None = None
    ollama_env: dict[str, str] = Field(default_factory=dict)
    assumptions: list[str] = Field(default_factory=empty_list)
    warnings: list[str] = Field(default_factory=empty_list)
