"""The catalog: models and GPUs read from TOML under `catalog/`, validated at load.

Every entry carries `source` and `as_of`. A bad entry fails with the file, the entry and the
field named. Look-ups accept ids, aliases and loose spellings ("Llama 3.1 70B",
"meta-llama/Llama-3.1-70B-Instruct", "mixtral 8x7b") and suggest the closest names on a miss.
"""

from __future__ import annotations

import re
import tomllib
from functools import cache
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from tools.architecture import Architecture, ParamCounts, count_parameters
from tools.errors import ToolInputError, closest_names
from tools.limits import (
    FINITE,
    MAX_BANDWIDTH_BYTES_PER_S,
    MAX_GPUS_PER_NODE,
    MAX_MEMORY_BYTES,
    MAX_PCIE_GEN,
    MAX_TFLOPS,
    MAX_WATTS,
)


class CatalogError(ValueError):
    """A catalog file that does not validate: names the file, the entry and the field."""

    def __init__(self, file: Path, entry: str, field: str, problem: str) -> None:
        self.file, self.entry, self.field, self.problem = file, entry, field, problem
        super().__init__(f"{file}: entry {entry!r}: field {field!r}: {problem}")


class Sourced(BaseModel):
    """Provenance carried by every catalog entry."""

    source: str = Field(min_length=3, description="Where the figures come from.")
    as_of: str = Field(min_length=4, description="Date (or 'undated copy') of the source.")


class ModelEntry(Sourced):
    """A model in the catalog. Its parameter counts are computed from `architecture`."""

    model_config = ConfigDict(extra="forbid", frozen=True, **FINITE)

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9.\-]*$")
    name: str
    aliases: tuple[str, ...] = ()
    official_params: str | None = Field(
        default=None, description="The publisher's stated size, for display next to ours."
    )
    checkpoint_format: str | None = Field(
        default=None, description="How the publisher ships the weights, e.g. 'mxfp4' (gpt-oss)."
    )
    architecture: Architecture

    @property
    def params(self) -> ParamCounts:
        return count_parameters(self.architecture)


Interconnect = Literal["nvlink", "nvlink-bridge", "infinity-fabric", "pcie", "ethernet"]


class GpuSpec(Sourced):
    """One accelerator. Throughputs are dense (no sparsity); `None` means not published."""

    model_config = ConfigDict(extra="forbid", frozen=True, **FINITE)

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9.\-]*$")
    name: str
    vendor: Literal["NVIDIA", "AMD", "Intel"]
    architecture: str
    aliases: tuple[str, ...] = ()
    memory_bytes: int = Field(
        gt=0, le=MAX_MEMORY_BYTES, description="Vendor capacity, as marketed, in bytes."
    )
    usable_memory_bytes: int = Field(
        gt=0, le=MAX_MEMORY_BYTES, description="Capacity a process can allocate, bytes."
    )
    usable_memory_basis: str = Field(description="How usable_memory_bytes was obtained.")
    memory_type: str
    memory_bandwidth_bytes_per_s: float = Field(gt=0, le=MAX_BANDWIDTH_BYTES_PER_S)
    bf16_tflops: float | None = Field(default=None, gt=0, le=MAX_TFLOPS)
    fp16_tflops: float | None = Field(default=None, gt=0, le=MAX_TFLOPS)
    fp8_tflops: float | None = Field(default=None, gt=0, le=MAX_TFLOPS)
    int8_tops: float | None = Field(default=None, gt=0, le=MAX_TFLOPS)
    fp4_tflops: float | None = Field(default=None, gt=0, le=MAX_TFLOPS)
    tdp_w: float | None = Field(default=None, gt=0, le=MAX_WATTS)
    interconnect: Interconnect
    interconnect_bytes_per_s: float | None = Field(
        default=None,
        gt=0,
        le=MAX_BANDWIDTH_BYTES_PER_S,
        description="GPU-to-GPU bandwidth per GPU, one direction.",
    )
    pcie_gen: int | None = Field(default=None, ge=1, le=MAX_PCIE_GEN)
    form_factor: Literal["sxm", "pcie", "oam", "superchip"]
    gpus_per_node: int | None = Field(default=None, gt=0, le=MAX_GPUS_PER_NODE)
    unconfirmed: tuple[str, ...] = Field(default=(), description="Fields no source confirms.")
    notes: str | None = None

    @model_validator(mode="after")
    def _usable_not_above_vendor(self) -> GpuSpec:
        # HBM parts are marketed in GB but built in GiB, so usable may exceed the GB figure;
        # it may never exceed the GiB reading of it.
        if self.usable_memory_bytes > self.memory_bytes * 2**30 / 10**9:
            raise ValueError("usable_memory_bytes exceeds the vendor capacity")
        return self

    @property
    def multi_gpu_fast_link(self) -> bool:
        """True for NVLink / Infinity Fabric class links (tensor parallel friendly)."""
        return self.interconnect in ("nvlink", "infinity-fabric")


