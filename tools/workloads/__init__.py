"""Workloads the plain serving sizing does not cover (issue 30, items 1-4), each a typed request
and result: `lora_serving.py` (multi-LoRA serving: vLLM's adapter slots and CPU cache).

A sizing question carries each as an optional part of `tools.sizing.SizingRequest`; `size()`
computes its result on the report's headline layout, so every surface shows the same figures.
"""

from tools.memory.lora_slots import VLLM_LORA_RANKS
from tools.workloads.lora_serving import (
    LORA_THROUGHPUT_NOTE,
    LoraServing,
    LoraServingResult,
    size_lora_serving,
)

__all__ = [
    "LORA_THROUGHPUT_NOTE",
    "VLLM_LORA_RANKS",
    "LoraServing",
    "LoraServingResult",
    "size_lora_serving",
]
