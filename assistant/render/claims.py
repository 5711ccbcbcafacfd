"""The lead of an answer to a rule of thumb ('so 18 bytes per parameter means 126 GB for a
7B?'): yes / no / partly first, then per claim the computed figure beside the user's in the same
unit and why they differ — all from `SizingReport.claim_checks` (figures copied, never
computed here)."""

from __future__ import annotations

from tools.sizing import ClaimCheck, SizingReport
from tools.sizing.claims import WeightsPerParameter, overall
from tools.units import GB

_VERDICT = {"yes": "Yes", "no": "No", "partly": "Partly"}


def _figure(value: float, unit: str) -> str:
    if unit == "%":
        return f"{value:,.0f} %"
    if unit == "×":
        return f"{value:,.1f}×"
    if unit == "B/param" and value < 10:
        return f"{value:,.2f} {unit}"  # '0.56 B/param': a tenth is too coarse below 10
    return f"{value:,.1f} {unit}"


def _claimed(check: ClaimCheck) -> str:
    claim = check.claim
    if claim.high is None:
        return _figure(claim.value, check.unit)
    if check.unit == "%":
        return f"{claim.low:g}–{claim.top:g} %"
    return f"{_figure(claim.low, check.unit)}–{_figure(claim.top, check.unit)}"


def claim_line(check: ClaimCheck) -> str:
    """'- "means 126 GB": partly — you said 126.0 GB; 126.0 GB is the model states …, the
    whole need per GPU is 142.4 GB (on top of the model states: activations 7.0 GB, …).'"""
    total = _figure(check.computed, check.unit)
    whole = {
        "%": f"{total} more than the model's {check.model_bytes / GB:,.1f} GB of weights in all",
        "×": f"{total} the model's {check.model_bytes / GB:,.1f} GB of weights in all",
    }.get(check.unit, f"{total} in all per GPU")
    text = (
        f"- '{check.claim.words}': {check.verdict} — you said {_claimed(check)}; computed {whole}"
    )
    if check.part is not None and check.part_name is not None:
        text += f", of which {check.part_name} {_figure(check.part, check.unit)}"
    why = check.why
    if why:
        text += f" ({why})"
    weights = check.weights_per_param
    if weights is not None:
        text += f"; {weights_reason(weights)}"
    if check.matches_accounting:
        text += "; your figure is " + "; or ".join(check.matches_accounting)
        sized = check.sized_accounting
        if sized is not None and sized not in check.matches_accounting:
            text += f" — sized here as {sized}"
    return text + "."


def weights_reason(w: WeightsPerParameter) -> str:
    """'4-bit weights take more than 0.5 B/param: …': the quantized layers' constants and the
    16-bit tensors, with the figures `tools.sizing` computed."""
    bits = round(w.nominal_bytes_per_param * 8)
    return (
        f"{bits}-bit weights take more than {w.nominal_bytes_per_param:g} B/param: the quantized "
        f"layers {w.quantized_bytes_per_param:.3f} B/param ({w.constants}) and "
        f"{w.kept_16bit_params / 1e9:,.2f}B parameters kept in 16-bit (the embedding and output "
        f"layer, {w.kept_16bit_bytes / GB:,.1f} GB), so {w.bytes_per_param:.3f} B/param over all "
        "the weights"
    )


def claim_lines(report: SizingReport) -> list[str]:
    """The verdict on the user's rules of thumb, then one line per claim; empty without any."""
    checks = report.claim_checks
    verdict = overall(checks)
    if verdict is None:
        return []
    est = next((m.estimate for m in report.memory if m.estimate is not None), None)
    shape = ""
    if est is not None:
        per = "micro-batch" if est.task != "inference" else "batch"
        shape = f" at {est.context:,}-token sequences, {per} {est.batch:,}"
    first = next((c for c in checks if c.claim.kind == "memory"), checks[0])
    lead = f"**{_VERDICT[verdict]}.** Computed{shape}: {_figure(first.computed, first.unit)}"
    lead += {"%": " more than the model's weights", "×": " the model's weights"}.get(
        first.unit, " per GPU"
    )
    lead += f" against your {_claimed(first)}."
    return [lead, *(claim_line(c) for c in checks)]
