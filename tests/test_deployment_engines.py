"""Engine-specific KV pools and launch lines (issue 30 item 5), against the engines' published
rules and hand arithmetic written out here."""

from __future__ import annotations

import shlex

import pytest

from assistant.offline.parser import parse_workload
from assistant.offline.planner import plan_tool_calls
from tools.deployment import EngineRequest, plan_engine, sglang_default_fraction
from tools.sizing import SizingRequest, size

MiB = 2**20
H100_TOTAL = 81_559 * MiB  # nvidia-smi on an H100 80GB (shared/research README)
# Llama 3.1 8B: 8,030,261,248 parameters (meta-device count) × 2 bytes (bf16).
LLAMA_8B_BF16 = 8_030_261_248 * 2
# KV per token: 2 (K, V) × 32 layers × 8 KV heads × 128 head_dim × 2 bytes = 131,072 B.
LLAMA_8B_KV_TOKEN = 2 * 32 * 8 * 128 * 2
CUDA_CONTEXT = 1343 * MiB + 32 * MiB  # context (HF docs, 1343 MB) + cuBLAS workspace 32 MiB


def _plan(engine: str, **kw: object) -> object:
    args: dict[str, object] = {"model": "llama-3.1-8b", "gpu": "h100-sxm", "serve_engine": engine}
    args.update(kw)
    return plan_engine(EngineRequest.model_validate(args))


@pytest.mark.parametrize(
    ("tp", "fraction"), [(1, 0.88), (2, 0.87), (4, 0.85), (8, 0.81), (16, 0.79)]
)
def test_sglang_default_fraction_follows_its_tp_rule(tp: int, fraction: float) -> None:
    # sglang ServerArgs.__post_init__ (v0.4): 0.88 / 0.87 / 0.85 / 0.81 / 0.79.
    assert sglang_default_fraction(tp) == fraction


def test_sglang_pool_is_fraction_of_total_less_weights_and_context() -> None:
    plan = _plan("sglang", context=8192, sequences=16)
    assert plan.total_bytes_per_gpu == H100_TOTAL
    assert plan.weights_bytes_per_gpu == LLAMA_8B_BF16
    expected = int(0.88 * H100_TOTAL) - LLAMA_8B_BF16 - CUDA_CONTEXT
    assert plan.kv_pool_bytes_per_gpu == expected
    assert plan.kv_bytes_per_token_per_gpu == LLAMA_8B_KV_TOKEN
    assert plan.pool_tokens == expected // LLAMA_8B_KV_TOKEN  # page size 1
    assert plan.max_sequences == plan.pool_tokens // 8192
    assert "--mem-fraction-static 0.88" in plan.command


def test_tensorrt_pool_is_a_fraction_of_free_memory() -> None:
    plan = _plan("tensorrt-llm", context=8192, sequences=16)
    vllm = _plan("vllm", context=8192, sequences=16)
    # 0.9 × free, where free = total − weights − activations − context; vLLM's pool (0.9 ×
    # total − everything) is smaller by 0.1 × (weights + activations + context) less graphs.
    free = plan.kv_pool_bytes_per_gpu / 0.9
    assert H100_TOTAL - LLAMA_8B_BF16 - CUDA_CONTEXT > free > 0.9 * H100_TOTAL - LLAMA_8B_BF16
    assert plan.kv_pool_bytes_per_gpu > vllm.kv_pool_bytes_per_gpu
    assert "--kv_cache_free_gpu_memory_fraction 0.9" in plan.command


def test_vllm_pool_holds_whole_16_token_blocks() -> None:
    plan = _plan("vllm", context=8192, sequences=16)
    assert plan.pool_tokens % 16 == 0
    assert plan.pool_tokens * LLAMA_8B_KV_TOKEN <= plan.kv_pool_bytes_per_gpu
    assert (plan.pool_tokens + 16) * LLAMA_8B_KV_TOKEN > plan.kv_pool_bytes_per_gpu


def test_vllm_command_reproduces_the_configuration() -> None:
    plan = _plan("vllm", model="llama-3.1-70b", tp=4, context=8192, sequences=20, kv_dtype="fp8")
    argv = shlex.split(plan.command)
    assert argv[:3] == ["vllm", "serve", "meta-llama/Llama-3.1-70B-Instruct"]
    flags = dict(zip(argv[3::2], argv[4::2], strict=True))
    assert flags["--tensor-parallel-size"] == "4"
    assert flags["--max-model-len"] == "8192"
    assert flags["--max-num-seqs"] == "20"
    assert flags["--gpu-memory-utilization"] == "0.9"
    assert flags["--kv-cache-dtype"] == "fp8"
    # fp8 KV halves the per-token bytes: 2 × 80 layers × 8 heads × 128 × 1 B / TP 4.
    assert plan.kv_bytes_per_token_per_gpu == 2 * 80 * 8 * 128 // 4


def test_fp8_weights_on_a_16_bit_checkpoint_quantize_at_load() -> None:
    for engine in ("vllm", "sglang"):
        plan = _plan(engine, weights="fp8")
        assert "--quantization fp8" in plan.command


def test_tensorrt_fp8_kv_goes_through_its_yaml() -> None:
    plan = _plan("tensorrt-llm", kv_dtype="fp8")
    assert "--extra_llm_api_options" in plan.command
    assert plan.config_file == "kv_cache_config:\n  dtype: fp8\n"


def test_llama_cpp_plan_is_the_local_plans_exact_cache() -> None:
    plan = _plan("llama.cpp", context=4096, sequences=2, weights="q8_0")
    # llama.cpp allocates -c = 2 × 4096 cells: 8192 × 131,072 B (f16 cache) = 1 GiB exactly.
    assert plan.kv_pool_bytes_per_gpu == 8192 * LLAMA_8B_KV_TOKEN
    assert plan.command.startswith("llama-server ") and "-c 8192" in plan.command


