"""Contradiction check (issue 17): claims of the model's text against the tools' facts.

Facts are written by hand here (what a memory estimate / the recommender / the cost tool said),
so each case states the disagreement it must find or the agreement it must leave alone."""

from __future__ import annotations

import json
from typing import Any

import pytest

from assistant.contradiction import SizingFacts, contradictions, facts_from_messages
from assistant.registry import default_registry
from assistant.results import tool_message
from tools.recommend import Recommendation

REGISTRY = default_registry()

# Llama 3.1 70B bf16 on one H100 SXM: 141 GB of weights alone exceed its 80 GB (does not fit);
# the recommender's smallest fitting layout on H100 SXM is 2 GPUs (TP 2), on MI300X 1 GPU.
FACTS = SizingFacts(
    fits={("h100-sxm", 1): False, ("h100-sxm", 2): True, ("mi300x", 1): True},
    min_fitting={"h100-sxm": 2, "mi300x": 1},
    primary=("h100-sxm", 1, False),
    usd_per_hour={"h100-sxm": 6.0, "mi300x": 2.59},
)


@pytest.mark.parametrize(
    "text",
    [
        "Yes, it fits comfortably on a single H100.",
        "Llama 3.1 70B fits on one H100 SXM with room to spare.",
        "It fits.",
        "Good news: this will run on 1x H100.",
        "It does not fit on 2× H100.",
        "You need 3 H100s... no: you need 4x H100 for this.",
        "The H100 is cheaper than the MI300X for this model.",
        "The MI300X is more expensive than the H100.",
        "The H100 is the cheapest option.",
    ],
)
def test_contradicting_claims_are_flagged(text: str) -> None:
    found = contradictions(text, FACTS)
    assert found, text
    assert all(c.claim in text for c in found)


@pytest.mark.parametrize(
    "text",
    [
        "No, it does not fit on a single H100: the weights alone need 141 GB.",
        "It needs 2× H100 (TP 2).",
        "It fits on 2 H100 GPUs, or on one MI300X.",
        "The MI300X is cheaper than the H100.",
        "The MI300X is the cheapest option.",
        "If you quantise to 4-bit, it fits on a single H100.",  # conditional: not judged
        "Does it fit on one H100?",  # a question
        "It fits on an A100.",  # a GPU the tools did not size
        "It fits on H100s.",  # no count
        "",
    ],
)
def test_agreeing_or_unjudgeable_claims_are_left_alone(text: str) -> None:
    assert contradictions(text, FACTS) == []


def test_no_facts_no_flags() -> None:
    assert contradictions("It fits on one H100.", SizingFacts()) == []


def _call(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(args)},
    }


def _result(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """The tool message the engines store for `name(args)`: the typed result."""
    return tool_message(call_id, name, REGISTRY.call(name, args).value, with_name=False)


def test_facts_are_read_from_the_turns_typed_tool_results() -> None:
    memory = {"model": "llama-3.1-70b", "gpu": "H100", "gpus": 1}
    recommend = {"model": "llama-3.1-70b", "constraints": {"only_gpus": ["h100-sxm", "mi300x"]}}
    old = {"model": "llama-3.1-8b", "gpu": "h100-sxm"}
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "old question"},
        {"role": "assistant", "content": None, "tool_calls": [_call("o", "estimate_memory", old)]},
        _result("o", "estimate_memory", old),
        {"role": "user", "content": "Llama 3.1 70B on one H100?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                _call("m", "estimate_memory", memory),
                _call("r", "recommend", recommend),
                _call("e", "recommend", {"model": "nope"}),
            ],
        },
        _result("m", "estimate_memory", memory),
        _result("r", "recommend", recommend),
        _result("e", "recommend", {"model": "nope"}),
    ]
    facts = facts_from_messages(messages)
    # The earlier turn's 8B (which fits) is not this turn's fact; the error adds none.
    assert facts.primary == ("h100-sxm", 1, False)  # 'H100' is the catalog's H100 SXM
    assert facts.fits[("h100-sxm", 1)] is False
    assert facts.min_fitting == {"h100-sxm": 2, "mi300x": 1}
    rec = REGISTRY.call("recommend", recommend).value
    assert isinstance(rec, Recommendation)
    for gpu in ("h100-sxm", "mi300x"):
        priced = [o.usd_per_hour for o in rec.options if o.gpu == gpu and o.fits]
        assert facts.usd_per_hour[gpu] == min(p for p in priced if p is not None)
    assert facts.usd_per_hour["mi300x"] < facts.usd_per_hour["h100-sxm"] * 2


def test_facts_are_read_from_the_sizing_report() -> None:
    args = {"workload": {"model": "llama-3.1-70b"}, "configurations": [{"gpu": "h100-sxm"}]}
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "Llama 3.1 70B on one H100?"},
        {"role": "assistant", "content": None, "tool_calls": [_call("s", "size", args)]},
        _result("s", "size", args),
    ]
    facts = facts_from_messages(messages)
    assert facts.primary == ("h100-sxm", 1, False)
    assert facts.min_fitting["h100-sxm"] == 2
    assert contradictions("Yes, it fits comfortably on a single H100.", facts)
