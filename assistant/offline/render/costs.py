"""Cost lines of an answer: the cheapest on-demand USD row per option, the budget check, which
named configuration is cheaper per million tokens, EUR offers left out of the USD ranking, and
how $/M tokens were priced at full load when no load was stated.
"""

from __future__ import annotations

from typing import Any

from assistant.offline.parsed import ParsedWorkload
from assistant.offline.render.results import CallResult, config_label, gpu_name, priced_by
from tools.units import format_count


def cheapest_usd(cost: CallResult | None) -> dict[tuple[str, int], dict[str, Any]]:
    """Cheapest on-demand USD row per (GPU, count), fresh rows before stale ones: serving rows
    by `usd_per_hour`, training rows (under `training`) by their total `usd_cost`."""
    best: dict[tuple[str, int], dict[str, Any]] = {}
    if cost is None or cost.is_error:
        return best
    training = cost.result.get("training") or {}
    candidates = [
        *((row, row.get("usd_per_hour")) for row in cost.result.get("rows", [])),
        *((row, row.get("usd_cost")) for row in training.get("rows", [])),
    ]
    for row, usd in candidates:
        if usd is None or row.get("tier") not in (None, "on_demand"):
            continue
        key = (row.get("gpu", ""), int(row.get("count", 0)))
        # A fresh price beats any stale one (the cost tool's freshness rule), then the lower.
        rank = (bool(row.get("stale")), usd)
        if key not in best or rank < (bool(best[key].get("stale")), best[key]["_usd"]):
            best[key] = {**row, "_usd": usd}
    return best


def billed_as(row: dict[str, Any]) -> str:
    """' (billed as 8 GPUs)' when the provider rents more GPUs than the option uses."""
    billed, count = row.get("billed_gpus"), row.get("count")
    if isinstance(billed, int) and isinstance(count, int) and billed > count:
        return f" (billed as {billed} GPUs: the smallest instance)"
    return ""


def budget_line(parsed: ParsedWorkload, cost: CallResult | None) -> str | None:
    """Whether any priced on-demand option is within a USD budget per hour or per month."""
    if parsed.budget_amount is None or parsed.budget_currency != "USD" or cost is None:
        return None
    field = {"hour": "usd_per_hour", "month": "usd_per_month"}.get(parsed.budget_period or "")
    if field is None or cost.is_error:
        return None
    rows = [r for r in cost.result.get("rows", []) if r.get("tier") in (None, "on_demand")]
    priced = [r for r in rows if isinstance(r.get(field), int | float)]
    budget = f"Budget {parsed.budget_amount:,.2f} USD per {parsed.budget_period}"
    if not priced:
        return f"**{budget}:** no option is priced here, so it could not be checked."
    cheapest = min(priced, key=lambda r: float(r[field]))
    verdict = "within" if float(cheapest[field]) <= parsed.budget_amount else "over"
    label = f"{cheapest.get('count')}× {gpu_name(cheapest.get('gpu'))}{billed_as(cheapest)}"
    return (
        f"**{budget}: {verdict}** — the cheapest priced option is {label} at "
        f"{float(cheapest[field]):,.2f} USD per {parsed.budget_period} "
        f"({priced_by(cheapest)})."
    )


def cheaper_per_token_line(
    memory: list[CallResult],
    cost: CallResult | None,
    full_load: bool,
    recommend: CallResult | None = None,
) -> list[str]:
    """When two or more configurations were priced per token: which one is cheaper per
    million output tokens, with each figure (the cheapest on-demand row of each). The
    configurations are the ones the user named when each was priced as sized; else the
    recommender's best option per GPU (the named GPUs, when the named counts do not fit)."""
    prices = cheapest_usd(cost)

    def per_million(gpu: str, count: int) -> float | None:
        value = (prices.get((gpu, count)) or {}).get("usd_per_million_tokens")
        return None if value is None else float(value)

    priced: list[tuple[float, str]] = []
    for call in memory:
        if call.is_error or call.arguments.get("gpu") is None:
            continue
        value = per_million(str(call.arguments["gpu"]), int(call.arguments.get("gpus", 1)))
        if value is not None:
            priced.append((value, config_label(call.arguments)))
    if len(priced) < 2 and recommend is not None and not recommend.is_error:
        priced = []
        for option in recommend.result.get("options", []):
            value = per_million(str(option.get("gpu")), int(option.get("count", 0)))
            if value is not None and option.get("fits"):
                label = f"{option.get('count')}× {gpu_name(option.get('gpu'))}"
                priced.append((value, label))
    if len(priced) < 2:
        return []
    priced.sort()
    (best, label), others = priced[0], priced[1:]
    versus = "; ".join(f"{value:,.3f} on {name}" for value, name in others)
    load = " at full load" if full_load else ""
    return [
        f"**Cheaper per million output tokens{load}: {label}** — {best:,.3f} USD/M vs {versus} "
        "(cheapest on-demand price of each; table below)."
    ]


