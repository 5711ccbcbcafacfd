"""Which GPUs and layouts the recommender tries: the catalog GPUs the constraints allow, GPUs
per node, tensor-parallel sizes that split the attention heads within one node, pipeline
stages across nodes, and the GPU limits (max_gpus, single_node).
"""

from __future__ import annotations

import math

from tools.architecture import Architecture
from tools.catalog import GpuSpec, get_catalog
from tools.errors import ToolInputError
from tools.memory import devices
from tools.memory.devices import DeviceNotes
from tools.memory.formats import GGUF_FORMATS, exl2_bpw
from tools.memory.kv_cache import EXLLAMAV2_KV_DTYPES, LLAMA_CPP_KV_DTYPES
from tools.memory.sharding import tp_splits_heads
from tools.workload import Workload

# A PCIe card has no node size in the catalog; common servers hold 8 (e.g. AWS g6e.48xlarge:
# 8× L40S, g6.48xlarge: 8× L4 — catalog gpus_per_node of those cards).
DEFAULT_GPUS_PER_NODE = 8
# Pipeline stages tried across nodes before giving up (e.g. 405B BF16 on H100 needs 2).
MAX_PIPELINE_STAGES = 16


def node_size_of(gpu: GpuSpec) -> int:
    return gpu.gpus_per_node or DEFAULT_GPUS_PER_NODE


def serving_nodes(tp: int, pp: int, dp: int, node_size: int) -> int:
    """Servers a serving layout needs: replicas whose TP×PP group fits one node pack into
    nodes, node_size // (tp·pp) whole groups each (4× H100 as TP 2 × 2 replicas is one 8-GPU
    node, QA round 4, 9; = ceil(GPUs / node_size) when the group size divides the node); a
    group larger than a node spans ceil(tp·pp / node_size) nodes per replica, which replicas
    do not share."""
    group = tp * pp
    if group <= node_size:
        return math.ceil(dp / (node_size // group))
    return math.ceil(group / node_size) * dp


def tp_candidates(w: Workload, gpu: GpuSpec, arch: Architecture) -> list[int]:
    """TP sizes within one node that split the attention evenly (the rule
    tools.memory.sharding.tp_splits_heads enforces, shared so the two cannot disagree)."""
    limit = min(node_size_of(gpu), w.constraints.max_gpus)
    return [t for t in range(1, limit + 1) if tp_splits_heads(arch, t)]


def _named_gpu(name: str, field: str) -> GpuSpec:
    """The catalog GPU `name` means; an unknown name is reported under the list it came from."""
    try:
        return get_catalog().gpu(name)
    except ToolInputError as exc:
        raise exc.renamed(field) from None


def allowed_gpus(w: Workload) -> list[GpuSpec]:
    catalog = get_catalog()
    # Unnamed GPUs: the rentable and datacenter parts; owned hardware (Macs, most GeForce
    # cards, China-only SKUs: catalog recommend_by_default false) only when named.
    gpus = catalog.default_candidates()
    c = w.constraints
    if c.only_gpus:
        gpus = [_named_gpu(name, "constraints.only_gpus") for name in c.only_gpus]
    excluded = {_named_gpu(name, "constraints.exclude_gpus").id for name in c.exclude_gpus}
    # The filter that empties the list is the one named (so the CLI names its flag).
    field = "constraints.exclude_gpus" if excluded else "constraints.only_gpus"
    gpus = [g for g in gpus if g.id not in excluded]
    if c.require_fast_interconnect and gpus:
        gpus = [g for g in gpus if g.multi_gpu_fast_link]
        field = "constraints.require_fast_interconnect"
    if not gpus:
        raise ToolInputError(
            field,
            "no catalog GPU is left after only_gpus / exclude_gpus / require_fast_interconnect",
            "loosen the GPU filters",
        )
    return gpus


def serves_with_llama_cpp(w: Workload, gpu: GpuSpec) -> bool:
    """True when the memory calculator sizes this serving workload on `gpu` for llama.cpp
    (engine generic): named, implied by GGUF weights, or the only engine the device runs."""
    if w.is_training:
        return False
    if w.engine is not None:
        return w.engine == "generic"
    if w.weights in GGUF_FORMATS or w.kv_dtype in LLAMA_CPP_KV_DTYPES:
        return True
    return devices.default_engine(gpu, DeviceNotes()) == "generic"


def _llama_cpp_layouts(w: Workload, gpu: GpuSpec, arch: Architecture) -> list[tuple[int, int]]:
    """llama.cpp's multi-GPU layouts within one machine: the layer split (its default) as pp
    stages of whole layers, 1 … the GPUs allowed; --split-mode tensor (split_mode) as tp, over
    the counts that split the heads. No layout spans machines (llama.cpp's RPC backend is not
    sized)."""
    limit = min(node_size_of(gpu), w.constraints.max_gpus, arch.num_layers)
    if gpu.unified_memory is not None and "max_gpus" not in w.constraints.model_fields_set:
        limit = 1
    if w.split_mode == "tensor":
        return [(t, 1) for t in tp_candidates(w, gpu, arch) if t <= limit]
    return [(1, p) for p in range(1, limit + 1)]


def serves_with_exllamav2(w: Workload) -> bool:
    """True when this serving workload runs on ExLlamaV2: named, or implied by EXL2 weights
    or a Q4 / Q6 / Q8 cache (the only engine that loads or keeps them)."""
    if w.is_training:
        return False
    if w.engine is not None:
        return w.engine == "exllamav2"
    if w.kv_dtype in EXLLAMAV2_KV_DTYPES:
        return True
    return w.weights is not None and exl2_bpw(w.weights) is not None


def candidate_layouts(w: Workload, gpu: GpuSpec, arch: Architecture) -> list[tuple[int, int]]:
    if serves_with_llama_cpp(w, gpu):
        return _llama_cpp_layouts(w, gpu, arch)
    if serves_with_exllamav2(w):
        # ExLlamaV2's gpu_split / autosplit (model.py load_autosplit_gen): whole layers per
        # GPU in one machine, as pp stages.
        limit = min(node_size_of(gpu), w.constraints.max_gpus, arch.num_layers)
        return [(1, p) for p in range(1, limit + 1)]
    tps = tp_candidates(w, gpu, arch)
    layouts = [(t, 1) for t in tps]
    if gpu.unified_memory is not None and "max_gpus" not in w.constraints.model_fields_set:
        # A Mac, DGX Spark or Strix Halo box is one device per machine: several of them only
        # split a model over Thunderbolt/Ethernet (llama.cpp RPC, exo), tried when the user
        # gives a device count, never proposed as "buy another one".
        return layouts
    if not w.constraints.single_node and w.constraints.allow_pipeline_parallel:
        node_tp = max(tps)
        for pp in range(2, min(MAX_PIPELINE_STAGES, arch.num_layers) + 1):
            if node_tp * pp <= w.constraints.max_gpus:
                layouts.append((node_tp, pp))
    return layouts


def replicas_within_limit(w: Workload, tp: int, pp: int, dp: int) -> int:
    """Replicas of a tp×pp group that max_gpus (and single_node) allow, at most `dp`."""
    return min(dp, w.constraints.max_gpus // (tp * pp))


def gpu_count_limit(w: Workload, gpu: GpuSpec) -> int:
    """Most GPUs one configuration may use: max_gpus, and one node under single_node."""
    limit = w.constraints.max_gpus
    return min(limit, node_size_of(gpu)) if w.constraints.single_node else limit
