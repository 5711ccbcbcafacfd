"""The deployment parts of an answer (issue 30 items 5-7): the serving engine's own KV pool on
the leading option and the command line that starts it, copied from the sizing report's
`engine_plan` (figures copied, never computed here)."""

from __future__ import annotations

from assistant.render.results import gib
from tools.deployment import BuyVsRent, EnginePlan
from tools.sizing import SizingReport


def engine_plan_title(plan: EnginePlan) -> str:
    """'Launch line: SGLang on 4× NVIDIA H100 SXM5'."""
    gpus = plan.tp * plan.pp
    return f"Launch line: {plan.engine_label} on {gpus}× {plan.gpu_name}"


def engine_plan_lines(plan: EnginePlan) -> list[str]:
    """The KV pool under the engine's rule, what it holds, the command and its notes."""
    holds = (
        f"holds {plan.pool_tokens:,} tokens = {plan.max_sequences:,} sequences of "
        f"{plan.context:,} tokens"
    )
    verdict = (
        f"{plan.sequences:,} asked: fits"
        if plan.fits
        else f"{plan.sequences:,} asked: does NOT fit under {plan.engine_label}'s rule"
    )
    out = [
        f"- KV pool per GPU {gib(max(plan.kv_pool_bytes_per_gpu, 0))} ({plan.pool_rule}); "
        f"{holds} ({verdict}).",
        "",
        "```",
        plan.command,
        "```",
    ]
    if plan.config_file:
        name = "Modelfile" if plan.engine == "ollama" else "extra_llm_api_options.yaml"
        out += [f"{name}:", "```", plan.config_file.rstrip("\n"), "```"]
    out += [f"- {n}" for n in plan.notes]
    out.append(f"- Rule: {plan.source} (read {plan.as_of}).")
    return out


def _usd(value: float) -> str:
    return f"{value:,.0f} USD" if value >= 100 else f"{value:,.2f} USD"


def _months(low: float, high: float) -> str:
    if abs(high - low) < 0.05:
        return f"{low:,.1f} months"
    return f"{low:,.1f}–{high:,.1f} months"


def buy_vs_rent_title(b: BuyVsRent) -> str:
    """'Buy vs rent: 8× NVIDIA H100 SXM5'."""
    return f"Buy vs rent: {b.count}× {b.gpu_name}"


def buy_vs_rent_lines(b: BuyVsRent) -> list[str]:
    """Purchase, power, rental, break-even and energy per million tokens, copied."""
    out: list[str] = []
    if b.purchase_usd_low is not None and b.purchase_usd_high is not None:
        low, high = b.purchase_usd_low, b.purchase_usd_high
        price = _usd(low) if low == high else f"{_usd(low)}–{_usd(high)}"
        where = f"{b.purchase_kind}, {b.purchase_source}"
        if b.purchase_as_of:
            where += f", {b.purchase_as_of}"
        out.append(f"- Purchase: {price} ({where}).")
    if b.power_usd_per_month is not None and b.facility_kw is not None:
        out.append(
            f"- Power: {b.facility_kw:,.2f} kW at the wall (PUE {b.pue:g}), "
            f"{b.energy_kwh_per_month or 0:,.0f} kWh a month = "
            f"{_usd(b.power_usd_per_month)} a month at {b.usd_per_kwh:g} USD/kWh."
        )
    if b.rental is not None and b.rent_usd_per_month is not None:
        r = b.rental
        who = f"{r.provider}, {r.as_of}" if r.provider else "the rate you gave"
        out.append(
            f"- Renting: {r.usd_per_hour:,.2f} USD/hour on demand ({who}) = "
            f"{_usd(b.rent_usd_per_month)} a month."
        )
    if b.break_even_months_low is not None and b.break_even_months_high is not None:
        months = _months(b.break_even_months_low, b.break_even_months_high)
        out.append(f"- **Break-even: {months}** of 24/7 use (purchase ÷ (rent − power)).")
    if b.kwh_per_million_tokens is not None and b.usd_energy_per_million_tokens is not None:
        out.append(
            f"- Energy: {b.kwh_per_million_tokens:,.3f} kWh per million output tokens = "
            f"{b.usd_energy_per_million_tokens:,.4f} USD at the report's load and tariff."
        )
    out += [f"- warning: {w}" for w in b.warnings]
    out += [f"- {a}" for a in b.assumptions]
    return out


def deployment_lines(report: SizingReport) -> list[str]:
    """Every deployment part of the report, as lines (empty when none was asked for)."""
    out: list[str] = []
    if report.buy_vs_rent is not None:
        out += [f"**{buy_vs_rent_title(report.buy_vs_rent)}**"]
        out += [*buy_vs_rent_lines(report.buy_vs_rent), ""]
    if report.engine_plan is not None:
        out += [f"**{engine_plan_title(report.engine_plan)}**"]
        out += engine_plan_lines(report.engine_plan)
    elif report.engine_plan_error is not None:
        out.append(f"- No launch line: {report.engine_plan_error.text}")
    return out


def deployment_card_lines(report: SizingReport) -> list[str]:
    """The app card's short lines: the engine's pool on the leading option and its command."""
    out: list[str] = []
    b = report.buy_vs_rent
    if b is not None and b.break_even_months_low is not None:
        months = _months(b.break_even_months_low, b.break_even_months_high or 0.0)
        out.append(f"buy vs rent: break-even {months}")
    plan = report.engine_plan
    if plan is None:
        return out
    return [
        *out,
        f"{plan.engine_label}: KV pool {gib(max(plan.kv_pool_bytes_per_gpu, 0))} per GPU, "
        f"{plan.max_sequences:,} sequences of {plan.context:,} tokens",
        f"launch: {plan.command}",
    ]
