"""Measure real memory use of catalog architectures, to calibrate `tools.memory` (issue 10).

On a CUDA machine: build each planned model from its catalog `Architecture` with random weights
(no downloads; full width, fewer layers when the whole model would not fit, extrapolated per
layer), run inference with a KV cache, a full fine-tuning step (AdamW, mixed precision, with and
without gradient checkpointing) and a LoRA step (peft), and record per component:

- weights after load, KV cache delta after prefill, gradients after backward, optimizer state
  delta after the first step, activation peak (max allocated minus what was resident before);
- `torch.cuda.max_memory_allocated` / `max_memory_reserved` and the device's used memory
  (`torch.cuda.mem_get_info`: total − free, which includes the CUDA context).

Every point also records tensor byte counts (parameters, buffers, cache tensors, gradients,
optimizer state): on CPU (`--device cpu --tiny`) those counts are the only measurement, so the same
code paths run and are tested without a GPU. Output: `bench/calibration/<gpu>-<date>.json`
(schema in bench/calibration/README.md). torch, transformers and peft come from the optional
`calibrate` extra; this module imports them only inside the functions that need them.

Usage:  python -m bench.calibrate_gpu [--quick]            # CUDA, about 8 minutes on an H200
        python -m bench.calibrate_gpu --device cpu --tiny  # logic check, seconds
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import json
import platform
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal, cast

from tools.architecture import MLA, Architecture, MoE, count_parameters
from tools.catalog import ModelEntry, catalog_dir, load_entries
from tools.hf_config import SUPPORTED_MODEL_TYPES

SCHEMA_VERSION = 1
CALIBRATION_DIR = Path(__file__).resolve().parent / "calibration"
Kind = Literal["inference", "full", "lora"]

# ----------------------------------------------------------------------------------------------
# Architecture -> Hugging Face config dict (the inverse of tools.hf_config.architecture_from_config)
# ----------------------------------------------------------------------------------------------

# Features each family's Transformers implementation fixes (mirrors tools/hf_config.py): a config
# dict cannot express other values, so an Architecture that asks for them is refused.
_IMPLIED_QKV_BIAS = {"qwen2"}
_QK_NORM = {"qwen3", "qwen3_moe"}
_SINKS = {"gpt_oss"}
_FOUR_NORMS = {"gemma2"}
_WHOLE_MODEL_WINDOW = {"mistral", "qwen2", "qwen3", "qwen3_moe"}


def architecture_to_config(arch: Architecture) -> dict[str, Any]:
    """The config.json dict (model_type + fields of the family's Transformers config class) that
    `tools.hf_config.architecture_from_config` maps back to `arch`. Sizes are in elements/tokens.

    Raises ValueError when `arch` asks for something its family's implementation cannot express
    (e.g. a q/k norm on a llama) or for the `generic` family, which has no Transformers class.
    """
    family = arch.family
    if family == "generic":
        raise ValueError("the 'generic' family has no Transformers implementation to build")
    _check_implied_features(arch)
    cfg: dict[str, Any] = {
        "model_type": family,
        "num_hidden_layers": arch.num_layers,
        "hidden_size": arch.hidden_size,
        "intermediate_size": arch.intermediate_size,
        "num_attention_heads": arch.num_attention_heads,
        "num_key_value_heads": arch.num_kv_heads,
        "head_dim": arch.head_dim,
        "vocab_size": arch.vocab_size,
        "tie_word_embeddings": arch.tied_embeddings,
        "max_position_embeddings": arch.max_context,
        "mlp_bias": arch.mlp_bias,
    }
    if family not in _IMPLIED_QKV_BIAS:
        if arch.qkv_bias != arch.o_bias:
            raise ValueError(f"{family}: attention_bias sets q/k/v and o biases together")
        cfg["attention_bias"] = arch.qkv_bias
    elif arch.o_bias:
        raise ValueError("qwen2 has q/k/v biases and no o_proj bias")
    cfg.update(_sliding_config(arch))
    if arch.moe is not None:
        cfg.update(_moe_config(arch, arch.moe))
    if arch.mla is not None:
        cfg.update(_mla_config(arch.mla, arch.mtp_layers))
        del cfg["head_dim"]  # DeepSeek-V3 derives it: qk_nope_head_dim + qk_rope_head_dim
    return cfg


def _check_implied_features(arch: Architecture) -> None:
    f = arch.family
    if f not in SUPPORTED_MODEL_TYPES:
        raise ValueError(f"{f}: tools/hf_config.py does not map this family's config")
    unmapped = {
        "vision": arch.vision is not None,
        "chunked_attention_layers": arch.chunked_attention_layers > 0,
        "norm_bias": arch.norm_bias,
        "lm_head_bias": arch.lm_head_bias,
        "qk_norm_scope": arch.qk_norm and arch.qk_norm_scope != "head",
        "moe.layer_step": arch.moe is not None and arch.moe.layer_step != 1,
    }
    for name, present in unmapped.items():
        if present:
            raise ValueError(f"{f}: {name} is not mapped to a config field here")
    checks = {
        "qk_norm": (arch.qk_norm, f in _QK_NORM),
        "attention_sinks": (arch.attention_sinks, f in _SINKS),
        "norms_per_layer": (arch.norms_per_layer, 4 if f in _FOUR_NORMS else 2),
        "qkv_bias": (arch.qkv_bias, True) if f in _IMPLIED_QKV_BIAS else (True, True),
        "moe": (
            arch.moe is not None,
            f in ("mixtral", "gpt_oss", "qwen3_moe", "deepseek_v3"),
        ),
        "mla": (arch.mla is not None, f == "deepseek_v3"),
    }
    for name, (have, implied) in checks.items():
        if have != implied:
            raise ValueError(f"{f}: {name}={have!r} but its implementation fixes {implied!r}")


def _sliding_config(arch: Architecture) -> dict[str, Any]:
    family, layers, window = arch.family, arch.num_layers, arch.sliding_window
    n_sliding = arch.sliding_window_layers if window else 0
    if family == "gemma2":
        # Gemma 2 always alternates local/global layers (Gemma2Config.layer_types).
        if n_sliding != (layers + 1) // 2:
            raise ValueError("gemma2 alternates sliding and global layers: (L+1)//2 sliding")
        return {"sliding_window": window}
    if n_sliding == 0:
        base: dict[str, Any] = {"sliding_window": None}
        if family.startswith("qwen"):
            base["use_sliding_window"] = False
        return base
    if family in _WHOLE_MODEL_WINDOW and n_sliding == layers:
        base = {"sliding_window": window}
        if family.startswith("qwen"):
            base["use_sliding_window"] = True
            base["max_window_layers"] = layers
        return base
    if family == "gpt_oss" or family == "mistral" or family.startswith("qwen"):
        # layer_types: sliding and full layers alternate (gpt-oss), starting with a sliding one;
        # any leftover sliding layers go last.
        types = ["full_attention"] * layers
        for i in list(range(0, layers, 2)) + list(range(1, layers, 2)):
            if sum(t == "sliding_attention" for t in types) == n_sliding:
                break
            types[i] = "sliding_attention"
        cfg: dict[str, Any] = {"sliding_window": window, "layer_types": types}
        if family.startswith("qwen"):
            cfg["use_sliding_window"] = True
        return cfg
    raise ValueError(f"{family}: its implementation has no sliding-window attention layers")


def _moe_config(arch: Architecture, moe: MoE) -> dict[str, Any]:
    family = arch.family
    if family in ("mixtral", "gpt_oss"):
        if moe.expert_intermediate_size != arch.intermediate_size:
            raise ValueError(f"{family}: experts use intermediate_size; the two must be equal")
        if moe.num_shared_experts or moe.first_dense_layers:
            raise ValueError(f"{family} has no shared experts or dense layers")
        if (moe.router_bias, moe.expert_bias) != ((family == "gpt_oss"),) * 2:
            raise ValueError(f"{family}: router/expert biases are fixed by the implementation")
        return {"num_local_experts": moe.num_experts, "num_experts_per_tok": moe.experts_per_token}
    if moe.router_bias or moe.expert_bias:
        raise ValueError(f"{family}: no router or expert biases in its implementation")
    if family == "qwen3_moe":
        if moe.num_shared_experts or moe.first_dense_layers:
            raise ValueError("qwen3_moe (as supported) has no shared experts or dense layers")
        return {
            "num_experts": moe.num_experts,
            "num_experts_per_tok": moe.experts_per_token,
            "moe_intermediate_size": moe.expert_intermediate_size,
            "mlp_only_layers": [],
            "decoder_sparse_step": 1,
        }
    # deepseek_v3. Expert grouping (n_group/topk_group) changes routing, not memory: one group.
    return {
        "n_routed_experts": moe.num_experts,
        "num_experts_per_tok": moe.experts_per_token,
        "moe_intermediate_size": moe.expert_intermediate_size,
        "n_shared_experts": moe.num_shared_experts,
        "first_k_dense_replace": moe.first_dense_layers,
        "n_group": 1,
        "topk_group": 1,
    }


def _mla_config(mla: MLA, mtp_layers: int = 0) -> dict[str, Any]:
    return {
        "num_nextn_predict_layers": mtp_layers,
        "q_lora_rank": mla.q_lora_rank,
        "kv_lora_rank": mla.kv_lora_rank,
        "qk_nope_head_dim": mla.qk_nope_head_dim,
        "qk_rope_head_dim": mla.qk_rope_head_dim,
        "v_head_dim": mla.v_head_dim,
    }


def tiny_architecture(arch: Architecture) -> Architecture:
    """A few-kilobyte model of the same family and features as `arch` (MoE, MLA, sliding window,
    biases, norms kept), for running every code path on a CPU in seconds."""
    heads, kv_heads = 4, 2 if arch.num_kv_heads < arch.num_attention_heads else 4
    layers = 4 if arch.moe and arch.moe.first_dense_layers else 2
    sliding = 0
    if arch.sliding_window_layers:
        sliding = layers if arch.sliding_window_layers == arch.num_layers else (layers + 1) // 2
    updates: dict[str, Any] = {
        "num_layers": layers,
        "hidden_size": 64,
        "intermediate_size": 96,
        "num_attention_heads": heads,
        "num_kv_heads": kv_heads,
        "head_dim": 16,
        "vocab_size": 256,
        "max_context": 512,
        "sliding_window": 8 if sliding else None,
        "sliding_window_layers": sliding,
    }
    if arch.moe is not None:
        updates["moe"] = arch.moe.model_copy(
            update={
                "num_experts": 4,
                "experts_per_token": 2,
                "expert_intermediate_size": 96 if arch.family in ("mixtral", "gpt_oss") else 32,
                "first_dense_layers": min(arch.moe.first_dense_layers, 1),
            }
        )
    if arch.mla is not None:
        updates["mla"] = MLA(
            q_lora_rank=None if arch.mla.q_lora_rank is None else 32,
            kv_lora_rank=16,
            qk_nope_head_dim=16,
            qk_rope_head_dim=8,
            v_head_dim=16,
        )
        updates["head_dim"] = 24
    return Architecture.model_validate({**arch.model_dump(), **updates})


def with_layers(arch: Architecture, layers: int) -> Architecture:
    """`arch` with `layers` decoder layers, keeping which layers are sliding/dense in proportion."""
    sliding = arch.sliding_window_layers
    if sliding:
        sliding = layers if sliding == arch.num_layers else (layers + 1) // 2
    updates: dict[str, Any] = {"num_layers": layers, "sliding_window_layers": sliding}
    if arch.moe is not None:
        updates["moe"] = arch.moe.model_copy(
            update={"first_dense_layers": min(arch.moe.first_dense_layers, layers - 1)}
        )
    return Architecture.model_validate({**arch.model_dump(), **updates})


def catalog_models() -> dict[str, ModelEntry]:
    """The catalog models this mapping can write a config.json for (only models.toml: the GPU
    table is not needed to build models); families or features tools/hf_config.py does not map
    (Llama 4, Gemma 3, vision towers, ...) are left out."""
    models: dict[str, ModelEntry] = {}
    for m in load_entries(catalog_dir() / "models.toml", "model", ModelEntry):
        try:
            architecture_to_config(m.architecture)
        except ValueError:
            continue
        models[m.id] = m
    return models


# ----------------------------------------------------------------------------------------------
# The measurement plan
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Point:
    """One measurement: a model (at `layers` of its layers) and a workload."""

    model_id: str
    kind: Kind
    dtype: str = "bf16"  # weight dtype; "mixed" = fp32 master weights + bf16 autocast (HF AMP)
    batch: int = 1
    context: int = 1024  # tokens per sequence (prefill length / training sequence length)
    layers: int | None = None  # None = all of the model's layers
    gradient_checkpointing: bool = False
    lora_rank: int = 16

    @property
    def id(self) -> str:
        parts = [self.model_id, self.kind, self.dtype, f"b{self.batch}", f"s{self.context}"]
        if self.layers is not None:
            parts.append(f"L{self.layers}")
        if self.gradient_checkpointing:
            parts.append("ckpt")
        if self.kind == "lora":
            parts.append(f"r{self.lora_rank}")
        return "-".join(parts)


def gpu_plan(quick: bool) -> list[Point]:
    """Points sized for one H200 (141 GB) and a run under ~8 minutes (`quick`: ~2 minutes).

    Models too big for the GPU are built with fewer layers at two depths, so per-layer growth is
    measured and extrapolated to the full depth (`extrapolate`)."""
    small = [
        Point("llama-3.2-1b", "inference", "bf16", 1, 4096),
        Point("llama-3.2-1b", "inference", "bf16", 8, 4096),
        Point("llama-3.2-1b", "full", "mixed", 4, 2048),
        Point("llama-3.2-1b", "full", "mixed", 4, 2048, gradient_checkpointing=True),
        Point("llama-3.2-1b", "lora", "bf16", 4, 2048, gradient_checkpointing=True),
    ]
    if quick:
        return small
    return [
        *small,
        Point("llama-3.2-1b", "inference", "fp32", 4, 4096),
        Point("llama-3.1-8b", "inference", "bf16", 1, 8192),
        Point("llama-3.1-8b", "inference", "bf16", 16, 4096),
        Point("llama-3.1-8b", "inference", "fp16", 4, 16384),
        Point("llama-3.1-8b", "lora", "bf16", 4, 2048, gradient_checkpointing=True),
        Point("llama-3.1-8b", "lora", "bf16", 2, 2048),
        Point("llama-3.2-3b", "full", "mixed", 2, 2048),
        Point("llama-3.2-3b", "full", "mixed", 4, 2048, gradient_checkpointing=True),
        Point("qwen2.5-7b", "inference", "bf16", 8, 4096),
        Point("mistral-7b-v0.3", "inference", "bf16", 8, 4096),
        Point("gemma-2-9b", "inference", "bf16", 2, 8192),
        Point("qwen3-30b-a3b", "inference", "bf16", 4, 4096),
        Point("llama-3.1-70b", "inference", "bf16", 4, 4096, layers=20),
        Point("llama-3.1-70b", "inference", "bf16", 4, 4096, layers=40),
    ]


def cpu_tiny_plan() -> list[Point]:
    """Every kind of point on tiny models (one per family), for a CPU logic check."""
    points: list[Point] = []
    for model_id in (
        "llama-3.2-1b",
        "mistral-7b-v0.3",
        "mixtral-8x7b",
        "qwen2.5-7b",
        "qwen3-30b-a3b",
        "gemma-2-9b",
        "phi-3-mini-4k",
        "deepseek-v3",
        "gpt-oss-20b",
    ):
        points.append(Point(model_id, "inference", "bf16", 2, 16))
    points += [
        Point("llama-3.1-8b", "inference", "fp32", 2, 16, layers=1),
        Point("llama-3.1-8b", "inference", "fp32", 2, 16, layers=2),
        Point("llama-3.2-1b", "full", "mixed", 2, 16),
        Point("llama-3.2-1b", "full", "mixed", 2, 16, gradient_checkpointing=True),
        Point("llama-3.2-1b", "lora", "bf16", 2, 16, lora_rank=4),
    ]
    return points


# ----------------------------------------------------------------------------------------------
# Measuring
# ----------------------------------------------------------------------------------------------


@dataclass
class Measured:
    """Component bytes for one point. `counted_*` are tensor byte sums (every device);
    `allocated_*`, `peak_*`, `device_used_bytes` come from the CUDA allocator (None on CPU)."""

    counted_weights_bytes: int = 0
    counted_kv_cache_bytes: int | None = None
    counted_gradients_bytes: int | None = None
    counted_optimizer_bytes: int | None = None
    counted_trainable_params: int | None = None
    allocated_weights_bytes: int | None = None
    allocated_kv_cache_bytes: int | None = None
    allocated_gradients_bytes: int | None = None
    allocated_optimizer_bytes: int | None = None
    activation_peak_bytes: int | None = None
    peak_allocated_bytes: int | None = None
    peak_reserved_bytes: int | None = None
    device_used_bytes: int | None = None


@dataclass
class PointResult:
    id: str
    inputs: dict[str, Any]
    config: dict[str, Any]
    measured: Measured
    seconds: float
    notes: list[str] = field(default_factory=list)


class Probe:
    """Allocator readings on CUDA; None everywhere on CPU (byte counts are used there)."""

    def __init__(self, device: str) -> None:
        import torch

        self.torch = torch
        self.cuda = device.startswith("cuda")
        self.device_used_max: int | None = None

    def sync_and_collect(self) -> None:
        gc.collect()
        if self.cuda:
            self.torch.cuda.synchronize()
            self.torch.cuda.empty_cache()

    def reset_peak(self) -> None:
        if self.cuda:
            self.torch.cuda.reset_peak_memory_stats()

    def allocated(self) -> int | None:
        return int(self.torch.cuda.memory_allocated()) if self.cuda else None

    def peak_allocated(self) -> int | None:
        return int(self.torch.cuda.max_memory_allocated()) if self.cuda else None

    def peak_reserved(self) -> int | None:
        return int(self.torch.cuda.max_memory_reserved()) if self.cuda else None

    def device_used(self) -> int | None:
        """Device memory in use (total − free): context, allocator pool, other processes."""
        if not self.cuda:
            return None
        free, total = self.torch.cuda.mem_get_info()
        return int(total - free)

    def note_device_used(self) -> None:
        """Keep the highest device reading; taken at the moments memory peaks, before the
        allocator's cache is emptied."""
        used = self.device_used()
        if used is not None:
            self.device_used_max = max(used, self.device_used_max or 0)


def _delta(after: int | None, before: int | None) -> int | None:
    return None if after is None or before is None else after - before


def tensor_bytes(tensors: Iterator[Any]) -> int:
    """Bytes of distinct tensors (each storage counted once, as tied weights share one)."""
    seen: set[int] = set()
    total = 0
    for t in tensors:
        if t is None or id(t) in seen:
            continue
        seen.add(id(t))
        total += t.numel() * t.element_size()
    return total


def model_bytes(model: Any) -> int:
    """Parameters and buffers of `model`, in bytes (what loading the weights allocates)."""
    return tensor_bytes(iter([*model.parameters(), *model.buffers()]))


def cache_tensors(cache: Any) -> Iterator[Any]:
    """The key/value tensors of a Transformers cache (v5 `layers[i].keys/values`, v4 lists)."""
    layers = getattr(cache, "layers", None)
    if layers is not None:
        for layer in layers:
            yield getattr(layer, "keys", None)
            yield getattr(layer, "values", None)
        return
    for name in ("key_cache", "value_cache"):
        yield from getattr(cache, name, [])


DTYPES = {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32", "mixed": "float32"}


def build_model(config: dict[str, Any], dtype: str, device: str) -> Any:
    """A causal LM with random weights from a config dict, directly on `device` (no download)."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    cfg = dict(config)
    model_type = cfg.pop("model_type")
    # Special-token ids play no part in memory, and some defaults (phi3: 32000) exceed a tiny
    # vocabulary.
    cfg.update(pad_token_id=None, bos_token_id=None, eos_token_id=None)
    hf_config = AutoConfig.for_model(model_type, **cfg)
    torch_dtype = getattr(torch, DTYPES[dtype])
    auto: Any = AutoModelForCausalLM  # untyped in transformers
    with torch.device(device):
        model = auto.from_config(hf_config, dtype=torch_dtype)
    return model


def measure_point(point: Point, config: dict[str, Any], device: str) -> Measured:
    """Build the model of `point` on `device` and measure its components (see module doc)."""
    import torch

    probe = Probe(device)
    probe.sync_and_collect()
    probe.reset_peak()
    base = probe.allocated()
    model = build_model(config, point.dtype, device)
    probe.sync_and_collect()
    m = Measured(counted_weights_bytes=model_bytes(model))
    m.allocated_weights_bytes = _delta(probe.allocated(), base)
    gen = torch.Generator(device=device).manual_seed(0)
    ids = torch.randint(
        0, config["vocab_size"], (point.batch, point.context), device=device, generator=gen
    )
    try:
        if point.kind == "inference":
            _measure_inference(model, ids, probe, m)
        else:
            _measure_training(model, ids, point, probe, m)
    finally:
        m.peak_allocated_bytes = probe.peak_allocated()
        m.peak_reserved_bytes = probe.peak_reserved()
        m.device_used_bytes = probe.device_used_max
        del model
        probe.sync_and_collect()
    return m


def _measure_inference(model: Any, ids: Any, probe: Probe, m: Measured) -> None:
    import torch

    model.eval()
    before = probe.allocated()
    probe.reset_peak()
    with torch.inference_mode():
        # One prefill of the whole batch; only the last position's logits are kept, as a server
        # does before sampling. The cache holds every prompt token (capped at sliding windows).
        out = model(input_ids=ids, use_cache=True, logits_to_keep=1)
    probe.note_device_used()
    # Transformers 5.x names the output cache `cache`; 4.x `past_key_values`.
    cache = out.cache if hasattr(out, "cache") else out.past_key_values
    del out
    probe.sync_and_collect()
    m.counted_kv_cache_bytes = tensor_bytes(cache_tensors(cache))
    m.allocated_kv_cache_bytes = _delta(probe.allocated(), before)
    peak, after = probe.peak_allocated(), probe.allocated()
    if peak is not None and after is not None:
        m.activation_peak_bytes = peak - after  # transient above weights + the kept cache
    del cache


def _measure_training(model: Any, ids: Any, point: Point, probe: Probe, m: Measured) -> None:
    import torch

    if point.kind == "lora":
        # Weights = frozen base + adapters, as a LoRA checkpoint is served and trained.
        before_adapters = probe.allocated()
        model = _with_lora(model, point.lora_rank)
        probe.sync_and_collect()
        m.counted_weights_bytes = model_bytes(model)
        added = _delta(probe.allocated(), before_adapters)
        if m.allocated_weights_bytes is not None and added is not None:
            m.allocated_weights_bytes += added
    if point.gradient_checkpointing:
        # Renamed activation_checkpointing_enable in Transformers 5.x; same behaviour.
        kwargs = {"use_reentrant": False}
        if hasattr(model, "activation_checkpointing_enable"):
            model.activation_checkpointing_enable(activation_checkpointing_kwargs=kwargs)
        else:
            model.gradient_checkpointing_enable(gradient_checkpointing_kwargs=kwargs)
        if point.kind == "lora":
            model.enable_input_require_grads()
    model.train()
    params = [p for p in model.parameters() if p.requires_grad]
    m.counted_trainable_params = sum(p.numel() for p in params)
    # Mixed precision as Hugging Face Trainer does it (bf16=True): fp32 master weights, bf16
    # autocast for matmuls; pure-dtype models run in their own dtype.
    autocast_dtype = torch.bfloat16 if point.dtype == "mixed" else None
    optimizer = torch.optim.AdamW(params, lr=1e-5)
    before = probe.allocated()
    probe.reset_peak()
    with torch.autocast(
        device_type=ids.device.type,
        dtype=autocast_dtype or torch.float32,
        enabled=bool(autocast_dtype),
    ):
        loss = model(input_ids=ids, labels=ids, use_cache=False).loss
    loss.backward()
    probe.note_device_used()
    del loss
    probe.sync_and_collect()
    after_backward = probe.allocated()
    peak = probe.peak_allocated()
    m.counted_gradients_bytes = tensor_bytes(p.grad for p in params)
    m.allocated_gradients_bytes = _delta(after_backward, before)
    if peak is not None and after_backward is not None:
        # Activations (and their transient gradients) above weights + the gradients kept.
        m.activation_peak_bytes = peak - after_backward
    optimizer.step()
    probe.note_device_used()
    probe.sync_and_collect()
    m.counted_optimizer_bytes = tensor_bytes(
        t for state in optimizer.state.values() for t in state.values() if torch.is_tensor(t)
    )
    m.allocated_optimizer_bytes = _delta(probe.allocated(), after_backward)
    optimizer.zero_grad(set_to_none=True)
    del optimizer, params


LORA_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


def _with_lora(model: Any, rank: int) -> Any:
    """Wrap `model` with LoRA adapters on all attention and MLP projections (QLoRA paper §4:
    all linear layers), alpha = 2·rank, no dropout; the base stays frozen in its dtype."""
    from peft import LoraConfig, get_peft_model

    config = LoraConfig(
        r=rank, lora_alpha=2 * rank, lora_dropout=0.0, target_modules=list(LORA_TARGETS)
    )
    return get_peft_model(model, config)


# ----------------------------------------------------------------------------------------------
# Running the plan and writing the results
# ----------------------------------------------------------------------------------------------


def run_point(point: Point, device: str, tiny: bool) -> PointResult:
    """Resolve the point's architecture (tiny on request, fewer layers if asked) and measure."""
    entry = catalog_models()[point.model_id]
    arch = tiny_architecture(entry.architecture) if tiny else entry.architecture
    full_layers = arch.num_layers
    if point.layers is not None:
        arch = with_layers(arch, point.layers)
    config = architecture_to_config(arch)
    start = time.perf_counter()
    measured = measure_point(point, config, device)
    inputs = {**asdict(point), "layers_built": arch.num_layers, "layers_full": full_layers}
    inputs["tiny"] = tiny
    if point.kind == "lora":
        inputs["lora_targets"] = list(LORA_TARGETS)
    inputs["optimizer"] = "adamw" if point.kind != "inference" else None
    inputs["params_built"] = count_parameters(arch).total
    return PointResult(point.id, inputs, config, measured, time.perf_counter() - start)


def extrapolate(results: list[PointResult]) -> list[dict[str, Any]]:
    """For points built at two depths (same model and workload), per-layer growth of each
    component and the linear extrapolation to the full depth: m(L) = m(a) + (L − a)·slope."""
    groups: dict[str, list[PointResult]] = {}
    for r in results:
        if r.inputs["layers"] is not None:
            key = re.sub(r"-L\d+", "", r.id)
            groups.setdefault(key, []).append(r)
    rows = []
    for key, group in groups.items():
        if len(group) < 2:
            continue
        a, b = sorted(group, key=lambda r: r.inputs["layers_built"])[:2]
        la, lb, full = a.inputs["layers_built"], b.inputs["layers_built"], a.inputs["layers_full"]
        comps: dict[str, dict[str, float]] = {}
        for name, va in asdict(a.measured).items():
            vb = getattr(b.measured, name)
            if isinstance(va, int) and isinstance(vb, int):
                slope = (vb - va) / (lb - la)
                comps[name] = {"per_layer": slope, "full_model": va + (full - la) * slope}
        rows.append({"id": key, "layers": [la, lb], "layers_full": full, "components": comps})
    return rows


def environment(device: str) -> dict[str, Any]:
    """Versions and hardware, so a measurement can be traced and repeated."""
    import torch
    import transformers

    env: dict[str, Any] = {
        "device": device,
        "python": platform.python_version(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "date": dt.date.today().isoformat(),
    }
    try:
        import peft

        env["peft"] = peft.__version__
    except ImportError:
        env["peft"] = None
    if device.startswith("cuda"):
        props = torch.cuda.get_device_properties(0)
        free, total = torch.cuda.mem_get_info()
        env.update(
            gpu_name=props.name,
            gpu_total_bytes=int(total),
            cuda=torch.version.cuda,
            cudnn=cast(Any, torch.backends.cudnn).version(),
            driver=_nvidia_smi("driver_version"),
            # Used memory before any tensor: the CUDA context (plus other processes, if any).
            context_bytes=int(total - free),
        )
    else:
        env.update(gpu_name=None, cpu=platform.processor() or platform.machine())
    return env


def _nvidia_smi(query: str) -> str | None:
    try:
        out = subprocess.run(
            ["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=20,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip().splitlines()[0] if out.stdout.strip() else None


def run_plan(
    points: list[Point],
    device: str,
    tiny: bool,
    log: Callable[[str], None] = print,
    budget_s: float | None = None,
    checkpoint: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Measure every point; a point that fails (e.g. out of memory) is recorded, not fatal.

    `budget_s`: no new point starts after this many seconds (points left are listed as
    skipped). `checkpoint` receives the results so far after each point, so a run stopped from
    outside keeps what it measured."""
    started = time.perf_counter()
    env = environment(device)
    if device.startswith("cuda"):
        import torch

        torch.zeros(1, device=device)  # create the context before the first reading
        env["context_bytes"] = Probe(device).device_used()
    results: list[PointResult] = []
    failures: list[dict[str, str]] = []
    skipped: list[str] = []

    def snapshot() -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "environment": env,
            "points": [asdict(r) for r in results],
            "extrapolated": extrapolate(results),
            "failures": failures,
            "skipped": skipped,
        }

    for point in points:
        if budget_s is not None and time.perf_counter() - started > budget_s:
            skipped.append(point.id)
            continue
        try:
            result = run_point(point, device, tiny)
        except Exception as exc:  # an OOM at one point must not lose the others
            failures.append({"id": point.id, "error": f"{type(exc).__name__}: {exc}"[:500]})
            log(f"FAILED {point.id}: {type(exc).__name__}")
            Probe(device).sync_and_collect()
        else:
            results.append(result)
            log(f"{result.id}: {result.seconds:.1f} s")
        if checkpoint is not None:
            checkpoint(snapshot())
    return snapshot()


def output_path(env: dict[str, Any], directory: Path = CALIBRATION_DIR) -> Path:
    """bench/calibration/<gpu>-<date>.json, the GPU name as a file-safe slug."""
    name = env.get("gpu_name") or f"cpu-{env.get('cpu', 'unknown')}"
    slug = re.sub(r"[^a-z0-9]+", "-", str(name).lower()).strip("-")
    return directory / f"{slug}-{env['date']}.json"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cuda", help="cuda (default) or cpu")
    parser.add_argument("--tiny", action="store_true", help="tiny configs (CPU logic check)")
    parser.add_argument("--quick", action="store_true", help="small-model points only (~2 min)")
    parser.add_argument("--output", type=Path, help="file to write (default: bench/calibration/)")
    parser.add_argument(
        "--budget-s", type=float, default=480.0, help="start no point after this (seconds)"
    )
    args = parser.parse_args(argv)
    if args.device.startswith("cuda"):
        import torch

        if not torch.cuda.is_available():
            print("no CUDA device: use --device cpu --tiny for a logic check", file=sys.stderr)
            return 2
    points = cpu_tiny_plan() if args.tiny else gpu_plan(args.quick)

    def write(data: dict[str, Any]) -> None:
        path: Path = args.output or output_path(data["environment"])
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        tmp.replace(path)  # atomic: a run killed mid-write leaves the previous snapshot

    data = run_plan(points, args.device, args.tiny, budget_s=args.budget_s, checkpoint=write)
    write(data)
    path = args.output or output_path(data["environment"])
    print(
        f"wrote {path} ({len(data['points'])} points, {len(data['failures'])} failures, "
        f"{len(data['skipped'])} skipped for time)"
    )
    return 0 if not data["failures"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