@pytest.mark.parametrize(
    ("question", "engine", "head"),
    [
        ("give me the vllm serve command for Llama 3.1 70B on H100s, 20 users", "vllm", "vllm"),
        ("What command line starts Qwen2.5 32B in vLLM on 2x A100 80GB?", "vllm", "vllm"),
        ("How do I launch Llama 3.1 8B with SGLang on an L40S?", "sglang", "python"),
        ("sglang.launch_server flags for llama 3.1 8b on one H100, 32 users", "sglang", "python"),
        ("trtllm-serve command for llama 3.1 70b on 4 H100", "tensorrt-llm", "trtllm-serve"),
        ("Serve Llama 3.1 8B with TensorRT-LLM on an H100 for 32 users", "tensorrt-llm", "trtllm"),
        ("launch command for Llama 3.1 8B on an L4", "vllm", "vllm"),
    ],
)
def test_offline_questions_reach_the_engine_plan(question: str, engine: str, head: str) -> None:
    parsed = parse_workload(question)
    assert parsed.serve_engine == engine, parsed
    assert not parsed.questions, parsed.questions
    calls = plan_tool_calls(parsed)
    args = next(c.arguments for c in calls if c.name == "size")
    assert args["serve_engine"] == engine
    report = size(SizingRequest.model_validate(args))
    assert report.engine_plan is not None, report.engine_plan_error
    assert report.engine_plan.command.startswith(head)
    o = report.headline.option if report.headline else None
    assert o is not None and report.engine_plan.tp == o.tp


def test_no_engine_plan_unless_asked() -> None:
    parsed = parse_workload("Llama 3.1 8B on an H100 for 32 users with vLLM")
    assert parsed.serve_engine is None
    parsed = parse_workload("Fine-tune Llama 3.1 8B with LoRA on an H100, what command?")
    assert parsed.serve_engine is None


def test_offline_answer_leads_with_the_command() -> None:
    from assistant.render import render_answer

    parsed = parse_workload("give me the vllm serve command for Llama 3.1 8B on an H100")
    args = next(c.arguments for c in plan_tool_calls(parsed) if c.name == "size")
    answer = render_answer(parsed, size(SizingRequest.model_validate(args)))
    assert "vllm serve meta-llama/Llama-3.1-8B-Instruct" in answer.visible


@pytest.mark.parametrize(
    ("engine", "cap"),
    [
        ("vllm", "--max-num-seqs"),
        ("sglang", "--max-running-requests"),
        ("tensorrt-llm", "--max_batch_size"),
    ],
)
def test_no_load_stated_leaves_the_engines_own_batch_cap(engine: str, cap: str) -> None:
    # A line pinned to the one sequence a load-less question is sized for ('--max-num-seqs 1')
    # would serve one request at a time; with no load stated the flag is left out.
    unstated = _plan(engine, context=8192)
    assert unstated.sequences is None and cap not in shlex.split(unstated.command)
    assert unstated.fits and any("No load stated" in n for n in unstated.notes)
    stated = _plan(engine, context=8192, sequences=16)
    flags = shlex.split(stated.command)
    assert flags[flags.index(cap) + 1] == "16"


@pytest.mark.parametrize(
    ("question", "cap"),
    [
        ("give me the vllm serve command for Llama 3.1 70B on 4x H100", None),
        ("vllm serve command for Llama 3.1 70B on 4x H100 for 40 users", "40"),
    ],
)
def test_the_reports_launch_line_caps_sequences_only_at_a_stated_load(
    question: str, cap: str | None
) -> None:
    parsed = parse_workload(question)
    args = next(c.arguments for c in plan_tool_calls(parsed) if c.name == "size")
    plan = size(SizingRequest.model_validate(args)).engine_plan
    assert plan is not None
    flags = shlex.split(plan.command)
    if cap is None:
        assert "--max-num-seqs" not in flags
    else:
        assert flags[flags.index("--max-num-seqs") + 1] == cap


def test_lora_serving_and_a_vllm_line_are_one_command_holding_the_adapters() -> None:
    # 20 adapters of rank 16 on Llama 3.1 8B (bf16 slots, 2 B): per layer the slots hold
    # Σ(in + out) over q/k/v/o/gate/up/down = (4096+4096) + (4096+1024)·2 + (4096+4096)
    # + (4096+14336)·2 + (14336+4096) = 81,920 per rank; 32 layers × 16 × 81,920 × 2 B
    # = 83,886,080 B a slot; 20 slots = 1,677,721,600 B beside the 16,060,522,496 B of weights.
    question = "Llama 3.1 8B with 20 LoRA adapters for 50 users on an L40S, vllm command?"
    parsed = parse_workload(question)
    args = next(c.arguments for c in plan_tool_calls(parsed) if c.name == "size")
    report = size(SizingRequest.model_validate(args))
    plan, lora = report.engine_plan, report.lora_serving
    assert plan is not None and lora is not None and plan.tp == 1
    assert lora.slot_bytes == 32 * 16 * 81_920 * 2 == 83_886_080
    assert plan.weights_bytes_per_gpu == 16_060_522_496 + 20 * 83_886_080
    flags = shlex.split(plan.command.removesuffix(" …"))
    assert flags[:2] == ["vllm", "serve"] and "--enable-lora" in flags
    assert flags[flags.index("--max-loras") + 1] == "20"
    assert flags[flags.index("--max-lora-rank") + 1] == "16"
    assert lora.launch == plan.command  # the LoRA part shows the same one line
