"""The catalog: models and GPUs read from TOML under `catalog/`, validated at load.

Every entry carries `source` and `as_of`. A bad entry fails with the file, the entry and the
field named. Look-ups accept ids, aliases and loose spellings ("Llama 3.1 70B",
"meta-llama/Llama-3.1-70B-Instruct", "mixtral 8x7b") and suggest the closest names on a miss.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from tools.architecture import Architecture, ParamCounts, count_parameters
from tools.errors import ToolInputError, closest_names
from tools.hardware import GpuLimitRule, gpu_limit
from tools.limits import (
    FINITE,
    MAX_BANDWIDTH_BYTES_PER_S,
    MAX_DEVICES_PER_PACKAGE,
    MAX_GPU_CORES,
    MAX_GPUS_PER_NODE,
    MAX_MEMORY_BYTES,
    MAX_PCIE_GEN,
    MAX_TFLOPS,
    MAX_WATTS,
)
from tools.nesting import NestingError, toml_decode_error
from tools.safe_files import read_text
from tools.toml_cache import parse_toml_cached
from tools.units import GB


class CatalogError(ValueError):
    """A catalog file that does not validate: names the file, the entry and the field."""

    def __init__(self, file: Path, entry: str, field: str, problem: str) -> None:
        self.file, self.entry, self.field, self.problem = file, entry, field, problem
        super().__init__(f"{file}: entry {entry!r}: field {field!r}: {problem}")


class Sourced(BaseModel):
    """Provenance carried by every catalog entry."""

    source: str = Field(min_length=3, description="Where the figures come from.")
    as_of: str = Field(min_length=4, description="Date (or 'undated copy') of the source.")


class Checkpoint(BaseModel):
    """A published checkpoint of a catalog model in another weight format (an official AWQ or
    FP8 release): naming it sizes the model in that format."""

    model_config = ConfigDict(extra="forbid", frozen=True, **FINITE)

    repo: str = Field(min_length=3, max_length=200, description="Hugging Face repo id.")
    weights: str = Field(description="Weight format it ships in (a tools.memory format name).")
    source: str = Field(min_length=3, description="Where the repo and its format were read.")

    @model_validator(mode="after")
    def _known_format(self) -> Checkpoint:
        # tools.memory imports this module
        from tools.memory.formats import EXL2_FORMAT_NAME, WEIGHT_FORMATS, is_weight_format

        if not is_weight_format(self.weights):
            allowed = ", ".join((*WEIGHT_FORMATS, EXL2_FORMAT_NAME))
            raise ValueError(f"weights {self.weights!r} is not one of {allowed}")
        return self


class ModelEntry(Sourced):
    """A model in the catalog. Its parameter counts are computed from `architecture`.

    An entry that shares another's architecture (Llama 3.3 70B is Llama 3.1 70B's shape) names it
    in `same_architecture_as` and carries no architecture table of its own; the loader copies the
    referenced one, so both are sized identically while each keeps its own sources."""

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
    checkpoints: tuple[Checkpoint, ...] = Field(
        default=(), description="Other published formats of this model (AWQ, FP8 repos)."
    )
    checkpoint_stores_tied_head: bool = Field(
        default=False,
        description="The checkpoint stores lm_head.weight although the embedding is tied: "
        "the file holds one vocab × hidden matrix more than memory (Qwen3-0.6B).",
    )
    same_architecture_as: str | None = Field(
        default=None, description="Id of the entry whose architecture this model shares."
    )
    notes: str | None = Field(default=None, description="Modelling notes from the research.")
    conflicts: str | None = Field(default=None, description="Sources that disagree, and why.")
    gaps: str | None = Field(default=None, description="What no source gave, and what was done.")
    architecture: Architecture

    @property
    def params(self) -> ParamCounts:
        return count_parameters(self.architecture)

    @property
    def checkpoint_params(self) -> int:
        """Parameters stored in the checkpoint files: the in-memory total, plus a separately
        stored copy of a tied output layer, plus MTP modules (counted from the architecture)."""
        counts = self.params
        head_copy = counts.embedding if self.checkpoint_stores_tied_head else 0
        return counts.total + head_copy + counts.mtp


Interconnect = Literal["nvlink", "nvlink-bridge", "infinity-fabric", "pcie", "ethernet"]
Segment = Literal["datacenter", "workstation", "consumer", "unified-memory"]


class UnifiedMemory(BaseModel):
    """A machine whose GPU shares the system RAM (Apple silicon, DGX Spark, Strix Halo): the RAM
    sizes it is sold with and the rule for how much of it the GPU may use
    (tools/hardware.py `gpu_limit`)."""

    model_config = ConfigDict(extra="forbid", frozen=True, **FINITE)

    ram_options_bytes: tuple[int, ...] = Field(
        description="RAM configurations a source confirms, bytes as sold (N GB = N × 10^9)."
    )
    ram_options_unconfirmed_bytes: tuple[int, ...] = Field(
        default=(), description="Configurations listed only by sources the research doubts."
    )
    gpu_limit: GpuLimitRule = Field(
        description="macos-working-set (Metal's default working set, raisable with "
        "iogpu.wired_limit_mb), coherent (no carve-out, DGX Spark), bios-carveout (Strix Halo)."
    )
    gpu_cores: int | None = Field(default=None, gt=0, le=MAX_GPU_CORES)
    measured_stream_bandwidth_bytes_per_s: float | None = Field(
        default=None,
        gt=0,
        le=MAX_BANDWIDTH_BYTES_PER_S,
        description="GPU-side STREAM bandwidth measured, bytes/s.",
    )
    sources: tuple[str, ...] = Field(default=(), description="Where the options were read.")

    @model_validator(mode="after")
    def _sane_options(self) -> UnifiedMemory:
        for ram in (*self.ram_options_bytes, *self.ram_options_unconfirmed_bytes):
            if not 1 * GB <= ram <= 4096 * GB:
                raise ValueError(f"RAM option {ram} bytes is outside 1 GB to 4 TB")
        return self


class GpuSpec(Sourced):
    """One accelerator. Throughputs are dense (no sparsity); `None` means not published.

    A unified-memory machine is one entry per chip at its largest confirmed RAM; the other RAM
    configurations are generated beside it at load (`configuration_of` names the chip), each
    sized against its own GPU limit."""

    model_config = ConfigDict(extra="forbid", frozen=True, **FINITE)

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9.\-]*$")
    name: str
    vendor: Literal["NVIDIA", "AMD", "Intel", "Apple"]
    architecture: str
    aliases: tuple[str, ...] = ()
    segment: Segment = Field(
        default="datacenter",
        description="datacenter, workstation (pro PCIe cards), consumer (GeForce, Radeon, "
        "Arc), unified-memory (Apple silicon, DGX Spark, Strix Halo).",
    )
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
    fp32_tflops: float | None = Field(
        default=None,
        gt=0,
        le=MAX_TFLOPS,
        description="Datasheet FP32 non-tensor (CUDA-core / vector ALU) throughput, 10^12 "
        "FLOP/s: the rate weight-only quantized kernels dequantize at.",
    )
    cuda_total_memory_bytes: int | None = Field(
        default=None,
        gt=0,
        le=MAX_MEMORY_BYTES,
        description="Total memory CUDA reports (cudaMemGetInfo), what vLLM multiplies by "
        "gpu_memory_utilization, bytes, where an engine log shows it (below nvidia-smi's).",
    )
    cuda_total_memory_source: str | None = Field(
        default=None, description="The log that shows cuda_total_memory_bytes."
    )
    supports_bf16: bool = Field(
        default=True,
        description="Native bf16 tensor math. False for T4/V100/P100 (Turing, Volta, Pascal): "
        "engines run bf16 checkpoints as fp16 there.",
    )
    tdp_w: float | None = Field(default=None, gt=0, le=MAX_WATTS)
    base_clock_mhz: float | None = Field(
        default=None,
        gt=0,
        le=10_000,
        description="Base clock, MHz: the clock the vendor rates the board to hold at its TDP "
        "(a full-load floor; the boost clock is opportunistic).",
    )
    sm_count: int | None = Field(
        default=None, gt=0, le=10_000, description="Streaming multiprocessors enabled."
    )
    full_power_part: str | None = Field(
        default=None,
        description="Catalog id of the full-power SXM module of the same die, where this board "
        "is a lower-TDP version of it (PCIe, NVL): with base clocks and SM counts on both, its "
        "sustained tensor throughput is taken against that part's "
        "(tools.performance.hardware.power_limited_share).",
    )
    interconnect: Interconnect
    interconnect_bytes_per_s: float | None = Field(
        default=None,
        gt=0,
        le=MAX_BANDWIDTH_BYTES_PER_S,
        description="GPU-to-GPU bandwidth per GPU, one direction.",
    )
    pcie_gen: int | None = Field(default=None, ge=1, le=MAX_PCIE_GEN)
    form_factor: Literal["sxm", "pcie", "oam", "superchip", "soc"]
    gpus_per_node: int | None = Field(default=None, gt=0, le=MAX_GPUS_PER_NODE)
    devices_per_package: int = Field(
        default=1,
        ge=1,
        le=MAX_DEVICES_PER_PACKAGE,
        description="GPUs software sees per physical board (MI250X: 2 GCDs); memory, "
        "bandwidth and throughput are per device.",
    )
    recommend_by_default: bool = Field(
        default=True,
        description="Among the recommender's candidates when the user names no GPU; owned "
        "hardware without a cloud price (unified-memory machines, most GeForce cards) and "
        "China-only parts are sized when named.",
    )
    unified_memory: UnifiedMemory | None = None
    configuration_of: str | None = Field(
        default=None, description="The chip entry this RAM configuration was generated from."
    )
    unconfirmed: tuple[str, ...] = Field(default=(), description="Fields no source confirms.")
    notes: str | None = None

    @model_validator(mode="after")
    def _usable_not_above_vendor(self) -> GpuSpec:
        # HBM parts are marketed in GB but built in GiB, so usable may exceed the GB figure;
        # it may never exceed the GiB reading of it.
        if self.usable_memory_bytes > self.memory_bytes * 2**30 / 10**9:
            raise ValueError("usable_memory_bytes exceeds the vendor capacity")
        if (self.segment == "unified-memory") != (self.unified_memory is not None):
            raise ValueError("unified_memory is set exactly for the unified-memory segment")
        return self

    @property
    def multi_gpu_fast_link(self) -> bool:
        """True for NVLink / Infinity Fabric class links (tensor parallel friendly)."""
        return self.interconnect in ("nvlink", "infinity-fabric")

    @property
    def pcie_only(self) -> bool:
        """A discrete card whose GPUs talk over PCIe only (or a 2-way bridge at most)."""
        return self.form_factor == "pcie" and not self.multi_gpu_fast_link

    @property
    def ram_options_bytes(self) -> tuple[int, ...]:
        """Every RAM size a unified-memory chip is sold with (confirmed first); () otherwise."""
        if self.unified_memory is None:
            return ()
        um = self.unified_memory
        return tuple(sorted({*um.ram_options_bytes, *um.ram_options_unconfirmed_bytes}))


def ram_configuration(chip: GpuSpec, ram_bytes: int) -> GpuSpec:
    """`chip` with `ram_bytes` of unified memory, its GPU limit by the chip's rule (the basis
    says whether a source confirms that size). Raises ValueError for a discrete GPU."""
    um = chip.unified_memory
    if um is None:
        raise ValueError(f"{chip.id} is not a unified-memory machine")
    size = round(ram_bytes / GB)
    limit = gpu_limit(um.gpu_limit, ram_bytes)
    unconfirmed = [u for u in chip.unconfirmed if not u.startswith(("memory_bytes", "usable"))]
    if ram_bytes not in um.ram_options_bytes:
        unconfirmed.insert(
            0, f"memory_bytes: {size} GB is not a configuration the sources confirm for this chip"
        )
    unconfirmed.insert(0, "usable_memory_bytes: derived by the GPU-limit rule, not measured")
    base_id = chip.configuration_of or chip.id
    base_name = chip.name.rsplit(" · ", 1)[0]
    chip_aliases = [a for a in chip.aliases if not re.search(r"\d+\s*GB$", a, re.I)]
    return chip.model_copy(
        update={
            "id": f"{base_id}-{size}gb",
            "name": f"{base_name} · {size} GB",
            "aliases": tuple(
                alias for a in chip_aliases for alias in (f"{a} {size}GB", f"{a} {size} GB")
            ),
            "memory_bytes": ram_bytes,
            "usable_memory_bytes": limit.bytes,
            "usable_memory_basis": limit.basis,
            "configuration_of": base_id,
            "unconfirmed": tuple(unconfirmed),
        }
    )


def with_ram_configurations(gpus: list[GpuSpec]) -> list[GpuSpec]:
    """`gpus` with, after each unified-memory chip, one entry per other RAM size it is sold
    with; the chip itself answers to its own size too ('M3 Max 128GB')."""
    out: list[GpuSpec] = []
    for gpu in gpus:
        if gpu.unified_memory is None:
            out.append(gpu)
            continue
        size = round(gpu.memory_bytes / GB)
        own = [f"{gpu.id}-{size}gb"]
        own += [alias for a in gpu.aliases for alias in (f"{a} {size}GB", f"{a} {size} GB")]
        out.append(gpu.model_copy(update={"aliases": (*gpu.aliases, *own)}))
        out.extend(
            ram_configuration(gpu, ram) for ram in gpu.ram_options_bytes if ram != gpu.memory_bytes
        )
    return out


def catalog_dir() -> Path:
    """The catalog directory: beside the package in a checkout, or packaged in a wheel."""
    here = Path(__file__).resolve().parent
    for candidate in (here.parent / "catalog", here / "_data" / "catalog"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("catalog directory not found next to the tools package")


E = TypeVar("E", bound=BaseModel)


def _shared_architectures(path: Path, raw: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Entries with `same_architecture_as` get a copy of the named entry's architecture table
    (the named entry must come earlier in the file; it may itself share another's)."""
    tables: dict[str, Any] = {}
    out: list[dict[str, Any]] = []
    for index, item in enumerate(raw):
        entry_name = str(item.get("id", f"#{index + 1}"))
        shared = item.get("same_architecture_as")
        if shared is not None:
            if "architecture" in item:
                raise CatalogError(
                    path, entry_name, "architecture", "give same_architecture_as or an own table"
                )
            if shared not in tables:
                raise CatalogError(
                    path,
                    entry_name,
                    "same_architecture_as",
                    f"{shared!r} is not an earlier entry",
                )
            item = {**item, "architecture": tables[shared]}
        if "architecture" in item:
            tables[entry_name] = item["architecture"]
        out.append(item)
    return out


