"""The two policies every surface shares: the load $/M tokens is priced at, and the option an
answer leads with.

**$/M tokens load** (`price_load`): serving is priced at the stated load when the user states
one (concurrent users — a batch is sized as that many users — or an aggregate tokens/s
target): the throughput the configuration runs at for that load. With no load stated it is
priced at full load (every KV slot in use): one user is the worst case, not what "per million
tokens" asks. The request may name the basis instead (`price_tokens_at`). Training is priced
per job (hourly price × wall-clock hours), never per token.

**Headline** (`choose_headline`), in order — the first rule that finds an option decides:

1. *named_configuration*: the one GPU configuration the user named with a count ("on 8×
   H200" asks about those 8 GPUs; "pretrain on 256 H100s" about that cluster) — the
   recommender's fitting layout of exactly that many of that GPU that meets the targets (its
   own choice, else the fastest such layout: for training, the fewest hours). A comparison of
   several configurations is answered by the objective (rules 3-4 within the counts named).
2. *scale_out*: those named GPUs hold no layout that meets the targets — the recommender's
   layout on that GPU with more of them (searched again without the count limit for several
   GPUs named): what count holds the load.
3. *cheapest*: with a price objective ("cheapest": USD per hour, or the training job's total
   USD when its hours are known; "cheapest_per_token": USD per million output tokens at the
   price load) the lowest-priced option that fits and meets the targets within the GPU count
   named, priced in the quote tier, its quoted rows compared by `tools.pricing.quote_order`
   (fresh before stale, confirmed before low confidence, then USD — the order the recommender
   ranks by, so its first option and the headline agree).
4. *recommender_first*: else the recommender's first option that fits and meets the targets
   (its ranking by the objective: fewest GPUs, fastest...).

A count named without a GPU type ("on 4 GPUs") bounds the search like a named count, and
rules 3-4 choose among the options of exactly that many GPUs when any fits and meets the
targets, by the request's own objective (`Headline.gpus_named` says so); else within it.

None when nothing fits and meets the targets: `Recommendation.nearest_feasible` says what
comes closest.
"""

from __future__ import annotations

from collections.abc import Sequence

from tools.catalog import get_catalog
from tools.errors import ToolInputError
from tools.local_serving import LocalServingPlan
from tools.memory.formats import GGUF_FORMATS
from tools.pricing import quote_order
from tools.recommend import Option, Recommendation
from tools.sizing.report import (
    Headline,
    PricedConfiguration,
    PriceLoad,
    ScaleOut,
    SizedConfiguration,
)
from tools.sizing.request import OwnedHardware, SizingRequest
from tools.workload import Workload

PRICE_OBJECTIVES = ("cheapest", "cheapest_per_token")


OWNED_SEGMENTS = ("consumer", "workstation", "unified-memory")
"""GPU segments people own and run with llama.cpp, Ollama, LM Studio or MLX (a desktop or
laptop card, a workstation card, a Mac or another unified-memory machine)."""

DATACENTER_ENGINES = ("vllm", "transformers")
"""Engines a question may name that are served as a datacenter deployment, not llama.cpp."""


def owned_hardware(request: SizingRequest) -> OwnedHardware | None:
    """Whether `request` is about hardware the user owns (issue 29), and how it runs: the
    words said it (`request.owned`: my, our, I have, a laptop, a Mac, Ollama, llama.cpp, LM
    Studio, MLX), or a yes/no, longest-context or one-stream speed question names a consumer,
    workstation or unified-memory GPU without naming a datacenter engine. None: a datacenter
    question."""
    w = request.workload
    if w.is_training:
        return None
    if request.owned is not None:
        return request.owned
    engine_said = "engine" in w.model_fields_set and w.engine in DATACENTER_ENGINES
    # A vLLM format said (AWQ, GPTQ, FP8 …) is a datacenter deployment, not a GGUF.
    engine_said = engine_said or ("weights" in w.model_fields_set and w.weights not in GGUF_FORMATS)
    # A card alone makes it owned for "does it run?", "how much context?" and the speed of one
    # stream with no load said ("is 2 tok/s normal for 70B on a 4090?": the speed it runs at
    # there, offloaded if need be); a cost, a count or a load keeps the sizing that answers it.
    one_stream = request.asked == "speed" and not states_load(w)
    if request.asked not in (None, "fits") and not request.longest_context and not one_stream:
        return None
    catalog = get_catalog()
    owned_gpu = False
    for config in request.configurations:
        if config.gpu is None:
            continue
        try:
            owned_gpu = owned_gpu or catalog.gpu(config.gpu).segment in OWNED_SEGMENTS
        except ToolInputError:
            continue
    return OwnedHardware() if owned_gpu and not engine_said else None


