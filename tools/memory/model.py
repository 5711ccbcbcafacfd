"""Resolve the model of a memory request: catalog entry, local config.json or a bare count."""

from __future__ import annotations

from dataclasses import dataclass, field

from tools.architecture import Architecture, ParamCounts, count_parameters
from tools.catalog import get_catalog
from tools.errors import ToolInputError
from tools.generic_model import generic_architecture, parse_param_count
from tools.hf_config import load_config_file


@dataclass(frozen=True)
class ResolvedModel:
    """The model an estimate is about.

    `stated_params`: the user's bare parameter count when the model came from one; weight and
    training-state bytes use it instead of the generic shape's own count.
    """

    id: str
    name: str
    architecture: Architecture
    assumptions: list[str] = field(default_factory=list)
    checkpoint_format: str | None = None
    stated_params: int | None = None

    @property
    def params(self) -> ParamCounts:
        return count_parameters(self.architecture)

    @property
    def total_params(self) -> int:
        return self.stated_params if self.stated_params is not None else self.params.total

    @property
    def active_params(self) -> int:
        if self.stated_params is not None:
            return self.stated_params  # generic models are dense
        return self.params.active_per_token


def resolve_model(
    model: str | None = None,
    params: str | float | None = None,
    config_path: str | None = None,
) -> ResolvedModel:
    """Exactly one of: a catalog model name/alias, a bare parameter count, a config.json path.

    Raises ToolInputError (with the closest catalog names for an unknown model).
    """
    given = [n for n, v in (("model", model), ("params", params), ("config", config_path)) if v]
    if len(given) != 1:
        raise ToolInputError(
            "model",
            "give exactly one of model, params or config"
            + (f" (got {', '.join(given)})" if given else ""),
            "a catalog model (gpu-sizer models), --params like '13B', or --config PATH",
        )
    if model:
        catalog = get_catalog()
        entry = catalog.model(model)
        assumptions = [
            f"Model {entry.name}: architecture from {entry.source} (as of {entry.as_of})."
        ]
        checkpoint_format = entry.checkpoint_format
        named = catalog.checkpoint(model)
        if named is not None:  # 'Qwen/Qwen3-32B-AWQ': the model in the format that repo ships
            checkpoint_format = named.weights
            assumptions.append(
                f"{named.repo} is {entry.name} published as {named.weights} ({named.source})."
            )
        return ResolvedModel(
            entry.id, entry.name, entry.architecture, assumptions, checkpoint_format
        )
    if config_path:
        arch = load_config_file(config_path)
        return ResolvedModel(
            f"config:{config_path}",
            f"{arch.family} model from {config_path}",
            arch,
            [f"Architecture read from the local config {config_path}."],
        )
    assert params is not None
    count = parse_param_count(params)
    arch, assumptions = generic_architecture(count)
    return ResolvedModel(
        f"generic-{count}", f"generic {count:,}-parameter model", arch, assumptions, None, count
    )
