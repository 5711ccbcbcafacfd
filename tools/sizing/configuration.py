"""The sized configurations of a report, apart from the report: `SizedConfiguration` (one GPU
configuration and its memory estimate), `SizingError` and the architecture question of a model
known only by its size (`ShapeFit`, `ShapeQuestion`). Their own module, over the memory
calculator only, so the `memory` command reads them without importing the whole report — the
recommender, the cost tool, the deployment and workload models (issue 32, fast start).
`tools.sizing.report` re-exports them.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from tools.field_factories import empty_list
from tools.memory import MemoryEstimate


class SizingError(BaseModel):
    """A part of the sizing that could not run: the field, the problem, what is allowed."""

    field: str
    problem: str
    allowed: str | None = None
    did_you_mean: list[str] = Field(
        default_factory=empty_list, description="The closest catalog names, for a name not found."
    )

    @property
    def text(self) -> str:
        """'field: problem' on one line."""
        return f"{self.field}: {self.problem}"


class SizedConfiguration(BaseModel):
    """One GPU configuration sized by the memory calculator (a named one, or one GPU when
    none was named)."""

    gpu: str | None = Field(description="Catalog GPU id; None when no GPU was named.")
    count: int = Field(description="GPUs sized, count.")
    count_named: bool = Field(default=False, description="The user said how many.")
    zero: int | None = Field(default=None, description="ZeRO stage sized (training).")
    estimate: MemoryEstimate | None = None
    error: SizingError | None = None

    @property
    def fits(self) -> bool | None:
        """The memory verdict on the named GPU (None without a GPU or an estimate)."""
        return None if self.estimate is None else self.estimate.fits

    @property
    def plain_data_parallel(self) -> bool:
        """A multi-GPU full-training estimate without ZeRO or TP/PP: every GPU holds the whole
        weights, gradients and optimizer state (the tools' default for training)."""
        est = self.estimate
        return (
            est is not None
            and est.task == "full"
            and self.count > 1
            and not self.zero
            and est.tp == 1
            and est.pp == 1
        )


class ShapeFit(BaseModel):
    """A generic model's fit if it had the architecture of one catalog model of its size."""

    model_id: str
    name: str
    total_params: int = Field(description="That model's own text-only parameter count.")
    attention: str = Field(description="MHA, GQA, MQA or MLA.")
    kv_cache_bytes_per_token: int
    per_gpu_bytes: int = Field(description="Per-GPU need with that shape's KV and activations.")
    fits: bool


class ShapeQuestion(BaseModel):
    """A model known only by its size whose verdict on a named GPU changes with its
    architecture (tools/sizing/shapes.py): the default reading's figures, the catalog shapes of
    that size and their fit, and what to ask for."""

    params: int = Field(description="The stated parameter count.")
    gpu: str
    count: int
    default_fits: bool
    default_per_gpu_bytes: int
    default_kv_cache_bytes_per_token: int
    budget_bytes_per_gpu: int
    shapes: list[ShapeFit]
    low: int = Field(description="Smallest count of the range 'of that size', parameters.")
    high: int = Field(description="Largest count of the range, parameters.")

    @property
    def flipping(self) -> list[ShapeFit]:
        """The shapes on which the verdict is the other one."""
        return [s for s in self.shapes if s.fits != self.default_fits]

    @property
    def question(self) -> str:
        """The question, with the range it comes from."""
        other = self.flipping
        names = ", ".join(
            f"{s.name} ({s.attention}, {s.kv_cache_bytes_per_token:,} B of KV cache per token: "
            f"{s.per_gpu_bytes / 2**30:.1f} GiB per GPU)"
            for s in other[:3]
        )
        verdict = "fits" if self.default_fits else "does not fit"
        flipped = "would not fit" if self.default_fits else "would fit"
        return (
            f"The verdict depends on the architecture: the generic reading (GQA, "
            f"{self.default_kv_cache_bytes_per_token:,} B of KV cache per token) {verdict} "
            f"({self.default_per_gpu_bytes / 2**30:.1f} GiB per GPU of "
            f"{self.budget_bytes_per_gpu / 2**30:.1f} GiB), but with the shape of {names} it "
            f"{flipped} (the catalog's {len(self.shapes)} architectures of "
            f"{self.low / 1e9:.1f}–{self.high / 1e9:.1f}B parameters). Which is it? Give its "
            "config.json (or model folder, or GGUF file) or its Hugging Face repo id."
        )