def load_entries(path: Path, table: str, model: type[E], limit: int | None = None) -> list[E]:
    """Load `[[table]]` entries of a TOML file into `model`, failing with file/entry/field.
    `limit`: a file the user supplied (prices.toml) is read as a regular file of at most that
    many bytes (tools/safe_files.py: no FIFO, no device, no multi-gigabyte read)."""
    try:
        if limit is None:
            text = path.read_text(encoding="utf-8")
        else:
            text = read_text(path, "prices", limit, "price file")
        data = parse_toml_cached(path, text)
    except ToolInputError as exc:
        raise CatalogError(path, "-", "-", exc.problem) from None
    except NestingError as exc:
        raise CatalogError(path, "-", "-", f"not a price file ({exc})") from None
    except toml_decode_error() as exc:
        raise CatalogError(path, "-", "-", f"invalid TOML: {exc}") from None
    raw: list[dict[str, Any]] = data.get(table, [])
    if table == "model":
        raw = _shared_architectures(path, raw)
    entries: list[E] = []
    seen: set[str] = set()
    for index, item in enumerate(raw):
        entry_name = str(item.get("id", f"#{index + 1}"))
        try:
            entry = model.model_validate(item)
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"]) or "-"
            raise CatalogError(
                path, entry_name, field, str(err["msg"]).removeprefix("Value error, ")
            ) from None
        if entry_name in seen:
            raise CatalogError(path, entry_name, "id", "duplicate id")
        seen.add(entry_name)
        entries.append(entry)
    return entries


