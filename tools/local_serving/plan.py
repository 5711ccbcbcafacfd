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
"""

from __future__ import annotations

import re
import shlex

from tools.architecture import vision_params
from tools.catalog import GpuSpec, get_catalog
from tools.defaults import DEFAULT_CONTEXT_TOKENS
from tools.errors import ToolInputError
from tools.hardware import LAYER_SPLIT_NOTE, OS_RESERVE_BYTES, GpuLimit, gpu_limit, ram_gib
from tools.local_serving.choose import choose_local_format
from tools.local_serving.kv import kv_bytes_per_token, kv_cache_total, windowed_note
from tools.local_serving.launch import (
    OLLAMA_CACHE_TYPES,
    llama_server_command,
    lm_studio_settings,
    mlx_lines,
    ollama_setup,
)
from tools.local_serving.ollama_tags import gguf_file_name, ollama_reference
from tools.local_serving.request import (
    CacheType,
    LaunchLines,
    LocalServingPlan,
    LocalServingRequest,
)
from tools.local_speed import DecodeEstimate, decode_estimate, host_ram_bandwidth
from tools.memory import MemoryRequest, estimate_memory
from tools.memory.formats import GGUF_FORMATS, normalize_format
from tools.memory.model import ResolvedModel, model_weight_bytes, resolve_model
from tools.model_sources.tags import OLLAMA_DEFAULT_WEIGHTS, parse_tag
from tools.performance.llama_split import (
    TENSOR_SPLIT_SOURCE,
    split_note,
    tensor_split_problem,
    tensor_split_speedup,
)
from tools.units import GB, GiB, format_bytes, format_count

_KV_DTYPE_CACHE: dict[str, CacheType] = {
    "fp16": "f16",
    "bf16": "bf16",
    "fp32": "f32",
    "fp8": "q8_0",
    "int8": "q8_0",
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


def _gpu(req: LocalServingRequest) -> tuple[GpuSpec | None, str, int, float | None, bool]:
    """(catalog spec, label, usable bytes per GPU, bandwidth, memory stated by the user)."""
    if req.gpu is not None:
        spec = get_catalog().gpu(req.gpu)
        return (
            spec,
            spec.name,
            spec.usable_memory_bytes,
            spec.memory_bandwidth_bytes_per_s,
            False,
        )
    if req.gpu_memory_gb is None:
        raise ToolInputError(
            "gpu", "give the GPU: a catalog id, or gpu_memory_gb for one not in the catalog"
        )
    label = req.gpu_name or f"GPU with {req.gpu_memory_gb:g} GB"
    bandwidth = None if req.gpu_bandwidth_gb_s is None else req.gpu_bandwidth_gb_s * GB
    return None, label, round(req.gpu_memory_gb * GB), bandwidth, True


def plan_local_serving(req: LocalServingRequest) -> LocalServingPlan:
    """The llama.cpp / Ollama plan for `req` (bytes; tokens/s estimated). Raises
    ToolInputError for inputs that cannot be sized."""
    resolved = resolve_model(req.model, req.params, req.config_path, req.model_file)
    arch = resolved.architecture
    shipped_mxfp4 = resolved.checkpoint_format == "mxfp4"  # gpt-oss: its GGUF is MXFP4
    if (
        req.choose_format
        and req.weights is None
        and not shipped_mxfp4
        and _format(req, resolved)[1]
    ):
        return choose_local_format(req, arch.max_context)  # no file or checkpoint fixes it
    notes = list(resolved.assumptions)
    warnings: list[str] = []
    fmt, fmt_note = _format(req, resolved)
    if fmt_note:
        notes.append(fmt_note)
    spec, label, usable, bandwidth, stated = _gpu(req)
    gpu_id = None if spec is None else spec.id
    # Unified memory: a catalog machine's rule, or the one said of a machine given by its RAM.
    rule = req.gpu_unified_memory if spec is None else None
    if spec is not None and spec.unified_memory is not None:
        rule = spec.unified_memory.gpu_limit
    ram_sold = round((req.gpu_memory_gb or 0) * GB) if spec is None else spec.memory_bytes
    unified = rule is not None
    limit = None if rule is None else gpu_limit(rule, ram_sold)
    if limit is not None and limit.bytes <= 0:
        # A coherent machine keeps OS_RESERVE_BYTES for the OS: RAM at or below that leaves
        # the model nothing (never a negative budget).
        raise ToolInputError(
            "gpu_memory_gb",
            f"{ram_sold / GB:g} GB of unified memory leaves no memory for the model after the "
            f"{OS_RESERVE_BYTES // GiB} GiB the operating system keeps",
            f"more than {OS_RESERVE_BYTES // GiB} GB of RAM (as sold: N GB is N GiB of DRAM)",
        )
    if spec is None and limit is not None:
        usable = limit.bytes  # the memory given is the machine's RAM: the GPU gets its share
    cache: CacheType = req.cache_type or _KV_DTYPE_CACHE.get(req.kv_dtype or "fp16", "f16")
    per_slot = req.context or min(DEFAULT_CONTEXT_TOKENS, arch.max_context)
    if req.context is None:
        notes.append(f"Context: {per_slot:,} tokens per slot (default; set context).")
    total_ctx = per_slot * req.parallel
    # The text GGUF holds no vision tower (llama.cpp loads it from a separate --mmproj file).
    wb = model_weight_bytes(resolved, fmt, vision=False)
    if arch.vision is not None:
        notes.append(
            f"Vision tower ({format_count(vision_params(arch))} parameters) left out: the "
            "text GGUF does not hold it; llama.cpp loads the encoder from a separate --mmproj "
            "file (Ollama's multimodal models carry it as a second layer) when images are used."
        )
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
    fixed_per_gpu = base.breakdown["activations"] + base.breakdown["overhead"]
    fixed = fixed_per_gpu * req.gpus
    budget = usable * req.gpus
    kv_total = kv_cache_total(arch, cache, per_slot, req.parallel)
    windowed = windowed_note(arch, per_slot)
    if windowed:
        notes.append(windowed)
    kv_layer = kv_total / arch.num_layers
    # A tied model's output layer is a GPU copy of the token embedding (llama.cpp duplicates it).
    output = (wb.lm_head or wb.embedding) + wb.final_norm
    layers = list(wb.layers)
    n = arch.num_layers

    def gpu_bytes(k: int) -> int:
        on = max(k - 1, 0)
        return fixed + (output if k >= 1 else 0) + sum(layers[n - on :]) + round(kv_layer * on)

    best = 0
    for k in range(n + 1, -1, -1):
        if gpu_bytes(k) <= budget:
            best = k
            break
    on_gpu = max(best - 1, 0)
    weights_gpu = (output if best >= 1 else 0) + sum(layers[n - on_gpu :])
    kv_gpu = round(kv_layer * on_gpu)
    host = wb.embedding + sum(layers[: n - on_gpu]) + (kv_total - kv_gpu)
    if best == 0:
        host += output
    ram = None if req.system_ram_gb is None else round(req.system_ram_gb * GB)
    fits_fully = best == n + 1
    ram_room = ram
    ram_needed = host
    if limit is not None:
        ram, ram_room = _unified_ram(limit, ram_sold, notes, fits_fully)
        ram_needed = host + gpu_bytes(best)  # one memory holds both parts
    if fixed > budget:
        warnings.append(
            f"the compute buffers and runtime alone ({format_bytes(fixed, 'GiB')}) exceed "
            f"{label}'s {format_bytes(budget, 'GiB')}: llama.cpp would run on the CPU only"
        )
    if cache not in ("f16", "f32", "bf16") and not req.flash_attention:
        warnings.append(f"a {cache} V cache needs flash attention (-fa on) in llama.cpp")
    if req.launcher == "ollama" and cache not in OLLAMA_CACHE_TYPES:
        warnings.append(f"Ollama's OLLAMA_KV_CACHE_TYPE takes f16, q8_0 or q4_0, not {cache}")
    if stated:
        given = "of unified memory " if unified else ""
        known = "" if bandwidth is None else f"; {bandwidth / GB:g} GB/s"
        notes.append(
            f"{label} is not in the catalog: sized on the {req.gpu_memory_gb:g} GB {given}you "
            f"gave (no bandwidth known{known})"
        )
    if req.gpus > 1:
        notes.append(
            split_note("tensor", req.gpus, arch)
            if req.split_mode == "tensor"
            else _split_note(req.gpus, spec)
        )
    # A unified-memory machine's CPU reads the off-GPU layers from the same memory.
    ram_bw, ram_source = host_ram_bandwidth(spec)
    if req.ram_bandwidth_gb_s:
        ram_bw = req.ram_bandwidth_gb_s * GB
    elif not fits_fully:
        notes.append(f"System-RAM bandwidth {ram_bw / GB:g} GB/s: {ram_source}.")
    # Bytes read per decoded token: MoE reads the routed experts a token uses (top-k of n).
    layer_total: int = sum(layers)
    unread = 0.0
    if arch.moe is not None and layer_total:
        unread = wb.routed_experts * (1 - arch.moe.experts_per_token / arch.moe.num_experts)
    read_share = 1 - unread / layer_total if layer_total else 1.0
    gpu_read = (weights_gpu - (output if best >= 1 else 0)) * read_share + (
        output if best >= 1 else 0
    )
    ram_read = sum(layers[: n - on_gpu]) * read_share + (output if best == 0 else 0)
    speed = decode_estimate(
        gpu_read + kv_gpu,
        ram_read + (kv_total - kv_gpu),
        bandwidth,
        ram_bw,
        gpu=spec,
        weight_format=fmt,
        gpu_layers=on_gpu,
        gpu_kv_bytes_read=kv_gpu,
        ram_label="the same unified memory, by the CPU" if unified else "system RAM",
    )
    split = req.split_mode or "layer"
    if req.gpus > 1 and split == "tensor":
        problem = tensor_split_problem(cache, req.flash_attention)
        if problem:
            raise ToolInputError("split_mode", problem, "split_mode layer")
        if speed is not None:
            factor = tensor_split_speedup(arch)
            speed = DecodeEstimate(
                speed.tokens_per_s * factor,
                speed.gpu_seconds_per_token / factor,
                speed.ram_seconds_per_token,
                f"estimated (layer split × {factor:.2f}, {TENSOR_SPLIT_SOURCE}): {speed.basis}",
                "estimated",
            )
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
        total_ctx,
        req.parallel,
        best,
        cache,
        req.flash_attention,
        split if req.gpus > 1 else None,
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
    notes.append(
        f"Placement as llama.cpp does it: token embedding in system RAM; -ngl {best} puts the "
        f"output layer and the last {on_gpu} of {n} layers on the GPU, each with its KV cache "
        f"({cache}: {kv_bytes_per_token(arch, cache):,.0f} bytes per token); -c {total_ctx:,}"
        f" = {per_slot:,} tokens × {req.parallel} slots."
    )
    return LocalServingPlan(
        model_id=resolved.id,
        model_name=resolved.name,
        weights_format=fmt,
        launcher=req.launcher,
        gpu=gpu_id,
        gpu_label=label,
        gpu_memory_stated=stated,
        gpus=req.gpus,
        budget_bytes=budget,
        n_layers=n,
        gpu_layers=on_gpu,
        n_gpu_layers=best,
        output_on_gpu=best >= 1,
        fits_fully=fits_fully,
        fits_in_ram=None if ram_room is None else ram_needed <= ram_room,
        ram_needed_bytes=ram_needed,
        ram_available_bytes=ram_room,
        gpu_bytes=gpu_bytes(best),
        host_bytes=host,
        weights_bytes=wb.total,
        weights_gpu_bytes=weights_gpu,
        kv_cache_bytes=kv_total,
        kv_cache_gpu_bytes=kv_gpu,
        compute_and_overhead_bytes=fixed,
        system_ram_bytes=ram,
        unified_memory=unified,
        gpu_limit_basis=None if limit is None else limit.basis,
        context_total=total_ctx,
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
        warnings=warnings + [str(w) for w in base.warnings],  # the estimate's notes, as text
    )


def _unified_ram(
    limit: GpuLimit, ram_sold: int, notes: list[str], fits_fully: bool
) -> tuple[int, int]:
    """(the machine's RAM, what GPU and CPU parts together may use) of a unified-memory
    machine sold with `ram_sold` bytes ('N GB'), with the note that says how it was sized."""
    ram = round(ram_gib(ram_sold) * GiB)  # 'N GB' of unified memory is N GiB
    room = ram - OS_RESERVE_BYTES
    raise_hint = f"; {limit.raise_hint}" if limit.raise_hint and not fits_fully else ""
    notes.append(
        f"Unified memory: no separate VRAM. The GPU may use {format_bytes(limit.bytes, 'GiB')} "
        f"({limit.basis}){raise_hint}; the layers llama.cpp keeps off the GPU run on the CPU "
        f"from the same {format_bytes(ram, 'GiB')} at the same peak bandwidth (the CPU cores "
        "reach less of it than the GPU, so the estimate is an upper bound), and GPU and CPU "
        f"parts together must fit the RAM less {OS_RESERVE_BYTES // GiB} GiB for the OS."
    )
    return ram, room


def _split_note(gpus: int, spec: GpuSpec | None) -> str:
    """llama.cpp's layer split over several GPUs: capacity, not speed (measured)."""
    if spec is not None and spec.pcie_only:
        return LAYER_SPLIT_NOTE
    return (
        f"llama.cpp splits the layers over the {gpus} GPUs (--split-mode layer, the default): "
        "their memory adds up, but each token passes through them in turn, so the decode "
        "estimate reads every GPU-resident byte at one GPU's bandwidth (capacity, not speed; "
        "--split-mode tensor, split_mode, splits each tensor instead)."
    )


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
