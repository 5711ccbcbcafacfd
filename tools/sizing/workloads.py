"""The workload parts of a sizing report (issue 30 items 1-4): each part the request carries,
sized on the report's headline layout (`tools.workloads`), so every surface shows one figure."""

from __future__ import annotations

from datetime import date

from tools.catalog import get_catalog
from tools.errors import ToolInputError
from tools.memory.model import resolve_model
from tools.pricing import PriceBook
from tools.recommend import Option
from tools.sizing.report import SizingError, SizingReport
from tools.sizing.request import SizingRequest
from tools.workloads import size_lora_serving
from tools.workloads.batch import api_job_costs, size_batch_job
from tools.workloads.prices import hourly_quotes
from tools.workloads.request_rate import cheapest_meeting

_FOUR_BYTE_FORMATS = frozenset({"fp32"})
"""Weight formats whose activations (and so vLLM's `lora_dtype auto`) are 4 bytes; every other
format — bf16, fp16 and the quantized ones, which compute in 16 bits — gives 2."""


def served_name(model_id: str) -> str:
    """The name `vllm serve` takes for a catalog model: its Hugging Face repo id (the first alias
    with an owner), else the id as given."""
    entry = get_catalog().models.get(model_id)
    if entry is None:
        return model_id
    return next((a for a in entry.aliases if "/" in a), model_id)


def size_workload_parts(
    request: SizingRequest, report: SizingReport, book: PriceBook, today: date
) -> SizingError | None:
    """Fill `report`'s workload parts from `request`'s; the error of a part that cannot be
    sized (the field, the problem, what is allowed), else None."""
    try:
        _size_parts(request, report, book, today)
    except ToolInputError as exc:
        return SizingError(
            field=exc.field,
            problem=exc.problem,
            allowed=exc.allowed,
            did_you_mean=list(exc.suggestions or []),
        )
    return None


def _size_parts(request: SizingRequest, report: SizingReport, book: PriceBook, today: date) -> None:
    arrivals = request.request_rate
    rec = report.recommendation
    if arrivals is not None and rec is not None:
        # The cheapest ranked layout whose replicas meet the rate and its percentile target.
        def hourly(option: Option) -> float | None:
            quoted = report.price_of(option.gpu, option.count)
            return None if quoted is None else quoted.usd_per_hour

        report.request_rate = cheapest_meeting(
            arrivals, list(rec.options), request.workload.output_tokens, hourly
        )
    job = request.batch_job
    if job is not None and report.headline is not None:
        option = report.headline.option
        w = request.workload
        quotes = hourly_quotes(
            book, option.gpu, option.count, today, request.pricing.eu_only, option.tp
        )
        serving = None if report.costs is None else report.costs.serving
        rate = None if report.exchange_rate is None else report.exchange_rate.usd_per_eur
        apis = [] if serving is None else api_job_costs(job, serving.api_comparison, rate)
        report.batch_job = size_batch_job(
            job, option, (w.prompt_tokens, w.output_tokens), quotes, apis
        )
    lora = request.lora_serving
    if lora is not None:
        w = request.workload
        resolved = resolve_model(w.model, w.params, w.config_path, w.model_file)
        headline = None if report.headline is None else report.headline.option
        fmt = report.weights_format or ""
        users = w.users if report.users_stated else None
        report.lora_serving = size_lora_serving(
            lora,
            resolved.architecture,
            served_name(resolved.id),
            4 if fmt in _FOUR_BYTE_FORMATS else 2,
            headline,
            users,
        )
