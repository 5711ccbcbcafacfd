"""Real model files for tests: GGUF files written with the `gguf` package (a real header and
tensor index; the tensor data left as a sparse hole, so an 8B-shaped file costs no disk), and a
Hugging Face cache laid out as huggingface_hub lays it out."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import gguf
import numpy as np

Q = gguf.GGMLQuantizationType


def tensor_bytes(ggml_type: str, rows: int, cols: int) -> int:
    """rows × cols/block × block bytes, from the gguf package's GGML_QUANT_SIZES."""
    block_len, block_bytes = gguf.GGML_QUANT_SIZES[Q[ggml_type]]
    return rows * (cols // block_len) * block_bytes


def write_gguf(
    path: Path,
    *,
    arch: str = "llama",
    layers: int,
    hidden: int,
    ffn: int,
    heads: int,
    kv_heads: int,
    vocab: int,
    context: int,
    file_type: int,
    types: dict[str, str],
    tied: bool = False,
) -> int:
    """A GGUF of a Llama-style model; `types` maps a tensor role (token_embd, output, attn_q,
    attn_k, attn_v, attn_output, ffn_gate, ffn_up, ffn_down) to its ggml type. Returns the sum
    of the tensors' bytes."""
    head_dim = hidden // heads
    shapes = {
        "attn_q": (heads * head_dim, hidden),
        "attn_k": (kv_heads * head_dim, hidden),
        "attn_v": (kv_heads * head_dim, hidden),
        "attn_output": (hidden, heads * head_dim),
        "ffn_gate": (ffn, hidden),
        "ffn_up": (ffn, hidden),
        "ffn_down": (hidden, ffn),
    }
    w = gguf.GGUFWriter(str(path), arch)
    w.add_name("Test model")
    w.add_block_count(layers)
    w.add_context_length(context)
    w.add_embedding_length(hidden)
    w.add_feed_forward_length(ffn)
    w.add_head_count(heads)
    w.add_head_count_kv(kv_heads)
    w.add_file_type(file_type)
    total = 0

    def add(name: str, ggml_type: str, rows: int, cols: int) -> None:
        nonlocal total
        nbytes = tensor_bytes(ggml_type, rows, cols)
        shape = (rows, cols) if rows > 1 else (cols,)
        w.add_tensor_info(name, shape, np.dtype(np.float32), nbytes, raw_dtype=Q[ggml_type])
        total += nbytes

    add("token_embd.weight", types["token_embd"], vocab, hidden)
    for i in range(layers):
        for role, (rows, cols) in shapes.items():
            add(f"blk.{i}.{role}.weight", types[role], rows, cols)
        add(f"blk.{i}.attn_norm.weight", "F32", 1, hidden)
        add(f"blk.{i}.ffn_norm.weight", "F32", 1, hidden)
    add("output_norm.weight", "F32", 1, hidden)
    if not tied:
        add("output.weight", types["output"], vocab, hidden)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_ti_data_to_file()
    assert w.fout is not None
    data_start = gguf.GGUFWriter.ggml_pad(w.fout[0].tell(), w.data_alignment)
    padded = sum(
        gguf.GGUFWriter.ggml_pad(ti.nbytes, w.data_alignment) for ti in w.tensors[0].values()
    )
    w.close()
    with open(path, "r+b") as handle:
        handle.truncate(data_start + padded)  # the tensor data: a sparse hole
    return total


def fake_hf_cache(root: Path, repo_id: str, files: dict[str, Any]) -> Path:
    """`root`/models--org--name/{blobs,refs/main,snapshots/<rev>/} with each file a blob named
    by its sha256 and linked from the snapshot, as huggingface_hub's cache stores downloads.
    Returns the snapshot folder."""
    repo = root / ("models--" + repo_id.replace("/", "--"))
    revision = "0123456789abcdef0123456789abcdef01234567"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(revision)
    snapshot = repo / "snapshots" / revision
    snapshot.mkdir(parents=True)
    (repo / "blobs").mkdir()
    for name, content in files.items():
        data = content if isinstance(content, bytes) else json.dumps(content).encode()
        digest = hashlib.sha256(data).hexdigest()
        (repo / "blobs" / digest).write_bytes(data)
        os.symlink(Path("..") / ".." / "blobs" / digest, snapshot / name)
    return snapshot
