"""Rules of thumb the user states, checked against the memory calculator (issue 18, class 4).

"So 18 bytes per parameter means 126 GB for a 7B?", "full fine-tuning is 4× the model, so 64 GB
for an 8B?", "LoRA adds 10-20%?": each figure the user gives is a `Claim` (typed by the parser
or a model, never read from prose here), checked against the estimate of the configuration the
report sized first. A check answers yes / no / partly, gives the computed figure in the user's
own unit beside theirs, and says why they differ: which components the rule leaves out, and
which training accounting the user's figure matches.

Verdicts (`check_claim`):
- *partly*: it matches a part of the need — the model states (weights, gradients, optimizer:
  what "bytes per parameter" rules count) or, for LoRA, the adapters' own state — within
  `TOLERANCE` and nearer to it than to the whole need: activations and the runtime come on top;
- *yes*: else, the claim is within `TOLERANCE` of the whole need per GPU (for a percentage or
  a multiple, of the whole need relative to the model's weights);
- *partly* also when, for full training, the figure is the model states of another training
  accounting than the one sized ("16 bytes per parameter" is the ZeRO paper's mixed precision,
  "4× the model" pure bf16 training): right for that accounting, not for this sizing;
- *no*: otherwise.

"The model" is the model's weights for inference in the format the task loads them (16-bit for
full fine-tuning and LoRA, the 4-bit base for QLoRA), from the memory calculator.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tools.field_factories import empty_list
from tools.limits import FINITE, MAX_NAME_CHARS
from tools.memory import MemoryEstimate
from tools.memory.training import PRECISIONS, state_bytes_per_param
from tools.units import GB, GiB

ClaimKind = Literal["bytes_per_parameter", "memory", "multiple_of_model", "percent_over_model"]
MemoryUnit = Literal["GB", "GiB", "TB"]
Verdict = Literal["yes", "no", "partly"]

TOLERANCE = 0.10
"""How close a claimed figure must be to a computed one to agree with it (relative): rules of
thumb are stated to one or two significant figures."""

_UNIT_BYTES: dict[str, float] = {"GB": GB, "GiB": GiB, "TB": 1000 * GB}

# What each training accounting is called in an answer (tools/memory/training.py).
_ACCOUNTING = {
    "mixed-hf": "mixed precision as Hugging Face Trainer holds it (fp32 weights + 16-bit copy, "
    "fp32 gradients, AdamW)",
    "mixed-zero": "the ZeRO paper's mixed precision (16-bit weights and gradients, fp32 master "
    "copy and AdamW moments)",
    "bf16": "pure bf16 training (weights, gradients and AdamW moments all in bf16)",
    "fp32": "fp32 training (weights, gradients and AdamW moments in fp32)",
}


class Claim(BaseModel):
    """A figure the user states as a rule of thumb, to check: 18 bytes per parameter, 126 GB,
    4× the model, 10-20 % more."""

    model_config = ConfigDict(extra="forbid", frozen=True, **FINITE)

    kind: ClaimKind = Field(
        description="bytes_per_parameter (B/param), memory (an amount), multiple_of_model "
        "(× the model's weights), percent_over_model (% more than the model's weights)."
    )
    value: float = Field(gt=0, le=1e15, description="The figure (memory: in `unit`).")
    high: float | None = Field(
        default=None, gt=0, le=1e15, description="Upper end of a range said ('10-20%')."
    )
    unit: MemoryUnit | None = Field(default=None, description="A memory claim's unit.")
    words: str = Field(default="", max_length=MAX_NAME_CHARS, description="The words used.")

    @property
    def low(self) -> float:
        """The lower end (the value itself when no range was said)."""
        return min(self.value, self.high) if self.high is not None else self.value

    @property
    def top(self) -> float:
        """The upper end (the value itself when no range was said)."""
        return max(self.value, self.high) if self.high is not None else self.value


NOMINAL_BITS: dict[str, int] = {
    "fp8": 8,
    "int8": 8,
    "int4-gptq": 4,
    "int4-awq": 4,
    "nf4": 4,
    "nf4-dq": 4,
    "mxfp4": 4,
}
"""The bits a quantized format is named for ('4-bit' = 0.5 B/param, '8-bit' = 1 B/param): what a
bytes-per-parameter rule of thumb assumes of it (tools/memory/formats.py has the real cost)."""


class WeightsPerParameter(BaseModel):
    """Why a quantized format's weights take more bytes per parameter than its name says: the
    quantization constants of the quantized layers and the tensors kept in 16-bit."""

    weights_format: str
    nominal_bytes_per_param: float = Field(description="The format's bits ÷ 8 ('4-bit': 0.5).")
    quantized_bytes_per_param: float = Field(
        description="Bytes per weight of the quantized layers, constants included."
    )
    constants: str = Field(description="What the quantized layers store per weight, in words.")
    kept_16bit_params: int = Field(
        description="Parameters kept in 16-bit (embedding, output layer, a vision tower)."
    )
    kept_16bit_bytes: int
    bytes_per_param: float = Field(description="All weights ÷ all parameters.")


def weights_per_parameter(
    weights_format: str, kept_bytes: int, other: int, params: int, constants: str
) -> WeightsPerParameter | None:
    """The weights of a model in `weights_format` per parameter, split into the quantized
    layers and the tensors kept in 16-bit (`kept_bytes`: the embedding, the output layer, a
    vision tower; `other`: the rest of the weights' bytes; `params`: all parameters). None for
    a format that is not a quantized one with a nominal width (bf16, GGUF mixes)."""
    nominal = NOMINAL_BITS.get(weights_format)
    if nominal is None or params <= 0:
        return None
    kept_params = kept_bytes // 2  # 16-bit: 2 bytes each
    quantized_params = params - kept_params
    if quantized_params <= 0:
        return None
    return WeightsPerParameter(
        weights_format=weights_format,
        nominal_bytes_per_param=nominal / 8,
        quantized_bytes_per_param=other / quantized_params,
        constants=constants,
        kept_16bit_params=kept_params,
        kept_16bit_bytes=kept_bytes,
        bytes_per_param=(kept_bytes + other) / params,
    )


class ClaimCheck(BaseModel):
    """One claim checked: the verdict, the computed figures in the claim's unit, and why."""

    claim: Claim
    verdict: Verdict
    unit: str = Field(description="The unit both figures are in ('GB', 'B/param', '×', '%').")
    computed: float = Field(description="The whole need, in `unit` (what 'yes' compares).")
    part: float | None = Field(
        default=None, description="The part the rule counts, in `unit` (what 'partly' matches)."
    )
    part_name: str | None = Field(default=None, description="What `part` is, in words.")
    model_bytes: int = Field(description="The model's weights the multiples are of, bytes.")
    total_bytes: int = Field(description="The whole need per GPU, bytes.")
    components: dict[str, int] = Field(description="The need's components per GPU, bytes.")
    matches_accounting: list[str] = Field(
        default_factory=empty_list,
        description="Training accountings whose model-state bytes per parameter the claim "
        "matches, in words (which rule the user's figure is).",
    )
    sized_accounting: str | None = Field(
        default=None,
        description="The training accounting this sizing used, in words with its model-state "
        "bytes per parameter (full training only).",
    )
    weights_per_param: WeightsPerParameter | None = Field(
        default=None,
        description="A bytes-per-parameter claim on quantized weights: why they take more "
        "than the format's name says (its constants, the 16-bit embedding and output layer).",
    )

    @property
    def why(self) -> str:
        """Why the figures differ, in words: the components beyond the part the rule counts."""
        rest = {k: v for k, v in self.components.items() if v and k in _ON_TOP}
        if self.verdict == "yes" or not rest:
            return ""
        listed = " and ".join(f"{_ON_TOP[k]} {v / GB:,.1f} GB" for k, v in rest.items())
        return f"the rest is {listed}"


# Components a bytes-per-parameter rule leaves out, as an answer names them.
_ON_TOP = {"kv_cache": "KV cache", "activations": "activations", "overhead": "runtime"}


def _close(claimed_low: float, claimed_high: float, computed: float) -> bool:
    """Whether `computed` lies in the claimed range widened by `TOLERANCE`."""
    return claimed_low * (1 - TOLERANCE) <= computed <= claimed_high * (1 + TOLERANCE)


def _accounting(precision: str, optimizer: str) -> str:
    """'pure bf16 training (…): 8 B/param' — an accounting and its model state per parameter."""
    state = state_bytes_per_param(precision, optimizer)
    per_param = state.weights + state.gradients + state.optimizer
    return f"{_ACCOUNTING[precision]}: {per_param:g} B/param"


def _matching_accountings(bytes_per_param: float, optimizer: str) -> list[str]:
    """The training accountings whose model state per parameter is `bytes_per_param`."""
    out: list[str] = []
    for precision in PRECISIONS:
        state = state_bytes_per_param(precision, optimizer)
        if _close(
            bytes_per_param, bytes_per_param, state.weights + state.gradients + state.optimizer
        ):
            out.append(_accounting(precision, optimizer))
    return out


def model_states_bytes(estimate: MemoryEstimate) -> int:
    """Weights + gradients + optimizer state of `estimate` per GPU (inference: the weights)."""
    b = estimate.breakdown
    return b.get("weights", 0) + b.get("gradients", 0) + b.get("optimizer", 0)


def check_claim(
    claim: Claim,
    estimate: MemoryEstimate,
    model_bytes: int,
    optimizer: str = "adamw",
    weights: WeightsPerParameter | None = None,
) -> ClaimCheck:
    """Check `claim` against `estimate` (module docstring); `model_bytes`: the model's weights
    the multiples and percentages are of; `weights`: the quantized weights' bytes per parameter,
    kept on a bytes-per-parameter check (the reason a '4-bit = 0.5 B/param' rule falls short)."""
    total = estimate.per_gpu_bytes
    states = model_states_bytes(estimate)
    params = max(estimate.total_params, 1)
    training = estimate.task != "inference"
    adapters = estimate.task in ("lora", "qlora")
    # The part a rule of thumb counts: the model states (or the adapters' own state for LoRA).
    part_bytes = states - model_bytes if adapters else states
    part_name = (
        "the adapters' weights, gradients and optimizer state"
        if adapters
        else ("the model states (weights, gradients, optimizer)" if training else "the weights")
    )
    unit: str
    match claim.kind:
        case "memory":
            unit = claim.unit or "GB"
            scale = _UNIT_BYTES[unit]
            computed, part = total / scale, states / scale
            part_name = (
                "the model states (weights, gradients, optimizer)" if training else "the weights"
            )
        case "bytes_per_parameter":
            unit = "B/param"
            computed, part = total / params, states / params
            part_name = (
                "the model states (weights, gradients, optimizer)" if training else "the weights"
            )
        case "multiple_of_model":
            unit = "×"
            computed, part = total / model_bytes, states / model_bytes
            part_name = (
                "the model states (weights, gradients, optimizer)" if training else "the weights"
            )
        case "percent_over_model":
            unit = "%"
            computed = (total - model_bytes) / model_bytes * 100
            part = part_bytes / model_bytes * 100
    matches: list[str] = []
    if training and not adapters:
        per_param = {
            "bytes_per_parameter": claim.value,
            "multiple_of_model": claim.value * model_bytes / params,
            "memory": claim.value * _UNIT_BYTES[claim.unit or "GB"] / params,
        }.get(claim.kind)
        if per_param is not None:
            matches = _matching_accountings(per_param, optimizer)
    verdict: Verdict = "no"
    said = (claim.low + claim.top) / 2
    nearer_part = part is not None and abs(said - part) < abs(said - computed)
    if part is not None and nearer_part and _close(claim.low, claim.top, part):
        verdict = "partly"  # the rule counts a part; the rest comes on top
    elif _close(claim.low, claim.top, computed):
        verdict = "yes"
    elif matches:
        verdict = "partly"  # the model states of another accounting than the one sized
    sized = estimate.weights_format.removesuffix(" training")
    return ClaimCheck(
        claim=claim,
        verdict=verdict,
        unit=unit,
        computed=computed,
        part=part,
        part_name=part_name,
        model_bytes=model_bytes,
        total_bytes=total,
        components=dict(estimate.breakdown),
        matches_accounting=matches,
        sized_accounting=(
            _accounting(sized, optimizer) if training and sized in _ACCOUNTING else None
        ),
        weights_per_param=weights if claim.kind == "bytes_per_parameter" else None,
    )


def overall(checks: list[ClaimCheck]) -> Verdict | None:
    """The answer to the question as a whole: the memory claim's verdict when one was stated
    (the conclusion the user drew), else every claim's: yes when all hold, no when none does,
    else partly."""
    if not checks:
        return None
    memory = [c for c in checks if c.claim.kind == "memory"]
    verdicts = {c.verdict for c in (memory or checks)}
    if verdicts == {"yes"}:
        return "yes"
    if verdicts == {"no"}:
        return "no"
    return "partly"
