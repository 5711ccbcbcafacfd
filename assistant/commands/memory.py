"""`gpu-sizer memory`: memory per GPU for a model and workload, with a breakdown.

Imports only `tools` (never Textual or openai). `--json` prints the public contract: bytes as
integers, `total_params`, `active_params`, `per_gpu_bytes`, `total_bytes`,
`kv_cache_bytes_per_token`, `breakdown`, `assumptions` (and `fits`, `headroom_bytes` with --gpu;
`shape_question` when a model given by `--params` fits one architecture of that size and not
another: the question `ask` asks).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from assistant.commands._flags import CommandFlags, request
from tools.memory import MemoryEstimate, MemoryRequest, estimate_memory
from tools.sizing.report import ShapeQuestion, SizedConfiguration
from tools.sizing.shapes import shape_question
from tools.units import ByteUnit, format_count, to_unit

# The fields that say which model (give one), shown as their own group in --help.
_MODEL_CHOICE = ("model", "params", "config_path", "model_file")


def add_parser(subparsers: Any, help_text: str) -> argparse.ArgumentParser:
    """Register `memory`: one flag per MemoryRequest field (assistant/commands/_flags.py)."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "memory",
        help=help_text,
        description="Memory needed per GPU: weights, KV cache, activations, gradients, "
        "optimizer state and runtime overhead, with the assumptions behind each.",
    )
    flags = CommandFlags(p)
    flags.add(MemoryRequest, p.add_argument_group("model (give one)"), only=_MODEL_CHOICE)
    flags.add(MemoryRequest, exclude=_MODEL_CHOICE)
    p.add_argument(
        "--unit",
        choices=["GB", "GiB"],
        default="GB",
        help="display unit of the table (default GB = 10^9 bytes)",
    )
    p.add_argument("--json", action="store_true", help="print the JSON contract")
    return p


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


def architecture_question(req: MemoryRequest, est: MemoryEstimate) -> ShapeQuestion | None:
    """A model given only by its size (`--params`) on a GPU whose verdict depends on its
    architecture: the question `ask` asks too (tools/sizing/shapes.py, the same computation)."""
    if req.params is None or est.gpu is None:
        return None
    fields = req.model_dump(mode="json", exclude_unset=True)
    sized = SizedConfiguration(gpu=est.gpu, count=est.num_gpus, estimate=est)
    return shape_question(fields, sized)


def run(args: argparse.Namespace) -> int:
    """Validate, estimate, print. Bad input raises ToolInputError naming the flag (the
    dispatcher restates a tool's own errors under the flag typed and exits 2)."""
    req = request(MemoryRequest, args)
    estimate = estimate_memory(req)
    question = architecture_question(req, estimate)
    if args.json:
        record = json_contract(estimate)
        if question is not None:
            record["shape_question"] = {
                **question.model_dump(mode="json"),
                "question": question.question,
            }
        print(json.dumps(record, indent=2))
    else:
        print(render_table(estimate, args.unit))
        if question is not None:
            print(f"\nArchitecture question: {question.question}")
    return 0
