"""The figures and tables of an answer: key figures (parameters, KV bytes per token), the
per-GPU memory breakdown (GiB) and the recommender's options with their on-demand cost.
"""

from __future__ import annotations

from assistant.offline.render.costs import cheapest_usd
from assistant.offline.render.results import (
    CallResult,
    bytes_from,
    gpu_name,
    is_training,
    priced_by,
)
from tools.units import GB, GiB, format_count


def key_figures(memory: list[CallResult], recommend: CallResult | None) -> list[str]:
    """Parameter counts, weights and KV bytes per token."""
    source = next((c.result for c in memory if not c.is_error), None)
    if source is None and recommend is not None and not recommend.is_error:
        source = recommend.result
    if source is None:
        return []
    lines: list[str] = []
    total, active = source.get("total_params"), source.get("active_params")
    if total:
        text = f"- Parameters: {format_count(total)}"
        if active and active != total:
            text += f" total, {format_count(active)} active per token"
        lines.append(text)
    if is_training([*memory, *([recommend] if recommend else [])]):
        return lines  # training keeps no KV cache; its bytes per token would only confuse
    kv = source.get("kv_cache_bytes_per_token")
    if kv is None and source.get("kv_cache_per_token_GB") is not None:
        kv = source["kv_cache_per_token_GB"] * GB
    if kv:
        lines.append(f"- KV cache: {int(kv):,} bytes per token (whole model)")
    return lines


def breakdown_table(call: CallResult) -> list[str]:
    """Per-GPU memory components of one estimate, GiB."""
    breakdown = call.result.get("breakdown")
    if not isinstance(breakdown, dict) or call.is_error:
        return []
    rows = ["| component | per GPU (GiB) |", "|---|---:|"]
    adapters = bool(call.result.get("trainable_params")) and call.arguments.get("task") in (
        "lora",
        "qlora",
    )
    for name, value in breakdown.items():
        if isinstance(value, int | float) and value:
            num_bytes = value * GB if name.endswith("_GB") else value
            label = name.removesuffix("_GB")
            if label == "weights" and adapters:
                # The tool adds the LoRA adapter weights to the frozen base's (its formula:
                # "+ adapters 2 B × N LoRA parameters"), while its assumption quotes the base.
                label = "weights (base + adapters)"
            rows.append(f"| {label} | {num_bytes / GiB:,.2f} |")
    return rows if len(rows) > 2 else []


def options_table(
    recommend: CallResult, cost: CallResult | None, limit: int = 5, full_load: bool = False
) -> list[str]:
    """The recommender's best options per GPU (fitting first), with on-demand cost if priced.

    Training tables show hours (n/a without a data size), never serving columns. `full_load`:
    the $/M figures were priced at full-load throughput (the header says so)."""
    # Rows over the GPU count the user named break their limit (the recommender keeps them to
    # say what the load would need; the answer says that in words): not offered as options.
    most = (recommend.arguments.get("constraints") or {}).get("max_gpus")
    options = [
        o for o in recommend.result.get("options", []) if most is None or o.get("count", 0) <= most
    ][:limit]
    if not options:
        return []
    prices = cheapest_usd(cost)
    training = is_training([recommend]) or any(o.get("training_hours") is not None for o in options)
    head = "| GPU | count | TP×PP×DP | fits | meets targets | per GPU (GiB) | "
    speed = "tok/s per user (one user)" if full_load else "tok/s per user"
    head += "training hours |" if training else f"KV tokens | {speed} | TTFT (s) |"
    load = " at full load" if full_load else ""
    head += (
        " on-demand USD total |" if training else f" on-demand USD/h · USD/M output tokens{load} |"
    )
    rows = [head, "|" + "---|" * (head.count("|") - 1)]
    for o in options:
        per_gpu = bytes_from(o, "per_gpu")
        price = prices.get((o.get("gpu", ""), int(o.get("count", 0))))
        usd = "not priced"
        if price is not None and training and price.get("usd_cost") is None:
            # Priced by the hour only: without a data size there is no job total.
            usd = f"n/a (no data size) · {price['_usd']:,.2f}/h ({priced_by(price)})"
        elif price is not None and training:
            usd = f"{price['_usd']:,.2f} at {price.get('per_hour')}/h ({priced_by(price)})"
        elif price is not None:
            per_million = price.get("usd_per_million_tokens")
            million = "" if per_million is None else f" · {per_million:,.3f}"
            usd = f"{price['_usd']:,.2f}{million} ({priced_by(price)})"
        cells = [
            gpu_name(o.get("gpu")),
            str(o.get("count")),
            f"{o.get('tp')}×{o.get('pp')}×{o.get('dp')}",
            "yes" if o.get("fits") else "no",
            "yes" if o.get("meets_targets") else "no",
            "n/a" if per_gpu is None else f"{per_gpu / GiB:,.1f}",
        ]
        if training:
            hours = o.get("training_hours")
            cells.append("n/a (no data size)" if hours is None else f"{hours:,.1f}")
        else:
            tokens = o.get("kv_cache_capacity_tokens")
            speed = o.get("decode_tokens_per_s_per_seq")
            ttft = o.get("ttft_s")
            cells += [
                "n/a" if tokens is None else f"{int(tokens):,}",
                "n/a" if speed is None else f"{speed:,.1f}",
                "n/a" if ttft is None else f"{ttft:,.3f}",
            ]
        cells.append(usd)
        rows.append("| " + " | ".join(cells) + " |")
    return rows
