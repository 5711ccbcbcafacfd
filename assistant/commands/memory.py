"""`gpu-sizer memory`: memory per GPU for a model and workload, with a breakdown.

Imports `tools` and the offline renderer's verdict words (never Textual or openai). The human
output leads with the verdict (the line `ask` and the MCP server lead with), names components
in words and shows memory in GiB (`--unit GB` on request). `--json` prints the public contract:
bytes as integers, `total_params`, `active_params`, `per_gpu_bytes`, `total_bytes`,
`kv_cache_bytes_per_token`, `breakdown`, `assumptions` (and `fits`, `headroom_bytes` with
--gpu; `shape_question` when a model given by `--params` fits one architecture of that size and
not another: the question `ask` asks).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from assistant.cli_examples import help_with_examples
from assistant.commands._flags import CommandFlags, request
from assistant.commands._progress import working
from assistant.render.output import (
    Blank,
    Cell,
    Column,
    Document,
    Line,
    MarkdownText,
    Style,
    Styled,
    Table,
    add_format_options,
    emit,
    lines,
    output_format,
)
from tools.memory import MemoryEstimate, MemoryRequest, component_name, engine_name, estimate_memory
from tools.sizing.configuration import ShapeQuestion, SizedConfiguration
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
        "optimizer state and runtime overhead, with the assumptions behind each. With --gpu, "
        "the first line says whether it fits.",
        **help_with_examples("memory"),
    )
    flags = CommandFlags(p)
    flags.add(MemoryRequest, p.add_argument_group("model (give one)"), only=_MODEL_CHOICE)
    flags.add(MemoryRequest, exclude=_MODEL_CHOICE)
    p.add_argument(
        "--unit",
        choices=["GiB", "GB"],
        default="GiB",
        help="display unit of the table (default GiB = 2^30 bytes, what nvidia-smi and PyTorch "
        "report and every gpu-sizer table uses)",
    )
    add_format_options(p, "print the JSON contract")
    return p


def json_contract(est: MemoryEstimate) -> dict[str, Any]:
    """The --json output (a public contract for scripts and agents)."""
    return est.to_json_dict()


def _amount(num_bytes: float, unit: ByteUnit) -> str:
    return f"{to_unit(num_bytes, unit):,.2f}"


def component_table(est: MemoryEstimate, unit: ByteUnit = "GiB") -> Table:
    """The breakdown per GPU in one unit: each component that holds memory, by its name in
    words (a component sized at zero — gradients when serving — is left out), then the total
    and, with a GPU, what it offers and the headroom."""
    columns = (
        Column("component"),
        Column(f"{unit} per GPU", numeric=True),
        Column("what it is", drop=1),
    )
    rows: list[list[Cell]] = [
        [component_name(c.name), _amount(c.bytes_per_gpu, unit), component_name(c.name, True)]
        for c in est.components
        if c.bytes_per_gpu
    ]
    rows.append(
        [
            Styled("total per GPU", "strong"),
            Styled(_amount(est.per_gpu_bytes, unit), "strong"),
            "the sum above",
        ]
    )
    if est.num_gpus > 1:
        rows.append(["all GPUs", _amount(est.total_bytes, unit), f"{est.num_gpus} GPUs together"])
    if est.host_ram_bytes:
        rows.append(["host RAM (offload)", _amount(est.host_ram_bytes, unit), "kept in CPU memory"])
    if est.gpu is not None and est.budget_bytes_per_gpu is not None:
        assert est.headroom_bytes is not None and est.usable_bytes_per_gpu is not None
        verdict: Style = "good" if est.fits else "bad"
        rows += [
            [
                f"usable on {est.gpu}",
                _amount(est.usable_bytes_per_gpu, unit),
                "what one process can allocate",
            ],
            ["budget", _amount(est.budget_bytes_per_gpu, unit), "what the engine may use of it"],
            [
                Styled("headroom", verdict),
                Styled(_amount(est.headroom_bytes, unit), verdict),
                "budget − total (negative: does not fit)",
            ],
        ]
    return Table(columns, rows)


def memory_document(est: MemoryEstimate, unit: ByteUnit = "GiB") -> Document:
    """Human output: the verdict first (the words `ask` and the MCP server lead with), what
    was sized, one table in one unit, then warnings and assumptions."""
    from assistant.render.memory_verdict import memory_verdict_text

    table = component_table(est, unit)
    doc = Document(data=table)
    doc.add(MarkdownText(memory_verdict_text([est]).strip()))
    doc.line(
        f"{est.model_name} · {task_words(est.task)} · {est.weights_format} weights · "
        f"{est.kv_dtype} KV cache · {engine_name(est.engine)} · {est.num_gpus} GPU"
        f"{'s' if est.num_gpus != 1 else ''} (TP {est.tp}, PP {est.pp}, DP {est.dp})"
    )
    doc.line(
        f"Parameters: {format_count(est.total_params)} total, "
        f"{format_count(est.active_params)} active per token"
        + (f", {format_count(est.trainable_params)} trainable" if est.trainable_params else "")
        + f"; context {est.context:,} tokens × batch {est.batch}"
    )
    doc.add(Blank(), table)
    doc.line(f"1 {unit} = {'10^9' if unit == 'GB' else '2^30'} bytes", style="dim")
    if est.warnings:
        doc.add(Blank(), Line("Warnings:", style="warn"))
        doc.add(*lines([str(w) for w in est.warnings], bullet="!", indent=2, style="warn"))
    doc.add(Blank(), Line("Assumptions:", style="heading"))
    doc.add(*lines(est.assumptions, bullet="-", indent=2))
    return doc


def render_table(est: MemoryEstimate, unit: ByteUnit = "GiB") -> str:
    """The human output as plain text (no terminal: no colour, no wrapping)."""
    from assistant.render.output import Terminal, render_terminal

    return render_terminal(memory_document(est, unit), Terminal(False, None, None, False))


def task_words(task: str) -> str:
    """The task as readers say it."""
    return {"inference": "serving", "full": "full fine-tune", "lora": "LoRA", "qlora": "QLoRA"}.get(
        task, task
    )


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
    with working("estimating memory"):
        estimate = estimate_memory(req)
        question = architecture_question(req, estimate)
    if output_format(args) == "json":
        record = json_contract(estimate)
        if question is not None:
            record["shape_question"] = {
                **question.model_dump(mode="json"),
                "question": question.question,
            }
        print(json.dumps(record, indent=2))
        return 0
    doc = memory_document(estimate, args.unit)
    if question is not None:
        doc.add(Blank(), Line(question.question, lead="Architecture question:", lead_style="warn"))
    emit(doc, args)
    return 0
