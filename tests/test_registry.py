"""Tool registry: schemas from pydantic, compact results, errors the model can act on."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from assistant.registry import Registry, compact_json, default_registry, lean, parse_arguments

REGISTRY = default_registry()


def test_lookups_registered_with_schemas() -> None:
    names = {s["function"]["name"] for s in REGISTRY.schemas()}
    assert {"find_model", "find_gpu", "list_models", "list_gpus"} <= names
    schema = next(s for s in REGISTRY.schemas() if s["function"]["name"] == "find_gpu")
    assert schema["type"] == "function"
    assert schema["function"]["parameters"]["required"] == ["name"]
    assert "title" not in schema["function"]["parameters"]["properties"]["name"]


def test_every_calculator_is_registered() -> None:
    # Tools are imported directly (no string imports): a calculator that cannot be imported
    # fails this module's import, it is never left out quietly.
    expected = {"size", "estimate_memory", "recommend", "plan_local_serving", "compare_costs"}
    assert expected <= set(REGISTRY.names)


def test_a_calculator_that_cannot_be_imported_is_an_error_not_a_missing_tool() -> None:
    import subprocess
    import sys

    # `sys.modules[name] = None` makes `import name` raise ImportError (the import system's
    # documented behaviour): the registry must not load without it.
    probe = (
        "import sys; sys.modules['tools.local_serving'] = None\n"
        "try:\n    import assistant.registry\nexcept ImportError as e:\n    print('raised', e)\n"
        "else:\n    print('loaded')"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.stdout.startswith("raised"), done.stdout + done.stderr


def test_find_model_exact_params() -> None:
    out = REGISTRY.call("find_model", '{"name": "meta-llama/Llama-3.1-8B-Instruct"}')
    assert not out.is_error
    # Llama 3.1 8B: 8,030,261,248 parameters (Hugging Face model card safetensors total).
    assert out.result["total_params"] == 8_030_261_248
    assert out.result["kv_heads"] == 8  # config.json num_key_value_heads


def test_find_gpu_bytes_become_gb_with_unit_in_name() -> None:
    out = REGISTRY.call("find_gpu", {"name": "h100-sxm"})
    # NVIDIA H100 SXM datasheet: 80 GB HBM3, 3.35 TB/s.
    assert out.result["memory_GB"] == 80
    assert out.result["memory_bandwidth_GB_per_s"] == 3350
    assert "memory_bytes" not in out.result


def test_lean_drops_nulls_rounds_floats() -> None:
    assert lean({"a": None, "b": 1 / 3, "kv_bytes": 2 * 10**9}) == {"b": 0.333333, "kv_GB": 2}
    assert compact_json({"a": [1, 2]}) == '{"a":[1,2]}'


def test_unknown_tool_is_an_error_result() -> None:
    out = REGISTRY.call("find_modle", "{}")
    assert out.is_error
    assert out.result["did_you_mean"][0] == "find_model"


def test_invalid_json_tells_the_model_what_to_fix() -> None:
    out = REGISTRY.call("find_gpu", '{"name": "h100"')
    assert out.is_error and "not valid JSON" in out.result["error"]


def test_literal_newline_in_string_is_tolerated() -> None:
    assert parse_arguments('{"name": "h100\nsxm"}') == {"name": "h100\nsxm"}


def test_empty_arguments_mean_no_arguments() -> None:
    out = REGISTRY.call("list_gpus", "")
    assert not out.is_error and out.result["count"] == len(out.result["gpus"]) > 0


def test_validation_error_names_field() -> None:
    out = REGISTRY.call("find_gpu", '{"gpu": "h100"}')
    assert out.is_error
    fields = {p["field"] for p in out.result["problems"]}
    assert fields == {"name", "gpu"}
    assert out.result["allowed_fields"] == ["name"]


def test_tool_input_error_is_a_result() -> None:
    out = REGISTRY.call("find_gpu", '{"name": "h1000"}')
    # Named by the look-up's own field, so the model knows which argument to fix.
    assert out.is_error and out.result["field"] == "name"


def test_tool_bug_is_contained() -> None:
    from pydantic import BaseModel

    class Empty(BaseModel):
        pass

    def broken(_: Any) -> dict[str, Any]:
        raise KeyError("gpu")

    from assistant.registry import ToolSpec

    reg = Registry([ToolSpec("broken", "d", Empty, broken)])
    out = reg.call("broken", "{}")
    assert out.is_error and out.result["kind"] == "internal_error"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=12,
)
field_names = st.sampled_from(
    [
        "name",
        "model",
        "gpu",
        "params",
        "users",
        "context",
        "weights",
        "vendor",
        "contains",
        "min_memory_gb",
        "prompt_tokens",
        "output_tokens",
        "task",
        "count",
        "x",
    ]
)
argument_dicts = st.dictionaries(field_names, json_values, max_size=5)


@settings(max_examples=150, deadline=None)
@given(
    name=st.sampled_from([*REGISTRY.names, "nope"]),
    args=argument_dicts | st.text(max_size=40).map(lambda s: s),
)
def test_no_tool_input_crashes_the_registry(name: str, args: dict[str, Any] | str) -> None:
    raw = json.dumps(args) if isinstance(args, dict) else args
    out = REGISTRY.call(name, raw)
    # Every outcome serialises, and no input reaches a tool bug (an internal_error).
    json.loads(out.content)
    assert out.result.get("kind") not in ("internal_error", "internal_limit"), out.result
