"""`gpu-sizer memory`: memory per GPU for a model and workload, with a breakdown.

Imports only `tools` (never Textual or openai). `--json` prints the public contract: bytes as
integers, `total_params`, `active_params`, `per_gpu_bytes`, `total_bytes`,
`kv_cache_bytes_per_token`, `breakdown`, `assumptions` (and `fits`, `headroom_bytes` with --gpu).
"""

from __future__ import annotations

import argparse
import json
import re
from typing import Any

from assistant.commands._args import flag_error, token_count
from tools.defaults import DEFAULT_CONTEXT_TOKENS
from tools.errors import ToolInputError
from tools.memory import MemoryEstimate, estimate_memory, validate_request
from tools.units import ByteUnit, format_count, to_unit

# CLI flag → MemoryRequest field, for flags whose names differ.
_FIELD_FOR_DEST = {"config": "config_path", "prefill_chunk": "prefill_chunk_tokens"}
_NOT_FIELDS = {"command", "json", "unit"}
# Any '-' followed by a digit is a value, never a flag (no flag here starts with a digit), so
# `--params -7B` reaches the parameter-count check instead of argparse's "expected one
# argument". argparse's default pattern takes only plain negative numbers (-7, -0.5) as values;
# Python 3.14's argparse widened it to this same prefix rule.
_NEGATIVE_VALUE = re.compile(r"^-\.?\d")


