"""A Hugging Face model folder (config.json + safetensors) → `LoadedModel`.

The architecture comes from config.json (`tools.hf_config`); the weight bytes from the
safetensors index's `total_size` or the single file's header, exact for the whole checkpoint
in the format it is stored in (config `quantization_config`, else `torch_dtype`/`dtype`).
Per layer, that total is spread in proportion to the computed tensor sizes (pipeline stages
and partial offload need a split; the files' index names tensors but not their sizes).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tools.errors import ToolInputError
from tools.hf_config import architecture_from_config
from tools.memory.weights import WeightBytes, weight_bytes
from tools.model_sources.loaded import LoadedModel
from tools.model_sources.safe_files import read_json_object
from tools.model_sources.safetensors_files import CheckpointSize, header_size, index_size

INDEX_NAME = "model.safetensors.index.json"
SINGLE_NAME = "model.safetensors"
_DTYPES = {"bfloat16": "bf16", "float16": "fp16", "float32": "fp32"}


def checkpoint_format(config: dict[str, Any]) -> str | None:
    """The weight format a config.json's checkpoint is stored in, or None when its
    quantization method is not one the memory calculator sizes."""
    quant = config.get("quantization_config")
    if isinstance(quant, dict):
        method = str(quant.get("quant_method", "")).lower()
        if method == "bitsandbytes":
            if quant.get("load_in_4bit"):
                return "nf4-dq" if quant.get("bnb_4bit_use_double_quant") else "nf4"
            return "int8"
        return {"awq": "int4-awq", "gptq": "int4-gptq", "fp8": "fp8", "mxfp4": "mxfp4"}.get(method)
    dtype = config.get("torch_dtype") or config.get("dtype")
    return _DTYPES.get(str(dtype).lower(), "bf16") if dtype else "bf16"


def spread_total(computed: WeightBytes, total: int) -> WeightBytes:
    """`computed` with its layers rescaled so all parts sum to `total` bytes exactly (the
    embedding, output layer and final norm keep their computed sizes; cumulative rounding)."""
    fixed = computed.embedding + computed.lm_head + computed.final_norm
    target = max(total - fixed, 0)
    own = sum(computed.layers) or 1
    layers: list[int] = []
    running = done = 0
    for nbytes in computed.layers:
        running += nbytes
        upto = (running * target * 2 + own) // (2 * own)
        layers.append(upto - done)
        done = upto
    leftover = total - fixed - done  # only when total < fixed: carried by the final norm
    return WeightBytes(
        computed.embedding,
        computed.lm_head,
        tuple(layers),
        computed.final_norm + leftover,
        computed.fmt,
        computed.keep_16bit,
        1,
        computed.routed_experts * target // own,
    )


def _checkpoint_size(folder: Path, field: str) -> CheckpointSize | None:
    if (folder / INDEX_NAME).exists():
        return index_size(folder / INDEX_NAME, field)
    if (folder / SINGLE_NAME).exists():
        return header_size(folder / SINGLE_NAME, field)
    return None


def load_folder(
    folder: Path, field: str, *, model_id: str | None = None, size: CheckpointSize | None = None
) -> LoadedModel:
    """config.json in `folder` plus its safetensors index or file when present."""
    config_path = folder / "config.json"
    config = read_json_object(config_path, field)
    arch = architecture_from_config(config)
    fmt = checkpoint_format(config)
    size = size or _checkpoint_size(folder, field)
    name = model_id or folder.name
    notes = [f"Architecture read from {config_path}."]
    weights = None
    params = None
    if size is not None and fmt is not None:
        weights = spread_total(weight_bytes(arch, fmt), size.total_bytes)
        params = size.total_params
        notes.append(
            f"Weights {size.total_bytes:,} bytes in {fmt}: the checkpoint's own size from "
            f"{size.source} (every tensor it stores, vision or MTP modules included when it "
            "has them)."
        )
    elif size is not None:
        notes.append(
            f"The checkpoint's quantization ({config.get('quantization_config')!r:.60}) is not "
            "one the calculator sizes; weights are computed for the format asked."
        )
    return LoadedModel(
        id=model_id or f"config:{folder}",
        name=name,
        architecture=arch,
        source=str(folder),
        weights_format=fmt,
        weights=weights,
        total_params=params,
        assumptions=notes,
    )


def load_local_path(path: str | Path, field: str = "model_file") -> LoadedModel:
    """A GGUF file, a model folder, a config.json, a safetensors index or a .safetensors file
    (the config.json beside it gives the architecture). A path the system cannot read (too
    long, no permission, a loop) is a ToolInputError naming `field`, not an OSError."""
    try:
        return _load_local_path(path, field)
    except OSError as exc:
        raise ToolInputError(
            field,
            f"{str(path)[:200]} cannot be read ({exc.strerror or type(exc).__name__})",
            "a readable local file or folder",
        ) from None


def _load_local_path(path: str | Path, field: str) -> LoadedModel:
    from tools.model_sources.gguf_files import load_gguf

    p = Path(path).expanduser()
    name = p.name.lower()
    if p.is_dir():
        if (p / "config.json").exists():
            return load_folder(p, field)
        ggufs = sorted(p.glob("*.gguf"))
        if len(ggufs) == 1:
            return load_gguf(ggufs[0])
        raise ToolInputError(
            field,
            f"{p} holds no config.json" + (f" and {len(ggufs)} GGUF files" if ggufs else ""),
            "a model folder with config.json, or one GGUF file",
        )
    if name.endswith(".gguf"):
        return load_gguf(p)
    if name.endswith(".safetensors.index.json"):
        return load_folder(p.parent, field, size=index_size(p, field))
    if name.endswith(".safetensors"):
        return load_folder(p.parent, field, size=header_size(p, field))
    if name == "config.json":
        return load_folder(p.parent, field)  # with the safetensors index beside it, if any
    if name.endswith(".json"):
        config = read_json_object(p, field)
        arch = architecture_from_config(config)
        return LoadedModel(
            id=f"config:{p}",
            name=f"{arch.family} model from {p}",
            architecture=arch,
            source=str(p),
            weights_format=checkpoint_format(config),
            assumptions=[f"Architecture read from the local config {p}."],
        )
    raise ToolInputError(
        field,
        f"{p}: not a recognised model file",
        "a .gguf file, a config.json, a model.safetensors(.index.json) or a model folder",
    )
