"""One line per tool call for "How this was computed": what was sized, on what, and the figure
that came out — `Memory · Llama 3.1 70B int4-awq · 2× L40S TP 2 · 46.3 GiB per GPU, does not fit`.

Only selection and labels: each figure is a field of the tool's result, converted to the
card's unit for display; GPU names come from the catalog (`offline.render.gpu_name`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from assistant.app.labels import tool_title, words
from assistant.app.results import TableUnit, byte_field, format_value
from assistant.offline.render.results import gpu_name
from tools.catalog import get_catalog
from tools.units import format_bytes

SEPARATOR = " · "
TRAINING_TASKS = {"full": "full fine-tune", "lora": "LoRA", "qlora": "QLoRA"}

Summary = Callable[[Mapping[str, Any], Mapping[str, Any], TableUnit], list[str]]


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _number(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


def _size(result: Mapping[str, Any], stem: str, unit: TableUnit) -> str | None:
    figure = byte_field(result, stem)
    return None if figure is None else format_bytes(figure, unit, 1)


def model_name(model_id: str | None) -> str | None:
    """A catalog model's name ('Llama 3.1 70B'); anything else as given (a tag, a path)."""
    if model_id is None:
        return None
    entry = get_catalog().models.get(model_id)
    return entry.name if entry is not None else model_id


def _model(arguments: Mapping[str, Any], result: Mapping[str, Any]) -> str | None:
    model = _text(result.get("model_name")) or model_name(_text(result.get("model_id")))
    model = model or model_name(_text(arguments.get("model")) or _text(arguments.get("model_id")))
    weights = _text(result.get("weights_format")) or _text(arguments.get("weights"))
    if model is None:
        return weights
    return f"{model} {weights}" if weights else model


def _task(arguments: Mapping[str, Any]) -> str | None:
    return TRAINING_TASKS.get(str(arguments.get("task")))


def _layout(tp: Any, pp: Any, dp: Any = None) -> str:
    parts = []
    if _number(tp) and tp > 1:
        parts.append(f"TP {tp}")
    if _number(pp) and pp > 1:
        parts.append(f"PP {pp}")
    if _number(dp) and dp > 1:
        parts.append(f"{dp} replicas")
    return " × ".join(parts)


def _memory(arguments: Mapping[str, Any], result: Mapping[str, Any], unit: TableUnit) -> list[str]:
    parts = [p for p in (_model(arguments, result), _task(arguments)) if p]
    gpu = _text(result.get("gpu")) or _text(arguments.get("gpu"))
    count = result.get("num_gpus") or arguments.get("gpus") or 1
    if gpu is not None:
        layout = _layout(result.get("tp", arguments.get("tp")), result.get("pp"))
        parts.append(f"{count}× {gpu_name(gpu)}" + (f" {layout}" if layout else ""))
    per_gpu = _size(result, "per_gpu", unit)
    if per_gpu is not None:
        fits = result.get("fits")
        verdict = "" if fits is None else (", fits" if fits else ", does not fit")
        parts.append(f"{per_gpu} per GPU{verdict}")
    return parts


def _option(option: Mapping[str, Any]) -> str:
    gpu = _text(option.get("gpu"))
    name = gpu_name(gpu) if gpu else _text(option.get("gpu_name")) or "GPU"
    layout = _layout(option.get("tp"), option.get("pp"), option.get("dp"))
    return f"{option.get('count', '?')}× {name}" + (f" ({layout})" if layout else "")


def _recommend(
    arguments: Mapping[str, Any], result: Mapping[str, Any], unit: TableUnit
) -> list[str]:
    parts = [p for p in (_model(arguments, result), _task(arguments)) if p]
    users, context = _number(arguments.get("users")), _number(result.get("context_tokens"))
    load = []
    if users:
        load.append(f"{users:,.0f} users")
    if context:
        load.append(f"{context:,.0f} tokens")
    if load:
        parts.append(" × ".join(load))
    options = [o for o in result.get("options") or [] if isinstance(o, Mapping)]
    if not options:
        parts.append("no configuration fits")
    elif len(options) == 1:
        parts.append(f"1 option: {_option(options[0])}")
    else:
        # The recommender's own order: its first option is the one it ranks first.
        parts.append(f"{len(options)} options, first {_option(options[0])}")
    return parts


def _cost(arguments: Mapping[str, Any], result: Mapping[str, Any], unit: TableUnit) -> list[str]:
    rows = [r for r in result.get("rows") or [] if isinstance(r, Mapping)]
    parts = [f"{len(rows)} price{'s' if len(rows) != 1 else ''}"]
    cheapest = result.get("cheapest_by_tier")
    chosen = cheapest.get("on_demand") if isinstance(cheapest, Mapping) else None
    row = next((r for r in rows if r.get("price_id") == chosen), None)
    if row is not None:
        price = _number(row.get("usd_per_hour"))
        shown = f"{price:,.2f} USD/h" if price is not None else f"{row.get('per_hour')}"
        gpu = _text(row.get("gpu_label")) or gpu_name(_text(row.get("gpu")))
        parts.append(f"cheapest on demand: {row.get('provider')} {row.get('count')}× {gpu} {shown}")
    unconverted = result.get("unconverted")
    if isinstance(unconverted, list) and unconverted:
        parts.append(f"{len(unconverted)} not in USD")
    return parts


def _local(arguments: Mapping[str, Any], result: Mapping[str, Any], unit: TableUnit) -> list[str]:
    parts = [p for p in (_model(arguments, result),) if p]
    launcher = _text(result.get("launcher")) or _text(arguments.get("launcher"))
    gpu = _text(result.get("gpu_label")) or gpu_name(_text(result.get("gpu")))
    parts.append(f"{launcher or 'llama.cpp'} on {gpu}")
    on_gpu, layers = result.get("gpu_layers"), result.get("n_layers")
    if result.get("fits_fully"):
        parts.append("all layers on the GPU")
    elif _number(on_gpu) is not None and _number(layers) is not None:
        parts.append(f"{on_gpu} of {layers} layers on the GPU")
    speed = _number(result.get("decode_tokens_per_s"))
    if speed is not None:
        parts.append(f"≈{speed:,.1f} tokens/s, estimated")
    return parts


def _generic(arguments: Mapping[str, Any], result: Mapping[str, Any], unit: TableUnit) -> list[str]:
    return [
        format_value(key, value)
        for key, value in arguments.items()
        if isinstance(value, str | int | float) and not isinstance(value, bool)
    ][:3]


SUMMARIES: dict[str, Summary] = {
    "estimate_memory": _memory,
    "recommend": _recommend,
    "compare_costs": _cost,
    "plan_local_serving": _local,
}


def call_summary(
    name: str,
    arguments: Mapping[str, Any],
    result: Mapping[str, Any] | None,
    unit: TableUnit = "GiB",
    error: str | None = None,
) -> str:
    """The one-line summary of a call: its tool's title, then what it sized and found.

    Before the result arrives (`result` None) the line says what is being computed."""
    title = tool_title(name)
    if error is not None:
        return f"{title}{SEPARATOR}error: {error}"
    if result is None:
        parts = [p for p in (_model(arguments, {}), _task(arguments)) if p]
        return SEPARATOR.join([title, *parts, "running…"])
    summary = SUMMARIES.get(name, _generic)
    try:
        parts = summary(arguments, result, unit)
    except (TypeError, ValueError, AttributeError):
        # A result of an older or unexpected shape still gets a line, never a crash.
        parts = _generic(arguments, {}, unit)
    line = SEPARATOR.join([title, *parts])
    return line if parts else f"{title}{SEPARATOR}{words(name)}"
