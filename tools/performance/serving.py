"""Steady-state serving under continuous batching, and the engine limits that cap it.

At steady state each of the B running sequences emits one token per engine step, and B / OSL of
them finish per step on average; the requests that replace them must be prefilled, so a step
carries B decode tokens plus B · ISL / OSL prompt tokens (vLLM V1 chunked prefill schedules
both in one step, up to max_num_batched_tokens; Agrawal et al. 2024, Sarathi-Serve). Sequences
are spread evenly over their lifetime, so the KV read per decode token is the paged average
context ISL + OSL/2, not the final one. A step whose tokens exceed the per-forward budget runs
as several forwards (each reading the weights).

Output throughput of one replica = B / step; each sequence's inter-token time = step.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from tools.catalog import GpuSpec
from tools.memory.overhead import vllm_batch_defaults
from tools.performance.efficiency import Efficiencies
from tools.performance.engines import base_engine
from tools.performance.roofline import ModelOnGpus
from tools.performance.steps import StepTime, forward_step

# TensorRT-LLM's default max_batch_size (trtllm-build / LLM API BuildConfig: 2048) and
# max_num_tokens (8192): tensorrt_llm/builder.py BuildConfig defaults.
TRTLLM_MAX_BATCH_SIZE = 2048
TRTLLM_MAX_NUM_TOKENS = 8192


@dataclass(frozen=True)
class EngineLimits:
    """How many sequences an engine runs at once and how many tokens one forward takes."""

    max_num_seqs: int | None  # None: no engine cap (the KV cache or the user decides)
    max_num_batched_tokens: int | None  # None: a whole step in one forward
    source: str


def engine_limits(engine: str | None, gpu: GpuSpec) -> EngineLimits:
    """The default batch limits of `engine` on `gpu`."""
    name = base_engine(engine or "vllm").lower()  # a llama.cpp build era changes no limit
    if name == "vllm":
        seqs, tokens, source = vllm_batch_defaults(gpu)
        return EngineLimits(seqs, tokens, source)
    if name == "tensorrt-llm":
        return EngineLimits(
            TRTLLM_MAX_BATCH_SIZE,
            TRTLLM_MAX_NUM_TOKENS,
            "TensorRT-LLM BuildConfig defaults: max_batch_size 2048, max_num_tokens 8192",
        )
    if name in ("mlx", "mlx-lm"):
        return EngineLimits(
            None,
            2048,
            "mlx-lm: prompts prefilled in steps of prefill_step_size = 2048 tokens "
            "(generate_step); concurrent sequences = its batch generator's",
        )
    if name in ("generic", "llama.cpp", "llama.cpp-vulkan"):
        return EngineLimits(
            None,
            512,
            "llama.cpp: one ubatch of n_ubatch = 512 tokens per forward (common/common.h); "
            "concurrent sequences = the server's -np slots",
        )
    return EngineLimits(None, None, "no engine batch cap")


@dataclass(frozen=True)
class ServingPoint:
    """Steady state of one replica running `sequences` concurrent sequences.

    `step`: one engine step with all the prefill the load brings (the replica's throughput);
    `itl_step`: the step one user waits between two of its tokens — the same batch with the
    prefill of the *other* users' replacement requests (a user's own prompt is prefilled before
    its first token, so a lone user decodes at the pure decode speed); computed when first
    asked for (a throughput needs only `step`)."""

    sequences: int
    step: StepTime
    prefill_tokens_per_step: float
    forwards_per_step: float
    _itl: Callable[[], StepTime] = field(repr=False, compare=False)

    @cached_property
    def itl_step(self) -> StepTime:
        """The step between two tokens of one user (see the class docstring)."""
        return self._itl()

    @property
    def inter_token_s(self) -> float:
        """Time between two tokens of one sequence, seconds."""
        return self.itl_step.seconds

    @property
    def tokens_per_s_per_seq(self) -> float:
        """Decode speed each sequence sees at this load, tokens/s."""
        return 1.0 / self.itl_step.seconds

    @property
    def output_tokens_per_s(self) -> float:
        """Output tokens/s of the replica."""
        return self.sequences / self.step.seconds

    @property
    def bound_by_compute(self) -> bool:
        """True when the step's GEMMs are compute-bound (prefill and batch dominate)."""
        return self.step.bound == "compute"


def _mixed_step(
    m: ModelOnGpus,
    b: int,
    prefill: float,
    prompt_tokens: int,
    output_tokens: int,
    budget: int | None,
    eff: Efficiencies | None,
) -> tuple[StepTime, float]:
    passes = max(1.0, (b + prefill) / budget) if budget else 1.0
    step = forward_step(
        m,
        b,
        prompt_tokens + output_tokens / 2,
        prefill_tokens=prefill,
        prefill_context=prompt_tokens / 2,
        passes=passes,
        eff=eff,
    )
    return step, passes


def steady_state(
    m: ModelOnGpus,
    sequences: int,
    prompt_tokens: int,
    output_tokens: int,
    max_num_batched_tokens: int | None = None,
    eff: Efficiencies | None = None,
) -> ServingPoint:
    """Steady state of `sequences` concurrent requests of `prompt_tokens` in and
    `output_tokens` out on one replica (see the module docstring)."""
    b = max(1, sequences)
    per_request = prompt_tokens / max(1, output_tokens)
    prefill = b * per_request
    step, passes = _mixed_step(
        m, b, prefill, prompt_tokens, output_tokens, max_num_batched_tokens, eff
    )

    def itl() -> StepTime:
        others = (b - 1) * per_request
        return _mixed_step(m, b, others, prompt_tokens, output_tokens, max_num_batched_tokens, eff)[
            0
        ]

    return ServingPoint(b, step, prefill, passes, itl)


def batch_cap(kv_sequences: int, limits: EngineLimits) -> int:
    """Sequences one replica can run: the KV cache's capacity, capped by the engine's
    max_num_seqs."""
    if limits.max_num_seqs is None:
        return kv_sequences
    return min(kv_sequences, limits.max_num_seqs)


def static_batching_factor(mean_output_tokens: float, max_output_tokens: float) -> float:
    """Share of decode slots doing useful work under static batching, where a batch holds its
    slots until its longest sequence ends: mean / max output length. Continuous batching (Orca,
    Yu et al. OSDI 2022; vLLM) refills a slot as soon as its sequence ends: factor 1."""
    return min(1.0, mean_output_tokens / max_output_tokens)
