"""`plan_speedups`: speculative decoding, prefix caching and disaggregated prefill/decode on a
sized replica — modelled where a published method gives the effect, otherwise one line with the
published range.

- Speculative decoding (Leviathan, Kalman & Matias 2023, 'Fast Inference from Transformers via
  Speculative Decoding', ICML, arXiv 2211.17192): with acceptance rate α and γ draft tokens per
  step, the expected tokens per target step are (1 − α^(γ+1)) / (1 − α) (eq. 1), and the
  walltime improvement is (1 − α^(γ+1)) / ((1 − α)(γc + 1)) (Theorem 3.8), c the cost of a
  draft step relative to a target step. Decode at small batch reads the weights once per step,
  so c is taken as the draft's weight bytes (run unsharded on one GPU) over the target's active
  weight bytes per GPU (stated). Without a measured
  α the figures are given at both ends of the range Leviathan et al. measured for their
  language-model drafts (T5-XXL with T5-small/base/large, Table 2: α 0.65–0.82 at argmax
  sampling T = 0, 0.53–0.71 at T = 1; LaMDA 137B with 100M/2B/8B drafts, Table 3: 0.61/0.71/0.75
  at T = 0): α 0.53–0.82. The draft's weights take memory on every GPU holding it.
- Prefix caching (vLLM automatic prefix caching; SGLang RadixAttention, Zheng et al. 2023,
  arXiv 2312.07104): a prompt's cached prefix is not prefilled again, so prefill work and the
  prefill part of TTFT scale with the uncached share (1 − f) (prefill cost taken as linear in
  the tokens computed, stated); the cached blocks still take KV memory, shared once.
- Disaggregated prefill/decode (DistServe, Zhong et al. 2024, OSDI, arXiv 2401.09670): prefill
  and decode run on separate pools. Requests arrive at λ = users / (output tokens / decode
  tokens/s per sequence + TTFT) (Little's law); the prefill pool needs ⌈λ × uncached prompt
  tokens / prefill tokens/s per replica⌉ replicas, the decode pool keeps the replicas that hold
  the users' KV cache. The published gains: DistServe 7.4× more requests or 12.6× tighter SLO
  than colocated serving; Splitwise (Patel et al. 2024, ISCA, arXiv 2311.18677) 1.4× throughput
  at 20% lower cost.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field

from tools.architecture import count_parameters
from tools.errors import ToolInputError
from tools.field_factories import empty_list
from tools.limits import FINITE, MAX_NAME_CHARS, MAX_SEQUENCES, MIN_RATE
from tools.memory.formats import normalize_format
from tools.memory.model import model_weight_bytes, resolve_model
from tools.units import format_bytes

LEVIATHAN = (
    "Leviathan, Kalman & Matias 2023 (arXiv 2211.17192): tokens per step (1 − α^(γ+1))/(1 − α), "
    "speed-up (1 − α^(γ+1))/((1 − α)(γc + 1))"
)
ALPHA_RANGE = (0.53, 0.82)
"""Acceptance rates Leviathan et al. measured for language-model drafts, both sampling
temperatures (Tables 2-3; the unigram and bigram drafts, α 0.03-0.23, left out)."""
ALPHA_SOURCE = (
    "Leviathan et al. 2023 (arXiv 2211.17192, ICML; read 2026-12-02): α 0.53–0.82 — Table 2, "
    "T5-XXL with T5-small/base/large drafts: 0.65–0.82 at T = 0, 0.53–0.71 at T = 1; Table 3, "
    "LaMDA 137B with 100M/2B/8B drafts: 0.61/0.71/0.75 at T = 0"
)
MAX_DRAFT_TOKENS = 16
SELF_DRAFT_LINE = (
    "Draft heads (EAGLE, Medusa, MTP) are not modelled here: EAGLE reports 2.7–3.5× lower "
    "latency on LLaMA2-Chat 70B (Li et al. 2024, arXiv 2401.15077), Medusa-2 2.3–3.6× (Cai et "
    "al. 2024, arXiv 2401.10774), each on its own benchmark; name a draft model to model one."
)
PREFIX_SOURCE = (
    "vLLM automatic prefix caching / SGLang RadixAttention (Zheng et al. 2023, arXiv "
    "2312.07104): a cached prefix is not prefilled again"
)
PREFIX_LINE = (
    "Prefix caching: say how much of each prompt repeats (a shared system prompt's length, a "
    "cache hit rate) to model it; the prefill work saved equals that share, and the cached "
    "prefix's KV blocks are held once for every request that shares it."
)
PD_RANGE = (
    "Published gains of disaggregation: DistServe (Zhong et al. 2024, arXiv 2401.09670) 7.4× "
    "more requests or 12.6× tighter SLO than colocated serving; Splitwise (Patel et al. 2024, "
    "arXiv 2311.18677) 1.4× throughput at 20% lower cost — on their workloads."
)


class SpeedupOptions(BaseModel):
    """Which speed-ups to model (the `size` request carries these for its leading option)."""

    model_config = ConfigDict(extra="forbid", frozen=True, **FINITE)

    speculative: bool = Field(default=False, description="Model speculative decoding.")
    draft_model: str | None = Field(
        default=None, max_length=MAX_NAME_CHARS, description="Draft model (catalog id or name)."
    )
    draft_params: float | None = Field(
        default=None, ge=1e7, le=2e13, description="Draft parameters, count (a model not named)."
    )
    acceptance_rate: float | None = Field(
        default=None, gt=0.0, lt=1.0, description="α: chance a draft token is accepted."
    )
    draft_tokens: int | None = Field(
        default=None, ge=1, le=MAX_DRAFT_TOKENS, description="γ: draft tokens per step."
    )
    cached_prefix_fraction: float | None = Field(
        default=None, ge=0.0, lt=1.0, description="Share of each prompt found in the prefix cache."
    )
    prefix_caching: bool = Field(default=False, description="Prefix caching asked about.")
    disaggregated: bool = Field(default=False, description="Separate prefill and decode pools.")


class SpeedupRequest(SpeedupOptions):
    """A sized replica's speeds and load, and the speed-ups to model on it."""

    model: str = Field(max_length=MAX_NAME_CHARS, description="Target model (catalog id).")
    weights: str | None = Field(default=None, max_length=MAX_NAME_CHARS)
    tp: int = Field(default=1, ge=1, le=1024, description="GPUs per replica sharing a layer.")
    replicas: int = Field(default=1, ge=1, le=MAX_SEQUENCES, description="Replicas sized.")
    gpus_per_replica: int = Field(default=1, ge=1, le=1_000_000)
    decode_tokens_per_s: float | None = Field(
        default=None, ge=MIN_RATE, le=1e9, description="Decode tokens/s per sequence."
    )
    prefill_tokens_per_s: float | None = Field(
        default=None, ge=MIN_RATE, le=1e12, description="Prompt tokens/s of one replica."
    )
    prompt_tokens: int = Field(default=1024, ge=1, le=100_000_000)
    output_tokens: int = Field(default=256, ge=1, le=100_000_000)
    users: int = Field(default=1, ge=1, le=MAX_SEQUENCES, description="Concurrent users.")
    ttft_s: float | None = Field(default=None, ge=0, le=1e6, description="TTFT sized, s.")
    prefill_s: float | None = Field(default=None, ge=0, le=1e6, description="Of which prefill.")
    headroom_bytes: int | None = Field(
        default=None,
        ge=-(2**60),
        le=2**60,
        description="Memory left per GPU after the sized load, bytes (negative: over).",
    )


