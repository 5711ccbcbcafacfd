"""A GGUF file's header → architecture, file type and the exact bytes of every tensor.

Read with the `gguf` package's `GGUFReader`, which memory-maps the file: only the header and
the tensor index are touched, never the tensor data, so a 40 GB file costs no memory. Keys are
those of gguf-py `constants.Keys` (`general.architecture`, `<arch>.block_count`,
`<arch>.embedding_length`, `<arch>.attention.head_count(_kv)`, `<arch>.context_length`, ...),
as llama.cpp's convert_hf_to_gguf.py writes them.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any, cast

from pydantic import ValidationError

from tools.architecture import MLA, Architecture, MoE
from tools.errors import ToolInputError
from tools.limits import MAX_LAYERS
from tools.memory.gguf_mix import FILE_TYPE_NAMES, GGUF_FTYPES
from tools.memory.weights import WeightBytes
from tools.model_sources.loaded import LoadedModel
from tools.model_sources.safe_files import open_regular

FIELD = "model_file"
# GGUF general.architecture → our architecture family (llama.cpp names its Mistral/Mixtral
# conversions "llama"; an 8-expert "llama" is a Mixtral). Others are sized as generic dense
# (or MoE) decoders from the same header keys.
_FAMILIES = {
    "llama": "llama",
    "qwen2": "qwen2",
    "qwen3": "qwen3",
    "qwen3moe": "qwen3_moe",
    "gemma2": "gemma2",
    "phi3": "phi3",
    "deepseek2": "deepseek_v3",
    "gpt-oss": "gpt_oss",
}
# general.file_type values that are not quantization mixes.
_PLAIN_FILE_TYPES = {0: "fp32", 1: "fp16", 32: "bf16"}
_BLOCK = re.compile(r"^blk\.(\d+)\.")


def _value(reader: Any, key: str) -> Any:
    field = reader.fields.get(key)
    if field is None:
        return None
    try:
        value = field.contents()
    except (ValueError, IndexError, TypeError):
        return None
    return value


def _int(reader: Any, key: str) -> int | None:
    value = _value(reader, key)
    if isinstance(value, list):  # per-layer arrays (head_count_kv of some models): the largest
        value = max((v for v in value if isinstance(v, int)), default=None)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value)


def _need(reader: Any, key: str) -> int:
    value = _int(reader, key)
    if value is None or value <= 0:
        raise ToolInputError(f"{FIELD}.{key}", "is missing from the GGUF header")
    return value


def _weights_format(file_type: int | None, types: Counter[str]) -> tuple[str, str]:
    """(canonical format, how it was read)."""
    if file_type in FILE_TYPE_NAMES:
        return FILE_TYPE_NAMES[file_type], f"general.file_type {file_type}"
    if file_type in _PLAIN_FILE_TYPES:
        return _PLAIN_FILE_TYPES[file_type], f"general.file_type {file_type}"
    # No (or an unknown) file type: the mix whose default type holds the most weights.
    dominant = next((t for t, _ in types.most_common() if t not in ("F32",)), "F16")
    for name, ftype in GGUF_FTYPES.items():
        if ftype.default_type == dominant and not name.endswith(("_s", "_l")):
            return name, f"most weights are {dominant}"
    return {"BF16": "bf16", "F16": "fp16"}.get(dominant, "fp16"), f"most weights are {dominant}"


def _architecture(reader: Any, arch: str, vocab: int, tied: bool) -> Architecture:
    """The architecture the header states; ToolInputError naming the GGUF key of any value
    out of range (the MoE and MLA parts included)."""
    try:
        return _architecture_fields(reader, arch, vocab, tied)
    except ValidationError as exc:
        err = exc.errors()[0]
        name = str(err["loc"][-1]) if err["loc"] else ""
        key = f"{arch}.{_HEADER_KEYS[name]}" if name in _HEADER_KEYS else name or "header"
        value = f" = {err['input']:,}" if isinstance(err.get("input"), int) else ""
        problem = str(err["msg"]).removeprefix("Value error, ")
        raise ToolInputError(f"{FIELD}.{key}", f"GGUF header{value}: {problem}") from None


_HEADER_KEYS = {
    "num_layers": "block_count",
    "hidden_size": "embedding_length",
    "intermediate_size": "feed_forward_length",
    "num_attention_heads": "attention.head_count",
    "num_kv_heads": "attention.head_count_kv",
    "head_dim": "attention.key_length",
    "max_context": "context_length",
    "sliding_window": "attention.sliding_window",
    "num_experts": "expert_count",
    "experts_per_token": "expert_used_count",
    "expert_intermediate_size": "expert_feed_forward_length",
    "num_shared_experts": "expert_shared_count",
    "first_dense_layers": "leading_dense_block_count",
    "q_lora_rank": "attention.q_lora_rank",
    "kv_lora_rank": "attention.kv_lora_rank",
    "qk_nope_head_dim": "attention.key_length",
    "qk_rope_head_dim": "rope.dimension_count",
    "v_head_dim": "attention.value_length",
}
"""Architecture field → the GGUF header key it is read from (an error names the key)."""


def _architecture_fields(reader: Any, arch: str, vocab: int, tied: bool) -> Architecture:
    p = arch
    hidden = _need(reader, f"{p}.embedding_length")
    heads = _need(reader, f"{p}.attention.head_count")
    kv_heads = _int(reader, f"{p}.attention.head_count_kv") or heads
    experts = _int(reader, f"{p}.expert_count") or 0
    family = _FAMILIES.get(arch, "generic")
    if family == "llama" and experts:
        family = "mixtral"
    fields: dict[str, Any] = {
        "family": family,
        "num_layers": _need(reader, f"{p}.block_count"),
        "hidden_size": hidden,
        "intermediate_size": _int(reader, f"{p}.feed_forward_length")
        or _int(reader, f"{p}.expert_feed_forward_length")
        or 4 * hidden,
        "num_attention_heads": heads,
        "num_kv_heads": kv_heads,
        "head_dim": _int(reader, f"{p}.attention.key_length") or hidden // heads,
        "vocab_size": vocab,
        "tied_embeddings": tied,
        "max_context": _need(reader, f"{p}.context_length"),
        "qk_norm": family in ("qwen3", "qwen3_moe"),
        "norms_per_layer": 4 if family == "gemma2" else 2,
    }
    window = _int(reader, f"{p}.attention.sliding_window")
    if window and family in ("gemma2", "gpt_oss"):
        # Gemma 2 and gpt-oss alternate sliding and full layers (the even-indexed ones slide).
        fields["sliding_window"] = window
        fields["sliding_window_layers"] = (fields["num_layers"] + 1) // 2
    if experts:
        fields["moe"] = MoE(
            num_experts=experts,
            experts_per_token=_int(reader, f"{p}.expert_used_count") or 1,
            expert_intermediate_size=_int(reader, f"{p}.expert_feed_forward_length")
            or fields["intermediate_size"],
            num_shared_experts=_int(reader, f"{p}.expert_shared_count") or 0,
            first_dense_layers=_int(reader, f"{p}.leading_dense_block_count") or 0,
        )
    kv_lora = _int(reader, f"{p}.attention.kv_lora_rank")
    rope = _int(reader, f"{p}.rope.dimension_count")
    if family == "deepseek_v3" and kv_lora and rope:
        key_length = fields["head_dim"]
        value_length = _int(reader, f"{p}.attention.value_length") or key_length - rope
        fields["mla"] = MLA(
            q_lora_rank=_int(reader, f"{p}.attention.q_lora_rank"),
            kv_lora_rank=kv_lora,
            qk_nope_head_dim=key_length - rope,
            qk_rope_head_dim=rope,
            v_head_dim=value_length,
        )
        fields["num_kv_heads"] = heads
    return Architecture(**fields)


def load_gguf(path: str | Path) -> LoadedModel:
    """The model in a local GGUF file: architecture from the header, exact weight bytes per
    tensor (the file's own quantization), parameter count from the tensor shapes."""
    from gguf import GGUFReader

    p = Path(path).expanduser()
    with open_regular(p, FIELD) as handle:
        if handle.read(4) != b"GGUF":
            raise ToolInputError(FIELD, f"{p} is not a GGUF file (no 'GGUF' magic)")
        handle.seek(0)
        try:
            # np.memmap over the already-checked descriptor: no second open, no race.
            reader = GGUFReader(cast(Any, handle))
        except (ValueError, IndexError, TypeError, OverflowError, OSError) as exc:
            raise ToolInputError(FIELD, f"{p}: unreadable GGUF header ({exc})") from None
        arch = _value(reader, "general.architecture")
        if not isinstance(arch, str) or not arch:
            raise ToolInputError(FIELD, f"{p}: the header has no general.architecture")
        layers = _need(reader, f"{arch}.block_count")
        if layers > MAX_LAYERS:  # checked before the per-layer list is allocated from it
            raise ToolInputError(
                f"{FIELD}.{arch}.block_count",
                f"GGUF header: {layers:,} layers is not a model",
                f"at most {MAX_LAYERS:,} layers",
            )
        per_layer = [0] * layers
        embedding = lm_head = other = 0
        params = 0
        types: Counter[str] = Counter()
        vocab = None
        for tensor in reader.tensors:
            name, nbytes = str(tensor.name), int(tensor.n_bytes)
            params += int(tensor.n_elements)
            types[tensor.tensor_type.name] += int(tensor.n_elements)
            block = _BLOCK.match(name)
            if block and int(block.group(1)) < layers:
                per_layer[int(block.group(1))] += nbytes
            elif name == "token_embd.weight":
                embedding = nbytes
                vocab = int(tensor.shape[1]) if len(tensor.shape) > 1 else None
            elif name == "output.weight":
                lm_head = nbytes
                vocab = vocab or (int(tensor.shape[1]) if len(tensor.shape) > 1 else None)
            else:
                other += nbytes  # output_norm, rope_freqs, ...
        vocab = vocab or _int(reader, f"{arch}.vocab_size")
        if not vocab:
            raise ToolInputError(FIELD, f"{p}: no token_embd.weight tensor to read the vocabulary")
        architecture = _architecture(reader, arch, vocab, tied=lm_head == 0)
        fmt, how = _weights_format(_int(reader, "general.file_type"), types)
        model_name = _value(reader, "general.name")
    name = model_name if isinstance(model_name, str) and model_name else p.stem
    weights = WeightBytes(embedding, lm_head, tuple(per_layer), other, fmt, (), 1)
    notes = [
        f"Model from the GGUF file {p.name}: architecture '{arch}' ({architecture.num_layers} "
        f"layers, {architecture.num_kv_heads} KV heads of {architecture.head_dim}) from its "
        f"header; weights {weights.total:,} bytes, the exact size of its {len(reader.tensors)} "
        f"tensors ({fmt}: {how})."
    ]
    if architecture.family == "generic":
        notes.append(
            f"GGUF architecture '{arch}' is sized as a generic decoder from its header keys "
            "(KV cache exact for standard attention; special layers are not modelled)."
        )
    return LoadedModel(
        id=f"gguf:{p.name}",
        name=str(name),
        architecture=architecture,
        source=str(p),
        weights_format=fmt,
        weights=weights,
        total_params=params,
        assumptions=notes,
    )
