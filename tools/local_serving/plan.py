"""`plan_local_serving`: how much of a model llama.cpp / Ollama can hold on the user's GPU(s),
what stays in system RAM, the estimated decode speed, and the launch line.

Placement follows llama.cpp (src/llama-model.cpp load_tensors): the token embedding always
stays on the CPU; `-ngl k` puts the output layer and the last k − 1 transformer layers on the
GPU(s), each layer's KV cache with it (offload_kqv, the default). So the plan searches the
largest k whose GPU share (those layers' weights + their KV cache + the output layer + compute
buffers and runtime per GPU) fits the budget. Weights are the exact per-tensor bytes of the
format (a GGUF file's own); the KV cache is per llama.cpp cache type: K and V each
kv_heads × head_dim elements per token per layer at the type's block size (q8_0: 34 bytes per
32), sliding-window and chunked layers capped as llama.cpp's iSWA cache caps them
(tools/local_serving/kv.py). Compute buffer and runtime are the memory calculator's generic
(llama.cpp) engine figures. A checkpoint's vision tower is not in the text GGUF (llama.cpp
loads it from a separate --mmproj file), so it is left out.

Several GPUs: llama.cpp splits the layers over them (--split-mode layer, the default): their
memory adds up, a token passes through them in turn, so the decode estimate reads every
GPU-resident byte at one GPU's bandwidth (capacity, not speed). A unified-memory machine (Apple
silicon, DGX Spark) has no separate RAM: the GPU may use its working-set limit, the layers off
the GPU run on the CPU from the same memory at the same peak bandwidth, and GPU and CPU parts
together must fit the machine's RAM less what the OS keeps.

The parts: the machine and its unified-memory limit (`machine.py`), the -ngl search and the
bytes on each side (`placement.py`), the warnings and notes in words (`notes.py`), the launch
lines (`launch.py`); this module puts them together and estimates the decode speed.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import cast

from tools.architecture import Architecture
from tools.catalog import get_catalog
from tools.defaults import DEFAULT_CONTEXT_TOKENS
from tools.errors import ToolInputError
from tools.local_serving.choose import choose_local_format
from tools.local_serving.kv import kv_cache_total, windowed_note
from tools.local_serving.launch import (
    llama_server_command,
    lm_studio_settings,
    mlx_lines,
    ollama_setup,
)
from tools.local_serving.machine import Machine, machine_of, unified_ram
from tools.local_serving.notes import machine_notes, placement_note, plan_warnings, vision_note
from tools.local_serving.ollama_tags import gguf_file_name, ollama_reference
from tools.local_serving.placement import (
    ModelBytes,
    Placement,
    bytes_read_per_token,
    place_layers,
)
from tools.local_serving.request import (
    CacheType,
    LaunchLines,
    LocalServingPlan,
    LocalServingRequest,
)
from tools.local_speed import LLAMA_CPP, DecodeEstimate, decode_estimate, host_ram_bandwidth
from tools.memory import MemoryEstimate, MemoryRequest, estimate_memory
from tools.memory.formats import GGUF_FORMATS, normalize_format
from tools.memory.kv_cache import LLAMA_CPP_KV_DTYPES
from tools.memory.model import ResolvedModel, model_weight_bytes, resolve_model
from tools.memory.weights import WeightBytes
from tools.model_sources.tags import OLLAMA_DEFAULT_WEIGHTS, parse_tag
from tools.performance.llama_split import (
    TENSOR_SPLIT_SOURCE,
    tensor_split_problem,
    tensor_split_speedup,
)
from tools.units import GB

_KV_DTYPE_CACHE: dict[str, CacheType] = {
    "fp16": "f16",
    "bf16": "bf16",
    "fp32": "f32",
    "fp8": "q8_0",
    "int8": "q8_0",
    **{t: cast(CacheType, t) for t in LLAMA_CPP_KV_DTYPES},  # llama.cpp's own names, as said
}


def _format(req: LocalServingRequest, resolved: ResolvedModel) -> tuple[str, str | None]:
    if req.weights is not None:
        return req.weights, None
    if resolved.checkpoint_format:
        fmt = normalize_format(resolved.checkpoint_format)
        if fmt in GGUF_FORMATS or resolved.file_weights is not None:
            return fmt, None
    return OLLAMA_DEFAULT_WEIGHTS, (
        f"Weights: {OLLAMA_DEFAULT_WEIGHTS} (GGUF Q4_K_M, what Ollama pulls by default and the "
        "usual llama.cpp choice); set weights for another GGUF type."
    )


def plan_local_serving(req: LocalServingRequest) -> LocalServingPlan:
    """The llama.cpp / Ollama plan for `req` (bytes; tokens/s estimated). Raises
    ToolInputError for inputs that cannot be sized."""
    resolved = resolve_model(req.model, req.params, req.config_path, req.model_file)
    arch = resolved.architecture
    if _format_to_choose(req, resolved):
        return choose_local_format(req, arch.max_context)
    notes = list(resolved.assumptions)
    fmt, fmt_note = _format(req, resolved)
    if fmt_note:
        notes.append(fmt_note)
    machine = machine_of(req)
    cache: CacheType = req.cache_type or _KV_DTYPE_CACHE.get(req.kv_dtype or "fp16", "f16")
    per_slot = req.context or min(DEFAULT_CONTEXT_TOKENS, arch.max_context)
    if req.context is None:
        notes.append(f"Context: {per_slot:,} tokens per slot (default; set context).")
    # The text GGUF holds no vision tower (llama.cpp loads it from a separate --mmproj file).
    wb = model_weight_bytes(resolved, fmt, vision=False)
    if arch.vision is not None:
        notes.append(vision_note(arch))
    base = estimate_memory(
        MemoryRequest(
            model=req.model,
            params=req.params,
            config_path=req.config_path,
            model_file=req.model_file,
            weights=fmt,
            engine="generic",
            context=per_slot,
            batch=req.parallel,
        )
    )
    model = _model_bytes(req, arch, wb, cache, per_slot, base)
    windowed = windowed_note(arch, per_slot)
    if windowed:
        notes.append(windowed)
    budget = machine.usable_bytes * req.gpus
    placement = place_layers(model, budget)
    ram = _ram_fit(req, machine, placement, notes)
    warnings = plan_warnings(req, machine, cache, model.fixed, budget)
    notes += machine_notes(req, machine, arch)
    speed = _decode_speed(req, machine, arch, fmt, cache, model, placement, notes)
    split = req.split_mode or "layer"
    launch, command, modelfile, env = _launch(
        req,
        resolved,
        fmt,
        placement.n_gpu_layers,
        arch.num_layers,
        per_slot,
        cache,
        split if req.gpus > 1 else None,
    )
    notes.append(placement_note(arch, placement, cache, per_slot, req.parallel))
    return LocalServingPlan(
        model_id=resolved.id,
        model_name=resolved.name,
        weights_format=fmt,
        launcher=req.launcher,
        gpu=None if machine.spec is None else machine.spec.id,
        gpu_label=machine.label,
        gpu_memory_stated=machine.stated,
        gpus=req.gpus,
        budget_bytes=budget,
        n_layers=arch.num_layers,
        gpu_layers=placement.gpu_layers,
        n_gpu_layers=placement.n_gpu_layers,
        output_on_gpu=placement.output_on_gpu,
        fits_fully=placement.fits_fully,
        fits_in_ram=ram.fits,
        ram_needed_bytes=ram.needed_bytes,
        ram_available_bytes=ram.available_bytes,
        gpu_bytes=placement.gpu_bytes,
        host_bytes=placement.host_bytes,
        weights_bytes=wb.total,
        weights_gpu_bytes=placement.weights_gpu_bytes,
        kv_cache_bytes=model.kv_total,
        kv_cache_gpu_bytes=placement.kv_gpu_bytes,
        compute_and_overhead_bytes=model.fixed,
        system_ram_bytes=ram.system_bytes,
        unified_memory=machine.unified,
        gpu_limit_basis=None if machine.limit is None else machine.limit.basis,
        context_total=per_slot * req.parallel,
        context_per_slot=per_slot,
        parallel=req.parallel,
        cache_type=cache,
        decode_tokens_per_s=None if speed is None else speed.tokens_per_s,
        decode_basis=None if speed is None else speed.basis,
        decode_label=None if speed is None else speed.label,
        launch_command=command,
        launch=launch,
        ollama_modelfile=modelfile,
        ollama_env=env,
        assumptions=notes,
        warnings=warnings + list(map(str, base.warnings)),
    )


def _format_to_choose(req: LocalServingRequest, resolved: ResolvedModel) -> bool:
    """Whether the weight format is chosen by what fits (`choose_local_format`): asked for,
    and no format said, no GGUF file or checkpoint fixing it (gpt-oss ships MXFP4, its GGUF's
    format)."""
    shipped_mxfp4 = resolved.checkpoint_format == "mxfp4"
    return (
        req.choose_format
        and req.weights is None
        and not shipped_mxfp4
        and _format(req, resolved)[1] is not None
    )


@dataclass(frozen=True)
class _RamFit:
    """The system RAM side of a plan, bytes."""

    system_bytes: int | None
    """The machine's RAM: as given, or a unified-memory machine's; None when not known."""
    available_bytes: int | None
    """What the plan's RAM part may use (unified memory: GPU and CPU parts together)."""
    needed_bytes: int

    @property
    def fits(self) -> bool | None:
        """Whether the RAM part fits what is available; None when that is not known."""
        return None if self.available_bytes is None else self.needed_bytes <= self.available_bytes


