"""The figure a question asks for, answered from the sizing report: the first line of every
answer (issue 27: "the asked figure leads").

`AskedFigure` names what was asked (`SizingRequest.asked`, from the reading); `answer_asked`
picks, once for every surface, the figure that answers it and the configuration it is about:

- `fits` (a yes/no question): on owned hardware (`report.leads_with_local`) yes when the
  local plan keeps every layer on the GPU (or the rest fits the RAM stated), no when the RAM
  cannot hold the rest, none said when the RAM is unknown; else yes when the first
  configuration named fits in memory, with a load stated holds it (no scale-out needed),
  and at its count meets the targets the recommender checks (a deadline, a speed per user);
  its need against its budget per GPU.
- `gpu_count`: the headline option (`tools.sizing.headline`: the named GPU scaled out to the
  load when the count named does not hold it) — how many of which GPU.
- `throughput`: that option's full-load output tokens/s per replica and in all.
- `cost`: the headline option's quoted price per month (or per hour when asked by the hour).
- `memory`: the per-GPU need of the first configuration sized; on owned hardware the local
  plan's need, GPU and system RAM parts together.
- `speed` on owned hardware: the local plan's decode speed (elsewhere the report's own speed
  line leads).
- `kv_cache`: that configuration's KV cache per GPU, for its sequences × tokens, and per token.
- `training_time`: the headline training layout's wall-clock hours.

The other kinds (speed, TTFT, capacity, the longest context, a comparison, what hardware) are
answered by the report's own parts, which already lead with them.
"""

from __future__ import annotations

from tools.recommend import Option
from tools.sizing.report import AskedAnswer, AskedUnit, SizedConfiguration, SizingReport


def _named(report: SizingReport) -> SizedConfiguration | None:
    return next((m for m in report.memory if m.gpu is not None and m.estimate is not None), None)


def _headline(report: SizingReport) -> Option | None:
    return None if report.headline is None else report.headline.option


def _meets_targets(report: SizingReport, named: SizedConfiguration) -> bool:
    """Whether the configuration named, at exactly its count, meets the targets the recommender
    checks (a training deadline, a speed per user): 'can 8 H100s pretrain it in 2 weeks?' is
    answered no when they fit but take longer. True when the recommender did not size it."""
    rec = report.recommendation
    option = None if rec is None else rec.fitting_at(named.gpu, named.count)
    return option is None or option.meets_targets


def _fits_answer(report: SizingReport) -> AskedAnswer | None:
    """Yes or no: the local plan's on owned hardware (issue 29: it is the verdict), else the
    configuration named's fit and, with users stated, whether it holds their load."""
    if report.leads_with_local and report.local:
        plan = report.local[0]
        runs = plan.fits_in_ram if not plan.fits_fully or plan.unified_memory else True
        return AskedAnswer(
            asked="fits",
            yes=runs,
            gpu=plan.gpu,
            count=plan.gpus,
            value=plan.gpu_bytes,
            unit="bytes",
            budget_bytes=plan.budget_bytes,
        )
    named = _named(report)
    if named is None or named.estimate is None or named.estimate.fits is None:
        return None
    holds = None if not report.users_stated else report.scale_out is None
    return AskedAnswer(
        asked="fits",
        yes=named.estimate.fits and holds is not False and _meets_targets(report, named),
        gpu=named.gpu,
        count=named.count,
        value=named.estimate.per_gpu_bytes,
        unit="bytes",
        budget_bytes=named.estimate.budget_bytes_per_gpu,
        holds_load=holds,
    )


def _local_answer(report: SizingReport) -> AskedAnswer | None:
    """On owned hardware the local plan is the verdict (issue 29): the memory it needs (GPU
    part and the system RAM part together) or its decode speed, for the figure asked."""
    plan = report.local[0]
    common = {"gpu": plan.gpu, "count": plan.gpus}
    if report.request.asked == "memory":
        need = plan.gpu_bytes + plan.host_bytes
        return AskedAnswer(
            asked="memory",
            **common,
            value=need,
            unit="bytes",
            budget_bytes=plan.budget_bytes,
            on_gpu_bytes=plan.gpu_bytes,
        )
    if report.request.asked == "speed" and plan.decode_tokens_per_s is not None:
        return AskedAnswer(
            asked="speed",
            **common,
            value=plan.decode_tokens_per_s,
            unit="tokens_per_s",
            basis=plan.decode_label,
        )
    return None


def _memory_answer(report: SizingReport) -> AskedAnswer | None:
    """The memory or the KV cache asked: the first configuration sized, per GPU."""
    asked = report.request.asked
    first = next((m for m in report.memory if m.estimate is not None), None)
    if asked is None or first is None or first.estimate is None:
        return None
    est = first.estimate
    if asked == "kv_cache":
        return AskedAnswer(
            asked=asked,
            gpu=first.gpu,
            count=first.count,
            value=est.breakdown.get("kv_cache", 0),
            unit="bytes",
            sequences=est.batch,
            tokens_per_sequence=est.context,
            bytes_per_token=est.kv_cache_bytes_per_token,
            kv_dtype=est.kv_dtype,
        )
    return AskedAnswer(
        asked=asked,
        gpu=first.gpu,
        count=first.count,
        value=est.per_gpu_bytes,
        unit="bytes",
        budget_bytes=est.budget_bytes_per_gpu,
    )


def answer_asked(report: SizingReport) -> AskedAnswer | None:
    """The answer to `report.request.asked`, or None when the report cannot give it (nothing
    fits, nothing priced) or another part of the report answers it."""
    asked = report.request.asked
    if asked is None or report.question is not None:
        return None
    option = _headline(report)
    if asked == "fits":
        return _fits_answer(report)
    if asked in ("memory", "speed") and report.leads_with_local and report.local:
        return _local_answer(report)
    if asked in ("memory", "kv_cache"):
        return _memory_answer(report)
    if option is None:
        return None
    common = {"asked": asked, "gpu": option.gpu, "count": option.count, "replicas": option.dp}
    if asked == "gpu_count":
        return AskedAnswer(**common)
    if asked == "throughput" and option.full_load_tokens_per_s is not None:
        return AskedAnswer(
            **common,
            value=option.full_load_tokens_per_s,
            unit="tokens_per_s",
            total=option.full_load_tokens_per_s * option.dp,
            basis=option.throughput_basis,
        )
    price = None if report.headline is None else report.headline.price
    if asked == "cost" and price is not None:
        by_hour = report.request.price_period == "hour" or price.usd_per_month is None
        value = price.usd_per_hour if by_hour else price.usd_per_month
        if value is not None:
            unit: AskedUnit = "usd_per_hour" if by_hour else "usd_per_month"
            return AskedAnswer(**common, value=value, unit=unit)
    if asked == "training_time" and option.training_hours is not None:
        return AskedAnswer(
            **common, value=option.training_hours, unit="hours", basis=option.speed_basis
        )
    return None