def local_leads(request: SizingRequest, local: Sequence[LocalServingPlan]) -> bool:
    """Hardware the user owns is answered as it is used (issue 29): the llama.cpp / Ollama
    plan leads whenever the request is about owned hardware (`owned_hardware`) and a plan was
    made; the datacenter sizing (vLLM, several GPUs) is then the alternative, never the
    verdict."""
    if owned_hardware(request) is None or not local:
        return False
    # One stream's speed on a card that holds the model: the sizing's own speed answers it;
    # the local plan leads only where the card needs offloading (the datacenter sizing would
    # answer for more cards than named).
    said_speed_only = request.owned is None and request.asked == "speed"
    return not (said_speed_only and all(p.fits_fully for p in local))


def states_load(workload: Workload) -> bool:
    """Whether the workload states a serving load: users or an aggregate tokens/s target
    (fields the caller set, not the defaults)."""
    return bool({"users", "tokens_per_s"} & workload.model_fields_set)


def price_load(request: SizingRequest) -> PriceLoad:
    """The load $/M tokens is priced at for `request`, with the reason (module docstring)."""
    w = request.workload
    if w.is_training:
        return PriceLoad(
            basis="training_job",
            reason="Training is priced per job: the hourly price × the job's wall-clock hours.",
        )
    if request.price_tokens_at == "full_load" or (
        request.price_tokens_at is None and not states_load(w)
    ):
        why = (
            "as asked"
            if request.price_tokens_at
            else "no load stated, and one user is the worst case, not what a $/M figure asks"
        )
        return PriceLoad(
            basis="full_load",
            reason="$/M output tokens are priced at full load (every KV slot in use, the "
            f"throughput at that batch): {why}.",
        )
    load = (
        f"{w.users:,} concurrent users"
        if "users" in w.model_fields_set or w.tokens_per_s is None
        else f"the {w.tokens_per_s:,.0f} tok/s target"
    )
    return PriceLoad(
        basis="stated_load",
        reason=f"$/M output tokens are priced at the stated load ({load}): the throughput "
        "each configuration runs at for it.",
    )


def _fastest(options: Sequence[Option]) -> Option:
    """The fastest of same-size layouts: training hours, else per-user decode speed."""

    def speed(o: Option) -> float:
        if o.training_hours is not None:
            return -o.training_hours
        return o.decode_tokens_per_s_per_seq or 0.0

    return max(options, key=speed)


def _at_count(rec: Recommendation, gpu: str, count: int) -> Option | None:
    """The recommender's best fitting layout of exactly `count` `gpu`s that meets the targets:
    its own choice for that GPU when it is that count, else the fastest evaluated."""
    exact = [
        o
        for o in rec.evaluated()
        if o.gpu == gpu and o.count == count and o.fits and o.meets_targets
    ]
    chosen = [o for o in exact if any(o is best for best in rec.options)]
    if chosen:
        return chosen[0]
    return _fastest(exact) if exact else None


def _larger(rec: Recommendation, gpu: str, count: int) -> Option | None:
    """The recommender's fitting layout on `gpu` with more than `count` GPUs: its own choice
    for that GPU, which it keeps although over the count named to say what the load needs (the
    "Needs 3× L4" an answer about one L4 leads with)."""
    return rec.fitting_on(gpu, above=count)


def named_with_count(memory: Sequence[SizedConfiguration]) -> SizedConfiguration | None:
    """The one configuration the user named with a GPU and a count (rule 1's subject); None
    when none or several were named (a comparison is answered by the objective)."""
    named = [m for m in memory if m.gpu is not None and m.count_named]
    return named[0] if len(named) == 1 else None


def candidates(rec: Recommendation, limit: int) -> list[Option]:
    """Options that fit and meet the targets within `limit` GPUs (the count named), in the
    recommender's order (it keeps options over the limit to say what the load would need)."""
    return [o for o in rec.options if o.fits and o.meets_targets and o.count <= limit]


def price_key(objective: str, priced: PricedConfiguration) -> float | None:
    """What a price objective compares for a priced configuration: USD per million output
    tokens under "cheapest_per_token" (serving), else its USD (per hour, or the job's)."""
    if objective == "cheapest_per_token" and priced.usd_job is None:
        return priced.usd_per_million_tokens
    return priced.usd


