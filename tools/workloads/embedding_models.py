"""Embedding and reranker models (`catalog/embedding_models.toml`): the entries, the look-up,
and their parameters and FLOPs per token from the published config.

Encoders (BERT, XLM-RoBERTa): embeddings vocab·h + positions·h + token types·h + LayerNorm 2h;
each layer 4(h² + h) for q, k, v, o with biases, (h·f + f) + (f·h + h) for the GELU FFN and two
LayerNorms 4h; a pooler h² + h, or a reranker's classification head (h² + h) + (h + 1).
Decoder embedding models are their catalog LLM less its output layer (`tools.architecture`).
A token costs 2 FLOPs per matmul weight, plus attention: 4·s·d per layer for s tokens attended
(q·kᵀ and the weighted sum of v over d = heads × head dim) — all s for an encoder, s/2 on
average under a decoder's causal mask.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import ConfigDict, Field

from tools.architecture import Architecture, count_parameters
from tools.catalog import Sourced, catalog_dir, get_catalog, load_entries, normalize_name
from tools.errors import ToolInputError, closest_names
from tools.limits import FINITE, MAX_FFN_WIDTH, MAX_HIDDEN_SIZE, MAX_LAYERS, MAX_VOCAB


class EmbeddingModel(Sourced):
    """One embedding or reranker model: what it is, its shape, its output and input sizes."""

    model_config = ConfigDict(extra="forbid", frozen=True, **FINITE)

    id: str
    name: str
    aliases: tuple[str, ...] = ()
    task: Literal["embedding", "reranker"]
    kind: Literal["encoder", "decoder"]
    hidden_size: int | None = Field(default=None, gt=0, le=MAX_HIDDEN_SIZE)
    num_layers: int | None = Field(default=None, gt=0, le=MAX_LAYERS)
    intermediate_size: int | None = Field(default=None, gt=0, le=MAX_FFN_WIDTH)
    vocab_size: int | None = Field(default=None, gt=0, le=MAX_VOCAB)
    max_position_embeddings: int | None = Field(default=None, gt=0, le=2**24)
    type_vocab_size: int = Field(default=0, ge=0, le=16)
    pooler: bool = False
    classifier: bool = False
    base_model: str | None = Field(
        default=None, description="Decoder models: the catalog LLM whose architecture it is."
    )
    dimensions: int | None = Field(default=None, gt=0, le=MAX_HIDDEN_SIZE)
    max_tokens: int = Field(gt=0, le=2**24, description="Longest input, tokens.")


@lru_cache(maxsize=1)
def embedding_models(directory: Path | None = None) -> dict[str, EmbeddingModel]:
    """The catalog's embedding and reranker models by id."""
    path = (directory or catalog_dir()) / "embedding_models.toml"
    return {m.id: m for m in load_entries(path, "models", EmbeddingModel)}


def _names() -> dict[str, str]:
    out: dict[str, str] = {}
    for m in embedding_models().values():
        for name in (m.id, m.name, *m.aliases):
            out[normalize_name(name)] = m.id
    return out


def find_embedding_model(name: str) -> EmbeddingModel | None:
    """The model `name` spells (id, name or alias, loosely), or None."""
    found = _names().get(normalize_name(name))
    return None if found is None else embedding_models()[found]


def embedding_model(name: str) -> EmbeddingModel:
    """The model `name` spells; ToolInputError with the closest names otherwise."""
    found = find_embedding_model(name)
    if found is None:
        ids = list(embedding_models())
        raise ToolInputError(
            "model",
            f"{name!r} is not an embedding or reranker model in the catalog",
            ", ".join(ids),
            suggestions=closest_names(name, ids),
        )
    return found


def _decoder(model: EmbeddingModel) -> Architecture:
    assert model.base_model is not None
    return get_catalog().model(model.base_model).architecture


def parameters(model: EmbeddingModel) -> int:
    """Every parameter of the model as loaded (see the module docstring)."""
    if model.kind == "decoder":
        counts = count_parameters(_decoder(model))
        return counts.total - counts.lm_head
    h, f, layers = _shape(model)
    assert model.vocab_size is not None and model.max_position_embeddings is not None
    embeddings = (model.vocab_size + model.max_position_embeddings + model.type_vocab_size) * h
    embeddings += 2 * h
    layer = 4 * (h * h + h) + (h * f + f) + (f * h + h) + 4 * h
    head = (h * h + h) if model.pooler else 0
    head += (h * h + h) + (h + 1) if model.classifier else 0
    return embeddings + layers * layer + head


def _shape(model: EmbeddingModel) -> tuple[int, int, int]:
    h, f, layers = model.hidden_size, model.intermediate_size, model.num_layers
    assert h is not None and f is not None and layers is not None
    return h, f, layers


def flops_per_token(model: EmbeddingModel, attended: int) -> float:
    """FLOPs one token costs when `attended` tokens share its sequence (module docstring)."""
    if model.kind == "decoder":
        arch = _decoder(model)
        counts = count_parameters(arch)
        matmul = counts.total - counts.embedding - counts.lm_head
        width = arch.num_attention_heads * arch.head_dim
        return 2.0 * matmul + 4.0 * arch.num_layers * width * attended / 2
    h, f, layers = _shape(model)
    matmul = layers * (4 * h * h + 2 * h * f)
    return 2.0 * matmul + 4.0 * layers * h * attended


def activation_width(model: EmbeddingModel) -> int:
    """Values per token live in one layer at its peak: the FFN's intermediate plus q, k, v and
    the attention output (what a batch of tokens holds in flight, at 16 bits)."""
    if model.kind == "decoder":
        arch = _decoder(model)
        return arch.intermediate_size * 2 + 4 * arch.hidden_size
    h, f, _ = _shape(model)
    return f + 4 * h
