"""Ollama model tags → a model name to look up and the weight format the tag names.

Grammar (ollama.com/library tag lists; `ollama pull NAME[:TAG]`): `name[:size[-variant…][-quant]]`
where `size` is `8b`, `0.6b`, `8x7b`, `e2b`, `mini`; variants are words such as `instruct`,
`text`, `chat`, `it`, `qat`, `v0.3`; `quant` is a GGUF type (`q4_K_M`, `q8_0`, `iq4_xs`) or
`fp16` / `bf16`. Ollama also pulls GGUFs from Hugging Face as `hf.co/{org}/{repo}:{quant}`.
A tag without a quantization is Ollama's default build of that model: Q4_K_M for the models
of its library (their model pages list the default tag as Q4_K_M; deepseek-r1:671b too, ≈ 404
GB, although DeepSeek ships FP8), except gpt-oss, which Ollama ships in its native MXFP4.

`OLLAMA_LIBRARY` names the catalog model of library tags whose name is not the catalog's
(`llama4:scout`, `deepseek-r1:32b` = the Qwen 32B distill, `mistral-small3.1:24b`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tools.errors import ToolInputError
from tools.memory.formats import normalize_format

OLLAMA_DEFAULT_WEIGHTS = "q4_k_m"
"""The quantization of an Ollama library tag that names none (`qwen3:32b`)."""

OLLAMA_LIBRARY: dict[str, str] = {
    # Llama 4 (insiderllm.com "Llama 4 Guide", canitrun.net: `ollama run llama4:scout`,
    # `llama4:maverick`; tags such as scout-q8_0 carry a quantization).
    "llama4:scout": "llama-4-scout",
    "llama4:maverick": "llama-4-maverick",
    # DeepSeek-R1 (runaihome.com "DeepSeek R1 Distilled Models for Local AI", 2026: every tag
    # below 671b is a distill — Qwen2.5 for 1.5b/7b/14b/32b, Llama 3 for 8b/70b — Q4_K_M by
    # default; 671b is the full MoE, Q4_K_M ≈ 404 GB).
    "deepseek-r1:671b": "deepseek-r1",
    "deepseek-r1:7b": "deepseek-r1-distill-qwen-7b",
    "deepseek-r1:8b": "deepseek-r1-distill-llama-8b",
    "deepseek-r1:14b": "deepseek-r1-distill-qwen-14b",
    "deepseek-r1:32b": "deepseek-r1-distill-qwen-32b",
    "deepseek-r1:70b": "deepseek-r1-distill-llama-70b",
    # Library names that drop the catalog's separators (ollama.com/library).
    "mistral-small3.1:24b": "mistral-small-3.1-24b",
    "mistral-nemo:12b": "mistral-nemo-12b",
    "mistral-large:123b": "mistral-large-2-123b",
    "phi4:14b": "phi-4",
    "phi4-mini:3.8b": "phi-4-mini",
    "command-r:35b": "command-r-35b",
    "command-r-plus:104b": "command-r-plus-104b",
    "olmo2:7b": "olmo-2-7b",
    "olmo2:13b": "olmo-2-13b",
    "granite3.3:8b": "granite-3.3-8b",
    "falcon3:7b": "falcon3-7b",
    "falcon3:10b": "falcon3-10b",
    "qwen3:30b": "qwen3-30b-a3b",
    "qwen3:235b": "qwen3-235b-a22b",
}
"""Ollama library `name:size` tags → catalog id, where looking the name up does not find it."""


def ollama_default_weights(checkpoint_format: str | None) -> str:
    """The weight format of a library tag that names none: Q4_K_M, or MXFP4 for models that
    ship in it (gpt-oss, which Ollama serves natively)."""
    return "mxfp4" if checkpoint_format == "mxfp4" else OLLAMA_DEFAULT_WEIGHTS


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
    key = f"{name.lower()}:{(size or (parts[0] if parts else '')).lower()}"
    if key in OLLAMA_LIBRARY:
        names.append(OLLAMA_LIBRARY[key])
    if size is not None:
        names += [f"{name}:{size}", f"{name}-{size}"]
    if "/" in name:
        names.append(re.sub(r"[-_.]gguf$", "", name, flags=re.I))
    names.append(name)
    return ModelTag(tuple(dict.fromkeys(names)), weights, reference.strip())


_SHARD = re.compile(r"-\d{5}-of-\d{5}$", re.I)
_NAME_QUANT = re.compile(
    r"[-_.]((?:ud-)?(?:i?q\d(?:_[a-z0-9]+)*|f16|bf16|f32|fp16|mxfp4))$",
    re.I,
)


@dataclass(frozen=True)
class GgufName:
    """What a GGUF file's name says: the model's name and its quantization (llama.cpp's
    convert / quantize scripts and the common uploaders name files `{model}-{TYPE}.gguf` —
    'Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf', TheBloke's 'mistral-7b-instruct-v0.2.Q4_K_M.gguf',
    split files '…-00001-of-00003.gguf')."""

    name: str
    """The model part of the name ('Qwen3-30B-A3B'), as written."""
    weights: str | None
    """The GGUF type named (canonical), None when the name holds none or none gpu-sizer sizes."""
    quant: str | None
    """The quantization as written ('Q4_K_M', 'UD-Q4_K_XL'), None when the name holds none."""


def parse_gguf_name(path: str) -> GgufName | None:
    """`path`'s file name as a model name and GGUF type; None when it is not a .gguf name or
    holds no name besides the type."""
    base = re.split(r"[\\/]", path.strip())[-1]
    if not base.lower().endswith(".gguf"):
        return None
    stem = _SHARD.sub("", base[: -len(".gguf")])
    quant = _NAME_QUANT.search(stem) or _NAME_QUANT.fullmatch(f"-{stem}")
    name = stem if quant is None else stem[: max(quant.start(), 0)]
    if quant is not None and quant.string != stem:
        name = ""  # the whole name is the type ('Q4_K_M.gguf')
    if not re.search(r"[a-z]", name, re.I):
        return None
    weights = None
    if quant is not None:
        try:
            weights = normalize_format(quant.group(1))
        except ToolInputError:
            weights = None  # 'UD-Q4_K_XL': a mix of its own, no one GGUF type
    return GgufName(name, weights, None if quant is None else quant.group(1))
