"""The figures and tables of an answer: key figures (parameters, KV bytes per token), the
per-GPU memory breakdown (GiB) and the recommender's options with their quoted price.
"""

from __future__ import annotations

from assistant.render.results import gpu_name, priced_by
from tools.memory import component_name
from tools.recommend import Option
from tools.sizing import PricedConfiguration, SizedConfiguration, SizingReport
from tools.units import GiB, format_count


def key_figures(report: SizingReport) -> list[str]:
    """Parameter counts, weights and KV bytes per token."""
    estimate = next((m.estimate for m in report.memory if m.estimate is not None), None)
    rec = report.recommendation
    if estimate is not None:
        total, active = estimate.total_params, estimate.active_params
        kv = estimate.kv_cache_bytes_per_token
    elif rec is not None:
        total, active, kv = rec.total_params, rec.active_params, rec.kv_cache_bytes_per_token
    else:
        return []
    lines: list[str] = []
    if total:
        text = f"- Parameters: {format_count(total)}"
        if active and active != total:
            text += f" total, {format_count(active)} active per token"
        lines.append(text)
    if report.is_training:
        return lines  # training keeps no KV cache; its bytes per token would only confuse
    if kv:
        lines.append(f"- KV cache: {kv:,} bytes per token (whole model)")
    return lines


def breakdown_table(sized: SizedConfiguration) -> list[str]:
    """Per-GPU memory components of one estimate, GiB."""
    est = sized.estimate
    if est is None:
        return []
    rows = ["| component | per GPU (GiB) |", "|---|---:|"]
    adapters = bool(est.trainable_params) and est.task in ("lora", "qlora")
    for name, value in est.breakdown.items():
        if not value:
            continue
        label = component_name(name)
        if name == "weights" and adapters:
            # The tool adds the LoRA adapter weights to the frozen base's (its formula:
            # "+ adapters 2 B × N LoRA parameters"), while its assumption quotes the base.
            label = "weights (base + adapters)"
        rows.append(f"| {label} | {value / GiB:,.2f} |")
    return rows if len(rows) > 2 else []


def _price_cell(price: PricedConfiguration | None, training: bool) -> str:
    """The quoted price of an option: the job total (training) or USD/h and $/M (serving)."""
    if price is None:
        return "not priced"
    if training and price.usd_job is None:
        # Priced by the hour only: without a data size there is no job total.
        return f"n/a (no data size) · {price.usd:,.2f}/h ({priced_by(price)})"
    if training:
        return f"{price.usd:,.2f} at {price.per_hour}/h ({priced_by(price)})"
    per_million = price.usd_per_million_tokens
    million = "" if per_million is None else f" · {per_million:,.3f}"
    return f"{price.usd:,.2f}{million} ({priced_by(price)})"


def _training_cells(o: Option) -> list[str]:
    hours = o.training_hours
    return ["n/a (no data size)" if hours is None else f"{hours:,.1f}"]


def _serving_cells(o: Option) -> list[str]:
    speed_value = o.decode_tokens_per_s_per_seq
    basis = f" ({o.basis_label})" if o.basis_label else ""
    return [
        f"{o.kv_cache_capacity_tokens:,}",
        "n/a" if speed_value is None else f"{speed_value:,.1f}{basis}",
        "n/a" if o.ttft_s is None else f"{o.ttft_s:,.3f}",
    ]


def options_table(report: SizingReport, limit: int = 5) -> list[str]:
    """The recommender's best options per GPU (fitting first), with the quoted price.

    Training tables show hours (n/a without a data size), never serving columns. $/M figures
    are labelled with the load they were priced at (`report.price_load`)."""
    rec = report.recommendation
    if rec is None:
        return []
    # Rows over the GPU count the user named break their limit (the recommender keeps them to
    # say what the load would need; the answer says that in words): not offered as options.
    most = None if report.search is None else report.search.constraints.max_gpus
    options = [o for o in rec.options if most is None or o.count <= most][:limit]
    if not options:
        return []
    full_load = report.price_load.basis == "full_load" and report.costs is not None
    training = report.is_training or any(o.training_hours is not None for o in options)
    head = "| GPU | count | TP×PP×DP | fits | meets targets | per GPU (GiB) | "
    speed = "tok/s per user (one user)" if full_load else "tok/s per user"
    head += "training hours |" if training else f"KV tokens | {speed} | TTFT (s) |"
    tier = report.request.pricing.quote_tier.replace("_", "-")
    load = report.price_load.label if report.costs is not None else ""
    head += f" {tier} USD total |" if training else f" {tier} USD/h · USD/M output tokens{load} |"
    rows = [head, "|" + "---|" * (head.count("|") - 1)]
    for o in options:
        cells = [
            gpu_name(o.gpu),
            str(o.count),
            f"{o.tp}×{o.pp}×{o.dp}",
            "yes" if o.fits else "no",
            "yes" if o.meets_targets else "no",
            f"{o.per_gpu_bytes / GiB:,.1f}",
        ]
        cells += _training_cells(o) if training else _serving_cells(o)
        cells.append(_price_cell(report.price_of(o.gpu, o.count), training))
        rows.append("| " + " | ".join(cells) + " |")
    return rows
