"""The line an answer opens with when the question asked for a figure or a yes/no: the typed
`tools.sizing.AskedAnswer` of the report in words (yes or no first; the GPU count; the
full-load throughput; the monthly or hourly cost; the training hours). Nothing is computed
here."""

from __future__ import annotations

from assistant.answer import CardLine
from assistant.render.results import gib, gpu_name
from tools.sizing import AskedAnswer, SizingReport


def _config(answer: AskedAnswer) -> str:
    count = f"{answer.count:,}× " if answer.count is not None else ""
    return f"{count}{gpu_name(answer.gpu)}"


def yes_no(report: SizingReport) -> str | None:
    """'**Yes.**' or '**No.**' for a yes/no question the report answers, else None: the answer's
    first verdict line opens with it."""
    answer = report.asked_answer
    if answer is None or answer.asked != "fits" or answer.yes is None:
        return None
    return "**Yes.**" if answer.yes else "**No.**"


def _count_leads(report: SizingReport) -> bool:
    """Whether the GPU count asked needs a line of its own: a GPU was named without a count and
    holds the model on one (so the verdict would open with that one GPU, not the count that
    holds the load); when it does not fit, the verdict already opens with the count."""
    return any(m.gpu is not None and not m.count_named and m.fits is True for m in report.memory)


def asked_lines(report: SizingReport, named_training: bool = False) -> list[str]:
    """The asked figure's line, [] when the report has none or another part leads with it (a
    named training cluster's hours: `named_training`; a count the verdict opens with)."""
    answer = report.asked_answer
    if answer is None:
        return []
    basis = f" ({answer.basis})" if answer.basis else ""
    if answer.asked == "gpu_count" and _count_leads(report):
        layout = ""
        if answer.replicas is not None and answer.replicas > 1:
            per = (answer.count or 0) // answer.replicas
            layout = f" ({answer.replicas:,} replicas of {per:,} GPU{'s' if per != 1 else ''})"
        return [
            f"**{_config(answer)}**{layout} — the count that holds what was asked (one holds "
            "the model; the load needs more)."
            if (answer.count or 0) > 1
            else f"**{_config(answer)}** — one holds what was asked."
        ]
    if answer.asked == "throughput" and answer.value is not None:
        total = (
            f"; {answer.total:,.0f} tokens/s over all {answer.count:,} GPUs"
            if answer.total is not None and answer.total != answer.value
            else ""
        )
        return [
            f"**{answer.value:,.0f} output tokens/s per replica at full load** on "
            f"{_config(answer)}{basis}{total}."
        ]
    if answer.asked == "cost" and answer.value is not None:
        period = "hour" if answer.unit == "usd_per_hour" else "month"
        return [f"**{answer.value:,.2f} USD per {period}** for {_config(answer)} (priced below)."]
    if report.leads_with_local and answer.asked in ("memory", "speed"):
        return []  # the local plan's own lead (`local_asked_lines`), not the datacenter's
    if answer.asked == "kv_cache" and answer.value is not None:
        return [_kv_cache_line(answer)]
    if answer.asked == "training_time" and answer.value is not None and not named_training:
        return [f"**{answer.value:,.1f} hours** of training on {_config(answer)}{basis}."]
    return []


def local_asked_lines(report: SizingReport) -> list[str]:
    """On owned hardware, the memory or the decode speed asked, from the local plan (issue 27
    item 5: the asked figure leads), [] for any other figure."""
    answer = report.asked_answer
    if not report.leads_with_local or answer is None or answer.value is None:
        return []
    where = _config(answer) if answer.gpu is not None else "the GPU given"
    if answer.asked == "memory":
        budget = answer.budget_bytes or 0
        on_gpu = answer.on_gpu_bytes if answer.on_gpu_bytes is not None else int(answer.value)
        rest = int(answer.value) - on_gpu
        split = f"{gib(on_gpu)} of it on the GPU's {gib(budget)}"
        split += f", {gib(rest)} in system RAM" if rest > 0 else ""
        return [
            f"**Needs {gib(int(answer.value))}** to run it on {where} as llama.cpp runs it "
            f"(weights, KV cache and buffers: {split})."
        ]
    if answer.asked == "speed":
        basis = f", {answer.basis}" if answer.basis else ""
        return [
            f"**{answer.value:,.1f} tokens/s** decoding one sequence on {where} with llama.cpp"
            f"{basis}."
        ]
    return []


def _kv_cache_line(answer: AskedAnswer) -> str:
    """'**KV cache: 80.0 GiB** for 32 sequences of 8,192 tokens (bf16 cache, 327,680 bytes per
    token)': the dtype the bytes per token assume said with them."""
    where = f" per GPU on {_config(answer)}" if (answer.count or 1) > 1 else ""
    held = ""
    if answer.sequences is not None and answer.tokens_per_sequence is not None:
        plural = "s" if answer.sequences != 1 else ""
        tokens = f"{answer.tokens_per_sequence:,} tokens"
        held = f" for {answer.sequences:,} sequence{plural} of {tokens}"
    dtype = f"{answer.kv_dtype} cache, " if answer.kv_dtype else ""
    per_token = (
        f" ({dtype}{answer.bytes_per_token:,} bytes per token)" if answer.bytes_per_token else ""
    )
    return f"**KV cache: {gib(int(answer.value or 0))}**{where}{held}{per_token}."


def with_yes_no(lines: list[str], answer: str | None) -> list[str]:
    """`lines` with the yes or no opening the first one (kept a `CardLine` when it was one)."""
    if answer is None:
        return lines
    out = list(lines)
    for i, line in enumerate(out):
        if line.strip():
            opened = f"{answer} {line}"
            out[i] = CardLine(opened) if isinstance(line, CardLine) else opened
            return out
    return [answer, *out]
