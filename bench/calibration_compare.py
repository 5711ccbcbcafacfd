"""Compare committed GPU measurements (bench/calibration/*.json) with `tools.memory` predictions.

Each measured point is re-predicted for exactly the model that was built (its config dict is in
the file, so reduced-depth builds are predicted at their built depth) and the same workload.
Tolerances (issue 10): weights, KV cache, gradients and optimizer state ±3%; activation peak and
total ±10%. `python -m bench.calibration_compare` prints the table and the worst error per
component, and exits 1 when any comparison is outside its tolerance.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.harness import percent_error
from tools.units import format_bytes

CALIBRATION_DIR = Path(__file__).resolve().parent / "calibration"

TOLERANCE_PERCENT: dict[str, float] = {
    "weights": 3.0,
    "kv_cache": 3.0,
    "gradients": 3.0,
    "optimizer": 3.0,
    "activations": 10.0,
    "total": 10.0,
}

Predictor = Callable[[dict[str, Any], dict[str, Any]], dict[str, int]]
"""(point, environment) → predicted bytes per component (keys of TOLERANCE_PERCENT)."""


@dataclass(frozen=True)
class Row:
    """One component of one point: measured vs predicted, in bytes."""

    source: str
    point_id: str
    component: str
    measured_bytes: int
    predicted_bytes: int
    tolerance_percent: float

    @property
    def error_percent(self) -> float:
        """Signed error of the prediction against the measurement, in percent."""
        return percent_error(self.predicted_bytes, self.measured_bytes)

    @property
    def ok(self) -> bool:
        return abs(self.error_percent) <= self.tolerance_percent


def measured_components(point: dict[str, Any], environment: dict[str, Any]) -> dict[str, int]:
    """The measured bytes of each component of a point: the CUDA allocator's delta when the
    file has one, else the tensor byte count (CPU runs). Components not measured are absent.
    `total` is the peak device use: peak reserved by PyTorch's allocator + the CUDA context."""
    m = point["measured"]
    picks = {
        "weights": ("allocated_weights_bytes", "counted_weights_bytes"),
        "kv_cache": ("allocated_kv_cache_bytes", "counted_kv_cache_bytes"),
        "gradients": ("allocated_gradients_bytes", "counted_gradients_bytes"),
        "optimizer": ("allocated_optimizer_bytes", "counted_optimizer_bytes"),
        "activations": ("activation_peak_bytes",),
    }
    out: dict[str, int] = {}
    for component, keys in picks.items():
        value = next((m[k] for k in keys if m.get(k) is not None), None)
        if value is not None:
            out[component] = int(value)
    context = environment.get("context_bytes")
    if m.get("peak_reserved_bytes") is not None and context is not None:
        out["total"] = int(m["peak_reserved_bytes"]) + int(context)
    return out


def request_fields(point: dict[str, Any], config_path: Path) -> dict[str, Any]:
    """`MemoryRequest` fields describing the measured workload (one GPU, Transformers engine).

    "mixed" training is PyTorch autocast as the Hugging Face Trainer runs it (fp32 weights,
    gradients and AdamW moments, bf16 compute): the calculator's "mixed-hf" accounting. Its
    6 B/param of weights counts the 16-bit working copy autocast makes during the step; the
    script measures weights after load (4 B/param), so that copy shows in the measured
    activation peak instead, and the weights row of mixed points reports the difference."""
    inputs = point["inputs"]
    mixed = inputs["dtype"] == "mixed"
    fields: dict[str, Any] = {
        "config_path": str(config_path),
        "task": inputs["kind"],
        "weights": "bf16" if mixed else inputs["dtype"],
        "kv_dtype": inputs["dtype"] if inputs["dtype"] in ("bf16", "fp16", "fp32") else "bf16",
        "context": inputs["context"],
        "batch": inputs["batch"],
        "gpus": 1,
        "engine": "transformers",
        # The script's prefill is one pass over the whole batch (no chunking).
        "prefill_chunk_tokens": inputs["batch"] * inputs["context"],
        "flash_attention": True,  # PyTorch SDPA: no materialised s×s score matrix
    }
    if inputs["kind"] != "inference":
        fields.update(optimizer="adamw", checkpointing=bool(inputs["gradient_checkpointing"]))
        if mixed:
            fields["precision"] = "mixed-hf"
    if inputs["kind"] == "lora":
        targets = [t.removesuffix("_proj") for t in inputs.get("lora_targets") or []]
        # calibrate_gpu.py wraps with get_peft_model's defaults, which upcast adapters to fp32.
        fields.update(
            lora_rank=inputs["lora_rank"], lora_targets=targets or None, adapter_dtype="fp32"
        )
    return fields


