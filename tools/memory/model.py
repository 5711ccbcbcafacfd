"""Resolve the model of a request: a catalog entry (by id, alias, Hugging Face id or Ollama
tag), a repo id in the local Hugging Face cache, a local model file or folder, or a bare count.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from types import ModuleType

from tools.architecture import Architecture, ParamCounts, count_parameters
from tools.catalog import ModelEntry, get_catalog
from tools.errors import ToolInputError
from tools.generic_model import generic_architecture, parse_param_count
from tools.memory.weights import WeightBytes, weight_bytes
from tools.model_sources.loaded import LoadedModel
from tools.model_sources.tags import ollama_default_weights, parse_tag
from tools.units import spoken_count


@dataclass(frozen=True)
class ResolvedModel:
    """The model an estimate is about.

    `stated_params`: the user's bare parameter count when the model came from one; weight and
    training-state bytes use it instead of the generic shape's own count. `file_weights`: the
    exact weight bytes of the files the model was read from (in `checkpoint_format`);
    `file_params`: the parameter count those files give.
    """

    id: str
    name: str
    architecture: Architecture
    assumptions: list[str] = field(default_factory=list)
    checkpoint_format: str | None = None
    stated_params: int | None = None
    file_weights: WeightBytes | None = None
    file_params: int | None = None

    @property
    def params(self) -> ParamCounts:
        return count_parameters(self.architecture)

    @property
    def total_params(self) -> int:
        if self.stated_params is not None:
            return self.stated_params
        return self.file_params if self.file_params is not None else self.params.total

    @property
    def active_params(self) -> int:
        if self.stated_params is not None:
            return self.stated_params  # generic models are dense
        computed = self.params
        if self.file_params is not None and computed.total:
            # The files' count, less the routed experts a token does not use.
            return self.file_params - (computed.total - computed.active_per_token)
        return computed.active_per_token


def model_weight_bytes(
    resolved: ResolvedModel,
    fmt: str,
    *,
    tp: int = 1,
    group_size: int = 128,
    keep_16bit: Sequence[str] | None = None,
    vision: bool = True,
) -> WeightBytes:
    """Weight bytes per GPU of `resolved` stored as `fmt`: the files' own bytes when the model
    was read from files in that format (split evenly over `tp`), else computed per tensor
    (`vision`: with the checkpoint's vision tower, tools.memory.weights)."""
    own = resolved.file_weights
    if own is not None and fmt == own.fmt and keep_16bit is None:
        if tp == 1:
            return own
        return WeightBytes(
            -(-own.embedding // tp),
            -(-own.lm_head // tp),
            tuple(-(-n // tp) for n in own.layers),
            own.final_norm,
            own.fmt,
            own.keep_16bit,
            tp,
            -(-own.routed_experts // tp),
        )
    return weight_bytes(
        resolved.architecture,
        fmt,
        tp=tp,
        group_size=group_size,
        keep_16bit=keep_16bit,
        total_params=resolved.stated_params,
        vision=vision,
    )


def _loaders() -> ModuleType:
    """`tools.model_sources`, imported when a file or cached repo is first loaded: its loaders
    import `tools.memory.weights`, so importing them here at module level would make
    `import tools.model_sources` (before tools.memory) a circular import."""
    import tools.model_sources

    return tools.model_sources


def _from_loaded(loaded: LoadedModel, checkpoint_format: str | None = None) -> ResolvedModel:
    return ResolvedModel(
        loaded.id,
        loaded.name,
        loaded.architecture,
        list(loaded.assumptions),
        checkpoint_format or loaded.weights_format,
        None,
        loaded.weights,
        loaded.total_params,
    )


def _from_entry(entry: ModelEntry, fmt: str | None = None, note: str = "") -> ResolvedModel:
    notes = [f"Model {entry.name}: architecture from {entry.source} (as of {entry.as_of})."]
    if note:
        notes.append(note)
    return ResolvedModel(
        entry.id, entry.name, entry.architecture, notes, fmt or entry.checkpoint_format
    )


def _named_model(model: str) -> ResolvedModel:
    """A catalog name, an Ollama tag naming a catalog model, or a cached Hugging Face repo."""
    catalog = get_catalog()
    try:
        entry = catalog.model(model)
    except ToolInputError as missing:
        error = missing
    else:
        named = catalog.checkpoint(model)
        if named is None:
            return _from_entry(entry)
        # 'Qwen/Qwen3-32B-AWQ': the catalog model in the format that repo ships.
        note = f"{named.repo} is {entry.name} published as {named.weights} ({named.source})."
        return _from_entry(entry, named.weights, note)
    tag = parse_tag(model)
    if tag is not None:
        for name in tag.names:
            try:
                entry = catalog.model(name)
            except ToolInputError:
                continue
            fmt = tag.weights or ollama_default_weights(entry.checkpoint_format)
            how = "named in the tag" if tag.weights else "Ollama's default build of a tag"
            return _from_entry(entry, fmt, f"'{model}' read as {entry.name} in {fmt} ({how}).")
    if "/" in model and not model.startswith(("/", ".", "~")):
        try:
            return _from_loaded(_loaders().load_cached_repo(model))
        except ToolInputError as cache_error:
            raise ToolInputError(
                "model",
                cache_error.problem,
                cache_error.allowed,
                cache_error.suggestions or error.suggestions,
            ) from None
    raise error


def resolve_model(
    model: str | None = None,
    params: str | float | None = None,
    config_path: str | None = None,
    model_file: str | None = None,
) -> ResolvedModel:
    """Exactly one of: a catalog model name/alias/Ollama tag or a cached Hugging Face repo id,
    a bare parameter count, a config.json path, or a local model file/folder.

    Raises ToolInputError (with the closest names for an unknown model).
    """
    given = [
        n
        for n, v in (
            ("model", model),
            ("params", params),
            ("config", config_path),
            ("model_file", model_file),
        )
        if v
    ]
    if len(given) != 1:
        raise ToolInputError(
            "model",
            "give exactly one of model, params, config or model_file"
            + (f" (got {', '.join(given)})" if given else ""),
            "a catalog model (gpu-sizer models), --params like '13B', --config PATH or "
            "--model-file PATH",
        )
    if model:
        return _named_model(model)
    if model_file:
        return _from_loaded(_loaders().load_local_path(model_file, "model_file"))
    if config_path:
        return _from_loaded(_loaders().load_local_path(config_path, "config"))
    assert params is not None
    count = parse_param_count(params)
    arch, assumptions = generic_architecture(count)
    return ResolvedModel(
        f"generic-{count}",
        f"generic {spoken_count(count)}-parameter model",
        arch,
        assumptions,
        None,
        count,
    )
