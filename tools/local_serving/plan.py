"""`plan_local_serving`: how much of a model llama.cpp / Ollama can hold on the user's GPU(s),
what stays in system RAM, the estimated decode speed, and the launch line.

Placement follows llama.cpp (src/llama-model.cpp load_tensors): the token embedding always
stays on the CPU; `-ngl k` puts the output layer and the last k − 1 transformer layers on the
GPU(s), each layer's KV cache with it (offload_kqv, the default). So the plan searches the
largest k whose GPU share (those layers' weights + their KV cache + the output layer + compute
buffers and runtime per GPU) fits the budget. Weights are the exact per-tensor bytes of the
format (a GGUF file's own); the KV cache is per llama.cpp cache type: K and V each
kv_heads × head_dim elements per token per layer at the type's block size (q8_0: 34 bytes per
32). Compute buffer and runtime are the memory calculator's generic (llama.cpp) engine figures.
"""

from __future__ import annotations

from tools.catalog import get_catalog
from tools.defaults import DEFAULT_CONTEXT_TOKENS
from tools.errors import ToolInputError
from tools.local_serving.launch import OLLAMA_CACHE_TYPES, llama_server_command, ollama_setup
from tools.local_serving.request import CacheType, LocalServingPlan, LocalServingRequest
from tools.local_speed import decode_estimate, host_ram_bandwidth
from tools.memory import MemoryRequest, estimate_memory
from tools.memory.formats import GGUF_FORMATS, normalize_format
from tools.memory.gguf_mix import GGML_BLOCKS
from tools.memory.model import ResolvedModel, model_weight_bytes, resolve_model
from tools.model_sources.tags import OLLAMA_DEFAULT_WEIGHTS
from tools.units import GB, format_bytes

_CACHE_GGML = {"f32": "F32", "f16": "F16", "bf16": "BF16", "q8_0": "Q8_0", "q4_0": "Q4_0"}
_CACHE_GGML |= {"q4_1": "Q4_1", "iq4_nl": "IQ4_NL", "q5_0": "Q5_0", "q5_1": "Q5_1"}
_KV_DTYPE_CACHE: dict[str, CacheType] = {
    "fp16": "f16",
    "bf16": "bf16",
    "fp32": "f32",
    "fp8": "q8_0",
    "int8": "q8_0",
}


def kv_bytes_per_token(resolved: ResolvedModel, cache_type: str) -> float:
    """KV-cache bytes per token over all layers in a llama.cpp cache type."""
    arch = resolved.architecture
    block_bytes, block_len = GGML_BLOCKS[_CACHE_GGML[cache_type]]
    per_element = block_bytes / block_len
    if arch.mla is not None:
        elements = arch.mla.kv_lora_rank + arch.mla.qk_rope_head_dim
    else:
        elements = 2 * arch.num_kv_heads * arch.head_dim
    return arch.num_layers * elements * per_element


def _kv_total(resolved: ResolvedModel, cache_type: str, per_slot: int, parallel: int) -> int:
    arch = resolved.architecture
    per_layer = kv_bytes_per_token(resolved, cache_type) / arch.num_layers
    sliding = arch.sliding_window_layers
    window = min(per_slot, arch.sliding_window or per_slot)
    tokens = (arch.num_layers - sliding) * per_slot + sliding * window
    return round(per_layer * tokens * parallel)


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


def _gpu(req: LocalServingRequest) -> tuple[str | None, str, int, float | None, bool]:
    """(catalog id, label, usable bytes per GPU, bandwidth, memory stated by the user)."""
    if req.gpu is not None:
        spec = get_catalog().gpu(req.gpu)
        return (
            spec.id,
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
    notes = list(resolved.assumptions)
    warnings: list[str] = []
    fmt, fmt_note = _format(req, resolved)
    if fmt_note:
        notes.append(fmt_note)
    gpu_id, label, usable, bandwidth, stated = _gpu(req)
    cache: CacheType = req.cache_type or _KV_DTYPE_CACHE.get(req.kv_dtype or "fp16", "f16")
    per_slot = req.context or min(DEFAULT_CONTEXT_TOKENS, arch.max_context)
    if req.context is None:
        notes.append(f"Context: {per_slot:,} tokens per slot (default; set context).")
    total_ctx = per_slot * req.parallel
    wb = model_weight_bytes(resolved, fmt)
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
    kv_total = _kv_total(resolved, cache, per_slot, req.parallel)
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
        notes.append(
            f"{label} is not in the catalog: sized on the {req.gpu_memory_gb:g} GB you gave "
            "(no bandwidth known" + (")" if bandwidth is None else f"; {bandwidth / GB:g} GB/s)")
        )
    spec = None if gpu_id is None else get_catalog().gpu(gpu_id)
    ram_bw, ram_source = host_ram_bandwidth(spec)
    if req.ram_bandwidth_gb_s:
        ram_bw = req.ram_bandwidth_gb_s * GB
    if req.ram_bandwidth_gb_s is None and not fits_fully:
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
    )
    model_ref = req.model_file or req.model or resolved.id
    path = req.model_file or f"{resolved.id}.{fmt.upper()}.gguf"
    command = llama_server_command(path, total_ctx, req.parallel, best, cache, req.flash_attention)
    modelfile: str | None = None
    env: dict[str, str] = {}
    if req.launcher == "ollama":
        modelfile, env, command = ollama_setup(model_ref, per_slot, req.parallel, best, cache)
    notes.append(
        f"Placement as llama.cpp does it: token embedding in system RAM; -ngl {best} puts the "
        f"output layer and the last {on_gpu} of {n} layers on the GPU, each with its KV cache "
        f"({cache}: {kv_bytes_per_token(resolved, cache):,.0f} bytes per token); -c {total_ctx:,}"
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
        fits_in_ram=None if ram is None else host <= ram,
        gpu_bytes=gpu_bytes(best),
        host_bytes=host,
        weights_bytes=wb.total,
        weights_gpu_bytes=weights_gpu,
        kv_cache_bytes=kv_total,
        kv_cache_gpu_bytes=kv_gpu,
        compute_and_overhead_bytes=fixed,
        system_ram_bytes=ram,
        context_total=total_ctx,
        context_per_slot=per_slot,
        parallel=req.parallel,
        cache_type=cache,
        decode_tokens_per_s=None if speed is None else speed.tokens_per_s,
        decode_basis=None if speed is None else speed.basis,
        launch_command=command,
        ollama_modelfile=modelfile,
        ollama_env=env,
        assumptions=notes,
        warnings=warnings + list(base.warnings),
    )