def estimate_memory_predictor(point: dict[str, Any], environment: dict[str, Any]) -> dict[str, int]:
    """Predict a point with `tools.memory.estimate_memory` (fields it does not have are left
    out, so the comparison follows the calculator's schema as it grows)."""
    from tools.memory import MemoryRequest, estimate_memory

    with tempfile.TemporaryDirectory() as tmp:
        config_path = Path(tmp) / "config.json"
        config_path.write_text(json.dumps(point["config"]), encoding="utf-8")
        fields = request_fields(point, config_path)
        known = {k: v for k, v in fields.items() if k in MemoryRequest.model_fields}
        estimate = estimate_memory(MemoryRequest.model_validate(known))
    predicted = {k: int(v) for k, v in estimate.breakdown.items() if k in TOLERANCE_PERCENT}
    predicted["total"] = int(estimate.per_gpu_bytes)
    return predicted


def compare_data(
    data: dict[str, Any], source: str, predict: Predictor = estimate_memory_predictor
) -> list[Row]:
    """Rows for every measured component of every point of one calibration file."""
    environment = data["environment"]
    rows: list[Row] = []
    for point in data["points"]:
        measured = measured_components(point, environment)
        predicted = predict(point, environment)
        for component, value in measured.items():
            if component not in predicted or value <= 0:
                continue
            rows.append(
                Row(
                    source,
                    point["id"],
                    component,
                    value,
                    predicted[component],
                    TOLERANCE_PERCENT[component],
                )
            )
    return rows


def calibration_files(directory: Path = CALIBRATION_DIR) -> list[Path]:
    """The committed measurement files, sorted by name."""
    return sorted(directory.glob("*.json"))


def compare_files(
    paths: Iterable[Path], predict: Predictor = estimate_memory_predictor
) -> list[Row]:
    """Rows for every file in `paths`."""
    rows: list[Row] = []
    for path in paths:
        data = json.loads(path.read_text(encoding="utf-8"))
        rows += compare_data(data, path.name, predict)
    return rows


def worst_by_component(rows: Iterable[Row]) -> dict[str, Row]:
    """The row with the largest absolute error for each component."""
    worst: dict[str, Row] = {}
    for row in rows:
        current = worst.get(row.component)
        if current is None or abs(row.error_percent) > abs(current.error_percent):
            worst[row.component] = row
    return worst


def format_report(rows: list[Row]) -> str:
    """A plain-text table (GiB throughout) and the worst error per component."""
    lines = [f"{'point':52} {'component':12} {'measured':>13} {'predicted':>13} {'error':>8}"]
    for r in rows:
        flag = "" if r.ok else f"  > ±{r.tolerance_percent:g}%"
        lines.append(
            f"{r.point_id:52} {r.component:12} {format_bytes(r.measured_bytes, 'GiB', 3):>13} "
            f"{format_bytes(r.predicted_bytes, 'GiB', 3):>13} {r.error_percent:+7.2f}%{flag}"
        )
    lines.append("")
    lines.append("worst error per component:")
    for component, r in sorted(worst_by_component(rows).items()):
        lines.append(
            f"  {component:12} {r.error_percent:+7.2f}% (tolerance ±{r.tolerance_percent:g}%) "
            f"at {r.point_id} [{r.source}]"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path, help="default: bench/calibration/*.json")
    args = parser.parse_args(argv)
    paths = args.files or calibration_files()
    if not paths:
        print("no calibration files: the GPU measurement is pending (see bench/calibration/)")
        return 0
    rows = compare_files(paths)
    print(format_report(rows))
    return 0 if all(r.ok for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
