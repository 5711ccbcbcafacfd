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
    headline_price_text,
    headline_verb,
    holds_label,
    sequences_held,
)
from tools.recommend import Option
from tools.sizing import ContextFit, SizedConfiguration, SizingReport
from tools.sizing.verdict import (
    ConfigurationFit,
    VerdictItems,
    WorkingOption,
    verdict,
    working_option,
)
from tools.units import format_bytes

LineKind = Literal["fits", "does_not_fit", "works", "info"]


@dataclass(frozen=True)
class VerdictLine:
    """One line of the card: its kind (icon and colour), the words, the deciding figure."""

    kind: LineKind
    head: str
    detail: str = ""


def _size(num_bytes: float | None, unit: TableUnit) -> str:
    return "n/a" if num_bytes is None else format_bytes(num_bytes, unit, 1)


def _option_detail(option: Option, unit: TableUnit) -> str:
    return (
        f"{_size(option.per_gpu_bytes, unit)} per GPU, budget "
        f"{_size(option.budget_bytes_per_gpu, unit)}"
    )


def _fit_line(fit: ConfigurationFit, report: SizingReport, unit: TableUnit) -> VerdictLine:
    label = config_label(SizedConfiguration(gpu=fit.gpu, count=fit.count, zero=fit.zero))
    detail = (
        f"needs {_size(fit.need_bytes_per_gpu, unit)} per GPU, {fit.capacity_basis} "
        f"{_size(fit.capacity_bytes_per_gpu, unit)}"
    )
    if not fit.fits:
        return VerdictLine("does_not_fit", f"Does not fit on {label}", detail)
    option = fit.option
    if option is not None:
        # The KV-cache capacity the text's fit line states: said here instead.
        tokens = option.kv_cache_capacity_tokens
        detail += (
            f"; KV-cache capacity {_size(option.kv_cache_capacity_bytes, unit)} ({tokens:,} tokens)"
        )
        rec = report.recommendation
        if not report.users_stated and rec is not None and rec.context_tokens:
            # No user count given: what it holds, as the text's fit line says it.
            detail += f", {sequences_held(option, rec.context_tokens)}"
    return VerdictLine("fits", f"Fits on {label}", detail)


def _price_detail(report: SizingReport, working: WorkingOption) -> str:
    """The working option's price as the card says it: the headline's quoted text, else the
    figure that priced it."""
    price = working.price
    headline = report.headline
    quoted = "" if headline is None else headline_price_text(report, headline)
    if quoted:
        return f" · {quoted}"  # it says 'low-confidence' itself
    if price is None:
        return ""
    text = ""
    if price.usd_per_million_tokens is not None:
        text = f" · {price.usd_per_million_tokens:,.3f} USD per million output tokens"
    elif price.usd_job is not None:
        text = f" · {price.usd_job:,.0f} USD for the job"
    elif price.usd_per_hour is not None:
        text = f" · {price.usd_per_hour:,.2f} USD per hour"
    return text + (" (low-confidence price)" if price.low_confidence else "")


def _working_line(report: SizingReport, working: WorkingOption, unit: TableUnit) -> VerdictLine:
    option = working.option
    detail = _option_detail(option, unit)
    if working.role == "holds_load":
        return VerdictLine("works", f"{holds_label(report)}: {option_text(option)}", detail)
    headline = report.headline
    # Named GPUs that do not fit: what they need; else the rule that chose the option.
    verb = "Needs" if working.named_gpus or headline is None else headline_verb(report, headline)
    detail += _price_detail(report, working)
    return VerdictLine("works", f"{verb} {option_text(option)}", detail)


def _context_line(fit: ContextFit) -> VerdictLine:
    where = f"{fit.count}× {gpu_name(fit.gpu)}"
    if fit.context_tokens:
        return VerdictLine("fits", f"Longest context on {where}: {fit.context_tokens:,} tokens")
    return VerdictLine("does_not_fit", f"No context fits on {where}")


def card_lines(
    report: SizingReport, items: VerdictItems | None = None, unit: TableUnit = "GiB"
) -> list[VerdictLine]:
    """The card's words for the report's verdict items (`tools.sizing.verdict`): one line per
    configuration sized, the configuration that works, the longest contexts, a yes/no
    question's answer first; empty when the report sized nothing."""
    items = verdict(report) if items is None else items
    lines = [_fit_line(fit, report, unit) for fit in items.configurations]
    if items.working is not None:
        lines.append(_working_line(report, items.working, unit))
    lines += [_context_line(fit) for fit in items.longest_context]
    if lines and items.yes is not None:
        # A yes/no question: the card opens with its answer, as the text does.
        first = lines[0]
        lines[0] = VerdictLine(
            first.kind, f"{'Yes' if items.yes else 'No'}. {first.head}", first.detail
        )
    return lines


def verdict_lines(report: SizingReport, unit: TableUnit = "GiB") -> list[VerdictLine]:
    """The card's lines (`card_lines` of the report's verdict items)."""
    return card_lines(report, unit=unit)


def charted_option(report: SizingReport) -> Option | None:
    """The configuration whose latency curve the turn draws: what holds the load, else the
    headline (stated on the card or not)."""
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
    elif (working := working_option(report)) is not None and working.role == "holds_load":
        bars.append(option_bar(working.option))
    return bars
