"""`gpu-sizer recommend`: the smallest configuration on each GPU that fits and meets the targets.

The memory helper's argument builder did not exist when this was written, so the model and
memory flags are declared here with the same names as `gpu-sizer memory`.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from assistant.commands._args import token_count
from tools.defaults import DEFAULT_CONTEXT_TOKENS, DEFAULT_OUTPUT_TOKENS, DEFAULT_PROMPT_TOKENS
from tools.units import format_bytes

# With no lengths given, the shared default shape, scaled down to a shorter model maximum.
_CAPPED = "or the model's maximum when smaller"


def add_workload_arguments(parser: argparse.ArgumentParser) -> None:
    """Workload flags shared by `recommend` (and reusable by `cost`)."""
    model = parser.add_mutually_exclusive_group()
    model.add_argument("--model", help="catalog model id or alias, e.g. llama-3.1-70b")
    model.add_argument("--params", help="bare parameter count, e.g. 13B or 7.5e9")
    model.add_argument("--config", dest="config_path", help="path of a config.json")
    model.add_argument(
        "--model-file",
        dest="model_file",
        metavar="PATH",
        help="local model: a GGUF file, a model folder, config.json or safetensors index",
    )
    parser.add_argument("--task", choices=["inference", "full", "lora", "qlora"])
    parser.add_argument("--weights", help="weight format (bf16, fp8, int8, int4-awq, nf4, ...)")
    parser.add_argument("--kv-dtype", dest="kv_dtype")
    parser.add_argument("--engine", choices=["vllm", "transformers", "generic"])
    parser.add_argument("--gpu-memory-utilization", dest="gpu_memory_utilization", type=float)
    parser.add_argument(
        "--context",
        type=token_count,
        help=f"KV length per sequence, tokens (default prompt + output = "
        f"{DEFAULT_CONTEXT_TOKENS}, {_CAPPED})",
    )
    parser.add_argument("--users", type=int, help="concurrent sequences")
    parser.add_argument(
        "--prompt-tokens",
        dest="prompt_tokens",
        type=token_count,
        help=f"input tokens per request (default {DEFAULT_PROMPT_TOKENS})",
    )
    parser.add_argument(
        "--output-tokens",
        dest="output_tokens",
        type=token_count,
        help=f"generated tokens per request (default {DEFAULT_OUTPUT_TOKENS})",
    )
    parser.add_argument("--ttft", dest="ttft_s", type=float, help="TTFT target, seconds")
    parser.add_argument(
        "--tokens-per-s", dest="tokens_per_s", type=float, help="aggregate output tok/s target"
    )
    parser.add_argument(
        "--tokens-per-s-per-user", dest="tokens_per_s_per_user", type=float, help="tok/s per user"
    )
    parser.add_argument("--batching", choices=["continuous", "static"])
    parser.add_argument("--train-tokens", dest="train_tokens", type=token_count)
    parser.add_argument(
        "--seq-len",
        dest="sequence_length",
        type=token_count,
        help=f"training sequence length, tokens (default {DEFAULT_CONTEXT_TOKENS}, {_CAPPED})",
    )
    parser.add_argument("--global-batch", dest="global_batch_sequences", type=int)
    parser.add_argument("--deadline-hours", dest="deadline_hours", type=float)
    parser.add_argument("--lora-rank", dest="lora_rank", type=int)
    parser.add_argument("--zero", type=int, choices=[0, 1, 2, 3])
    parser.add_argument("--checkpointing", action=argparse.BooleanOptionalAction, default=None)
    parser.add_argument(
        "--objective", choices=["cheapest", "cheapest_per_token", "fastest", "fewest_gpus"]
    )
    parser.add_argument("--max-gpus", dest="max_gpus", type=int)
    parser.add_argument("--only", nargs="+", dest="only_gpus", metavar="GPU")
    parser.add_argument("--exclude", nargs="+", dest="exclude_gpus", metavar="GPU")
    parser.add_argument("--single-node", dest="single_node", action="store_true", default=None)
    parser.add_argument("--budget-usd-per-hour", dest="budget_usd_per_hour", type=float)


_CONSTRAINTS = ("max_gpus", "only_gpus", "exclude_gpus", "single_node", "budget_usd_per_hour")


def workload_arguments(args: argparse.Namespace) -> dict[str, Any]:
    """The Workload fields given on the command line (absent flags left to defaults)."""
    from tools.workload import Workload

    data = {k: v for k, v in vars(args).items() if k in Workload.model_fields and v is not None}
    constraints = {k: getattr(args, k) for k in _CONSTRAINTS if getattr(args, k, None) is not None}
    if constraints:
        data["constraints"] = constraints
    return data


def add_parser(subparsers: Any, help_text: str) -> None:
    parser = subparsers.add_parser("recommend", help=help_text, description=help_text)
    add_workload_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print the options as JSON")
    parser.add_argument(
        "--all-layouts", action="store_true", help="also list every rejected layout"
    )


_JSON_FIELDS = (
    "gpu",
    "count",
    "tp",
    "pp",
    "dp",
    "fits",
    "meets_targets",
    "per_gpu_bytes",
    "kv_cache_capacity_bytes",
    "kv_cache_capacity_tokens",
    "max_concurrent_sequences",
    "sequences_per_replica",
    "decode_tokens_per_s_per_seq",
    "aggregate_tokens_per_s",
    "prefill_tokens_per_s",
    "ttft_s",
    "usd_per_hour",
    "price_id",
    "billed_gpus",
    "price_as_of",
    "price_age",
    "reasons",
    "notes",
)


def option_record(option: Any, training: bool) -> dict[str, Any]:
    """The public JSON form of one option (bytes as integers)."""
    record = {name: getattr(option, name) for name in _JSON_FIELDS}
    if training:
        record.update(
            training_step_s=option.training_step_s,
            training_hours=option.training_hours,
            gpu_hours=option.gpu_hours,
        )
    return record


def run(args: argparse.Namespace) -> int:
    from assistant.recommend_tool import run_recommend
    from tools.workload import validate_workload

    workload = validate_workload(workload_arguments(args))
    result = run_recommend(workload)
    training = workload.is_training
    assumptions = result.assumptions  # the defaulted request lengths lead them
    if args.json:
        out: dict[str, Any] = {
            "model_id": result.model_id,
            "total_params": result.total_params,
            "active_params": result.active_params,
            "weights_format": result.weights_format,
            "weight_bytes": result.weight_bytes,
            "kv_cache_bytes_per_token": result.kv_cache_bytes_per_token,
            "options": [option_record(o, training) for o in result.options],
            "notes": result.notes,
            "nearest_feasible": result.nearest_feasible,
            "warnings": result.warnings,
            "assumptions": assumptions,
        }
        if args.all_layouts:
            out["rejected"] = [option_record(o, training) for o in result.rejected]
        print(json.dumps(out, indent=2))
        return 0
    print(
        f"{result.model_id}: {result.total_params:,} parameters ({result.active_params:,} "
        f"active), {result.weights_format} weights {format_bytes(result.weight_bytes, 'GiB')}, "
        f"KV cache {result.kv_cache_bytes_per_token:,} bytes per token, "
        f"context {result.context_tokens:,} tokens"
    )
    header = (
        "GPU | count | TP×PP×DP | per GPU (GiB) | KV left (GiB) | KV tokens per replica"
        " | max seqs per replica"
    )
    header += " | train h" if training else " | tok/s/seq | aggregate tok/s | TTFT s"
    header += " | on-demand USD/h | price age"
    print(header)
    shown = result.options + (result.rejected if args.all_layouts else [])
    for o in shown:
        row = (
            f"{o.gpu} | {o.count} | {o.tp}×{o.pp}×{o.dp} | "
            f"{o.per_gpu_bytes / 2**30:,.1f} | {o.kv_cache_capacity_bytes / 2**30:,.1f} | "
            f"{o.kv_cache_capacity_tokens:,} | {o.max_concurrent_sequences:,}"
        )
        if training:
            row += f" | {'-' if o.training_hours is None else f'{o.training_hours:,.1f}'}"
        else:
            speed = o.decode_tokens_per_s_per_seq
            agg = o.aggregate_tokens_per_s
            row += f" | {'-' if speed is None else f'{speed:,.1f}'}"
            row += f" | {'-' if agg is None else f'{agg:,.0f}'}"
            row += f" | {'-' if o.ttft_s is None else f'{o.ttft_s:.3f}'}"
        row += f" | {'-' if o.usd_per_hour is None else f'{o.usd_per_hour:,.2f}'}"
        row += f" | {o.price_age or '-'}"
        status = "ok" if o.meets_targets else ("misses targets" if o.fits else "does not fit")
        print(f"{row} | {status}")
        for reason in o.reasons:
            print(f"    - {reason}")
        for note in o.notes:
            print(f"    · {note}")
    for warning in result.warnings:
        print(f"warning: {warning}")
    for note in result.notes:
        print(f"note: {note}")
    if result.nearest_feasible:
        print(result.nearest_feasible)
    print("assumptions:")
    for line in assumptions:
        print(f"  - {line}")
    return 0
