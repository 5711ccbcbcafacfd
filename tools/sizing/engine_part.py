"""The report's deployment parts (issue 30 items 5-7): the leading option under the serving
engine the question named — that engine's own KV-pool rule and the command line that starts it
so —, buying its GPUs against renting them at the price the report quotes, and the speed-ups
asked for (speculative decoding, prefix caching, a prefill/decode split) on its speeds."""

from __future__ import annotations

import shlex
from datetime import date

from tools.deployment.buy_vs_rent import BuyVsRent, BuyVsRentRequest, RentalUsed, buy_vs_rent
from tools.deployment.engines import EnginePlan, EngineRequest, plan_engine
from tools.deployment.speedups import SpeedupRequest, Speedups, plan_speedups
from tools.errors import ToolInputError
from tools.memory.request import ModelChoice
from tools.pricing import PriceBook
from tools.sizing.report import Headline, SizingError
from tools.sizing.request import SizingRequest
from tools.workload import Workload
from tools.workloads.lora_serving import LoraServingResult

_MODEL_FIELDS = tuple(ModelChoice.model_fields)


def _load_stated(workload: Workload) -> bool:
    """Whether the question gave the load the replicas are sized for (users, a throughput)."""
    return bool({"users", "tokens_per_s"} & workload.model_fields_set)


def headline_engine_plan(
    request: SizingRequest, headline: Headline | None
) -> tuple[EnginePlan | None, SizingError | None]:
    """(the plan, None), (None, why it could not be made), or (None, None) when no engine was
    asked for, the workload is training or nothing leads."""
    engine = request.serve_engine
    workload = request.workload
    if engine is None or headline is None or workload.is_training:
        return None, None
    option = headline.option
    model = {k: getattr(workload, k) for k in _MODEL_FIELDS if getattr(workload, k) is not None}
    model.pop("engine", None)
    model.pop("task", None)
    model["weights"] = headline.weights_format
    try:
        plan = plan_engine(
            EngineRequest(
                **model,
                serve_engine=engine,
                gpu=option.gpu,
                tp=option.tp,
                pp=option.pp,
                context=workload.context_tokens,
                # No load stated: the command keeps the engine's own batch cap rather than
                # pinning it to the one sequence the report sized (`--max-num-seqs 1`).
                sequences=max(option.sequences_per_replica, 1) if _load_stated(workload) else None,
                # The adapter slots the LoRA part sized sit beside the weights in vLLM's pool.
                lora_slots=workload.lora_slots,
                lora_rank=workload.lora_slot_rank if workload.lora_slots else None,
            )
        )
    except (ToolInputError, ValueError) as exc:
        field = exc.field if isinstance(exc, ToolInputError) else "serve_engine"
        return None, SizingError(field=field, problem=str(exc))
    if option.dp > 1:
        plan = plan.model_copy(
            update={
                "notes": [
                    *plan.notes,
                    f"One command per replica: {option.dp} replicas of TP {option.tp} × PP "
                    f"{option.pp} ({option.count} GPUs).",
                ]
            }
        )
    return plan, None


def one_lora_launch_line(
    plan: EnginePlan | None, lora: LoraServingResult | None
) -> tuple[EnginePlan | None, LoraServingResult | None]:
    """One command for one answer: a vLLM launch line asked for on a workload serving LoRA
    adapters carries the adapter flags the LoRA part sized, and the LoRA part shows that same
    line (two `vllm serve` lines, one with the adapters and one with the batch cap, would
    leave the user to merge them)."""
    if plan is None or lora is None or plan.engine != "vllm":
        return plan, lora
    flags = shlex.join(
        [
            "--enable-lora",
            *("--max-loras", str(lora.max_loras)),
            *("--max-lora-rank", str(lora.max_lora_rank)),
            *("--max-cpu-loras", str(lora.max_cpu_loras)),
        ]
    )
    command = f"{plan.command} {flags} --lora-modules name1=/path/to/adapter1 …"
    return (
        plan.model_copy(update={"command": command}),
        lora.model_copy(update={"launch": command}),
    )


def headline_buy_vs_rent(
    request: SizingRequest, headline: Headline | None, book: PriceBook, today: date
) -> BuyVsRent | None:
    """Buying the leading option's GPUs against renting them at the report's quoted price,
    with the energy per million tokens at the report's price load; None unless asked."""
    if request.buy is None or headline is None:
        return None
    o = headline.option
    price = headline.price
    rental = None
    tokens = None
    if price is not None and price.usd_per_hour is not None:
        rental = RentalUsed(
            usd_per_hour=price.usd_per_hour,
            provider=price.provider,
            price_id=price.price_id,
            as_of=price.as_of,
            stale=price.stale,
            low_confidence=price.low_confidence,
        )
        tokens = price.tokens_per_s
    req = BuyVsRentRequest(
        **request.buy.model_dump(), gpu=o.gpu, count=o.count, tokens_per_s=tokens or None
    )
    return buy_vs_rent(req, book, today, rental)


def headline_speedups(
    request: SizingRequest, model_id: str, headline: Headline | None
) -> tuple[Speedups | None, SizingError | None]:
    """The speed-ups asked for on the leading option's sized speeds and load."""
    asked = request.speedups
    workload = request.workload
    if asked is None or headline is None or workload.is_training:
        return None, None
    o = headline.option
    try:
        req = SpeedupRequest(
            **asked.model_dump(),
            model=model_id,
            weights=headline.weights_format,
            tp=o.tp,
            replicas=o.dp,
            gpus_per_replica=o.tp * o.pp,
            decode_tokens_per_s=o.decode_tokens_per_s_per_seq or None,
            prefill_tokens_per_s=o.prefill_tokens_per_s or None,
            prompt_tokens=workload.prompt_tokens,
            output_tokens=workload.output_tokens,
            users=workload.users,
            ttft_s=o.ttft_s,
            prefill_s=o.prefill_s,
            headroom_bytes=o.headroom_bytes,
        )
        return plan_speedups(req), None
    except (ToolInputError, ValueError) as exc:
        field = exc.field if isinstance(exc, ToolInputError) else "speedups"
        return None, SizingError(field=f"speedups.{field}", problem=str(exc))
