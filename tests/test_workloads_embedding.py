"""Embedding and reranker corpora (issue 30 item 2): parameter counts from published configs
(checked against published totals), FLOPs per token and throughput by hand arithmetic, the
parser reading 'bge-m3' as a model (not Apple's M3) and '10 million documents' as a corpus (not
a model size), and every surface showing the result."""

from __future__ import annotations

import json
import math
from datetime import date

import pytest

from assistant.app.results import card_view
from assistant.mcp.text import render_result
from assistant.offline.parser import parse_workload
from assistant.offline.planner import plan_tool_calls
from tests.fuzzing_cli import run_cli
from tests.offline_turns import answer
from tools.catalog import get_catalog
from tools.errors import ToolInputError
from tools.performance.efficiency import resolve
from tools.pricing import builtin_price_book
from tools.workloads.embedding import EmbeddingRequest, embed_corpus
from tools.workloads.embedding_models import (
    embedding_model,
    embedding_models,
    flops_per_token,
    parameters,
)
from tools.workloads.prices import hourly_quotes


@pytest.mark.parametrize(
    ("model", "published"),
    [
        # bert-base-uncased / bert-large-uncased: 109,482,240 and 335,141,888 parameters (the
        # counts Hugging Face's BertModel reports; bge-base / gte-base and bge-large / e5-large /
        # gte-large are these shapes).
        ("bge-base-en-v1.5", 109_482_240),
        ("gte-base", 109_482_240),
        ("e5-large-v2", 335_141_888),
        ("gte-large", 335_141_888),
        # A public test asserts parameter_count 567,755,777 for a bge-m3-based
        # XLMRobertaForSequenceClassification (the bge-reranker-v2-m3 shape).
        ("bge-reranker-v2-m3", 567_755_777),
    ],
)
def test_parameters_match_the_published_counts(model: str, published: int) -> None:
    assert parameters(embedding_model(model)) == published


def test_bge_m3_is_the_reranker_less_its_head_plus_a_pooler() -> None:
    # The classification head (1024² + 1024) + (1024 + 1) replaced by a pooler 1024² + 1024.
    assert parameters(embedding_model("bge-m3")) == 567_755_777 - 1_025 == 567_754_752


def test_a_decoder_embedding_model_is_its_llm_without_the_output_layer() -> None:
    # Qwen3-8B: 8,190,735,360 parameters with a 151,936 × 4,096 = 622,329,856 untied lm_head.
    assert parameters(embedding_model("qwen3-embedding-8b")) == 8_190_735_360 - 622_329_856


def test_an_encoder_token_costs_twice_its_matmul_weights_plus_attention() -> None:
    # XLM-R large: 24 × (4 × 1024² + 2 × 1024 × 4096) = 301,989,888 matmul weights; at 512
    # tokens attended, attention adds 4 × 24 × 1024 × 512 = 50,331,648 FLOPs per token.
    assert flops_per_token(embedding_model("bge-m3"), 512) == 2 * 301_989_888 + 50_331_648


def test_throughput_time_and_cost_on_one_l4_by_hand() -> None:
    result = embed_corpus(EmbeddingRequest(model="bge-m3", documents=10_000_000, gpus=["l4"]))
    option = result.options[0]
    # L4: 121 dense BF16 TFLOP/s (datasheet) at the vLLM prefill GEMM efficiency of its class.
    mfu = resolve(get_catalog().gpu("l4"), "bf16", "vllm").gemm_mfu
    per_token = 2 * 301_989_888 + 50_331_648  # 512 tokens per document, the stated default
    rate = 121e12 * mfu / per_token
    assert option.tokens_per_s_per_gpu == pytest.approx(rate)
    assert option.documents_per_s == pytest.approx(rate / 512)
    hours = 10_000_000 * 512 / rate / 3600
    assert option.hours == pytest.approx(hours)
    quotes = hourly_quotes(builtin_price_book(), "l4", 1, date.today())
    on_demand = next(q for q in quotes if q.tier == "on_demand")
    assert option.job_usd["on_demand"] == pytest.approx(hours * on_demand.usd_per_hour)
    assert result.basis == "estimated"
    assert any("512 tokens per text" in a for a in result.assumptions)


def test_a_deadline_gives_the_gpu_count_that_meets_it() -> None:
    result = embed_corpus(
        EmbeddingRequest(model="bge-m3", documents=10_000_000, gpus=["l4"], deadline_hours=2)
    )
    option = result.options[0]
    assert option.gpu_hours is not None
    assert option.gpus_for_deadline == math.ceil(option.gpu_hours / 2)
    assert option.gpu_hours / option.gpus_for_deadline <= 2


def test_long_documents_are_chunked_at_the_model_input() -> None:
    result = embed_corpus(
        EmbeddingRequest(model="e5-large-v2", documents=1000, tokens_per_document=1200)
    )
    assert result.chunks_per_document == 3  # ⌈1200 / 512⌉
    # Attention over the 512-token chunk, not the 1,200-token document.
    assert result.flops_per_token == flops_per_token(embedding_model("e5-large-v2"), 512)