def add_parser(subparsers: Any, help_text: str) -> argparse.ArgumentParser:
    """Register `memory` on the dispatcher's sub-parsers."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "memory",
        help=help_text,
        description="Memory needed per GPU: weights, KV cache, activations, gradients, "
        "optimizer state and runtime overhead, with the assumptions behind each.",
    )
    which = p.add_argument_group("model (give one)")
    which.add_argument("--model", help="catalog model id or alias, e.g. llama-3.1-70b")
    which.add_argument("--params", help="bare parameter count, e.g. 13B or 7.5e9")
    which.add_argument("--config", metavar="PATH", help="local Hugging Face config.json")
    which.add_argument(
        "--model-file",
        metavar="PATH",
        help="local model: a GGUF file (header and exact tensor sizes), a model folder, "
        "config.json or model.safetensors(.index.json) (exact weight bytes)",
    )
    p.add_argument("--task", choices=["inference", "full", "lora", "qlora"])
    p.add_argument(
        "--weights",
        help="weight format: bf16, fp16, fp32, fp8, int8, int4-gptq, "
        "int4-awq, nf4, nf4-dq, mxfp4, or a GGUF file type (q2_k … q8_0, iq1_s … iq4_xs)",
    )
    p.add_argument("--group-size", type=int, help="GPTQ/AWQ group size (default 128)")
    p.add_argument(
        "--keep-16bit",
        type=lambda s: [x for x in s.split(",") if x],
        help="comma list of tensors kept 16-bit: embedding,lm_head ('' for none)",
    )
    p.add_argument("--kv-dtype", help="KV-cache dtype: bf16, fp16, fp8, int8, fp32")
    p.add_argument(
        "--context",
        type=token_count,
        help=f"tokens per sequence (default {DEFAULT_CONTEXT_TOKENS}, or the model's maximum "
        "when smaller; the same default as recommend)",
    )
    p.add_argument(
        "--batch",
        "--users",
        type=int,
        help="concurrent sequences (inference; --users is the same) or micro-batch (training)",
    )
    p.add_argument("--gpus", type=int, help="GPUs in total (default 1)")
    p.add_argument("--tp", type=int, help="tensor-parallel degree")
    p.add_argument("--pp", type=int, help="pipeline-parallel stages")
    p.add_argument("--zero", type=int, choices=[0, 1, 2, 3], help="ZeRO stage (3 = FSDP)")
    p.add_argument("--optimizer", choices=["adamw", "adamw-8bit", "sgd", "adafactor"])
    p.add_argument(
        "--precision",
        choices=["mixed-hf", "mixed-zero", "bf16", "fp32"],
        help="training-state accounting (default mixed-hf, 18 B/param with AdamW)",
    )
    p.add_argument(
        "--checkpointing",
        action=argparse.BooleanOptionalAction,
        help="activation checkpointing (default on for training)",
    )
    p.add_argument(
        "--flash-attention",
        action=argparse.BooleanOptionalAction,
        help="fused/flash attention (default on)",
    )
    p.add_argument("--lora-rank", type=int, help="LoRA rank (default 8; 64 for qlora)")
    p.add_argument(
        "--adapter-dtype",
        choices=("bf16", "fp32"),
        help="LoRA adapter dtype: bf16 (QLoRA paper, default) or fp32 (PEFT's default autocast)",
    )
    p.add_argument(
        "--lora-targets",
        type=lambda s: [x for x in s.split(",") if x],
        help="comma list among q,k,v,o,gate,up,down (default all)",
    )
    p.add_argument("--engine", choices=["vllm", "transformers", "generic"])
    p.add_argument("--gpu", help="catalog GPU to check the fit against, e.g. h100-sxm")
    p.add_argument(
        "--gpu-memory-utilization", type=float, help="vLLM fraction of GPU memory (default 0.9)"
    )
    p.add_argument(
        "--offload-optimizer",
        action="store_true",
        default=None,
        help="optimizer state in host RAM (ZeRO-Offload)",
    )
    p.add_argument(
        "--prefill-chunk",
        type=token_count,
        help="tokens per prefill pass (vLLM 8192, llama.cpp 512)",
    )
    p.add_argument(
        "--unit",
        choices=["GB", "GiB"],
        default="GB",
        help="display unit of the table (default GB = 10^9 bytes)",
    )
    p.add_argument("--json", action="store_true", help="print the JSON contract")
    p._negative_number_matcher = _NEGATIVE_VALUE
    return p


def request_fields(args: argparse.Namespace) -> dict[str, Any]:
    """The MemoryRequest fields given on the command line (unset flags left to defaults)."""
    fields: dict[str, Any] = {}
    for dest, value in vars(args).items():
        if dest in _NOT_FIELDS or value is None:
            continue
        fields[_FIELD_FOR_DEST.get(dest, dest)] = value
    return fields


def json_contract(est: MemoryEstimate) -> dict[str, Any]:
    """The --json output (a public contract for scripts and agents)."""
    return est.to_json_dict()


def render_table(est: MemoryEstimate, unit: ByteUnit = "GB") -> str:
    """Human output: one table in one unit family, then assumptions and warnings."""
    lines = [
        f"{est.model_name} · {est.task} · weights {est.weights_format} · KV {est.kv_dtype} · "
        f"engine {est.engine} · {est.num_gpus} GPU(s) (tp {est.tp}, pp {est.pp}, dp {est.dp})",
        f"Parameters: {format_count(est.total_params)} total, "
        f"{format_count(est.active_params)} active per token"
        + (f", {format_count(est.trainable_params)} trainable" if est.trainable_params else "")
        + f"; context {est.context:,} tokens × batch {est.batch}",
        "",
    ]
    width = 22
    header = f"{'component':<{width}}{unit + ' per GPU':>14}"
    lines += [header, "-" * len(header)]
    for comp in est.components:
        lines.append(f"{comp.name:<{width}}{to_unit(comp.bytes_per_gpu, unit):>14,.2f}")
    lines.append("-" * len(header))
    lines.append(f"{'total per GPU':<{width}}{to_unit(est.per_gpu_bytes, unit):>14,.2f}")
    if est.num_gpus > 1:
        lines.append(f"{'all GPUs':<{width}}{to_unit(est.total_bytes, unit):>14,.2f}")
    if est.host_ram_bytes:
        lines.append(f"{'host RAM (offload)':<{width}}{to_unit(est.host_ram_bytes, unit):>14,.2f}")
    if est.gpu is not None and est.budget_bytes_per_gpu is not None:
        assert est.headroom_bytes is not None and est.usable_bytes_per_gpu is not None
        lines.append(
            f"{'usable on ' + est.gpu:<{width}}{to_unit(est.usable_bytes_per_gpu, unit):>14,.2f}"
        )
        lines.append(f"{'budget':<{width}}{to_unit(est.budget_bytes_per_gpu, unit):>14,.2f}")
        verdict = "fits" if est.fits else "does NOT fit"
        lines.append(
            f"{'headroom':<{width}}{to_unit(est.headroom_bytes, unit):>14,.2f}  → {verdict}"
        )
    lines.append(f"(1 {unit} = {'10^9' if unit == 'GB' else '2^30'} bytes)")
    if est.warnings:
        lines += ["", "Warnings:"] + [f"  ! {w}" for w in est.warnings]
    lines += ["", "Assumptions:"] + [f"  - {a}" for a in est.assumptions]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Validate, estimate, print. Bad input raises ToolInputError (the dispatcher exits 2)."""
    fields = request_fields(args)
    try:
        estimate = estimate_memory(validate_request(fields))
    except ToolInputError as exc:
        # Name the flag typed (`--gpus`, `--prefill-chunk`), not the request field.
        flags = {
            _FIELD_FOR_DEST.get(dest, dest): "--" + dest.replace("_", "-") for dest in vars(args)
        }
        raise flag_error(exc, flags, fields) from None
    if args.json:
        print(json.dumps(json_contract(estimate), indent=2))
    else:
        print(render_table(estimate, args.unit))
    return 0
