"""Ollama model tags → a model name to look up and the weight format the tag names.

Grammar (ollama.com/library tag lists; `ollama pull NAME[:TAG]`): `name[:size[-variant…][-quant]]`
where `size` is `8b`, `0.6b`, `8x7b`, `e2b`, `mini`; variants are words such as `instruct`,
`text`, `chat`, `it`, `qat`, `v0.3`; `quant` is a GGUF type (`q4_K_M`, `q8_0`, `iq4_xs`) or
`fp16` / `bf16`. Ollama also pulls GGUFs from Hugging Face as `hf.co/{org}/{repo}:{quant}`.
A tag without a quantization is Ollama's default build of that model: Q4_K_M for the models
of its library (their model pages list the default tag as Q4_K_M), unless the catalog says
the checkpoint ships another way (gpt-oss: MXFP4).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tools.errors import ToolInputError
from tools.memory.formats import normalize_format

OLLAMA_DEFAULT_WEIGHTS = "q4_k_m"
"""The quantization of an Ollama library tag that names none (`qwen3:32b`)."""

_TAG = re.compile(r"^(?P<name>[A-Za-z0-9][\w.\-/]*?):(?P<tag>[\w.\-]+)$")
_SIZE = re.compile(r"^(?:\d+(?:\.\d+)?[bmk]|\d+x\d+(?:\.\d+)?b|e\d+b|a\d+b|mini|small|medium)$")


@dataclass(frozen=True)
class ModelTag:
    """A parsed Ollama (or hf.co) reference."""

    names: tuple[str, ...]
    """Look-up forms, most specific first: 'llama3.3:70b', 'llama3.3-70b', 'llama3.3'."""
    weights: str | None
    """The weight format the tag names (canonical), None when it names none."""
    text: str


def parse_tag(reference: str) -> ModelTag | None:
    """`reference` as an Ollama tag, or None when it is not `name:tag`."""
    match = _TAG.match(reference.strip())
    if match is None:
        return None
    name, tag = match.group("name"), match.group("tag")
    name = name.removeprefix("hf.co/").removeprefix("huggingface.co/")
    parts = tag.split("-")
    weights = None
    if parts:
        try:
            weights = normalize_format(parts[-1])
            parts = parts[:-1]
        except ToolInputError:
            weights = None
    size = next((p for p in parts if _SIZE.match(p.lower())), None)
    names: list[str] = []
    if size is not None:
        names += [f"{name}:{size}", f"{name}-{size}"]
    if "/" in name:
        names.append(re.sub(r"[-_.]gguf$", "", name, flags=re.I))
    names.append(name)
    return ModelTag(tuple(dict.fromkeys(names)), weights, reference.strip())
