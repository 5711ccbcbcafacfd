"""Tool results as the renderer reads them: `CallResult`, byte figures out of the registry's
compact form (`*_GB` = 10^9 bytes, `*_bytes`), and the labels every part of an answer shares
(GiB figures, GPU names, configurations, error text).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tools.catalog import get_catalog
from tools.units import GB, format_bytes


@dataclass(frozen=True)
class CallResult:
    """One executed tool call, as the renderer needs it."""

    name: str
    arguments: dict[str, Any]
    result: dict[str, Any]
    is_error: bool = False


def bytes_from(result: dict[str, Any], name: str) -> float | None:
    """A byte figure from a compact result: `name_bytes`, or `name_GB` × 10^9."""
    if isinstance(result.get(f"{name}_bytes"), int | float):
        return float(result[f"{name}_bytes"])
    if isinstance(result.get(f"{name}_GB"), int | float):
        return float(result[f"{name}_GB"]) * GB
    return None


def per_gpu_figure(result: dict[str, Any], name: str) -> float | None:
    """`<name>_bytes_per_gpu` of a memory result (the registry keeps these in bytes)."""
    value = result.get(f"{name}_bytes_per_gpu")
    if isinstance(value, int | float):
        return float(value)
    return bytes_from(result, f"{name}_per_gpu")


def gib(num_bytes: float | None) -> str:
    """Bytes as GiB text with one decimal (2^30 bytes, as nvidia-smi reports); 'n/a' for None."""
    return "n/a" if num_bytes is None else format_bytes(num_bytes, "GiB", 1)


def priced_by(row: dict[str, Any]) -> str:
    """'AWS, 2026-09-19, 74 days old': who prices a row, its as_of and (when the result
    carries it) its age on the clock of the call."""
    age = row.get("age")
    return f"{row.get('provider')}, {row.get('as_of')}" + (f", {age}" if age else "")


def gpu_name(gpu_id: str | None) -> str:
    """A GPU's catalog name without 'NVIDIA ' (its id when not catalogued); 'one GPU' for None."""
    if gpu_id is None:
        return "one GPU"
    gpu = get_catalog().gpus.get(gpu_id)
    return gpu.name.removeprefix("NVIDIA ") if gpu else gpu_id


def config_label(arguments: dict[str, Any]) -> str:
    """A sized configuration from its call's arguments: '2× H100 SXM5 with ZeRO-3', 'one GPU'."""
    count = int(arguments.get("gpus", 1))
    if arguments.get("gpu") is None:  # sized without a GPU named: no "1× one GPU"
        return "one GPU" if count == 1 else f"{count} GPUs"
    zero = arguments.get("zero")
    sharded = f" with ZeRO-{zero}" if zero and count > 1 else ""
    return f"{count}× {gpu_name(arguments.get('gpu'))}{sharded}"


def plain_data_parallel(call: CallResult) -> bool:
    """A multi-GPU full-training estimate without ZeRO or TP/PP: every GPU holds the whole
    weights, gradients and optimizer state (the tools' default for training)."""
    args = call.arguments
    return (
        args.get("task") == "full"
        and int(args.get("gpus", 1)) > 1
        and not args.get("zero")
        and "tp" not in args
        and "pp" not in args
    )


def is_training(calls: list[CallResult]) -> bool:
    """Whether any call sizes a training task (full, LoRA, QLoRA) rather than serving."""
    return any(c.arguments.get("task") in ("full", "lora", "qlora") for c in calls)


def error_text(call: CallResult) -> str:
    """A failed call's error on one line: 'field: problem' for each problem the tool listed."""
    r = call.result
    text = str(r.get("error") or r.get("problem") or "rejected")
    if r.get("field"):
        text = f"{r['field']}: {text}"
    problems = [
        f"{p.get('field')}: {p.get('problem')}"
        for p in r.get("problems", [])
        if isinstance(p, dict)
    ]
    return "; ".join(problems) if problems else text
