"""The verdict card's lines, selected from a `SizingReport` — never read from answer text.

One line per configuration sized (fits or not, with the figure that decides it: the memory
needed per GPU against the engine budget), then the configuration that works: what holds the
load when the named GPUs cannot (`report.scale_out.holds`), else the report's headline option
(`tools.sizing.headline` chose it) with its quoted price, and the longest context that fits
when that was the question. The words are the offline verdict's (`holds_label`,
`headline_verb`, `headline_price_text`), and the answer text under the card leaves out the
lines it states (`AnswerSection.card_lines`), so the verdict shows once. Pure: no Textual, no
arithmetic; bytes shown in the answer's unit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from assistant.app.call_summary import option_text
from assistant.app.results import MemoryBarData, TableUnit, estimate_bar, option_bar
from assistant.render.results import config_label, gpu_name
from assistant.render.verdict import (
    card_shows_headline,
    headline_price_text,
    headline_verb,
    holds_label,
    sequences_held,
)
from tools.recommend import Option
from tools.sizing import SizedConfiguration, SizingReport
from tools.units import format_bytes

Verdict = Literal["fits", "does_not_fit", "works", "info"]


@dataclass(frozen=True)
class VerdictLine:
    """One line of the card: its kind (icon and colour), the words, the deciding figure."""

    kind: Verdict
    head: str
    detail: str = ""


def _size(num_bytes: float | None, unit: TableUnit) -> str:
    return "n/a" if num_bytes is None else format_bytes(num_bytes, unit, 1)


def _option_detail(option: Option, unit: TableUnit) -> str:
    return (
        f"{_size(option.per_gpu_bytes, unit)} per GPU, budget "
        f"{_size(option.budget_bytes_per_gpu, unit)}"
    )


def verdict_lines(report: SizingReport, unit: TableUnit = "GiB") -> list[VerdictLine]:
    """The card's lines (see the module docstring); empty when the report sized nothing."""
    lines: list[VerdictLine] = local_lines(report, unit)
    first_datacenter = len(lines)
    for sized in [*report.memory, *report.zero3_resize]:
        est = sized.estimate
        if est is None or est.fits is None:
            continue
        capacity = est.budget_bytes_per_gpu or est.usable_bytes_per_gpu
        budget = "budget" if est.budget_bytes_per_gpu is not None else "usable"
        detail = f"needs {_size(est.per_gpu_bytes, unit)} per GPU, {budget} {_size(capacity, unit)}"
        if est.fits:
            capacity_option = _fitting(report, sized.gpu, sized.count)
            if capacity_option is not None and not report.is_training:
                # The KV-cache capacity the text's fit line states: said here instead.
                tokens = capacity_option.kv_cache_capacity_tokens
                detail += (
                    f"; KV-cache capacity {_size(capacity_option.kv_cache_capacity_bytes, unit)}"
                    f" ({tokens:,} tokens)"
                )
                rec = report.recommendation
                if not report.users_stated and rec is not None and rec.context_tokens:
                    # No user count given: what it holds, as the text's fit line says it.
                    detail += f", {sequences_held(capacity_option, rec.context_tokens)}"
            lines.append(VerdictLine("fits", f"Fits on {config_label(sized)}", detail))
        else:
            lines.append(
                VerdictLine("does_not_fit", f"Does not fit on {config_label(sized)}", detail)
            )
    scale_out = report.scale_out
    if scale_out is not None and scale_out.holds is not None:
        holds = scale_out.holds
        lines.append(
            VerdictLine(
                "works", f"{holds_label(report)}: {option_text(holds)}", _option_detail(holds, unit)
            )
        )
    elif report.headline is not None and card_shows_headline(report):
        headline = report.headline
        detail = _option_detail(headline.option, unit)
        price = headline.price
        quoted = headline_price_text(report, headline)
        named = any(m.gpu is not None for m in report.memory)
        if quoted:
            detail += f" · {quoted}"
        elif price is not None and price.usd_per_million_tokens is not None:
            detail += f" · {price.usd_per_million_tokens:,.3f} USD per million output tokens"
        elif price is not None and price.usd_job is not None:
            detail += f" · {price.usd_job:,.0f} USD for the job"
        elif price is not None and price.usd_per_hour is not None:
            detail += f" · {price.usd_per_hour:,.2f} USD per hour"
        if not quoted and price is not None and price.low_confidence:
            detail += " (low-confidence price)"  # the quoted text says so itself
        # Named GPUs that do not fit: what they need; else the rule that chose the option.
        verb = "Needs" if named else headline_verb(report, headline)
        lines.append(VerdictLine("works", f"{verb} {option_text(headline.option)}", detail))
    for fit in report.longest_context:
        where = f"{fit.count}× {gpu_name(fit.gpu)}"
        if fit.context_tokens:
            lines.append(
                VerdictLine("fits", f"Longest context on {where}: {fit.context_tokens:,} tokens")
            )
        else:
            lines.append(VerdictLine("does_not_fit", f"No context fits on {where}"))
    if report.leads_with_local:
        # Owned hardware: the datacenter lines follow as the alternative, and say so.
        for i in range(first_datacenter, len(lines)):
            line = lines[i]
            lines[i] = VerdictLine(line.kind, f"Datacenter (vLLM): {line.head}", line.detail)
    answer = report.asked_answer
    if lines and answer is not None and answer.asked == "fits" and answer.yes is not None:
        # A yes/no question: the card opens with its answer, as the text does.
        first = lines[0]
        lines[0] = VerdictLine(
            first.kind, f"{'Yes' if answer.yes else 'No'}. {first.head}", first.detail
        )
    return lines


