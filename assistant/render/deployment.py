"""The deployment parts of an answer (issue 30 items 5-7): the serving engine's own KV pool on
the leading option and the command line that starts it, copied from the sizing report's
`engine_plan` (figures copied, never computed here)."""

from __future__ import annotations

from assistant.render.results import gib
from tools.deployment import BuyVsRent, EnginePlan, Speedups
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
    asked = (
        f"{plan.sequences:,} asked" if plan.sequences is not None else "no load stated, one checked"
    )
    verdict = (
        f"{asked}: fits" if plan.fits else f"{asked}: does NOT fit under {plan.engine_label}'s rule"
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


def speedup_lines(s: Speedups) -> list[str]:
    """Speculative decoding, prefix caching and the prefill/decode split, copied."""
    out: list[str] = []
    for row in s.speculative:
        alpha = (
            f"α {row.acceptance_rate:g}"
            if row.acceptance_measured
            else f"α {row.acceptance_rate:g} (a published end)"
        )
        gamma = f"γ {row.draft_tokens}" + (" (best)" if row.best_draft_tokens else "")
        speed = (
            ""
            if row.decode_tokens_per_s is None
            else f" → ≈{row.decode_tokens_per_s:,.1f} tokens/s per sequence (estimated)"
        )
        out.append(
            f"- Speculative decoding with {s.draft_name} ({alpha}, {gamma}, "
            f"c {row.cost_ratio:.3f}): {row.tokens_per_step:.2f} tokens per target step, "
            f"×{row.speedup:.2f}{speed}."
        )
    if s.draft_weights_bytes is not None:
        fits = {True: "fits the headroom", False: "does NOT fit the headroom", None: "added"}
        out.append(
            f"- Draft weights {gib(s.draft_weights_bytes)} on each GPU: {fits[s.draft_fits]}."
        )
    if s.cached_prefix_fraction is not None:
        line = (
            f"- Prefix caching, {s.cached_prefix_fraction:.0%} of each prompt cached: that share "
            "of prefill work saved"
        )
        if s.ttft_s is not None and s.ttft_cached_s is not None:
            line += f"; TTFT ≈{s.ttft_s:.2f} s → ≈{s.ttft_cached_s:.2f} s (estimated)"
        out.append(line + ".")
    if s.prefill_replicas is not None and s.decode_replicas is not None:
        out.append(
            f"- Prefill/decode split at ≈{s.requests_per_s or 0:,.2f} requests/s: "
            f"{s.prefill_replicas} prefill + {s.decode_replicas} decode replica(s) = "
            f"{s.gpus_disaggregated} GPUs (colocated: {s.gpus_colocated})."
        )
    out += [f"- {line}" for line in s.lines]
    out += [f"- Source: {src}." for src in s.sources]
    return out


def deployment_lines(report: SizingReport) -> list[str]:
    """Every deployment part of the report, as lines (empty when none was asked for)."""
    out: list[str] = []
    if report.buy_vs_rent is not None:
        out += [f"**{buy_vs_rent_title(report.buy_vs_rent)}**"]
        out += [*buy_vs_rent_lines(report.buy_vs_rent), ""]
    if report.speedups is not None:
        out += ["**Speed-ups on the leading option**", *speedup_lines(report.speedups), ""]
    elif report.speedups_error is not None:
        out.append(f"- Speed-ups not modelled: {report.speedups_error.text}")
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
    sp = report.speedups
    if sp is not None and sp.speculative:
        ends = " to ".join(f"×{r.speedup:.2f}" for r in sp.speculative)
        out.append(f"speculative decoding: {ends}")
    if sp is not None and sp.gpus_disaggregated is not None:
        out.append(f"prefill/decode split: {sp.gpus_disaggregated} GPUs")
    plan = report.engine_plan
    if plan is None:
        return out
    return [
        *out,
        f"{plan.engine_label}: KV pool {gib(max(plan.kv_pool_bytes_per_gpu, 0))} per GPU, "
        f"{plan.max_sequences:,} sequences of {plan.context:,} tokens",
        f"launch: {plan.command}",
    ]
