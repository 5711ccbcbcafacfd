"""Typed storage of tool results (assistant/results.py): what a tool message keeps, how every
result loads back into its model, and what no longer loads.
"""

from __future__ import annotations

import json

import pytest

from assistant.conversation import Conversation
from assistant.registry import default_registry
from assistant.results import (
    RESULT_KEY,
    LegacyResult,
    ToolError,
    load_result,
    stored_calls,
    tool_message,
)
from tools.cost import CostComparison
from tools.memory import MemoryEstimate
from tools.recommend import Recommendation

REGISTRY = default_registry()

CALLS = [
    ("estimate_memory", {"model": "llama-3.1-8b", "gpu": "l4", "batch": 4}, MemoryEstimate),
    ("recommend", {"model": "llama-3.1-8b", "users": 4}, Recommendation),
    (
        "compare_costs",
        {"options": [{"gpu": "h100-sxm", "count": 1, "aggregate_tokens_per_s": 1000}]},
        CostComparison,
    ),
]


@pytest.mark.parametrize(("name", "arguments", "kind"), CALLS)
def test_a_stored_result_loads_back_equal_to_the_tool_result(
    name: str, arguments: dict[str, object], kind: type
) -> None:
    outcome = REGISTRY.call(name, arguments)
    assert not outcome.is_error, outcome.result
    message = tool_message("c1", name, outcome.value)
    # Through a saved session file and back: JSON only.
    reopened = json.loads(json.dumps(message))
    value = load_result(reopened)
    # Equal as data (a recommender option's cached speed model is private, never stored).
    assert isinstance(value, kind)
    assert value.model_dump(mode="json") == outcome.value.model_dump(mode="json")
    assert reopened[RESULT_KEY]["schema"] == kind.__name__
    # What the model reads is derived from the typed result, never the other way round.
    assert reopened["content"] == outcome.content


def test_errors_load_as_tool_errors() -> None:
    outcome = REGISTRY.call("find_gpu", {"name": "h1000"})
    assert outcome.is_error and isinstance(outcome.value, ToolError)
    value = load_result(json.loads(json.dumps(tool_message("c", "find_gpu", outcome.value))))
    assert isinstance(value, ToolError) and value.field == "name" and value.did_you_mean


@pytest.mark.parametrize(
    "message",
    [
        {"content": "not json"},
        {"content": '{"options": "?"}'},  # before typed results: the content only
        {RESULT_KEY: {"schema": "Recommendation", "data": {"options": 3}}},
        {RESULT_KEY: {"schema": "NoSuchResult", "data": {}}},
        {RESULT_KEY: "garbage"},
    ],
)
def test_what_no_longer_loads_degrades_with_a_notice(message: dict[str, object]) -> None:
    value = load_result({"role": "tool", **message}, "recommend")
    assert isinstance(value, LegacyResult)
    assert "cannot be shown" in value.notice


def test_stored_calls_pair_arguments_and_results_in_order() -> None:
    conversation = Conversation()
    conversation.add({"role": "user", "content": "q"})
    for index, (name, arguments, _) in enumerate(CALLS):
        call = {
            "id": f"c{index}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)},
        }
        conversation.add({"role": "assistant", "content": None, "tool_calls": [call]})
        conversation.add(tool_message(f"c{index}", name, REGISTRY.call(name, arguments).value))
    calls = stored_calls(conversation.messages)
    assert [(c.name, c.arguments) for c in calls] == [(n, a) for n, a, _ in CALLS]
    assert [type(c.value) for c in calls] == [k for _, _, k in CALLS]
    assert {c.turn for c in calls} == {1} and not any(c.is_error for c in calls)


def test_stored_calls_of_one_turn_are_those_of_the_whole_list_in_that_turn() -> None:
    conversation = Conversation()
    for turn, (name, arguments, _) in enumerate(CALLS, start=1):
        conversation.add({"role": "user", "content": f"q{turn}"})
        call = {
            "id": f"c{turn}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)},
        }
        conversation.add({"role": "assistant", "content": None, "tool_calls": [call]})
        conversation.add(tool_message(f"c{turn}", name, REGISTRY.call(name, arguments).value))
    everything = stored_calls(conversation.messages)
    assert [c.turn for c in everything] == [1, 2, 3]
    for turn in (1, 2, 3, 4):
        mine = stored_calls(conversation.messages, turn=turn)
        assert mine == [c for c in everything if c.turn == turn]
    # The other turns' results are not read: one that no longer loads does not matter.
    broken = [dict(m) for m in conversation.messages]
    broken[2] = {**broken[2], RESULT_KEY: {"schema": "NoSuchResult", "data": {}}}
    assert isinstance(stored_calls(broken)[0].value, LegacyResult)
    assert stored_calls(broken, turn=3) == [c for c in everything if c.turn == 3]
