"""Exact weight bytes of a Hugging Face checkpoint from its safetensors files, without reading
a tensor.

- A sharded checkpoint's `model.safetensors.index.json` states `metadata.total_size`: the bytes
  of every tensor in every shard (transformers `save_pretrained`, huggingface_hub
  `split_torch_state_dict_into_shards`); newer ones also state `metadata.total_parameters`.
- A single `model.safetensors` starts with an 8-byte little-endian header length and a JSON
  header listing each tensor's dtype, shape and `data_offsets` (safetensors format spec,
  huggingface/safetensors README); the bytes are the sum of the offsets' spans. The spec caps
  the header at 100 MB.
"""

from __future__ import annotations

import json
import math
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools.errors import ToolInputError
from tools.generic_model import MAX_PARAMS
from tools.model_sources.safe_files import open_regular, read_json_object
from tools.nesting import NestingError, loads_json

MAX_HEADER_BYTES = 100_000_000
"""safetensors: 'the header size is limited to 100MB' (format spec, N: u64)."""
MAX_CHECKPOINT_BYTES = 8 * MAX_PARAMS
"""Bytes a checkpoint may state: the largest accepted model (`MAX_PARAMS`, 20T parameters) in
fp64. A `total_size` above it (1e308) is not a checkpoint, and would print 300 digits."""
# Dtypes whose elements are parameters (packed int4/uint8 storage of GPTQ/AWQ is not).
_FLOAT_DTYPES = {"F64", "F32", "F16", "BF16", "F8_E4M3", "F8_E5M2", "F8_E8M0", "F4"}


@dataclass(frozen=True)
class CheckpointSize:
    """Bytes of all tensors of a checkpoint, and its parameter count when the files say it."""

    total_bytes: int
    total_params: int | None
    source: str


def index_size(path: str | Path, field: str = "model_file") -> CheckpointSize:
    """`metadata.total_size` (and `total_parameters`) of a model.safetensors.index.json."""
    data = read_json_object(path, field)
    meta = data.get("metadata")
    size = meta.get("total_size") if isinstance(meta, dict) else None
    if isinstance(size, bool) or not isinstance(size, int | float) or not size > 0:
        raise ToolInputError(
            field, f"{path} has no positive metadata.total_size", "a safetensors index"
        )
    if size > MAX_CHECKPOINT_BYTES:  # inf and 1e308 included
        raise ToolInputError(
            f"{field}.metadata.total_size",
            f"{path} states {size:.3g} bytes, more than any checkpoint",
            f"at most {MAX_CHECKPOINT_BYTES:.3g} bytes",
        )
    params = meta.get("total_parameters") if isinstance(meta, dict) else None
    count = int(params) if isinstance(params, int) and not isinstance(params, bool) else None
    if count is not None and count > MAX_PARAMS:
        raise ToolInputError(
            f"{field}.metadata.total_parameters",
            f"{path} states {count:.3g} parameters, more than any model",
            f"at most {MAX_PARAMS:.3g}",
        )
    return CheckpointSize(int(size), count if count and count > 0 else None, Path(path).name)


def _whole(value: Any) -> int:
    """A dimension or offset: a whole number ≥ 0 (the format's u64); ValueError otherwise
    (-1, 2.5, True, "5")."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"not a whole number: {value!r}")
    return value


def header_size(path: str | Path, field: str = "model_file") -> CheckpointSize:
    """Tensor bytes and parameter count from a single .safetensors file's header."""
    with open_regular(path, field) as handle:
        head = handle.read(8)
        if len(head) != 8:
            raise ToolInputError(field, f"{path} is too short to be a safetensors file")
        (length,) = struct.unpack("<Q", head)
        if length > MAX_HEADER_BYTES:
            raise ToolInputError(field, f"{path}: safetensors header of {length:,} bytes")
        raw = handle.read(length)  # bounded by MAX_HEADER_BYTES above
        if len(raw) != length:
            raise ToolInputError(field, f"{path}: the safetensors header is cut short")
    try:
        header: Any = loads_json(raw[:length].decode("utf-8"))
    except NestingError as exc:
        raise ToolInputError(field, f"{path}: the safetensors header is {exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise ToolInputError(field, f"{path}: the safetensors header is not JSON") from None
    if not isinstance(header, dict):
        raise ToolInputError(field, f"{path}: the safetensors header is not a JSON object")
    total = params = 0
    for name, info in header.items():
        if name == "__metadata__":
            continue
        try:
            start, end = (_whole(v) for v in info["data_offsets"])
            shape = [_whole(d) for d in info["shape"]]
            dtype = str(info["dtype"])
        except (KeyError, TypeError, ValueError):
            raise ToolInputError(
                field,
                f"{path}: tensor {str(name)[:80]!r} has no valid dtype, shape and data_offsets",
                "dimensions and offsets are whole numbers ≥ 0, start ≤ end",
            ) from None
        if end < start:
            raise ToolInputError(
                field, f"{path}: tensor {str(name)[:80]!r} ends before it starts (data_offsets)"
            )
        total += end - start
        if dtype in _FLOAT_DTYPES:
            params += math.prod(shape)
        if total > MAX_CHECKPOINT_BYTES or params > MAX_PARAMS:
            raise ToolInputError(
                field,
                f"{path}: the safetensors header states more bytes or parameters than any "
                "checkpoint",
                f"at most {MAX_CHECKPOINT_BYTES:.3g} bytes, {MAX_PARAMS:.3g} parameters",
            )
    if total <= 0:
        raise ToolInputError(field, f"{path}: the safetensors header lists no tensor bytes")
    return CheckpointSize(total, params or None, Path(path).name)
