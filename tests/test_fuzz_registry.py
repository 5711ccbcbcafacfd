"""Nothing a model sends through the registry crashes, yields a non-finite figure or an error
that names no field (issue 21, items 1 and 7): generated inputs per tool (tests/fuzzing.py) —
2,000 in `make test` (every field path with every hostile value), the 10,000 of the issue's
acceptance in `make test-deep` (run by `make bench`) — then the guard's own cases: what a tool
raising or returning garbage turns into."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from assistant.config import Settings
from assistant.llm.accumulate import PendingCall
from assistant.llm.engine import LlmEngine
from assistant.registry import Registry, ToolSpec, default_registry
from tests.fuzzing import (
    CI_INPUTS_PER_TOOL,
    SECONDS_PER_TOOL,
    TARGET_INPUTS_PER_TOOL,
    Tally,
    fuzz_tool,
)

REGISTRY = default_registry()


def _fuzz_keeps_the_contract(tool: str, target: int) -> None:
    tally = Tally()
    fuzz_tool(REGISTRY, tool, tally, target)
    findings = [f for f in tally.findings if f.tool == tool]
    assert tally.inputs[tool] >= target
    assert not findings, "\n".join(f"{f.kind}: {f.arguments} -> {f.detail}" for f in findings[:5])
    # Most inputs are refused (that is what makes 10,000 affordable); some must get through.
    assert 0 < tally.errors[tool] < tally.inputs[tool]
    assert tally.seconds[tool] < SECONDS_PER_TOOL, (
        f"fuzzing {tool} took {tally.seconds[tool]:.1f} s: give its valid requests cheap "
        "values in tests/fuzzing.py OVERRIDES (e.g. one or two GPU types)"
    )


@pytest.mark.parametrize("tool", REGISTRY.names)
def test_generated_inputs_per_tool_keep_the_contract(tool: str) -> None:
    _fuzz_keeps_the_contract(tool, CI_INPUTS_PER_TOOL)


@pytest.mark.deep
@pytest.mark.parametrize("tool", REGISTRY.names)
def test_ten_thousand_generated_inputs_per_tool_keep_the_contract(tool: str) -> None:
    _fuzz_keeps_the_contract(tool, TARGET_INPUTS_PER_TOOL)


# --- the guard: what a tool itself raises or returns ------------------------------------------


class _Empty(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _registry(func: Any) -> Registry:
    return Registry([ToolSpec("tool", "d", _Empty, func)])


@pytest.mark.parametrize(
    "error", [ZeroDivisionError, OverflowError, MemoryError, RecursionError, FloatingPointError]
)
def test_a_calculation_past_its_limits_is_an_error_result_saying_so(
    error: type[BaseException],
) -> None:
    def explode(_: Any) -> dict[str, Any]:
        raise error("deep inside")

    out = _registry(explode).call("tool", "{}")
    assert out.is_error and out.result["kind"] == "internal_limit"
    assert "internal limit" in out.result["error"] and error.__name__ in out.result["error"]
    assert "Traceback" not in out.content and "deep inside" not in out.content


class _Row(BaseModel):
    usd_per_hour: float


class _Rows(BaseModel):
    rows: list[_Row]


class _X(BaseModel):
    x: float


def test_a_non_finite_result_is_an_error_naming_the_field() -> None:
    rows = _Rows(rows=[_Row(usd_per_hour=2.0), _Row(usd_per_hour=math.inf)])
    out = _registry(lambda _: rows).call("tool", "{}")
    assert out.is_error and out.result["field"] == "rows.1.usd_per_hour"
    assert "Infinity" not in out.content and json.loads(out.content)["kind"] == "internal_limit"
    nan = _registry(lambda _: _X(x=float("nan"))).call("tool", "{}")
    assert nan.is_error and nan.result["field"] == "x"


def test_a_result_json_cannot_hold_is_an_internal_error_not_an_exception() -> None:
    out = _registry(lambda _: {"gpus": {"h100", "a100"}}).call("tool", "{}")
    assert out.is_error and out.result["kind"] == "internal_error"
    json.loads(out.content)


def test_json_number_literals_beyond_floats_name_their_field() -> None:
    for raw in ('{"users": NaN}', '{"users": 1e400}', '{"users": -Infinity}'):
        out = REGISTRY.call("recommend", '{"model": "llama-3.1-8b", ' + raw[1:])
        assert out.is_error and [p["field"] for p in out.result["problems"]] == ["users"], raw
        json.dumps(out.arguments, allow_nan=False)  # the recorded arguments are strict JSON too


async def test_every_call_gets_its_tool_message_even_when_everything_is_wrong() -> None:
    """A turn records one tool message per call (strict endpoints refuse a history with a
    call that has none), whatever the call's name, arguments or tool does."""

    def explode(_: Any) -> dict[str, Any]:
        raise MemoryError

    registry = Registry([ToolSpec("tool", "d", _Empty, explode)])
    engine = LlmEngine(
        Settings(base_url="http://127.0.0.1:9/v1", model="m"),
        registry=registry,
        env={},
        system_prompt="S",
    )
    calls = [
        PendingCall(0, "a", "tool", "{}"),
        PendingCall(1, "b", "nope", "{"),
        PendingCall(2, "c", "tool", "[" * 50_000),
        PendingCall(3, "d", "", '{"x": NaN}'),
    ]
    from assistant.conversation import Conversation

    conversation = Conversation()
    from assistant.llm.engine import _Turn

    turn = _Turn(open_calls=list(calls))
    events = [e async for e in engine._run_calls(conversation, list(calls), turn)]
    assert len(events) == 2 * len(calls)  # a card and a result for each
    tool_messages = [m for m in conversation.messages if m.get("role") == "tool"]
    assert [m["tool_call_id"] for m in tool_messages] == ["a", "b", "c", "d"]
    for message in tool_messages:
        assert "error" in json.loads(message["content"])


