"""The short text an MCP client shows next to a tool's structured result: the verdict first.

The structured content is the tool's JSON (exactly what the chat's model receives); this text
is what a person — or an agent that reads only text — sees: one verdict line, a few key
figures, and for an error what to fix. It selects and labels figures from the result, never
computes one (units are in the result's field names: `*_GB` is 10^9 bytes, `usd_*` US dollars).

The verdict line is found generically, so a tool added to the registry needs no code here: a
top-level `verdict`, `answer` or `summary` text leads; a `headline` option (a dict with `gpu`
and `count`) is described like a recommendation. The built-in tools get a line from their
own fields below; anything else leads with its first scalar fields.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from assistant.sanitize import clean_text
from tools.units import format_bytes

MAX_LINES = 8
"""Lines of the rendering after the verdict (the full result is the structured content)."""

_FULL = (
    "Full result in structuredContent (JSON; *_GB = 10^9 bytes, usd_* = US dollars, "
    "prices with as_of and age)."
)


def _number(value: Any, digits: int = 1) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if isinstance(value, int) or float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.{digits}f}"


def _usd(value: Any, digits: int = 2) -> str:
    return "-" if not isinstance(value, int | float) else f"${value:,.{digits}f}"


def _price_date(row: Mapping[str, Any]) -> str:
    """'as_of 2026-09-19, 74 days old' from a priced row (or option) that carries them."""
    as_of = row.get("as_of") or row.get("price_as_of")
    age = row.get("age") or row.get("price_age")
    parts = [f"as_of {as_of}" if as_of else "", str(age) if age else ""]
    return ", ".join(p for p in parts if p)


def option_line(option: Mapping[str, Any], with_price: bool = True) -> str:
    """One configuration: '2× h100-sxm (TP 2 × PP 1 × DP 1), 57.6 GB per GPU, ...'."""
    layout = ""
    if all(k in option for k in ("tp", "pp", "dp")):
        layout = f" (TP {option['tp']} × PP {option['pp']} × DP {option['dp']})"
    parts = [f"{option.get('count', '?')}× {option.get('gpu', '?')}{layout}"]
    if isinstance(option.get("per_gpu_GB"), int | float):
        parts.append(f"{_number(option['per_gpu_GB'])} GB per GPU")
    if isinstance(option.get("decode_tokens_per_s_per_seq"), int | float):
        parts.append(f"{_number(option['decode_tokens_per_s_per_seq'])} tok/s per user")
    if isinstance(option.get("aggregate_tokens_per_s"), int | float):
        parts.append(f"{_number(option['aggregate_tokens_per_s'], 0)} tok/s in total")
    if isinstance(option.get("training_hours"), int | float):
        parts.append(f"{_number(option['training_hours'])} h of training")
    if with_price and isinstance(option.get("usd_per_hour"), int | float):
        when = _price_date(option)
        parts.append(f"{_usd(option['usd_per_hour'])}/h on demand" + (f" ({when})" if when else ""))
    return ", ".join(parts)


def _memory(result: Mapping[str, Any]) -> list[str]:
    model = result.get("model_name") or result.get("model_id", "the model")
    what = (
        f"{model}, {result.get('weights_format', '?')} weights, {result.get('task', '?')}, "
        f"context {_number(result.get('context'))}, batch {_number(result.get('batch'))}"
    )
    per_gpu = f"{_number(result.get('per_gpu_GB'))} GB per GPU"
    gpu, fits = result.get("gpu"), result.get("fits")
    count = result.get("num_gpus", 1)
    if gpu and fits is True:
        head = f"Fits on {count}× {gpu}: {per_gpu}, {_number(result.get('headroom_GB'))} GB left"
    elif gpu and fits is False:
        head = f"Does not fit on {count}× {gpu}: needs {per_gpu}"
        if isinstance(result.get("headroom_GB"), int | float):
            head += f" ({_number(-result['headroom_GB'])} GB over the budget)"
    else:
        head = f"Needs {per_gpu} (total {_number(result.get('total_GB'))} GB)"
    lines = [f"{head} ({what})."]
    breakdown = result.get("breakdown")
    if isinstance(breakdown, Mapping):
        items = ", ".join(
            f"{k} {format_bytes(v, 'GB', 1)}"
            for k, v in breakdown.items()
            if isinstance(v, int | float) and v
        )
        lines.append(f"Per GPU: {items} (bytes in structuredContent).")
    lines += [f"Warning: {w}" for w in result.get("warnings", [])[:3]]
    return lines


def _recommend(result: Mapping[str, Any]) -> list[str]:
    options = [o for o in result.get("options", []) if isinstance(o, Mapping)]
    meeting = [o for o in options if o.get("meets_targets")]
    model = result.get("model_id", "the model")
    if meeting:
        objective = str(result.get("objective", "the objective")).replace("_", " ")
        lines = [f"Best for {model} by {objective}: {option_line(meeting[0])}."]
        lines += [f"Also: {option_line(o)}." for o in meeting[1:3]]
    elif result.get("nearest_feasible"):
        lines = [f"No configuration meets the targets for {model}: {result['nearest_feasible']}"]
    else:
        lines = [f"No configuration fits {model} under the constraints."]
    lines += [f"Warning: {w}" for w in result.get("warnings", [])[:2]]
    return lines


def _cost_row(row: Mapping[str, Any]) -> str:
    what = f"{row.get('provider')} {row.get('instance') or row.get('price_id')}"
    month = row.get("usd_per_month")
    line = f"{what}, {row.get('count')}× {row.get('gpu')}: {_usd(row.get('usd_per_hour'))}/h"
    if isinstance(month, int | float):
        line += f" ({_usd(month, 0)}/month)"
    if isinstance(row.get("usd_per_million_tokens"), int | float):
        line += f", {_usd(row['usd_per_million_tokens'], 3)} per million output tokens"
    when = _price_date(row)
    return line + (f" ({when}{', stale' if row.get('stale') else ''})" if when else "")


def _costs(result: Mapping[str, Any]) -> list[str]:
    rows = {r.get("price_id"): r for r in result.get("rows", []) if isinstance(r, Mapping)}
    best = result.get("cheapest_by_tier", {})
    lines: list[str] = []
    if isinstance(best, Mapping) and best:
        for tier, price_id in best.items():
            row = rows.get(price_id)
            if row is not None:
                lead = "Cheapest on demand" if tier == "on_demand" else f"Cheapest {tier}"
                lines.append(f"{lead}: {_cost_row(row)}.")
    elif "rows" in result:
        lines.append("No price matches these filters.")
    apis = [a for a in result.get("api_comparison", []) if isinstance(a, Mapping)]
    priced = [a for a in apis if isinstance(a.get("usd_blended_per_mtok"), int | float)]
    if priced:
        api = min(priced, key=lambda a: a["usd_blended_per_mtok"])
        lines.append(
            f"Cheapest hosted API: {api.get('provider')} {api.get('model')} "
            f"{_usd(api['usd_blended_per_mtok'], 3)} per million blended tokens "
            f"({_price_date(api)})."
        )
    if result.get("unconverted_note"):
        lines.append(f"Not compared: {result['unconverted_note']}.")
    training = result.get("training")
    if isinstance(training, Mapping):
        job = training.get("cheapest_meeting_deadline")
        if isinstance(job, Mapping):
            lines.append(
                f"Training: cheapest that meets the deadline {job.get('provider')} "
                f"{job.get('count')}× {job.get('gpu')} ({job.get('tier')}) "
                f"{_usd(job.get('usd_cost'), 0)} ({_price_date(job)})."
            )
        elif training.get("rows"):
            first = training["rows"][0]
            lines.append(
                f"Training: {first.get('provider')} {first.get('count')}× {first.get('gpu')} "
                f"({first.get('tier')}) {_usd(first.get('usd_cost'), 0)} "
                f"({_price_date(first)})."
            )
    return lines or ["No configuration was priced."]


def _local(result: Mapping[str, Any]) -> list[str]:
    gpu = result.get("gpu_label") or result.get("gpu", "the GPU")
    layers = f"{result.get('gpu_layers')} of {result.get('n_layers')} layers on the GPU"
    memory = f"{_number(result.get('gpu_GB'))} GB of {_number(result.get('budget_GB'))} GB"
    if result.get("fits_fully"):
        head = f"Fits fully on {result.get('gpus', 1)}× {gpu}: {layers} ({memory})"
    else:
        head = (
            f"Partly offloaded on {result.get('gpus', 1)}× {gpu}: {layers} ({memory}), "
            f"{_number(result.get('host_GB'))} GB in system RAM"
        )
    lines = [
        f"{head}; {result.get('model_name', result.get('model_id'))}, "
        f"{result.get('weights_format')}, context {_number(result.get('context_total'))}."
    ]
    if isinstance(result.get("decode_tokens_per_s"), int | float):
        basis = str(result.get("decode_basis", "")).split(":")[0]
        lines.append(f"Decode ~{_number(result['decode_tokens_per_s'])} tok/s ({basis}).")
    if result.get("launch_command"):
        lines.append(f"Launch: {result['launch_command']}")
    lines += [f"Warning: {w}" for w in result.get("warnings", [])[:2]]
    return lines


def _find_model(result: Mapping[str, Any]) -> list[str]:
    return [
        f"{result.get('name')} ({result.get('id')}): {_number(result.get('total_params'))} "
        f"parameters, {_number(result.get('active_params_per_token'))} active per token, "
        f"{result.get('layers')} layers, {result.get('kv_heads')} KV heads, context up to "
        f"{_number(result.get('max_context_tokens'))} tokens."
    ]


def _find_gpu(result: Mapping[str, Any]) -> list[str]:
    return [
        f"{result.get('name')} ({result.get('id')}): {_number(result.get('memory_GB'))} GB "
        f"({_number(result.get('usable_memory_GB'))} GB usable), "
        f"{_number(result.get('memory_bandwidth_GB_per_s'), 0)} GB/s, "
        f"{_number(result.get('bf16_tflops'))} dense BF16 TFLOPS, {result.get('interconnect')}."
    ]


def _listing(key: str) -> Callable[[Mapping[str, Any]], list[str]]:
    def render(result: Mapping[str, Any]) -> list[str]:
        items = [i for i in result.get(key, []) if isinstance(i, Mapping)]
        names = ", ".join(str(i.get("id")) for i in items[:20])
        more = f" and {len(items) - 20} more" if len(items) > 20 else ""
        return [f"{len(items)} {key}: {names}{more}." if items else f"No {key} match."]

    return render


_RENDERERS: dict[str, Callable[[Mapping[str, Any]], list[str]]] = {
    "estimate_memory": _memory,
    "recommend": _recommend,
    "plan_local_serving": _local,
    "compare_costs": _costs,
    "find_model": _find_model,
    "find_gpu": _find_gpu,
    "list_models": _listing("models"),
    "list_gpus": _listing("gpus"),
}

_VERDICT_KEYS = ("verdict", "answer", "summary")


def _generic(result: Mapping[str, Any]) -> list[str]:
    """A tool without a renderer: its verdict or headline first, else its first scalars."""
    for key in _VERDICT_KEYS:
        value = result.get(key)
        if isinstance(value, str) and value.strip():
            return [value.strip()]
        if isinstance(value, Mapping) and isinstance(value.get("text"), str):
            return [str(value["text"]).strip()]
    headline = result.get("headline")
    if isinstance(headline, str) and headline.strip():
        return [headline.strip()]
    if isinstance(headline, Mapping):
        line = _headline(headline)
        if line is not None:
            return [line]
    question = result.get("question")
    if isinstance(question, Mapping):
        text = question.get("text") or question.get("question")
        if isinstance(text, str) and text.strip():
            return [text.strip()]
    scalars = [f"{k}: {_number(v)}" for k, v in result.items() if isinstance(v, str | int | float)]
    return ["; ".join(scalars[:MAX_LINES]) or "Done."]


def _headline(headline: Mapping[str, Any]) -> str | None:
    """'Leading option: …' from a headline that is an option, or holds one under `option`
    (with its `price` and `reason`, when it has them); None when it is neither."""
    option = headline.get("option", headline)
    if not isinstance(option, Mapping) or "gpu" not in option or "count" not in option:
        return None
    price = headline.get("price")
    priced = isinstance(price, Mapping) and isinstance(price.get("usd_per_hour"), int | float)
    line = f"Leading option: {option_line(option, with_price=not priced)}"
    if isinstance(price, Mapping) and priced:
        when = _price_date(price)
        line += (
            f"; {_usd(price['usd_per_hour'])}/h on demand ({price.get('provider')}"
            + (f", {when}" if when else "")
            + ")"
        )
    reason = headline.get("reason")
    return line + (f" — {reason}" if isinstance(reason, str) and reason else "") + "."


def render_error(result: Mapping[str, Any]) -> str:
    """What went wrong and what to send instead, one line each."""
    lines = [f"Error: {result.get('error', 'the call failed')}"]
    if result.get("field"):
        lines[0] = f"Error in {result['field']}: {result.get('error')}"
    for problem in result.get("problems", [])[:5]:
        if isinstance(problem, Mapping):
            lines.append(f"- {problem.get('field')}: {problem.get('problem')}")
    if result.get("allowed"):
        lines.append(f"Allowed: {result['allowed']}")
    for key in ("did_you_mean", "allowed_fields", "available_tools"):
        values = result.get(key)
        if isinstance(values, Sequence) and not isinstance(values, str) and values:
            label = key.replace("_", " ").capitalize()
            lines.append(f"{label}: {', '.join(map(str, values))}")
    return "\n".join(lines)


def render_result(tool: str, result: Mapping[str, Any], is_error: bool = False) -> str:
    """The text content of a tool result: verdict first, then a few figures (see module)."""
    if is_error:
        return clean_text(render_error(result))
    renderer = _RENDERERS.get(tool, _generic)
    try:
        lines = renderer(result)
    except (TypeError, ValueError, KeyError, AttributeError):
        lines = _generic(result)  # a result of an unexpected shape still gets a rendering
    # Names a user or a file gave can reach a result: no control sequence reaches a client.
    return clean_text("\n".join([*lines[: MAX_LINES + 1], _FULL]))