def _ram_fit(
    req: LocalServingRequest, machine: Machine, placement: Placement, notes: list[str]
) -> _RamFit:
    """The RAM the plan needs and may use: what the CPU holds against the RAM given, or, on a
    unified-memory machine, both parts against the RAM less what the OS keeps (noted)."""
    ram = None if req.system_ram_gb is None else round(req.system_ram_gb * GB)
    if machine.limit is None:
        return _RamFit(ram, ram, placement.host_bytes)
    ram, room = unified_ram(machine.limit, machine.ram_sold_bytes, notes, placement.fits_fully)
    # One memory holds both parts.
    return _RamFit(ram, room, placement.host_bytes + placement.gpu_bytes)


def _model_bytes(
    req: LocalServingRequest,
    arch: Architecture,
    wb: WeightBytes,
    cache: CacheType,
    per_slot: int,
    base: MemoryEstimate,
) -> ModelBytes:
    """The bytes llama.cpp places for `req`: the format's exact per-tensor weights `wb`, the
    KV cache of every slot in `cache`, the generic engine's compute buffers and runtime on
    each GPU, and the share of the layers a decoded token reads (MoE: the routed experts a
    token uses, top-k of n)."""
    fixed_per_gpu = base.breakdown["activations"] + base.breakdown["overhead"]
    layer_total: int = sum(wb.layers)
    unread = 0.0
    if arch.moe is not None and layer_total:
        unread = wb.routed_experts * (1 - arch.moe.experts_per_token / arch.moe.num_experts)
    return ModelBytes(
        fixed=fixed_per_gpu * req.gpus,
        # A tied model's output layer is a GPU copy of the token embedding (llama.cpp
        # duplicates it).
        output=(wb.lm_head or wb.embedding) + wb.final_norm,
        embedding=wb.embedding,
        layers=tuple(wb.layers),
        num_layers=arch.num_layers,
        kv_total=kv_cache_total(arch, cache, per_slot, req.parallel),
        read_share=1 - unread / layer_total if layer_total else 1.0,
    )


