"""Model files a user points at, with real files: a GGUF written with the gguf package, a
Hugging Face cache laid out as huggingface_hub lays it out, safetensors index and headers; and
the loaders' safety (FIFO, devices, oversized JSON)."""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path

import pytest

from tests.model_files import fake_hf_cache, tensor_bytes, write_gguf
from tools.errors import ToolInputError
from tools.memory import MemoryRequest, estimate_memory
from tools.model_sources import load_cached_repo, load_local_path
from tools.model_sources.safe_files import read_json_object

# A small Llama-shaped GGUF: 4 layers of hidden 256, GQA 4/2 heads of 64, FFN 512, vocab 1,000.
SMALL = {"layers": 4, "hidden": 256, "ffn": 512, "heads": 4, "kv_heads": 2, "vocab": 1000}
TYPES = {
    "token_embd": "Q4_K",
    "output": "Q6_K",
    "attn_q": "Q4_K",
    "attn_k": "Q4_K",
    "attn_v": "Q6_K",
    "attn_output": "Q4_K",
    "ffn_gate": "Q4_K",
    "ffn_up": "Q4_K",
    "ffn_down": "Q6_K",
}
# Hand arithmetic (ggml-common.h blocks: Q4_K 144 B / 256 weights, Q6_K 210 B / 256):
# per layer attn_q 256 rows × 1 block × 144 = 36,864; attn_k 128 × 144 = 18,432;
# attn_v 128 × 210 = 26,880; attn_output 36,864; ffn_gate and ffn_up 512 × 144 = 73,728 each;
# ffn_down 256 rows × 2 blocks × 210 = 107,520; two F32 norms 2 × 256 × 4 = 2,048.
SMALL_LAYER = 36_864 + 18_432 + 26_880 + 36_864 + 73_728 + 73_728 + 107_520 + 2_048
SMALL_EMBD = 1000 * 144  # token_embd Q4_K
SMALL_OUTPUT = 1000 * 210  # output Q6_K
SMALL_TOTAL = SMALL_EMBD + 4 * SMALL_LAYER + 256 * 4 + SMALL_OUTPUT


@pytest.fixture
def small_gguf(tmp_path: Path) -> Path:
    path = tmp_path / "small-q4_k_m.gguf"
    total = write_gguf(path, context=8192, file_type=15, types=TYPES, **SMALL)
    assert total == SMALL_TOTAL
    return path


def test_gguf_header_gives_architecture_and_exact_tensor_bytes(small_gguf: Path) -> None:
    loaded = load_local_path(small_gguf)
    a = loaded.architecture
    assert (a.family, a.num_layers, a.hidden_size, a.num_kv_heads, a.head_dim) == (
        "llama",
        4,
        256,
        2,
        64,
    )
    assert a.max_context == 8192 and a.vocab_size == 1000 and not a.tied_embeddings
    assert loaded.weights_format == "q4_k_m"  # general.file_type 15 = LLAMA_FTYPE_MOSTLY_Q4_K_M
    assert loaded.weights is not None
    assert loaded.weights.total == SMALL_TOTAL
    assert loaded.weights.layers == (SMALL_LAYER,) * 4
    # Parameters: tensor elements. Embedding and output 2 × 256,000; per layer
    # 65,536 + 32,768 + 32,768 + 65,536 + 3 × 131,072 + 512; final norm 256.
    assert loaded.total_params == 2 * 256_000 + 4 * (196_608 + 393_216 + 512) + 256


def test_memory_tool_sizes_a_gguf_file_at_its_own_bytes(small_gguf: Path) -> None:
    est = estimate_memory(MemoryRequest(model_file=str(small_gguf), gpu="rtx-4090"))
    assert est.weights_format == "q4_k_m" and est.engine == "generic"
    assert est.breakdown["weights"] == SMALL_TOTAL
    # KV cache f16... bf16 default: 2 (K, V) × 4 layers × 2 heads × 64 × 2 bytes = 2,048 B/token.
    assert est.kv_cache_bytes_per_token == 2048
    assert est.fits is True


