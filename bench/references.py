"""Reference data shared by the accuracy benchmark and the tests that assert against it.

Independent of our code: params.json holds counts obtained by instantiating each published
config.json on PyTorch's meta device (shared/research/count_params.py, transformers 5.24), copied
into tests/data; the LLaMA-65B shape is the LLaMA paper's (arXiv 2302.13971, Table 2) with the
intermediate size and vocabulary of the huggyllama/llama-65b config.json.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

PARAMS_JSON = Path(__file__).resolve().parents[1] / "tests" / "data" / "research" / "params.json"

# params.json key (Hugging Face names) → catalog id.
RESEARCH_TO_ID: dict[str, str] = {
    "Llama-3.1-8B": "llama-3.1-8b",
    "Llama-3.1-70B": "llama-3.1-70b",
    "Llama-3.1-405B": "llama-3.1-405b",
    "Llama-3.2-1B": "llama-3.2-1b",
    "Llama-3.2-3B": "llama-3.2-3b",
    "Mistral-7B-v0.3": "mistral-7b-v0.3",
    "Mixtral-8x7B-v0.1": "mixtral-8x7b",
    "Mixtral-8x22B-v0.1": "mixtral-8x22b",
    "Qwen2.5-7B": "qwen2.5-7b",
    "Qwen2.5-72B": "qwen2.5-72b",
    "Qwen3-30B-A3B": "qwen3-30b-a3b",
    "Gemma-2-9B": "gemma-2-9b",
    "Gemma-2-27B": "gemma-2-27b",
    "Phi-3-mini-4k-instruct": "phi-3-mini-4k",
    "DeepSeek-V3": "deepseek-v3",
    "gpt-oss-120b": "gpt-oss-120b",
    "gpt-oss-20b": "gpt-oss-20b",
    "Llama-2-7B": "llama-2-7b",
    "Llama-2-13B": "llama-2-13b",
    "Llama-2-70B": "llama-2-70b",
}

LLAMA_65B_CONFIG: dict[str, Any] = {
    "model_type": "llama",
    "hidden_size": 8192,
    "intermediate_size": 22016,
    "num_hidden_layers": 80,
    "num_attention_heads": 64,
    "num_key_value_heads": 64,
    "vocab_size": 32000,
    "max_position_embeddings": 2048,
    "tie_word_embeddings": False,
}


def zero3_gathered_bytes_bf16(*, model: str | None = None, params: str | None = None) -> int:
    """ZeRO-3's all-gathered working set (16-bit parameters + gradients of the largest unit and
    the prefetched next one, tools.memory.sharding) of a catalog `model` or a bare `params`
    count ("7.5e9"). The ZeRO paper's per-GPU model states (16Ψ/Nd) count the sharded state
    alone: benchmarks subtract this to compare like with like."""
    from tools.memory.model import resolve_model
    from tools.memory.sharding import zero3_gathered_bytes
    from tools.memory.weights import weight_bytes

    resolved = resolve_model(model, params, None)
    wb = weight_bytes(resolved.architecture, "bf16", total_params=resolved.stated_params)
    gathered = zero3_gathered_bytes(wb)
    return gathered.params + gathered.gradients