def choose_headline(
    request: SizingRequest,
    rec: Recommendation | None,
    memory: Sequence[SizedConfiguration],
    priced: Sequence[PricedConfiguration],
    scale_out: ScaleOut | None = None,
    search: Workload | None = None,
) -> Headline | None:
    """The option the answer leads with (rules in the module docstring)."""
    if rec is None:
        return None
    named = named_with_count(memory)
    if named is not None and named.gpu is not None:
        headline = _named_headline(rec, named, named.gpu, scale_out)
        if headline is not None:
            return headline
    workload = search or request.workload
    meeting = candidates(rec, workload.constraints.max_gpus)
    if not meeting:
        return None
    meeting, objective, gpus_named = _within_count_named(request, workload, memory, meeting)
    on_count = "" if gpus_named is None else f" on {gpus_named} GPUs"
    if objective in PRICE_OBJECTIVES:
        option = _cheapest(objective, meeting, priced)
        if option is not None:
            return Headline(
                option=option,
                rule="cheapest",
                reason=f"the lowest {_price_basis(objective, option)} of the priced options "
                f"that fit and meet the targets{on_count}",
                weights_format=rec.weights_format,
                gpus_named=gpus_named,
            )
    return Headline(
        option=meeting[0],
        rule="recommender_first",
        reason=f"the recommender's first option that fits and meets the targets ({objective})"
        + on_count,
        weights_format=rec.weights_format,
        gpus_named=gpus_named,
    )


def _named_headline(
    rec: Recommendation, named: SizedConfiguration, gpu: str, scale_out: ScaleOut | None
) -> Headline | None:
    """Rules 1-2 for the one configuration named with a count (`gpu` its GPU): that many GPUs
    when a layout of them meets the targets, else the larger count that holds the load; None
    when neither does (the objective then decides)."""
    option = _at_count(rec, gpu, named.count)
    if option is not None:
        return Headline(
            option=option,
            rule="named_configuration",
            reason=f"the {named.count}× {option.gpu_name} named, at its fastest layout "
            "that meets the targets",
            weights_format=rec.weights_format,
        )
    holds = scale_out.holds if scale_out is not None else None
    holds = holds or _larger(rec, gpu, named.count)
    if holds is None:
        return None
    return Headline(
        option=holds,
        rule="scale_out",
        reason=f"the {named.count} {option_name(holds)} named do not hold the load; "
        f"{holds.count} do",
        weights_format=rec.weights_format,
    )


def _within_count_named(
    request: SizingRequest,
    workload: Workload,
    memory: Sequence[SizedConfiguration],
    meeting: list[Option],
) -> tuple[list[Option], str, int | None]:
    """The options rules 3-4 choose among, the objective they choose by, and the GPU count
    named without a type: with "on 4 GPUs" and a layout of 4 that meets the targets, those
    layouts by the request's own objective (the search ranked by speed only to list the
    layouts at the count); else all of `meeting` by the search's objective, no count."""
    gpus_named = next((m.count for m in memory if m.gpu is None and m.count_named), None)
    at_count = [o for o in meeting if o.count == gpus_named]
    if gpus_named is not None and at_count:
        return at_count, request.workload.objective, gpus_named
    return meeting, workload.objective, None


def _cheapest(
    objective: str, meeting: Sequence[Option], priced: Sequence[PricedConfiguration]
) -> Option | None:
    """Rule 3: the lowest-priced of `meeting` by the price `objective`, its quoted rows
    compared by `quote_order` across configurations, as the recommender ranks them (a fresh,
    confirmed quote before a stale or low-confidence one, then the lower figure); None when
    none of them is priced."""
    prices = {(p.gpu, p.count): p for p in priced}
    keyed = [
        (quote_order(p.stale, p.low_confidence, key), o)
        for o in meeting
        if (p := prices.get((o.gpu, o.count))) is not None
        and (key := price_key(objective, p)) is not None
    ]
    if not keyed:
        return None
    return min(keyed, key=lambda pair: pair[0])[1]


def _price_basis(objective: str, option: Option) -> str:
    """The words for what rule 3 compared for `option`: USD per million output tokens
    (serving, per token), the job's USD (training) or USD per hour."""
    if objective == "cheapest_per_token" and option.training_hours is None:
        return "USD per million output tokens"
    return "job USD" if option.training_hours is not None else "USD per hour"


def option_name(option: Option) -> str:
    """A GPU's catalog name without the vendor prefix ('H100 SXM5')."""
    return option.gpu_name.removeprefix("NVIDIA ").removeprefix("AMD ")
