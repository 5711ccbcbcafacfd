"""The workload parts of a sizing report (issue 30 items 1-4): each part the request carries,
sized on the report's headline layout (`tools.workloads`), so every surface shows one figure."""

from __future__ import annotations

from tools.catalog import get_catalog
from tools.memory.model import resolve_model
from tools.sizing.report import SizingReport
from tools.sizing.request import SizingRequest
from tools.workloads import size_lora_serving

_FOUR_BYTE_FORMATS = frozenset({"fp32"})
"""Weight formats whose activations (and so vLLM's `lora_dtype auto`) are 4 bytes; every other
format — bf16, fp16 and the quantized ones, which compute in 16 bits — gives 2."""


def served_name(model_id: str) -> str:
    """The name `vllm serve` takes for a catalog model: its Hugging Face repo id (the first alias
    with an owner), else the id as given."""
    entry = get_catalog().models.get(model_id)
    if entry is None:
        return model_id
    return next((a for a in entry.aliases if "/" in a), model_id)


def size_workload_parts(request: SizingRequest, report: SizingReport) -> None:
    """Fill `report`'s workload parts from `request`'s (ToolInputError for a bad part)."""
    lora = request.lora_serving
    if lora is not None:
        w = request.workload
        resolved = resolve_model(w.model, w.params, w.config_path, w.model_file)
        option = None if report.headline is None else report.headline.option
        fmt = report.weights_format or ""
        users = w.users if report.users_stated else None
        report.lora_serving = size_lora_serving(
            lora,
            resolved.architecture,
            served_name(resolved.id),
            4 if fmt in _FOUR_BYTE_FORMATS else 2,
            option,
            users,
        )