def local_lines(report: SizingReport, unit: TableUnit = "GiB") -> list[VerdictLine]:
    """The local plans an owned-hardware card leads with (`report.leads_with_local`): where
    the layers go, the memory against the GPU budget, the estimated speed, the longest
    context — the offline answer's first lines, in the card's form."""
    if not report.leads_with_local:
        return []
    out: list[VerdictLine] = []
    for plan in report.local:
        launcher = "Ollama" if plan.launcher == "ollama" else "llama.cpp"
        where = f"{plan.gpus}× {plan.gpu_label}" if plan.gpus > 1 else plan.gpu_label
        what = f"{launcher}, {plan.weights_format.upper()}, on {where}"
        detail = f"{_size(plan.gpu_bytes, unit)} of {_size(plan.budget_bytes, unit)} on the GPU"
        if plan.decode_tokens_per_s is not None and plan.decode_label is not None:
            detail += f" · ≈ {plan.decode_tokens_per_s:.1f} tokens/s ({plan.decode_label})"
        if plan.longest_context_tokens is not None:
            detail += f" · longest context {plan.longest_context_tokens:,} tokens"
        if plan.fits_fully and plan.fits_in_ram is not False:
            out.append(VerdictLine("fits", f"Runs with {what}: every layer on the GPU", detail))
        elif plan.fits_in_ram is False:
            out.append(VerdictLine("does_not_fit", f"Does not run with {what}", detail))
        else:
            head = f"Runs with {what}: {plan.gpu_layers} of {plan.n_layers} layers on the GPU"
            out.append(VerdictLine("works", head, f"{detail}; the rest in system RAM"))
    return out


def _fitting(report: SizingReport, gpu: str | None, count: int) -> Option | None:
    """The recommender's fitting option with exactly `count` of `gpu` (the named one)."""
    rec = report.recommendation
    if rec is None or gpu is None:
        return None
    found = (o for o in [*rec.options, *rec.rejected] if o.gpu == gpu and o.count == count)
    return next((o for o in found if o.fits), None)


def working_option(report: SizingReport) -> Option | None:
    """The configuration the card says works: what holds the load, else the headline."""
    if report.scale_out is not None and report.scale_out.holds is not None:
        return report.scale_out.holds
    return None if report.headline is None else report.headline.option


def recommended_label(report: SizingReport, layout: SizedConfiguration) -> str:
    """The label of the recommended layout's bar: the headline's configuration as the card's
    line names it ('2× H100 SXM5'), even where the estimate sized one replica of it (serving
    sizes TP × PP GPUs; every replica holds the same per GPU)."""
    headline = report.headline
    if headline is None:
        return f"{config_label(layout)} (recommended)"
    o = headline.option
    whole = SizedConfiguration(gpu=o.gpu, count=o.count, zero=layout.zero)
    if layout.count == o.count or o.dp < 2:
        return f"{config_label(whole)} (recommended)"
    gpus = "1 GPU" if layout.count == 1 else f"{layout.count} GPUs"
    return f"{config_label(whole)} (recommended; {o.dp} replicas of {gpus})"


def verdict_bars(report: SizingReport) -> list[MemoryBarData]:
    """The stacked memory bar of each configuration sized, then of the configuration that
    works (its own estimate when the report sized its layout, else its need as one bar)."""
    bars: list[MemoryBarData] = []
    for sized in [*report.memory, *report.zero3_resize]:
        if sized.estimate is not None:
            bar = estimate_bar(sized.estimate, config_label(sized))
            if bar is not None:
                bars.append(bar)
    layout = report.layout_breakdown
    if layout is not None and layout.estimate is not None:
        bar = estimate_bar(layout.estimate, recommended_label(report, layout))
        if bar is not None:
            bars.append(bar)
    elif report.scale_out is not None and report.scale_out.holds is not None:
        bars.append(option_bar(report.scale_out.holds))
    return bars
