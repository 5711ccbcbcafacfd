"""`LoadedModel`: what a model file, folder or cached repository says about a model."""

from __future__ import annotations

from dataclasses import dataclass, field

from tools.architecture import Architecture
from tools.memory.weights import WeightBytes


@dataclass(frozen=True)
class LoadedModel:
    """A model read from local files.

    `weights`: exact bytes per tensor group from the files (tp = 1) in `weights_format`, when
    the files give them (a GGUF's tensors; a safetensors index's total spread over the layers);
    `total_params`: the count the files give (tensor elements, or the index's
    `total_parameters`), else None (computed from the architecture).
    """

    id: str
    name: str
    architecture: Architecture
    source: str
    weights_format: str | None = None
    weights: WeightBytes | None = None
    total_params: int | None = None
    assumptions: list[str] = field(default_factory=list)