def test_tied_gguf_has_no_output_layer(tmp_path: Path) -> None:
    path = tmp_path / "tied.gguf"
    write_gguf(
        path, context=4096, file_type=7, types=dict.fromkeys(TYPES, "Q8_0"), tied=True, **SMALL
    )
    loaded = load_local_path(path)
    assert loaded.architecture.tied_embeddings and loaded.weights_format == "q8_0"
    assert loaded.weights is not None and loaded.weights.lm_head == 0
    assert loaded.weights.embedding == tensor_bytes("Q8_0", 1000, 256) == 1000 * 8 * 34


LLAMA_CONFIG = {
    "model_type": "llama",
    "hidden_size": 2048,
    "intermediate_size": 8192,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "num_hidden_layers": 16,
    "vocab_size": 128256,
    "max_position_embeddings": 131072,
    "tie_word_embeddings": True,
    "torch_dtype": "bfloat16",
}
# meta-llama/Llama-3.2-1B model.safetensors: 2,471,645,608 bytes (its bf16 tensors); the index
# total here is a stated figure the loader must carry, not recompute.
INDEX_TOTAL = 2_471_645_608


def test_hf_cache_repo_id_reads_config_and_index_total(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_hf_cache(
        tmp_path,
        "acme/tiny-llama-1b",
        {
            "config.json": LLAMA_CONFIG,
            "model.safetensors.index.json": {
                "metadata": {"total_size": INDEX_TOTAL},
                "weight_map": {"model.embed_tokens.weight": "model-00001-of-00001.safetensors"},
            },
        },
    )
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    loaded = load_cached_repo("acme/tiny-llama-1b")
    assert loaded.architecture.num_layers == 16 and loaded.weights_format == "bf16"
    assert loaded.weights is not None and loaded.weights.total == INDEX_TOTAL
    est = estimate_memory(MemoryRequest(model="acme/tiny-llama-1b", gpu="l4"))
    assert est.model_id == "acme/tiny-llama-1b"
    assert est.breakdown["weights"] == INDEX_TOTAL
    with pytest.raises(ToolInputError) as err:
        estimate_memory(MemoryRequest(model="acme/tiny-lama-1b"))
    assert "acme/tiny-llama-1b" in err.value.suggestions


def test_single_safetensors_header_gives_exact_bytes(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps(LLAMA_CONFIG))
    # Two bf16 tensors: 128256 × 2048 and 2048 elements (offsets span their bytes).
    embed = 128256 * 2048 * 2
    header = {
        "model.embed_tokens.weight": {
            "dtype": "BF16",
            "shape": [128256, 2048],
            "data_offsets": [0, embed],
        },
        "model.norm.weight": {
            "dtype": "BF16",
            "shape": [2048],
            "data_offsets": [embed, embed + 4096],
        },
    }
    raw = json.dumps(header).encode()
    with open(tmp_path / "model.safetensors", "wb") as handle:
        handle.write(struct.pack("<Q", len(raw)) + raw)
        handle.truncate(8 + len(raw) + embed + 4096)
    loaded = load_local_path(tmp_path / "model.safetensors")
    assert loaded.weights is not None and loaded.weights.total == embed + 4096
    assert loaded.total_params == 128256 * 2048 + 2048


def test_fifo_device_and_oversized_json_are_refused_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "config.json"
    os.mkfifo(fifo)
    for bad in (fifo, Path("/dev/zero")):
        with pytest.raises(ToolInputError, match="not a regular file"):
            read_json_object(bad, "config")
    big = tmp_path / "big.json"
    big.write_bytes(b"{" + b" " * 2048 + b"}")
    with pytest.raises(ToolInputError, match="larger than"):
        read_json_object(big, "config", limit=1024)
    not_gguf = tmp_path / "x.gguf"
    not_gguf.write_bytes(b"GGML" + b"\0" * 64)
    with pytest.raises(ToolInputError, match="not a GGUF"):
        load_local_path(not_gguf)
    fifo_gguf = tmp_path / "model.gguf"
    os.mkfifo(fifo_gguf)
    with pytest.raises(ToolInputError, match="not a regular file"):
        estimate_memory(MemoryRequest(model_file=str(fifo_gguf)))
    with pytest.raises(ToolInputError, match="not a recognised model file"):
        estimate_memory(MemoryRequest(model_file="/dev/zero"))