def _decode_speed(
    req: LocalServingRequest,
    machine: Machine,
    arch: Architecture,
    fmt: str,
    cache: CacheType,
    model: ModelBytes,
    placement: Placement,
    notes: list[str],
) -> DecodeEstimate | None:
    """The estimated decode speed of one sequence: the bytes a token reads on each side at the
    GPU's and the system RAM's bandwidth (on a unified-memory machine the CPU reads the
    off-GPU layers from the same memory), scaled for llama.cpp's tensor split. Notes the RAM
    bandwidth assumed when layers run on the CPU. Raises ToolInputError for a tensor split
    llama.cpp refuses."""
    ram_bw, ram_source = host_ram_bandwidth(machine.spec)
    if req.ram_bandwidth_gb_s:
        ram_bw = req.ram_bandwidth_gb_s * GB
    elif not placement.fits_fully:
        notes.append(f"System-RAM bandwidth {ram_bw / GB:g} GB/s: {ram_source}.")
    gpu_read, ram_read = bytes_read_per_token(model, placement)
    speed = decode_estimate(
        gpu_read,
        ram_read,
        machine.bandwidth_bytes_per_s,
        ram_bw,
        gpu=machine.spec,
        weight_format=fmt,
        gpu_layers=placement.gpu_layers,
        gpu_kv_bytes_read=placement.kv_gpu_bytes,
        ram_label="the same unified memory, by the CPU" if machine.unified else "system RAM",
        engine=llama_cpp_engine(req.engine_version, notes),
    )
    if req.gpus > 1 and (req.split_mode or "layer") == "tensor":
        problem = tensor_split_problem(cache, req.flash_attention)
        if problem:
            raise ToolInputError("split_mode", problem, "split_mode layer")
        if speed is not None:
            speed = _tensor_split(speed, arch)
    return speed


