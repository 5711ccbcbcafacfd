"""vLLM's memory accounting per version: what its start-up profile subtracts from
`total × gpu_memory_utilization` before the rest becomes the KV-cache pool.

vLLM sizes the pool as (vllm/v1/worker gpu_worker.determine_available_memory, logged as 'Model
loading took', 'torch peak memory increase', 'non-torch forward increase memory', 'Available KV
cache memory'):

    KV pool = total (cudaMemGetInfo) × gpu_memory_utilization − weights − activation peak
              − non-torch memory

where the activation peak is the profile run at max_num_batched_tokens plus its sampler, and
non-torch memory is what NCCL and other libraries allocate outside PyTorch. The CUDA context
is taken before the profile and CUDA graphs are captured after the pool is sized, so from
0.11 on neither is subtracted: both live in the (1 − utilization) margin. Three profiles, each
reproduced from published logs:

- "0.6" (vLLM ≤ 0.10, V0 and the first V1 releases): the accounting gpu-sizer has used since
  vLLM PR #10511 (late 2024, vLLM 0.6.x): layer working set + a sampler reserve of
  max_num_seqs × V × 16 B; the CUDA context (1.31 GiB), cuBLAS workspace and 0.5 GiB of CUDA
  graphs counted; gpu_memory_utilization 0.9 (vLLM 0.6.4 docs).
- "0.11" (0.11 ≤ v < 0.17): llm-d/llm-d-benchmark config_explorer/empirical-vllm-memory-results.md
  (vLLM v0.11.0 on H100, 79.18 GiB): the profile keeps the logits of every profiled token in
  fp32 — Llama-3.1-8B 4.76 GiB = 0.78 GiB of layers + 8,192 × 128,256 × 4 B (3.91 GiB);
  non-torch 0.13 GiB at TP 1, 0.55 GiB at TP 2; default utilization 0.9.
- "0.19" (v ≥ 0.17, the newest): llm-d-incubation/llm-d-planner
  docs/accuracy/vllm-v0.19.0-accuracy-report.md (vLLM v0.19.0 on H100, 79.19 GiB): the peak is
  the larger of the layer working set and the sampler (max_num_seqs × V × 16 B: Llama-3.1-8B
  1.89 GiB measured, 1.96 modelled; Qwen2.5-7B / Qwen3-8B 2.21 / 2.32; phi-4 1.52 / 1.53),
  about 60% below 0.11's; non-torch 0.25 GiB at TP 1, 2.07 GiB at TP 2 and 2.13 at TP 4 (NCCL
  all-reduce buffers), 0.07 GiB with pipeline stages; default utilization 0.92 (vLLM stable docs,
  `vllm serve --gpu-memory-utilization`: 'Default: 0.92').

A named version takes the profile of the newest range it falls in (a release newer than 0.19
takes "0.19", the newest: stated); with none named, the "0.6" accounting the rest of gpu-sizer
was validated on (stated in the estimate's assumptions).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, Protocol

from tools.memory.overhead import VLLM_GPU_MEMORY_UTILIZATION
from tools.units import GiB

ActivationMode = Literal["sampler_sum", "batch_logits", "sampler_max"]

LLM_D_V011 = (
    "llm-d/llm-d-benchmark config_explorer/empirical-vllm-memory-results.md (vLLM v0.11.0, "
    "H100 79.18 GiB, --gpu-memory-utilization 0.9 default)"
)
LLM_D_V019 = (
    "llm-d-incubation/llm-d-planner docs/accuracy/vllm-v0.19.0-accuracy-report.md (vLLM "
    "v0.19.0, H100 79.19 GiB)"
)
VLLM_STABLE_DOCS = (
    "vLLM docs, vllm serve --gpu-memory-utilization: 'If unspecified, will use the default "
    "value of 0.92' (stable docs as quoted in maximhq/bifrost PR #7175, 2026); 0.9 in v0.6.4"
)


@dataclass(frozen=True)
class VllmProfile:
    """How one range of vLLM versions accounts for memory at start-up."""

    version: str
    first: tuple[int, int]
    default_utilization: float
    utilization_source: str
    activation: ActivationMode
    non_torch_tp1_bytes: int
    non_torch_tp_bytes: dict[int, int]
    non_torch_pp_bytes: int
    counts_cuda_context: bool
    source: str

    def non_torch_bytes(self, tp: int, pp: int) -> int:
        """Memory outside PyTorch per GPU (NCCL buffers at TP ≥ 2), bytes."""
        if tp >= 2:
            known = [k for k in sorted(self.non_torch_tp_bytes) if k <= tp]
            return self.non_torch_tp_bytes[known[-1]] if known else self.non_torch_tp1_bytes
        return self.non_torch_pp_bytes if pp >= 2 else self.non_torch_tp1_bytes


def _gib(x: float) -> int:
    return round(x * GiB)


PROFILES: tuple[VllmProfile, ...] = (
    VllmProfile(
        "0.6",
        (0, 0),
        0.9,
        "vLLM 0.6.4 engine arguments: gpu_memory_utilization defaults to 0.9",
        "sampler_sum",
        0,
        {},
        0,
        True,
        "vLLM PR #10511 log (vLLM 0.6.x, H100): 1.26 GiB activation peak for Llama-3-8B",
    ),
    VllmProfile(
        "0.11",
        (0, 11),
        0.9,
        LLM_D_V011,
        "batch_logits",
        _gib(0.13),
        {2: _gib(0.55)},
        _gib(0.13),
        False,
        LLM_D_V011,
    ),
    VllmProfile(
        "0.19",
        (0, 17),
        0.92,
        VLLM_STABLE_DOCS,
        "sampler_max",
        _gib(0.25),
        {2: _gib(2.07), 4: _gib(2.13)},
        _gib(0.07),
        False,
        LLM_D_V019,
    ),
)
NEWEST = PROFILES[-1]
VERSION_RE = re.compile(r"v?(\d+)\.(\d+)(?:\.\d+)?(?:\S*)")


def parse_version(text: str) -> tuple[int, int] | None:
    """(major, minor) of a vLLM version string ('0.11', 'v0.19.0', '0.10.1.1'); None if not one."""
    match = VERSION_RE.fullmatch(text.strip().lower())
    return None if match is None else (int(match.group(1)), int(match.group(2)))


def vllm_profile(version: str | None) -> VllmProfile:
    """The accounting profile of a vLLM version (None: the "0.6" accounting, see the module)."""
    if version is None:
        return PROFILES[0]
    parsed = parse_version(version)
    if parsed is None:
        raise ValueError(f"not a vLLM version: {version!r}")
    chosen = PROFILES[0]
    for p in PROFILES:
        if parsed >= p.first:
            chosen = p
    return chosen


def profile_note(version: str | None, profile: VllmProfile) -> str:
    """The assumption line naming the accounting used."""
    if version is None:
        return (
            "vLLM version not given: sized with the 0.6–0.10 accounting (activation peak with "
            "a max_num_seqs sampler reserve, CUDA context and graphs counted, utilization 0.9); "
            f"set engine_version (e.g. {NEWEST.version}) for a newer release's."
        )
    return (
        f"vLLM {version}: the {profile.version} accounting ({profile.source}): activation "
        f"{_ACTIVATION_WORDS[profile.activation]}; non-torch memory (NCCL) per GPU as its logs "
        "show; "
        + (
            "CUDA context and graphs counted."
            if profile.counts_cuda_context
            else "CUDA context and graphs in the (1 − utilization) margin, not subtracted."
        )
    )


_ACTIVATION_WORDS: dict[ActivationMode, str] = {
    "sampler_sum": "layers at max_num_batched_tokens + a max_num_seqs × V × 16 B sampler",
    "batch_logits": "layers + fp32 logits of every token of the max_num_batched_tokens profile",
    "sampler_max": "the larger of the layers at max_num_batched_tokens and the sampler",
}


# What vLLM's Hopper kernels (triton_kernels matmul_ogs) hold for MXFP4 MoE experts: llm-d's
# v0.11.0 H100 logs show gpt-oss-20b at 13.47 GiB and gpt-oss-120b at 64.38 GiB of weights
# where the checkpoint's tensors are 12.82 and 60.77 GiB; the difference is the routed
# experts grown by 1.069 and 1.064, i.e. the 2,880-wide expert dimension held as 3,072
# (a multiple of 256: 3,072 / 2,880 = 1.0667). Inferred from the two measurements, not read
# from vLLM's code; applied on Hopper only (no measurement for other generations).
MXFP4_HOPPER_PAD_MULTIPLE = 256
MXFP4_PAD_SOURCE = (
    "llm-d vLLM v0.11.0 H100 logs: gpt-oss-20b 13.47 GiB, gpt-oss-120b 64.38 GiB of weights vs "
    "12.82 / 60.77 GiB in the checkpoint: the MXFP4 experts held at the 2,880-wide dimension "
    "padded to 3,072 (inferred from the two rows)"
)


def mxfp4_expert_padding(hidden_size: int) -> float:
    """The factor vLLM's Hopper MXFP4 MoE kernels hold routed-expert bytes at."""
    padded = -(-hidden_size // MXFP4_HOPPER_PAD_MULTIPLE) * MXFP4_HOPPER_PAD_MULTIPLE
    return padded / hidden_size


class _Gpu(Protocol):  # the GpuSpec fields the budget reads
    @property
    def usable_memory_bytes(self) -> int: ...
    @property
    def cuda_total_memory_bytes(self) -> int | None: ...


def vllm_budget_inputs(
    gpu: _Gpu, utilization: float | None, version: str | None
) -> tuple[int, float]:
    """(the total vLLM multiplies, the utilization) on `gpu`: from 0.11 on, the CUDA total
    an engine log shows where the catalog has one (H100: 79.18 GiB, not nvidia-smi's 79.65);
    the version's default utilization unless one is given."""
    profile = vllm_profile(version)
    total = gpu.usable_memory_bytes
    if version is not None and gpu.cuda_total_memory_bytes is not None:
        total = gpu.cuda_total_memory_bytes
    default = VLLM_GPU_MEMORY_UTILIZATION.value if version is None else profile.default_utilization
    return total, utilization or default
