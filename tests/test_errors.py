"""Bad input to either tool is reported the same way: field (dotted when nested), problem,
what is allowed — one converter for the memory request and the workload."""

from __future__ import annotations

import pytest

from tools.errors import ToolInputError
from tools.memory import estimate_memory, validate_request
from tools.workload import validate_workload


@pytest.mark.parametrize("validate", [validate_request, validate_workload])
def test_shared_model_fields_fail_identically_in_both_tools(validate: object) -> None:
    assert callable(validate)
    with pytest.raises(ToolInputError) as info:
        validate({"model": "llama-3.1-8b", "kv_dtype": "fp7"})
    assert info.value.message == (
        "kv_dtype: unknown KV-cache dtype 'fp7'. Allowed: bf16, fp16, fp8, int8, fp32, q4, q6, q8, "
        "q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1."
    )
    with pytest.raises(ToolInputError) as info:
        validate({"model": "llama-3.1-8b", "params": "8B"})
    assert info.value.field == "model" and "exactly one of" in info.value.problem


def test_nested_field_is_named_with_its_path_and_its_own_description() -> None:
    with pytest.raises(ToolInputError) as info:
        validate_workload({"model": "llama-3.1-8b", "constraints": {"max_gpus": 0}})
    assert info.value.field == "constraints.max_gpus"
    assert info.value.allowed is not None and "GPUs" in info.value.allowed
    with pytest.raises(ToolInputError) as info:
        validate_workload({"model": "llama-3.1-8b", "constraints": {"bogus": 1}})
    assert info.value.problem == "unknown field"
    assert info.value.allowed is not None and "max_gpus" in info.value.allowed


def test_tensor_parallel_must_split_the_kv_heads_evenly() -> None:
    # Mixtral-8x22B: 48 attention heads, 8 KV heads (config.json). TP=3 divides 48 but not 8:
    # vLLM refuses it, so must we.
    with pytest.raises(ToolInputError) as info:
        estimate_memory(validate_request({"model": "mixtral-8x22b", "gpus": 3, "tp": 3}))
    assert (
        info.value.field == "tp" and "does not divide the model's 8 KV heads" in info.value.problem
    )
    # TP=16 > 8 KV heads is allowed: 16 is a multiple of 8 (each head replicated twice), and
    # 48 heads / 16 = 3.
    assert (
        estimate_memory(validate_request({"model": "mixtral-8x22b", "gpus": 16, "tp": 16})).tp == 16
    )
