"""Catalog model + GGUF type → the Ollama reference a Modelfile's FROM line and `ollama run`
take (the reverse of `tools.model_sources.tags`, which reads a tag the user gave).

Ollama's grammar (ollama.com/library; theepic.dev "Deciphering Ollama model names":
`llama3.1:8b`, `llama3.1:8b-instruct-q4_K_M`, `llama3.1:8b-text-q4_0`):
`name:size[-variant][-quant]`, the quantization spelt as llama.cpp names the file type with its
case (`q4_K_M`, `q5_K_M`, `q6_K`, `q8_0`, `fp16`). A `name:size` tag without a quantization is
the library's default build, Q4_K_M (MXFP4 for gpt-oss: `tools.model_sources.tags`).

Where the table knows the library's `name:size` and the variant its quantized tags carry, the
reference is that tag; where it knows only `name:size`, the default tag serves Q4_K_M and any
other type is imported from a local GGUF file (`FROM ./file.gguf`, docs/modelfile.md); a model
the table does not know is always imported from its GGUF file — never a catalog id, which
Ollama cannot pull.
"""

from __future__ import annotations

import re
from functools import cache

from tools.catalog import get_catalog
from tools.model_sources.tags import OLLAMA_LIBRARY, ollama_default_weights

OLLAMA_QUANT_NAMES: dict[str, str] = {
    "q4_0": "q4_0",
    "q4_1": "q4_1",
    "q5_0": "q5_0",
    "q5_1": "q5_1",
    "q8_0": "q8_0",
    "q2_k": "q2_K",
    "q3_k_s": "q3_K_S",
    "q3_k_m": "q3_K_M",
    "q3_k_l": "q3_K_L",
    "q4_k_s": "q4_K_S",
    "q4_k_m": "q4_K_M",
    "q5_k_s": "q5_K_S",
    "q5_k_m": "q5_K_M",
    "q6_k": "q6_K",
    "fp16": "fp16",
}
"""GGUF types as Ollama's tags spell them (llama.cpp's file-type names, lower-case q)."""

OLLAMA_LIBRARY_TAGS: dict[str, tuple[str, str | None]] = {
    # catalog id: (library name:size, the variant of its quantized tags; None: not sourced).
    # theepic.dev "Deciphering Ollama model names": llama3.1:8b-instruct-q4_K_M / -q4_0.
    "llama-3.1-8b": ("llama3.1:8b", "8b-instruct"),
    "llama-3.1-70b": ("llama3.1:70b", "70b-instruct"),
    # martinkollie.com "LLM naming explained": llama3.3 70b-instruct-q4_K_M.
    "llama-3.3-70b": ("llama3.3:70b", "70b-instruct"),
    # Tags in use in public repositories (pulled with `ollama pull`): qwen3:32b-q8_0,
    # gemma3:27b-it-q8_0 (code search, 2026-12).
    "qwen3-32b": ("qwen3:32b", "32b"),
    "gemma-3-27b": ("gemma3:27b", "27b-it"),
    # ollama.com/library/qwen3 and /gemma3 list these sizes (default tags, Q4_K_M).
    "qwen3-0.6b": ("qwen3:0.6b", None),
    "qwen3-1.7b": ("qwen3:1.7b", None),
    "qwen3-4b": ("qwen3:4b", None),
    "qwen3-8b": ("qwen3:8b", None),
    "qwen3-14b": ("qwen3:14b", None),
    "gemma-3-1b": ("gemma3:1b", None),
    "gemma-3-4b": ("gemma3:4b", None),
    "gemma-3-12b": ("gemma3:12b", None),
}
"""Library tags the catalog's aliases do not carry, with the variant where a source shows it."""

_QUANT_TAG = "|".join(sorted(map(re.escape, OLLAMA_QUANT_NAMES.values()), key=len, reverse=True))
OLLAMA_TAG_GRAMMAR = re.compile(
    r"^[a-z0-9][a-z0-9._\-]*:(?:\d+(?:\.\d+)?b|\d+x\d+b|mini|e\d+b)"
    rf"(?:-[a-z0-9.]+)*?(?:-(?:{_QUANT_TAG}))?$"
)
"""An Ollama library reference `name:size[-variant…][-quant]` (the module docstring)."""


@cache
def library_tags() -> dict[str, tuple[str, str | None]]:
    """catalog id → (library `name:size`, variant of its quantized tags or None): the table
    above, the catalog's own Ollama aliases (`llama3.1:8b`) and `OLLAMA_LIBRARY`."""
    out: dict[str, tuple[str, str | None]] = {}
    for entry in get_catalog().models.values():
        alias = next((a for a in entry.aliases if OLLAMA_TAG_GRAMMAR.match(a)), None)
        if alias is not None:
            out[entry.id] = (alias, None)
    for tag, model_id in OLLAMA_LIBRARY.items():
        out.setdefault(model_id, (tag, None))
    return out | OLLAMA_LIBRARY_TAGS


def gguf_file_name(model_id: str, weights: str) -> str:
    """The local GGUF file a launch line names when no library tag serves the type."""
    return f"{model_id}.{weights.upper()}.gguf"


def ollama_reference(model_id: str, weights: str) -> tuple[str, bool]:
    """(what `FROM` and `ollama run` take, whether it is a library tag Ollama pulls) for the
    catalog model `model_id` in the GGUF type `weights` (canonical, e.g. 'q4_k_m')."""
    known = library_tags().get(model_id)
    if known is not None:
        base, variant = known
        name = base.split(":", 1)[0]
        quant = OLLAMA_QUANT_NAMES.get(weights)
        if variant is not None and quant is not None:
            return f"{name}:{variant}-{quant}", True
        entry = get_catalog().models.get(model_id)
        shipped = None if entry is None else entry.checkpoint_format
        if weights == ollama_default_weights(shipped):
            return base, True
    return f"./{gguf_file_name(model_id, weights)}", False
