"""One question, one answer (issue 14): for each workload below, the five surfaces that answer
it — `gpu-sizer recommend --json`, `gpu-sizer cost --json`, `gpu-sizer ask --offline --json`,
the LLM engine's pre-computation (respx endpoint) and the proposal written from the answer —
report the same headline configuration (GPU, count, TP × PP × DP), the same weight format and
the same $/M output tokens at the same stated load (or the same job cost for training).

Each workload is said twice: as a question (ask, the LLM engine, the proposal) and as the CLI
flags that mean the same (recommend and cost). Every surface asks `tools.sizing.size` and
presents its report; none computes a figure, so the figures must be equal, not close. Expected
values that do not come from a surface are independent: gpt-oss-120b ships in MXFP4 (its
Hugging Face config.json, quantization_config quant_method "mxfp4"); $/M = USD per hour ÷
(output tokens/s × 3,600 s) × 10⁶, recomputed from the report's own rate.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx

from assistant.cli import main
from assistant.commands.recommend import headline_record
from assistant.config import Settings
from assistant.conversation import Conversation
from assistant.llm import LlmEngine
from assistant.proposal.figures import format_number
from assistant.results import stored_calls
from tools.catalog import get_catalog
from tools.sizing import SizingReport

BASE = "http://127.0.0.1:8080/v1"


@dataclass(frozen=True)
class Case:
    """One workload: the question, and the CLI flags for the same workload."""

    question: str
    flags: tuple[str, ...]
    gpus: tuple[str, ...] = ()
    """GPUs named: `recommend --only …`, `cost --gpu …`."""
    extra: tuple[str, ...] = field(default=())
    """Flags both commands take the same way (--objective, --budget-usd-per-hour)."""
    eu: bool = False
    """EU prices only: `recommend --region eu`, `cost --eu-only`."""

    @property
    def id(self) -> str:
        return self.question[:60]


CASES = [
    # serving, no GPU named
    Case("serve Llama 3.1 8B", ("--model", "llama-3.1-8b")),
    Case("serve Llama 3.1 8B to 20 users", ("--model", "llama-3.1-8b", "--users", "20")),
    Case(
        "serve Llama 3.1 70B to 40 users with 16k context",
        ("--model", "llama-3.1-70b", "--users", "40", "--context", "16384"),
    ),
    Case(
        "serve Llama 3.1 70B in 4-bit to 40 users with 16k context",
        ("--model", "llama-3.1-70b", "--weights", "int4-awq", "--users", "40", "--context", "16k"),
    ),
    Case("serve gpt-oss-120b", ("--model", "gpt-oss-120b")),
    Case("serve gpt-oss-120b to 10 users", ("--model", "gpt-oss-120b", "--users", "10")),
    Case(
        "serve Qwen2.5 72B in fp8 to 32 users at 32k context",
        ("--model", "qwen2.5-72b", "--weights", "fp8", "--users", "32", "--context", "32768"),
    ),
    Case("serve Mixtral 8x7B to 16 users", ("--model", "mixtral-8x7b", "--users", "16")),
    Case("Llama 3.1 8B at 1,000 tok/s", ("--model", "llama-3.1-8b", "--tokens-per-s", "1000")),
    Case("serve DeepSeek-V3 to 40 users", ("--model", "deepseek-v3", "--users", "40")),
    Case(
        "serve Llama 3.1 405B in fp8 to 8 users",
        ("--model", "llama-3.1-405b", "--weights", "fp8", "--users", "8"),
    ),
    Case(
        "serve Llama 3.1 8B to 20 users with 2000-token prompts and 500-token answers",
        (
            "--model",
            "llama-3.1-8b",
            "--users",
            "20",
            "--prompt-tokens",
            "2000",
            "--output-tokens",
            "500",
        ),
    ),
    # a GPU named without a count
    Case("serve Llama 3.1 8B on H100s", ("--model", "llama-3.1-8b"), gpus=("h100-sxm",)),
    Case(
        "serve Llama 3.1 70B in 4-bit to 40 users with 16k context on H100s",
        ("--model", "llama-3.1-70b", "--weights", "int4-awq", "--users", "40", "--context", "16k"),
        gpus=("h100-sxm",),
    ),
    Case(
        "Llama 3.1 70B on H200s for 32 users",
        ("--model", "llama-3.1-70b", "--users", "32"),
        gpus=("h200-sxm",),
    ),
    Case(
        "serve Qwen2.5 7B on L4s to 8 users",
        ("--model", "qwen2.5-7b", "--users", "8"),
        gpus=("l4",),
    ),
    # a low-confidence row is the cheapest (tests/test_quote_rule.py lists the rows): 8×
    # MI300X in TP 8 — TensorWave's 8 × 1.71 USD/h (confidence "low") under DigitalOcean's
    # 8 × 2.59 (confirmed); 2× A10G in TP 2 — only AWS g5.12xlarge (low, undated) hosts it.
    Case(
        "serve Llama 3.1 405B to 8 users on MI300Xs",
        ("--model", "llama-3.1-405b", "--users", "8"),
        gpus=("mi300x",),
    ),
    Case("serve Qwen2.5 14B on A10Gs", ("--model", "qwen2.5-14b"), gpus=("a10g",)),
    # EU
    Case(
        "serve Llama 3.1 8B to 20 users in the EU",
        ("--model", "llama-3.1-8b", "--users", "20"),
        eu=True,
    ),
    Case(
        "serve Qwen2.5 7B to 20 users at 8k context in the EU",
        ("--model", "qwen2.5-7b", "--users", "20", "--context", "8192"),
        eu=True,
    ),
    Case(
        "cheapest EU option for 1,000 tok/s of Llama 3.1 8B output",
        ("--model", "llama-3.1-8b", "--tokens-per-s", "1000"),
        eu=True,
    ),
    # budgets
    Case(
        "serve Llama 3.1 70B under $10 per hour",
        ("--model", "llama-3.1-70b"),
        extra=("--budget-usd-per-hour", "10"),
    ),
    Case(
        "serve Llama 3.1 8B to 20 users for $2 per hour",
        ("--model", "llama-3.1-8b", "--users", "20"),
        extra=("--budget-usd-per-hour", "2"),
    ),
    # per-token questions
    Case(
        "H100 vs H200 vs MI300X for Llama 3.1 70B serving, cheapest per million tokens",
        ("--model", "llama-3.1-70b"),
        gpus=("h100-sxm", "h200-sxm", "mi300x"),
        extra=("--objective", "cheapest_per_token"),
    ),
    Case(
        "cheapest per million tokens for Llama 3.1 8B to 20 users on L40S or L4",
        ("--model", "llama-3.1-8b", "--users", "20"),
        gpus=("l40s", "l4"),
        extra=("--objective", "cheapest_per_token"),
    ),
    Case(
        "cheapest per million tokens for Qwen2.5 72B",
        ("--model", "qwen2.5-72b"),
        extra=("--objective", "cheapest_per_token"),
    ),
    # training
    Case(
        "full fine-tune of Llama 3.1 8B on 2B tokens",
        ("--model", "llama-3.1-8b", "--task", "full", "--train-tokens", "2B"),
    ),
    Case(
        "LoRA fine-tune of Llama 3.1 8B on 1B tokens",
        ("--model", "llama-3.1-8b", "--task", "lora", "--train-tokens", "1B"),
    ),
    Case(
        "full fine-tune of Llama 3.1 70B on 2B tokens on H100s",
        ("--model", "llama-3.1-70b", "--task", "full", "--train-tokens", "2B"),
        gpus=("h100-sxm",),
    ),
    Case(
        "QLoRA fine-tune of Llama 3.1 70B on 500M tokens",
        ("--model", "llama-3.1-70b", "--task", "qlora", "--train-tokens", "500M"),
    ),
    Case(
        "full fine-tune of Llama 3.1 8B with ZeRO-3 on 2B tokens",
        ("--model", "llama-3.1-8b", "--task", "full", "--train-tokens", "2B", "--zero", "3"),
    ),
    Case(
        "full fine-tune of Llama 3.1 8B on 2B tokens in the EU",
        ("--model", "llama-3.1-8b", "--task", "full", "--train-tokens", "2B"),
        eu=True,
    ),
]
# Generated: catalog models by their catalog names, at a few loads (serving).
for model_id in ("gemma-2-9b", "mistral-7b-v0.3"):
    name = get_catalog().models[model_id].name
    for users in (5, 50):
        CASES.append(
            Case(f"serve {name} to {users} users", ("--model", model_id, "--users", str(users)))
        )


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(list(argv)) == 0, capsys.readouterr().err
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def _reply() -> httpx.Response:
    frame = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m"}
    choice = {"index": 0, "delta": {"content": "See the verdict."}, "finish_reason": "stop"}
    body = f"data: {json.dumps({**frame, 'choices': [choice]})}\n\ndata: [DONE]\n\n"
    return httpx.Response(200, text=body, headers={"content-type": "text/event-stream"})


def _llm_report(question: str) -> SizingReport:
    """The sizing report the LLM engine pre-computed for `question` (before any model call)."""

    conversation = Conversation()

    async def turn() -> None:
        # Returns nothing: Python 3.11's asyncio.run writes out its main task's result with
        # repr, twice, when it restores the SIGINT handler (see assistant.commands.ask._run).
        engine = LlmEngine(Settings(base_url=BASE, model="m"), env={}, system_prompt="SYS")
        async for _ in engine.run_turn(conversation, question):
            pass

    with respx.mock:
        route = respx.post(f"{BASE}/chat/completions").mock(return_value=_reply())
        asyncio.run(turn())
        # The pre-computed report was already in the first request the model saw.
        first = json.loads(route.calls[0].request.content)["messages"]
        assert any(m["role"] == "tool" for m in first)
    reports = [c.value for c in stored_calls(conversation.messages) if c.name == "size"]
    assert len(reports) == 1 and isinstance(reports[0], SizingReport)
    return reports[0]


def _key(record: dict[str, Any] | None) -> tuple[Any, ...]:
    """What must agree: the configuration, its weight format, and its quoted price."""
    assert record is not None, "no headline"
    price = record["price"] or {}
    return (
        record["gpu"],
        record["count"],
        record["tp"],
        record["pp"],
        record["dp"],
        record["weights_format"],
        price.get("usd_per_million_tokens"),
        price.get("usd_job"),
        price.get("usd_per_hour"),
        # The same catalog row, with the same doubt said (tools.pricing.quote_order).
        price.get("price_id"),
        price.get("low_confidence"),
    )


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_every_surface_reports_the_same_headline(
    case: Case, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    only = ("--only", *case.gpus) if case.gpus else ()
    region = ("--region", "eu") if case.eu else ()
    recommend = _cli(capsys, "recommend", *case.flags, *only, *region, *case.extra, "--json")
    gpu_flags = [flag for gpu in case.gpus for flag in ("--gpu", gpu)]
    eu_only = ("--eu-only",) if case.eu else ()
    cost = _cli(capsys, "cost", *case.flags, *gpu_flags, *eu_only, *case.extra, "--json")
    proposal = tmp_path / "proposal.md"
    asked = _cli(capsys, "ask", "--offline", "--json", "--proposal", str(proposal), case.question)
    capsys.readouterr()
    llm = _llm_report(case.question)

    sizing = asked["sizing"]
    expected = _key(sizing["headline"])
    assert _key(recommend["headline"]) == expected, "recommend"
    assert _key(cost["headline"]) == expected, "cost"
    assert _key(headline_record(llm)) == expected, "LLM pre-computation"
    # The same load behind every $/M figure, stated with its reason.
    basis = sizing["price_load"]["basis"]
    assert recommend["price_load"]["basis"] == cost["price_load"]["basis"] == basis
    assert llm.price_load.basis == basis and sizing["price_load"]["reason"]
    assert sizing["weights_format"] == expected[5]

    # The proposal written from the offline answer names the same configuration and price:
    # page one leads with it, the options table's first row is its layout.
    text = proposal.read_text(encoding="utf-8").replace("\\_", "_")
    first = text.split("\n---\n")[0]
    headline = sizing["headline"]
    gpu = get_catalog().gpus[headline["gpu"]].name
    assert f"## Recommendation\n\n**{headline['count']}× {gpu}** " in first
    assert f"; {expected[5]} weights" in first
    layout = f"TP {headline['tp']} × PP {headline['pp']} × DP {headline['dp']}"
    assert f"\n| {headline['count']}× {gpu} | {layout} |" in text.split("## Options compared")[1]
    price = headline["price"]
    assert price is not None, "the headline is priced"
    if price["usd_job"] is not None:
        assert f"**{format_number(price['usd_job'])} USD for the job,**" in first
    else:
        per_million = price["usd_per_million_tokens"]
        assert per_million is not None
        # Independent of every surface: the $/M definition over the report's own rate.
        rate = price["tokens_per_s"]
        assert per_million == pytest.approx(price["usd_per_hour"] / (rate * 3600) * 1e6, rel=1e-9)
        label = {"full_load": " at full load", "stated_load": " at the stated load"}[basis]
        assert f"**{format_number(per_million)} USD per million output tokens**{label}" in first


def test_gpt_oss_120b_is_sized_in_its_shipped_mxfp4_on_every_surface(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Issue 14: `cost --model gpt-oss-120b` priced bf16 weights on 4× A100 while `recommend`
    # sized the shipped MXFP4 on one. openai/gpt-oss-120b config.json: quant_method "mxfp4".
    recommend = _cli(capsys, "recommend", "--model", "gpt-oss-120b", "--json")
    cost = _cli(capsys, "cost", "--model", "gpt-oss-120b", "--json")
    assert recommend["headline"]["weights_format"] == cost["headline"]["weights_format"] == "mxfp4"
    assert _key(recommend["headline"]) == _key(cost["headline"])


def test_cost_prices_per_token_at_full_load_when_no_load_is_stated(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Issue 14: `cost --model llama-3.1-8b --gpu h100-sxm` priced $/M at one user (≈3.5 USD/M)
    # while `ask` priced the same workload at full load (≈0.15 USD/M). One rule now, stated.
    cost = _cli(capsys, "cost", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--json")
    asked = _cli(capsys, "ask", "--offline", "--json", "serve Llama 3.1 8B on H100s")
    assert cost["price_load"]["basis"] == asked["sizing"]["price_load"]["basis"] == "full_load"
    assert _key(cost["headline"]) == _key(asked["sizing"]["headline"])
    price = cost["headline"]["price"]
    option_rate = price["tokens_per_s"]
    assert price["sequences_per_replica"] > 1  # every KV slot in use, not one user
    assert price["usd_per_million_tokens"] == pytest.approx(
        price["usd_per_hour"] / (option_rate * 3600) * 1e6
    )