def test_unnamed_gpus_are_ranked_cheapest_per_token_first() -> None:
    result = embed_corpus(EmbeddingRequest(model="bge-m3", total_tokens=1e9))
    fresh = [o for o in result.options if not o.quotes[0].stale]
    per_token = [o.quotes[0].usd_per_hour / o.tokens_per_s for o in fresh]
    assert per_token == sorted(per_token)


def test_bad_names_are_refused_with_the_closest() -> None:
    with pytest.raises(ToolInputError) as caught:
        embed_corpus(EmbeddingRequest(model="bge-m4", documents=10))
    assert caught.value.field == "model" and "bge-m3" in (caught.value.suggestions or [])


def test_every_catalog_entry_is_sourced_and_dated() -> None:
    for m in embedding_models().values():
        assert m.source and m.as_of
        assert parameters(m) > 0


CORPORA = [
    ("embed 10 million documents with bge-m3 on an L4", "bge-m3", 10_000_000, None, "l4"),
    ("How long to embed 10M docs of 800 tokens each using BAAI/bge-m3 on 4x L4?", "bge-m3",
     10_000_000, 800, "l4"),
    ("vectorize 2.5 million passages averaging 300 tokens with e5-large-v2 on an A100",
     "e5-large-v2", 2_500_000, 300, None),
    ("rerank 5 million query-document pairs with bge-reranker-v2-m3 on an H100",
     "bge-reranker-v2-m3", 5_000_000, None, None),
    ("Qwen3-Embedding-8B on an H100: how fast for 1,000,000 chunks of 512 tokens?",
     "qwen3-embedding-8b", 1_000_000, 512, None),
]  # fmt: skip


@pytest.mark.parametrize(("text", "model", "documents", "length", "gpu"), CORPORA)
def test_a_corpus_is_read_as_a_corpus_and_the_model_as_an_embedder(
    text: str, model: str, documents: int, length: int | None, gpu: str | None
) -> None:
    parsed = parse_workload(text)
    assert parsed.embedding_model == model
    assert parsed.documents == documents and parsed.tokens_per_document == length
    assert parsed.params is None and parsed.model is None  # no LLM, no '10M' model
    assert not any(m.gpu and m.gpu.startswith("apple") for m in parsed.gpus)  # no M3
    assert not parsed.questions, parsed.questions
    if gpu is not None:
        assert parsed.gpus[0].gpu == gpu
    (call,) = plan_tool_calls(parsed)
    assert call.name == "embed_corpus" and call.arguments["model"] == model


def test_a_corpus_in_tokens_is_the_total_not_a_prompt() -> None:
    parsed = parse_workload("embedding 2B tokens with Qwen3-Embedding-8B on H100, cost?")
    assert parsed.corpus_tokens == 2e9 and parsed.prompt_tokens is None
    (call,) = plan_tool_calls(parsed)
    assert call.arguments["total_tokens"] == 2e9


def test_apple_m3_is_still_apple_m3() -> None:
    parsed = parse_workload("Can my M3 Max run Llama 3.1 8B?")
    assert parsed.embedding_model is None and parsed.gpus[0].gpu is not None
    assert parsed.gpus[0].gpu.startswith("apple-m3")


QUESTION = "embed 10 million documents with bge-m3 on an L4"


async def test_every_surface_shows_the_corpus() -> None:
    from assistant.proposal import render_proposal
    from assistant.results import stored_calls

    text, conversation = await answer(QUESTION)
    assert "**Embedding with BGE-M3**" in text and "10,000,000 texts × 512 tokens" in text
    assert "estimated" in text and "NVIDIA L4" in text
    (call,) = [c for c in stored_calls(conversation.messages) if c.name == "embed_corpus"]
    card = card_view(call.value)
    assert any("tokens/s" in line for line in card.lines)
    assert "Embedding with BGE-M3" in render_result(call.value)
    proposal = render_proposal(conversation)
    assert "1× NVIDIA L4 for BGE-M3" in proposal


def test_ask_json_carries_the_typed_result() -> None:
    run = run_cli(["ask", "--offline", "--json", "--no-save", QUESTION])
    assert run.code == 0, run.err
    data = json.loads(run.out)
    assert data["embedding"]["model"]["id"] == "bge-m3"
    assert data["embedding"]["documents"] == 10_000_000


@pytest.mark.parametrize(
    ("model", "dimensions"),
    # Qwen3-Embedding pools the last token's hidden state: the embedding has the base model's
    # hidden_size — Qwen3-0.6B 1024, Qwen3-4B 2560, Qwen3-8B 4096 (published config.json; the
    # xinference model specs list the same dimensions).
    [("qwen3-embedding-0.6b", 1024), ("qwen3-embedding-4b", 2560), ("qwen3-embedding-8b", 4096)],
)
def test_a_decoder_embedders_dimension_is_its_base_models_hidden_size(
    model: str, dimensions: int
) -> None:
    entry = embedding_model(model)
    assert entry.dimensions == dimensions
    assert entry.base_model is not None
    assert get_catalog().model(entry.base_model).architecture.hidden_size == dimensions
