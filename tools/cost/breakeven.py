"""Break-even volume: the monthly output tokens above which an always-on configuration costs
less than a hosted API, and whether the configuration can produce them.
"""

from __future__ import annotations

import math

from tools.cost.inputs import HOURS_PER_MONTH, UsageProfile
from tools.cost.results import ApiComparisonRow, BreakEven, ServingCostRow


def break_even(
    row: ServingCostRow,
    api: ApiComparisonRow,
    tokens_per_s: float | None,
    profile: UsageProfile,
) -> BreakEven | None:
    """Output tokens a month at which `row`'s monthly bill equals the API's bill.

    API bill for V output tokens = V × (output + r × input) / 10⁶ (r input tokens per output);
    the self-hosted bill F is flat, so V* = F × 10⁶ / (output + r × input). V* is reachable
    only when the configuration can produce it: capacity = tokens/s × 3,600 × 730.
    """
    if row.usd_per_month is None or api.usd_blended_per_mtok is None:
        return None
    ratio = profile.input_tokens_per_output_token
    api_per_m_output = api.usd_blended_per_mtok * (ratio + 1.0)
    fixed = row.usd_per_month
    capacity = None if tokens_per_s is None else tokens_per_s * 3600.0 * HOURS_PER_MONTH
    common = {
        "price_id": row.price_id,
        "provider": row.provider,
        "tier": row.tier,
        "api_id": api.api_id,
        "api_provider": api.provider,
        "self_hosted_usd_per_month": fixed,
        "api_usd_per_million_output_tokens": api_per_m_output,
        "capacity_output_tokens_per_month": capacity,
    }
    if row.billed_hours_per_month < HOURS_PER_MONTH:
        # Billed by the active hour: both bills grow with volume, so there is no crossover.
        return BreakEven(
            **common,
            **at_volume(fixed, api_per_m_output, capacity, profile),
            break_even_output_tokens_per_month=None,
            break_even_blended_tokens_per_month=None,
            reachable=None,
            explanation="billed per active hour: self-hosted cost per token is "
            f"${row.usd_per_million_tokens or float('nan'):.4g}/M output tokens vs the API's "
            f"${api_per_m_output:.4g}/M at any volume",
        )
    if not _divides(fixed * 1e6, api_per_m_output):
        # A free API (0 per token), or one so cheap no volume of tokens adds up to the bill.
        return BreakEven(
            **common,
            **at_volume(fixed, api_per_m_output, capacity, profile),
            break_even_output_tokens_per_month=None,
            break_even_blended_tokens_per_month=None,
            reachable=False,
            explanation="the API stays cheaper at any volume: at "
            f"${api_per_m_output:.4g} per million output tokens no volume adds up to the "
            f"${fixed:,.0f} a month this configuration costs",
        )
    volume = fixed * 1e6 / api_per_m_output
    reachable = None if capacity is None else volume <= capacity
    if reachable is False:
        explanation = (
            f"the API stays cheaper: break-even needs {volume:.3g} output tokens a month, "
            f"above this configuration's capacity of {capacity:.3g}"
        )
    else:
        explanation = (
            f"self-hosting is cheaper above {volume:.3g} output tokens a month "
            f"(${fixed:,.0f}/month ÷ ${api_per_m_output:.4g} per million output tokens)"
        )
    return BreakEven(
        **common,
        **at_volume(fixed, api_per_m_output, capacity, profile),
        break_even_output_tokens_per_month=volume,
        break_even_blended_tokens_per_month=volume * (ratio + 1.0),
        reachable=reachable,
        explanation=explanation,
    )


def _divides(numerator: float, price: float) -> bool:
    """Whether numerator / price is a finite volume: never a division by a free price (0),
    nor one by a price so small (5e-324) that the quotient overflows to infinity."""
    return price > 0 and math.isfinite(numerator / price)


def at_volume(
    self_hosted_usd_per_month: float,
    api_usd_per_million_output: float,
    capacity: float | None,
    profile: UsageProfile,
) -> dict[str, object]:
    """Both bills at the user's monthly volume V (UsageProfile.output_tokens_per_month):
    API = V × its price per million output tokens (r input tokens each) / 10⁶; self-hosted =
    the configuration's monthly bill, which serves V only when V ≤ its capacity."""
    volume = profile.output_tokens_per_month
    if volume is None:
        return {}
    api_bill = volume * api_usd_per_million_output / 1e6
    return {
        "volume_output_tokens_per_month": volume,
        "api_usd_per_month_at_volume": api_bill,
        "cheaper_at_volume": "self-hosted" if self_hosted_usd_per_month < api_bill else "api",
        "volume_within_capacity": None if capacity is None else volume <= capacity,
    }