class Speculative(BaseModel):
    """Speculative decoding with a draft model, at one acceptance rate."""

    acceptance_rate: float
    acceptance_measured: bool = Field(description="α given by the user (else the range's end).")
    draft_tokens: int
    best_draft_tokens: bool = Field(description="γ chosen as the speed-up's maximum.")
    cost_ratio: float = Field(description="c: draft step / target step.")
    tokens_per_step: float
    speedup: float
    decode_tokens_per_s: float | None = None


class Speedups(BaseModel):
    """What each speed-up asked for does on the replica (see `tools.deployment.speedups`)."""

    model_config = ConfigDict(frozen=True)

    speculative: list[Speculative] = Field(default_factory=empty_list)
    draft_name: str | None = None
    draft_weights_bytes: int | None = None
    draft_fits: bool | None = Field(
        default=None, description="The draft's weights fit the headroom on each GPU."
    )
    cached_prefix_fraction: float | None = None
    prefill_work_saved: float | None = Field(default=None, description="Share of prefill saved.")
    ttft_s: float | None = None
    ttft_cached_s: float | None = None
    requests_per_s: float | None = None
    prefill_replicas: int | None = None
    decode_replicas: int | None = None
    gpus_disaggregated: int | None = None
    gpus_colocated: int | None = None
    lines: list[str] = Field(default_factory=empty_list, description="Published ranges, said once.")
    sources: list[str] = Field(default_factory=empty_list)


def tokens_per_step(alpha: float, gamma: int) -> float:
    """Expected tokens per target step (Leviathan et al. 2023, eq. 1)."""
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)


def walltime_speedup(alpha: float, gamma: int, c: float) -> float:
    """The expected walltime improvement factor (Leviathan et al. 2023, Theorem 3.8)."""
    return tokens_per_step(alpha, gamma) / (gamma * c + 1)


BEST_GAMMA_SEARCH = 8
"""γ searched for the best speed-up: 1..8, the draft lengths engines are run with."""