@lru_cache(maxsize=4096)
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
        gpus = with_ram_configurations(gpus)
        self.gpus: dict[str, GpuSpec] = {g.id: g for g in gpus}
        """Every GPU by id: the devices of gpus.toml and, after each unified-memory chip, its
        other RAM configurations (`configuration_of` set)."""
        self._model_index = self._index(models)
        self._gpu_index = self._index(gpus)
        self._checkpoints: dict[str, Checkpoint] = {}
        for m in models:
            for ckpt in m.checkpoints:
                self._model_index[ckpt.repo.lower()] = m.id
                self._model_index[normalize_name(ckpt.repo)] = m.id
                self._checkpoints[ckpt.repo.lower()] = ckpt
                self._checkpoints[normalize_name(ckpt.repo)] = ckpt

    @staticmethod
    def _index(entries: list[ModelEntry] | list[GpuSpec]) -> dict[str, str]:
        index: dict[str, str] = {}
        for e in entries:
            for key in (e.id, e.name, *e.aliases):
                index[key.lower()] = e.id
                index[normalize_name(key)] = e.id
        return index

    def checkpoint(self, name: str) -> Checkpoint | None:
        """The published checkpoint `name` refers to when it names one in another format
        ('Qwen/Qwen3-32B-AWQ' → int4-awq); None for the model's own name or an unknown one."""
        return self._checkpoints.get(name.lower()) or self._checkpoints.get(normalize_name(name))

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

    def devices(self) -> list[GpuSpec]:
        """The devices of gpus.toml, without the generated RAM configurations."""
        return [g for g in self.gpus.values() if g.configuration_of is None]

    def default_candidates(self) -> list[GpuSpec]:
        """The devices the recommender weighs when the user names none: rentable and
        datacenter parts (`recommend_by_default`); owned hardware is sized when named."""
        return [g for g in self.devices() if g.recommend_by_default]

    def ram_configurations(self, chip_id: str) -> list[GpuSpec]:
        """A unified-memory chip and its generated RAM configurations, smallest RAM first."""
        chip = self.gpus[chip_id]
        base = chip.configuration_of or chip.id
        family = [g for g in self.gpus.values() if base in (g.id, g.configuration_of)]
        return sorted(family, key=lambda g: g.memory_bytes)

    def gpu(self, name: str) -> GpuSpec:
        """Find a GPU by id, alias or loose spelling. Raises ToolInputError with suggestions.

        '<chip id>-<N>gb' names a unified-memory chip with N GB of RAM even when the sources
        list no such configuration: it is generated (flagged unconfirmed) and kept."""
        key = self._gpu_index.get(name.lower()) or self._gpu_index.get(normalize_name(name))
        if key is None:
            key = self._ram_configuration_id(name)
        if key is None:
            raise ToolInputError(
                "gpu",
                f"unknown GPU {name!r}",
                "a catalog id (gpu-sizer gpus)",
                closest_names(normalize_name(name), self.gpus),
            )
        return self.gpus[key]

    def with_ram(self, chip: GpuSpec, ram_bytes: int) -> GpuSpec:
        """`chip` (a unified-memory machine) with `ram_bytes` of RAM as sold (N GB): the listed
        configuration, or one generated and kept for that size (flagged unconfirmed)."""
        size = round(ram_bytes / GB)
        return self.gpu(f"{chip.configuration_of or chip.id}-{size}gb")

    def _ram_configuration_id(self, name: str) -> str | None:
        match = re.fullmatch(r"([a-z0-9][a-z0-9.\-]*?)-(\d{1,4})gb", name.strip().lower())
        if match is None or match.group(1) not in self.gpus:
            return None
        chip = self.gpus[match.group(1)]
        ram = int(match.group(2)) * GB
        if chip.unified_memory is None or not 1 * GB <= ram <= 4096 * GB:
            return None
        config = ram_configuration(chip, ram)
        self.gpus[config.id] = config
        for key in (config.id, config.name, *config.aliases):
            self._gpu_index.setdefault(key.lower(), config.id)
            self._gpu_index.setdefault(normalize_name(key), config.id)
        return config.id


@cache
def get_catalog(directory: Path | None = None) -> Catalog:
    """Load and validate the catalog once per process."""
    root = directory or catalog_dir()
    return Catalog(
        load_entries(root / "models.toml", "model", ModelEntry),
        load_entries(root / "gpus.toml", "gpu", GpuSpec),
    )