def unconverted_lines(cost: CallResult | None) -> list[str]:
    """EUR offers the cost tool could not compare in USD (no exchange rate), said where the
    cheapest option is, not only in the folded assumptions: the cost tool's own note."""
    if cost is None or cost.is_error:
        return []
    notes = [cost.result.get("unconverted_note")]
    notes.append((cost.result.get("training") or {}).get("unconverted_note"))
    return [f"- Not compared in USD: {n}." for n in dict.fromkeys(notes) if n]


def full_load_lines(recommend: CallResult | None, cost: CallResult | None) -> list[str]:
    """How the $/M-token figures were priced when no load was stated: each priced option run
    full (its KV cache's worth of sequences), with the speed each sequence then sees."""
    if recommend is None or recommend.is_error or cost is None or cost.is_error:
        return []
    priced = {(r.get("gpu"), int(r.get("count", 0))) for r in cost.result.get("rows", [])}
    parts: list[str] = []
    for o in recommend.result.get("options", []):
        sequences = int(o.get("full_load_sequences_per_replica") or 0)
        tokens_per_s = o.get("full_load_tokens_per_s")
        if (o.get("gpu"), int(o.get("count", 0))) not in priced or not sequences:
            continue
        if tokens_per_s is None:
            continue
        each = tokens_per_s / (sequences * max(int(o.get("dp") or 1), 1))
        parts.append(
            f"{o.get('count')}× {gpu_name(o.get('gpu'))} {sequences:,} concurrent sequences "
            f"per replica at {each:,.1f} tok/s each ({tokens_per_s:,.0f} tok/s in all)"
        )
    if not parts:
        return []
    return [
        "No load stated: $/M output tokens are priced at full load (every KV slot in use), "
        "not at one user: " + "; ".join(parts)
    ]


def api_comparison_lines(parsed: ParsedWorkload, cost: CallResult | None) -> list[str]:
    """Self-hosted vs hosted API, when asked or a volume was said: the cost tool's break-even
    of the cheapest on-demand configuration against the cheapest API for the model, and at the
    user's volume which bill is lower (both figures from the cost tool)."""
    if not (parsed.api_comparison or parsed.output_tokens_per_day is not None):
        return []
    if cost is None or cost.is_error:
        return []
    evens = [e for e in cost.result.get("break_even", []) if e.get("tier") == "on_demand"]
    apis = {a.get("api_id"): a for a in cost.result.get("api_comparison", [])}
    if not evens or not apis:
        if not parsed.api_comparison:
            return []
        return [
            "**Self-hosted vs hosted API:** the catalog has no hosted API price for this model, "
            "so only the self-hosted cost is shown."
        ]
    even = evens[0]
    api = apis.get(even.get("api_id")) or {}
    row: dict[str, Any] = next(
        (r for r in cost.result.get("rows", []) if r.get("price_id") == even.get("price_id")),
        {},
    )
    hosted = f"{row.get('count')}× {gpu_name(row.get('gpu'))}" if row else "self-hosted"
    self_month = float(even["self_hosted_usd_per_month"])
    api_per_m = float(even["api_usd_per_million_output_tokens"])
    api_label = f"{api.get('provider', even.get('api_provider'))} {api.get('model', '')}".strip()
    if api.get("match") == "comparable":
        api_label += " (a comparable model, not the same one)"
    threshold = even.get("break_even_output_tokens_per_month")
    crossing = (
        ""
        if threshold is None
        else f" Self-hosting breaks even above {format_count(float(threshold))} output tokens "
        "a month."
    )
    volume = even.get("volume_output_tokens_per_month")
    if volume is None:
        return [
            f"**Self-hosted vs hosted API:** {hosted} on demand costs {self_month:,.0f} USD a "
            f"month ({row.get('provider', even.get('provider'))}); {api_label} costs "
            f"{api_per_m:,.3f} USD per million output tokens (with their input tokens)." + crossing
        ]
    api_month = float(even["api_usd_per_month_at_volume"])
    provider = row.get("provider", even.get("provider"))
    cheaper = (
        "the API is cheaper"
        if even.get("cheaper_at_volume") == "api"
        else ("self-hosting is cheaper")
    )
    lines = [
        f"**Self-hosted vs hosted API at {format_count(float(volume))} output tokens a month: "
        f"{cheaper}** — {api_label} {api_month:,.0f} USD a month ({api_per_m:,.3f} USD per "
        f"million output tokens with their input tokens; as_of {api.get('as_of', 'n/a')}) vs "
        f"{hosted} on demand {self_month:,.0f} USD a month ({provider})." + crossing
    ]
    capacity = even.get("capacity_output_tokens_per_month")
    if even.get("volume_within_capacity") is False and capacity is not None:
        lines.append(
            f"{hosted} produces at most {format_count(float(capacity))} output tokens a month at "
            "its estimated throughput: the volume needs more GPUs."
        )
    return lines
