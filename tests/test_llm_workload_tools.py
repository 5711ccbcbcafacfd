"""The workload tools offered to the model by the question's reading (issue 30: the engine plan,
buy vs rent, speed-ups and embedding corpora reached the model only through the parser's
pre-computed `size`). A scripted model on a loopback server is offered them when the parser's
reading shows the workload, calls them with its own arguments, and each call's typed result is
kept in the conversation. Expected figures by hand from the arguments sent."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from assistant.config import Settings
from assistant.conversation import Conversation
from assistant.events import Done
from assistant.llm import LlmEngine
from assistant.results import stored_calls
from tests import scripted_server as ss
from tools.deployment.buy_vs_rent import BuyVsRent
from tools.deployment.engines import EnginePlan
from tools.deployment.speedups import Speedups
from tools.sizing import SizingReport
from tools.workloads.embedding import EmbeddingResult


@pytest.fixture(scope="module")
def server() -> Iterator[ss.ScriptedServer]:
    srv = ss.ScriptedServer().start()
    yield srv
    srv.stop()


async def _model_calls(
    server: ss.ScriptedServer, question: str, tool: str, arguments: dict[str, Any]
) -> tuple[Any, dict[str, Any]]:
    """Ask `question`; the scripted model calls `tool` with `arguments`, then explains. The
    typed result of the model's own call, and the `tools` list of its first request."""
    server.reset(ss.tool_calls((tool, json.dumps(arguments))), ss.text("Explained."))
    engine = LlmEngine(
        Settings(base_url=server.base_url, model="scripted", max_retries=0),
        env={},
        system_prompt="SYS",
    )
    events = [e async for e in engine.run_turn(Conversation(), question)]
    done = events[-1]
    assert isinstance(done, Done)
    mine = [
        c for c in stored_calls(done.conversation.messages)
        if c.name == tool and c.arguments == arguments
    ]  # fmt: skip
    assert len(mine) == 1, [c.name for c in stored_calls(done.conversation.messages)]
    offered = {t["function"]["name"]: t for t in server.requests[0]["tools"]}
    return mine[0].value, offered


def _size_parts(offered: dict[str, Any]) -> set[str]:
    return set(offered["size"]["function"]["parameters"]["properties"])


async def test_a_model_that_names_an_engine_gets_its_engine_plan(
    server: ss.ScriptedServer,
) -> None:
    arguments = {
        "workload": {"model": "llama-3.1-8b"},
        "configurations": [{"gpu": "h100-sxm", "count": 1}],
        "serve_engine": "tensorrt-llm",
    }
    report, offered = await _model_calls(
        server, "Give me the SGLang launch command for Llama 3.1 8B on one H100", "size", arguments
    )
    assert {"serve_engine", "buy", "speedups"} <= _size_parts(offered)
    assert "estimate_memory" not in offered  # what pays for the parts this turn
    assert isinstance(report, SizingReport) and isinstance(report.engine_plan, EnginePlan)
    plan = report.engine_plan
    assert plan.engine == "tensorrt-llm" and plan.command.startswith("trtllm-serve ")


async def test_a_model_that_prices_buying_gets_buy_vs_rent(server: ss.ScriptedServer) -> None:
    arguments = {
        "workload": {"model": "llama-3.1-70b"},
        "configurations": [{"gpu": "h100-sxm", "count": 8}],
        "buy": {"purchase_usd_per_gpu": 30_000, "usd_per_kwh": 0.2},
    }
    report, offered = await _model_calls(
        server,
        "Buy 8 H100s at $30,000 each or rent them, for Llama 3.1 70B, power at $0.20 per kWh?",
        "size",
        arguments,
    )
    assert "buy" in _size_parts(offered)
    assert isinstance(report, SizingReport) and isinstance(report.buy_vs_rent, BuyVsRent)
    buy = report.buy_vs_rent
    # The figures the model sent: 30,000 USD a card × the cards bought, 0.20 USD per kWh.
    assert buy.purchase_kind == "given" and buy.usd_per_kwh == pytest.approx(0.2)
    assert buy.purchase_usd_low == buy.purchase_usd_high == pytest.approx(30_000 * buy.count)


async def test_a_model_that_asks_for_speculative_decoding_gets_the_speed_up(
    server: ss.ScriptedServer,
) -> None:
    arguments = {
        "workload": {"model": "llama-3.1-70b"},
        "configurations": [{"gpu": "h100-sxm", "count": 4}],
        "speedups": {"speculative": True, "draft_model": "llama-3.2-1b", "acceptance_rate": 0.8},
    }
    report, offered = await _model_calls(
        server,
        "How much faster is Llama 3.1 70B on 4 H100 with speculative decoding, Llama 3.2 1B as "
        "the draft?",
        "size",
        arguments,
    )
    assert "speedups" in _size_parts(offered)
    assert isinstance(report, SizingReport) and isinstance(report.speedups, Speedups)
    (row,) = report.speedups.speculative
    assert row.acceptance_rate == 0.8 and row.acceptance_measured
    # Leviathan et al. 2023 eq. 1: tokens per target step (1 − α^(γ+1)) / (1 − α).
    gamma = row.draft_tokens
    assert row.tokens_per_step == pytest.approx((1 - 0.8 ** (gamma + 1)) / (1 - 0.8))


async def test_a_model_that_sizes_an_embedding_corpus_gets_its_result(
    server: ss.ScriptedServer,
) -> None:
    arguments = {"model": "bge-m3", "documents": 1_000_000, "gpus": ["l4"]}
    result, offered = await _model_calls(
        server,
        "How long to embed 10 million documents with bge-m3 on an L4?",
        "embed_corpus",
        arguments,
    )
    assert "embed_corpus" in offered and "estimate_memory" not in offered
    assert isinstance(result, EmbeddingResult)
    # The model's million documents at the default 512 tokens each, not the parser's ten.
    assert result.total_tokens == 1_000_000 * 512


async def test_a_plain_question_keeps_the_everyday_tools(server: ss.ScriptedServer) -> None:
    arguments = {"model": "llama-3.1-70b", "gpu": "h100-sxm"}
    result, offered = await _model_calls(
        server, "Does Llama 3.1 70B fit on one H100?", "estimate_memory", arguments
    )
    assert "estimate_memory" in offered and "embed_corpus" not in offered
    assert not {"serve_engine", "buy", "speedups"} & _size_parts(offered)
    # 70,553,706,496 parameters × 2 bytes (bf16) = 141.1 GB of weights alone.
    assert result.breakdown["weights"] >= 70_553_706_496 * 2
