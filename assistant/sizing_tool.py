"""The `size` tool the chat, the CLI commands and the LLM engine call: `tools.sizing.size` with
the prices the user sees elsewhere.

`tools.sizing` reads no user files; here it gets the built-in catalog overlaid with the user's
`prices.toml` and the EUR→USD rate of this run (`gpu-sizer ask --eur-usd`) or the settings, as
`compare_costs` and `recommend` do, and the cost part says where the rate came from (or how to
give one when EUR offers were left out).
"""

from __future__ import annotations

from datetime import date

from assistant.clock import now
from assistant.cost_tool import eur_to_usd_rate, label_rate, price_book
from tools.pricing import PriceBook
from tools.sizing import SizingReport, SizingRequest, size


def run_size(
    request: SizingRequest, book: PriceBook | None = None, today: date | None = None
) -> SizingReport:
    """`size(request)` priced by the user's price book at the run's EUR→USD rate."""
    # No rate set: tools.sizing applies the catalog's reference rate and says so itself.
    rate, origin = eur_to_usd_rate(request.pricing.eur_to_usd, reference=False)
    if rate != request.pricing.eur_to_usd:
        pricing = request.pricing.model_copy(update={"eur_to_usd": rate})
        request = request.model_copy(update={"pricing": pricing})
    # The one clock (GPU_SIZER_NOW pins it): every price's age is counted to it.
    report = size(request, book or price_book(), today or now())
    if report.costs is not None:
        label_rate(report.costs, origin)
    if report.exchange_rate is not None and report.exchange_rate.basis == "given":
        report.exchange_rate.origin = origin
    return report