def catalog_dir() -> Path:
    """The catalog directory: beside the package in a checkout, or packaged in a wheel."""
    here = Path(__file__).resolve().parent
    for candidate in (here.parent / "catalog", here / "_data" / "catalog"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("catalog directory not found next to the tools package")


E = TypeVar("E", bound=BaseModel)


def load_entries(path: Path, table: str, model: type[E]) -> list[E]:
    """Load `[[table]]` entries of a TOML file into `model`, failing with file/entry/field."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise CatalogError(path, "-", "-", f"invalid TOML: {exc}") from None
    raw: list[dict[str, Any]] = data.get(table, [])
    entries: list[E] = []
    seen: set[str] = set()
    for index, item in enumerate(raw):
        entry_name = str(item.get("id", f"#{index + 1}"))
        try:
            entry = model.model_validate(item)
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"]) or "-"
            raise CatalogError(path, entry_name, field, err["msg"]) from None
        if entry_name in seen:
            raise CatalogError(path, entry_name, "id", "duplicate id")
        seen.add(entry_name)
        entries.append(entry)
    return entries


def normalize_name(name: str) -> str:
    """Lower-case, drop an 'org/' prefix and '-instruct'-like suffixes, unify separators."""
    s = name.strip().lower()
    s = s.rsplit("/", 1)[-1]
    s = re.sub(r"[\s_]+", "-", s)
    s = re.sub(r"-(instruct|chat|it|base|hf)$", "", s)
    s = s.replace("meta-llama-", "llama-").replace("llama3", "llama-3").replace("llama2", "llama-2")
    return re.sub(r"-+", "-", s)


class Catalog:
    """The loaded catalog with name resolution. Use `get_catalog()` for the shared instance."""

    def __init__(self, models: list[ModelEntry], gpus: list[GpuSpec]) -> None:
        self.models: dict[str, ModelEntry] = {m.id: m for m in models}
        self.gpus: dict[str, GpuSpec] = {g.id: g for g in gpus}
        self._model_index = self._index(models)
        self._gpu_index = self._index(gpus)

    @staticmethod
    def _index(entries: list[ModelEntry] | list[GpuSpec]) -> dict[str, str]:
        index: dict[str, str] = {}
        for e in entries:
            for key in (e.id, e.name, *e.aliases):
                index[key.lower()] = e.id
                index[normalize_name(key)] = e.id
        return index

    def model(self, name: str) -> ModelEntry:
        """Find a model by id, alias or loose spelling. Raises ToolInputError with suggestions."""
        key = self._model_index.get(name.lower()) or self._model_index.get(normalize_name(name))
        if key is None:
            raise ToolInputError(
                "model",
                f"unknown model {name!r}",
                "a catalog id (gpu-sizer models), a local config.json path, or a size like '13B'",
                closest_names(normalize_name(name), self.models),
            )
        return self.models[key]

    def gpu(self, name: str) -> GpuSpec:
        """Find a GPU by id, alias or loose spelling. Raises ToolInputError with suggestions."""
        key = self._gpu_index.get(name.lower()) or self._gpu_index.get(normalize_name(name))
        if key is None:
            raise ToolInputError(
                "gpu",
                f"unknown GPU {name!r}",
                "a catalog id (gpu-sizer gpus)",
                closest_names(normalize_name(name), self.gpus),
            )
        return self.gpus[key]


@cache
def get_catalog(directory: Path | None = None) -> Catalog:
    """Load and validate the catalog once per process."""
    root = directory or catalog_dir()
    return Catalog(
        load_entries(root / "models.toml", "model", ModelEntry),
        load_entries(root / "gpus.toml", "gpu", GpuSpec),
    )