def best_gamma(alpha: float, c: float) -> int:
    """The γ in 1..8 with the largest speed-up."""
    return max(range(1, BEST_GAMMA_SEARCH + 1), key=lambda g: walltime_speedup(alpha, g, c))


def _speculative(req: SpeedupRequest, out: dict[str, object]) -> None:
    if req.draft_model is None and req.draft_params is None:
        out["lines"].append(SELF_DRAFT_LINE)  # type: ignore[attr-defined]
        return
    target = resolve_model(model=req.model)
    try:
        draft = resolve_model(model=req.draft_model, params=req.draft_params)
    except ToolInputError as exc:
        field = "draft_model" if req.draft_model is not None else "draft_params"
        raise ToolInputError(field, exc.problem, exc.allowed, exc.suggestions) from exc
    fmt = normalize_format(req.weights or "bf16")
    t_counts = count_parameters(target.architecture)
    # An MoE target reads only its active experts per step: its bytes scaled to them.
    active = t_counts.active_per_token / t_counts.total
    t_bytes = int(model_weight_bytes(target, fmt).total * active)
    d_bytes = model_weight_bytes(draft, fmt).total
    # The draft runs unsharded on one GPU while the target's step reads its share on each
    # of its tp GPUs in parallel: the draft's bytes against one GPU's share of the target's.
    c = d_bytes / (t_bytes / req.tp)
    alphas = (
        [(req.acceptance_rate, True)]
        if req.acceptance_rate is not None
        else [(a, False) for a in ALPHA_RANGE]
    )
    rows = []
    for alpha, measured in alphas:
        gamma = req.draft_tokens or best_gamma(alpha, c)
        s = walltime_speedup(alpha, gamma, c)
        rows.append(
            Speculative(
                acceptance_rate=alpha,
                acceptance_measured=measured,
                draft_tokens=gamma,
                best_draft_tokens=req.draft_tokens is None,
                cost_ratio=c,
                tokens_per_step=tokens_per_step(alpha, gamma),
                speedup=s,
                decode_tokens_per_s=None
                if req.decode_tokens_per_s is None
                else req.decode_tokens_per_s * s,
            )
        )
    out["speculative"] = rows
    out["draft_name"] = draft.name
    out["draft_weights_bytes"] = d_bytes
    if req.headroom_bytes is not None:
        out["draft_fits"] = d_bytes <= req.headroom_bytes
    sources: list[str] = out["sources"]  # type: ignore[assignment]
    sources.append(LEVIATHAN)
    if req.acceptance_rate is None:
        sources.append(ALPHA_SOURCE)
    sources.append(
        f"c = draft weight bytes / the target's active bytes per GPU ({format_bytes(d_bytes)} "
        f"/ {format_bytes(t_bytes / req.tp)}, the draft unsharded): decode at small batch "
        "reads the weights once per step; at high load the verify pass grows compute-bound "
        "and the speed-up shrinks"
    )


def plan_speedups(req: SpeedupRequest) -> Speedups:
    """The speed-ups asked for on the replica (see the module). Raises ToolInputError for a
    draft model the catalog lacks."""
    out: dict[str, object] = {"lines": [], "sources": []}
    if req.speculative or req.draft_model or req.draft_params:
        _speculative(req, out)
    f = req.cached_prefix_fraction
    if req.prefix_caching and f is None:
        out["lines"].append(PREFIX_LINE)  # type: ignore[attr-defined]
    uncached = req.prompt_tokens * (1 - (f or 0.0))
    if f is not None:
        out["cached_prefix_fraction"] = f
        out["prefill_work_saved"] = f
        out["sources"].append(PREFIX_SOURCE)  # type: ignore[attr-defined]
        if req.ttft_s is not None and req.prefill_s is not None:
            out["ttft_s"] = req.ttft_s
            out["ttft_cached_s"] = req.ttft_s - req.prefill_s * f
    if req.disaggregated:
        if req.decode_tokens_per_s is None or req.prefill_tokens_per_s is None:
            out["lines"].append(PD_RANGE)  # type: ignore[attr-defined]
        else:
            decode_s = req.output_tokens / req.decode_tokens_per_s + (req.ttft_s or 0.0)
            rate = req.users / decode_s
            prefill = max(1, math.ceil(rate * uncached / req.prefill_tokens_per_s))
            out["requests_per_s"] = rate
            out["prefill_replicas"] = prefill
            out["decode_replicas"] = req.replicas
            out["gpus_disaggregated"] = (prefill + req.replicas) * req.gpus_per_replica
            out["gpus_colocated"] = req.replicas * req.gpus_per_replica
            out["lines"].append(  # type: ignore[attr-defined]
                f"Both pools' replicas take the sized layout ({req.gpus_per_replica} GPUs "
                "each); a prefill pool on fewer GPUs per replica is not sized here."
            )
            out["lines"].append(PD_RANGE)  # type: ignore[attr-defined]
    return Speedups.model_validate(out)