_BASES: dict[str, dict[str, Any]] = {
    "estimate_memory": {"model": "llama-3.1-8b"},
    "recommend": {"model": "llama-3.1-8b", "constraints": {"only_gpus": ["l4"]}},
    "plan_local_serving": {"model": "llama-3.1-8b", "gpu": "rtx-4090"},
    "compare_costs": {"options": [{"gpu": "h100-sxm", "count": 1}]},
    "find_model": {"name": "llama-3.1-8b"},
    "find_gpu": {"name": "h100-sxm"},
}
"""A valid request per tool (a tool added later starts from {}: its own errors are listed too)."""


def _string_fields() -> list[tuple[str, tuple[str, ...]]]:
    """(tool, field path) for every field that takes only text (str or str | None)."""
    import typing
    from types import UnionType

    from tests.fuzzing import field_paths

    out = []
    for name, spec in REGISTRY.specs.items():
        for path in field_paths(spec.input_model):
            model: Any = spec.input_model
            for part in path[:-1]:
                if part == "0":
                    continue
                annotation = model.model_fields[part].annotation
                candidates = [annotation, *typing.get_args(annotation)]
                candidates += [a for c in candidates for a in typing.get_args(c)]
                model = next(
                    c for c in candidates if isinstance(c, type) and issubclass(c, BaseModel)
                )
            annotation = model.model_fields[path[-1]].annotation
            if typing.get_origin(annotation) in (typing.Union, UnionType):
                members = set(typing.get_args(annotation)) - {type(None)}
            else:
                members = {annotation}
            if members == {str}:
                out.append((name, path))
    return out


@pytest.mark.parametrize(("tool", "path"), _string_fields(), ids=lambda v: str(v))
def test_a_non_string_where_text_is_expected_is_refused_naming_that_field(
    tool: str, path: tuple[str, ...]
) -> None:
    """Issue 21: numbers, lists and objects sent for a name raised AttributeError inside the
    tools; validation now refuses each one under the field's own (dotted) name."""
    from tests.fuzzing import with_value

    base = _BASES.get(tool, {})
    for value in (7, 2.5, True, ["x"], {"a": 1}):
        out = REGISTRY.call(tool, with_value(base, path, value))
        assert out.is_error, (tool, path, value)
        named = [p["field"] for p in out.result.get("problems", [])] or [out.result.get("field")]
        assert ".".join(path) in named, (tool, path, value, out.result)