def llama_cpp_engine(engine_version: str | None, notes: list[str]) -> str:
    """The performance model's engine name of the llama.cpp build named (its era after `@`),
    the build's reading noted; plain llama.cpp (the newest builds) when none is named."""
    from tools.performance.engines import with_build_era
    from tools.performance.llama_builds import read_llama_build

    build = None if engine_version is None else read_llama_build(engine_version)
    if build is None:
        return LLAMA_CPP
    notes.append(build.statement())
    return with_build_era(LLAMA_CPP, build.era)


def _tensor_split(speed: DecodeEstimate, arch: Architecture) -> DecodeEstimate:
    """The layer-split estimate `speed` scaled by llama.cpp's measured tensor-split speed-up
    for `arch` (tools/performance/llama_split.py)."""
    factor = tensor_split_speedup(arch)
    return DecodeEstimate(
        speed.tokens_per_s * factor,
        speed.gpu_seconds_per_token / factor,
        speed.ram_seconds_per_token,
        f"estimated (layer split × {factor:.2f}, {TENSOR_SPLIT_SOURCE}): {speed.basis}",
        "estimated",
    )


def _launch(
    req: LocalServingRequest,
    resolved: ResolvedModel,
    fmt: str,
    best: int,
    n: int,
    per_slot: int,
    cache: CacheType,
    split: str | None,
) -> tuple[LaunchLines, str, str | None, dict[str, str]]:
    """The launch lines of the plan, and the one its launcher runs (with Ollama's Modelfile
    and environment when it is Ollama)."""
    # Ollama takes a tag the user gave as it is, a file as a path, else the library tag of
    # this type (tools/local_serving/ollama_tags.py): never a catalog id it cannot pull.
    library_ref, library_tag = ollama_reference(resolved.id, fmt)
    if req.model and parse_tag(req.model) is not None:
        model_ref, library_tag = req.model, True
    elif req.model_file:
        model_ref, library_tag = req.model_file, False
    else:
        model_ref = library_ref
    path = req.model_file or gguf_file_name(resolved.id, fmt)
    command = llama_server_command(
        path,
        per_slot * req.parallel,
        req.parallel,
        best,
        cache,
        req.flash_attention,
        split,
    )
    server_line = command
    ollama_file, ollama_env, ollama_line = ollama_setup(
        model_ref, per_slot, req.parallel, best, cache
    )
    modelfile: str | None = None
    env: dict[str, str] = {}
    if req.launcher == "ollama":
        modelfile, env, command = ollama_file, ollama_env, ollama_line
    launch = LaunchLines(
        ollama_reference=model_ref,
        ollama_library_tag=library_tag,
        ollama_run=f"{ollama_line} & ollama run {shlex.quote(model_ref)}",
        ollama_modelfile=ollama_file,
        llama_server=server_line,
        lm_studio=lm_studio_settings(path, best, n, per_slot, cache, req.flash_attention),
        mlx_server=_mlx(req, resolved, fmt),
    )
    return launch, command, modelfile, env


def _mlx(req: LocalServingRequest, resolved: ResolvedModel, fmt: str) -> str | None:
    """The MLX lines when MLX was asked for and the model has a Hugging Face repo id."""
    if not req.mlx:
        return None
    entry = get_catalog().models.get(resolved.id)
    repo = None if entry is None else next((a for a in entry.aliases if "/" in a), None)
    bits = re.search(r"(\d+)", fmt)
    if repo is None or bits is None:
        return None
    return mlx_lines(repo, float(bits.group(1)), resolved.id)
