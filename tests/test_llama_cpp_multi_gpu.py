"""llama.cpp on several GPUs as llama.cpp runs them (issue 29 point 4, issue 31): the layer split
(its default) is a pipeline — capacity, not speed — and the CLI offers it for llama.cpp instead
of tensor-parallel layouts; `--split-mode tensor` (PR #19378) where the settings allow it, with
the PR's published speed-up."""

from __future__ import annotations

import json

import pytest

from assistant.cli import main
from tools.local_serving import LocalServingRequest, plan_local_serving
from tools.performance.llama_split import TENSOR_SPLIT_DENSE_SPEEDUP

# XiongjieDai/GPU-Benchmarks-on-LLM-Inference README (commit aa72e0ec, 2024-05-12), 'Average
# eval speed (tokens/s) by GPUs on LLaMA 3': llama.cpp, layer split across the GPUs.
XD_3090_X2_70B_Q4KM = 16.29
XD_4090_X1_8B_Q4KM = 127.74
XD_4090_X2_8B_Q4KM = 122.56


def _recommend(capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, object]:
    argv = ["recommend", "--model", "llama-3.1-70b", "--weights", "q4_k_m", "--engine"]
    argv += ["generic", "--gpu", "rtx-3090", "--max-gpus", "2", "--json", *extra]
    code = main(argv)
    out = capsys.readouterr().out
    assert code == 0, out
    data: dict[str, object] = json.loads(out)
    return data


def test_two_3090s_run_70b_as_a_layer_split_within_25_percent(
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = _recommend(capsys)
    (option,) = [o for o in data["options"] if o["gpu"] == "rtx-3090"]  # type: ignore[attr-defined]
    # 39.6 GiB of Q4_K_M weights need both cards: the layer split, pp=2, never TP for llama.cpp.
    assert (option["tp"], option["pp"], option["count"]) == (1, 2, 2)
    # The published figure of this exact setup is shown as measured, and the performance
    # model's own figure beside it is within 25% of it.
    assert option["decode_tokens_per_s_per_seq"] == XD_3090_X2_70B_Q4KM
    speed = option["modelled_tokens_per_s_per_seq"]
    assert XD_3090_X2_70B_Q4KM / 1.25 <= speed <= XD_3090_X2_70B_Q4KM * 1.25
    assert any("--split-mode layer" in n for n in option["notes"])


def test_tensor_split_is_the_published_speed_up_and_an_estimate(
    capsys: pytest.CaptureFixture[str],
) -> None:
    layer = _recommend(capsys)["options"][0]  # type: ignore[index]
    tensor = _recommend(capsys, "--split-mode", "tensor")["options"][0]  # type: ignore[index]
    assert (tensor["tp"], tensor["pp"]) == (2, 1)
    # The layer split of this exact setup is published (16.29 tok/s): shown as measured. The
    # tensor split is not that measurement: the modelled layer split × PR #19378's 1.302
    # (4× RTX 4090, llama 1B F16 tg128: 314.75 → 409.87 tok/s), an estimate.
    assert layer["speed_basis"] == "measured"
    assert layer["decode_tokens_per_s_per_seq"] == XD_3090_X2_70B_Q4KM
    assert pytest.approx(1.302, abs=0.001) == TENSOR_SPLIT_DENSE_SPEEDUP
    modelled_layer = tensor["decode_tokens_per_s_per_seq"] / TENSOR_SPLIT_DENSE_SPEEDUP
    assert XD_3090_X2_70B_Q4KM / 1.25 <= modelled_layer <= XD_3090_X2_70B_Q4KM * 1.25
    assert tensor["speed_basis"] == "estimated"


def test_tensor_split_refuses_a_quantized_kv_cache(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["recommend", "--model", "llama-3.1-70b", "--weights", "q4_k_m", "--engine"]
    argv += ["generic", "--gpu", "rtx-3090", "--split-mode", "tensor", "--kv-dtype", "fp8"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "--split-mode" in err and "quantized KV cache" in err


def test_split_mode_is_llama_cpp_only(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["memory", "--model", "llama-3.1-8b", "--engine", "vllm", "--split-mode", "layer"]
    assert main(argv) == 2
    assert "--split-mode" in capsys.readouterr().err


def test_a_layer_split_is_no_faster_than_one_gpu() -> None:
    # Measured: 1× 4090 127.74, 2× 4090 122.56 tok/s on Llama 3 8B Q4_K_M (the second card
    # adds memory, not speed).
    assert XD_4090_X2_8B_Q4KM < XD_4090_X1_8B_Q4KM
    one, two = (
        plan_local_serving(
            LocalServingRequest(model="llama-3.1-8b", weights="q4_k_m", gpu="rtx-4090", gpus=n)
        )
        for n in (1, 2)
    )
    assert one.decode_tokens_per_s is not None and two.decode_tokens_per_s is not None
    assert two.decode_tokens_per_s <= one.decode_tokens_per_s * 1.001
    assert "--split-mode" not in two.launch_command  # the layer split is the default


def test_local_plan_tensor_split_speed_and_launch_line() -> None:
    layer, tensor = (
        plan_local_serving(
            LocalServingRequest(
                model="llama-3.1-70b", weights="q4_k_m", gpu="rtx-3090", gpus=2, split_mode=mode
            )
        )
        for mode in ("layer", "tensor")
    )
    assert layer.decode_tokens_per_s is not None and tensor.decode_tokens_per_s is not None
    assert tensor.decode_tokens_per_s / layer.decode_tokens_per_s == pytest.approx(1.302, 0.001)
    assert tensor.decode_label == "estimated"
    assert tensor.launch_command.endswith("--split-mode tensor")


def test_moe_gains_nothing_from_the_tensor_split() -> None:
    # PR #19378, 4× RTX 4090, gpt-oss 120B MXFP4 tg128: 180.36 (layer) vs 179.79 (tensor).
    layer, tensor = (
        plan_local_serving(
            LocalServingRequest(model="gpt-oss-120b", gpu="rtx-4090", gpus=4, split_mode=mode)
        )
        for mode in ("layer", "tensor")
    )
    assert layer.decode_tokens_per_s == pytest.approx(tensor.decode_tokens_per_s)
