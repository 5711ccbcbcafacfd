"""`size()`: one sizing question answered once — memory → recommend → cost → follow-ups — for
every surface (CLI commands, offline chat, LLM pre-computation, tool cards, proposal).

Order:
1. memory: each configuration the user named (one GPU-free estimate when none was), at the
   workload's model, format, lengths and load; for a max-context question, each named GPU
   setup at the longest context it holds;
2. a GPU name covering variants with different verdicts → a question, nothing else; a model
   known only by its size whose fit changes across the catalog's architectures of that size
   → the answer for the generic reading, with a question for its config (`shapes.py`);
3. the recommender over the allowed GPUs, ranked by the same prices the costs use; a GPU count
   named bounds the search (serving: every layout within it is sized);
4. the costs of the options that fit and meet the targets (none meeting them: the nearest
   fitting ones, flagged), at the $/M load of `headline.price_load`;
5. follow-ups: ZeRO-3 re-size of a named plain data-parallel training setup that does not fit,
   scale-out when the named GPUs cannot hold the load (and lower formats on them), the
   headline (`headline.choose_headline`), its layout's breakdown, the budget check.

Pure: no I/O but the catalog and the price book the caller passes (the assistant passes the
user's prices.toml overlay; without one, the built-in catalog prices).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import date
from typing import Any

from tools.catalog import get_catalog
from tools.cost import (
    CostComparison,
    PriceFilter,
    ServingCostInput,
    TrainingCostInput,
    price_configurations,
)
from tools.cost import ranking_prices as cost_ranking_prices
from tools.cost.exchange import rate_used
from tools.defaults import default_request_shape
from tools.errors import ToolInputError
from tools.limits import MAX_GPUS, MAX_HOURS, MAX_TOKENS_PER_S, MIN_RATE
from tools.notes import Note
from tools.pricing import PriceBook, builtin_price_book
from tools.recommend import (
    Option,
    Recommendation,
    recommend,
    serving_layout_at,
    training_layouts_at,
)
from tools.sizing.asked import answer_asked
from tools.sizing.engine_part import (
    headline_buy_vs_rent,
    headline_engine_plan,
    headline_speedups,
    one_lora_launch_line,
)
from tools.sizing.headline import choose_headline, local_leads, named_with_count, price_load
from tools.sizing.local import local_plans
from tools.sizing.memory import (
    alternative_reading,
    check_claims,
    configuration_fields,
    layout_breakdown,
    longest_context,
    lower_format_fits,
    shorter_than_default,
    size_configuration,
    zero3_resize,
)
from tools.sizing.prices import quoted_prices, with_load
from tools.sizing.report import (
    BudgetCheck,
    ContextFit,
    FormatFit,
    PriceLoad,
    ScaleOut,
    SizedConfiguration,
    SizingError,
    SizingReport,
    VariantQuestion,
)
from tools.sizing.request import GpuConfiguration, SizingRequest
from tools.sizing.shapes import shape_question
from tools.sizing.ways_out import serving_ways_out, ways_out
from tools.sizing.workloads import rate_deployment, rate_headline, size_workload_parts
from tools.units import GB
from tools.workload import Workload, revalidated

MAX_PRICED = 16
"""Options priced per report: the recommender ranks without prices, so the cheapest is often
far down its list (a 7B model: B300 first, the L4 further down)."""


def _error(exc: ToolInputError) -> SizingError:
    return SizingError(
        field=exc.field,
        problem=exc.problem,
        allowed=exc.allowed,
        did_you_mean=list(exc.suggestions or []),
    )


def resolved_configurations(request: SizingRequest) -> list[GpuConfiguration]:
    """The configurations to size: GPU names and variants resolved to catalog ids (an unknown
    name → ToolInputError naming the field), one GPU-free configuration when none was named."""
    catalog = get_catalog()
    out: list[GpuConfiguration] = []
    for index, config in enumerate(request.configurations):
        gpu = config.gpu
        if gpu is not None:
            try:
                gpu = catalog.gpu(gpu).id
            except ToolInputError as exc:
                raise ToolInputError(
                    f"configurations.{index}.gpu", exc.problem, exc.allowed, exc.suggestions
                ) from None
        variants: list[str] = []
        for number, variant in enumerate(config.variants):
            try:
                variants.append(catalog.gpu(variant).id)
            except ToolInputError as exc:
                raise ToolInputError(
                    f"configurations.{index}.variants.{number}",
                    exc.problem,
                    exc.allowed,
                    exc.suggestions,
                ) from None
        resolved = config.model_copy(update={"gpu": gpu, "variants": variants})
        if resolved not in out:
            out.append(resolved)
    return out or [GpuConfiguration()]


def variant_question(
    configs: list[GpuConfiguration], memory: list[SizedConfiguration]
) -> VariantQuestion | None:
    """A question when a GPU name covers variants on which the memory verdict differs. The
    verdict per variant compares the estimate's per-GPU need with that variant's usable memory
    scaled by the same engine utilisation the estimate applied (budget / usable)."""
    catalog = get_catalog()
    for config, sized in zip(configs, memory, strict=True):
        est = sized.estimate
        if config.gpu is None or not config.variants or est is None:
            continue
        if est.budget_bytes_per_gpu is None or not est.usable_bytes_per_gpu:
            continue
        utilisation = est.budget_bytes_per_gpu / est.usable_bytes_per_gpu
        verdicts: dict[bool, list[str]] = {True: [], False: []}
        for gpu_id in config.variants:
            gpu = catalog.gpus[gpu_id]
            fits = est.per_gpu_bytes <= gpu.usable_memory_bytes * utilisation
            name = gpu.name.removeprefix("NVIDIA ")
            if gpu.unified_memory is not None and gpu.configuration_of is None:
                name += f" · {gpu.memory_bytes // GB:,} GB"  # as its RAM configurations read
            verdicts[fits].append(name)
        if verdicts[True] and verdicts[False]:
            return VariantQuestion(
                text=config.words or config.gpu, fits_on=verdicts[True], not_on=verdicts[False]
            )
    return None


def search_workload(
    request: SizingRequest,
    configs: list[GpuConfiguration],
    found: ContextFit | None,
    memory: Sequence[SizedConfiguration] = (),
) -> Workload:
    """The workload the recommender sizes: the request's, with what the named configurations
    imply when the caller did not set it — only the GPUs named; at most the largest count named
    (unless other options were asked for), and for serving every layout within it (objective
    "fastest", so the one at exactly the named count is among the results); for a max-context
    question, the context found (at the utilisation it needed, so the options agree with it).
    Several GPUs named without counts and compared for speed ('3090 vs 4090, which is
    faster?') with no throughput or latency target are compared one card each when every one
    holds the model at the load stated
    (`memory`, their one-GPU estimates): the fastest layout of any count would be eight of
    each, which is not the question."""
    w = request.workload
    data = w.model_dump(mode="json", exclude_unset=True)
    constraints: dict[str, Any] = dict(data.get("constraints") or {})
    named = [c for c in configs if c.gpu is not None]
    if named and not w.constraints.only_gpus:
        constraints["only_gpus"] = list(dict.fromkeys(str(c.gpu) for c in named))
    # A count said without a GPU ('on 4 GPUs') bounds the search too: that many of any GPU.
    unnamed = [c.count for c in configs if c.gpu is None and c.count is not None]
    counts = [c.count for c in named if c.count is not None] + unnamed
    limit_set = "max_gpus" in w.constraints.model_fields_set
    if counts and request.named_count_is_limit and not limit_set:
        constraints["max_gpus"] = max(counts)
        if not w.is_training and "objective" not in w.model_fields_set:
            data["objective"] = "fastest"
    elif _cards_compared_for_speed(request, named, memory) and not limit_set:
        constraints["max_gpus"] = 1
    if constraints:
        data["constraints"] = constraints
    if found is not None and found.context_tokens > 0:
        data["context"] = found.context_tokens
        no_lengths = not {"prompt_tokens", "output_tokens"} & w.model_fields_set
        if shorter_than_default(found.context_tokens) and no_lengths:
            # The default shape scaled into the context found (3:1), as the tools' default.
            shape = default_request_shape(found.context_tokens)
            data |= {"prompt_tokens": shape.prompt_tokens, "output_tokens": shape.output_tokens}
        if found.gpu_memory_utilization is not None:
            data["gpu_memory_utilization"] = found.gpu_memory_utilization
    return revalidated(w, data)


def _cards_compared_for_speed(
    request: SizingRequest,
    named: Sequence[GpuConfiguration],
    memory: Sequence[SizedConfiguration],
) -> bool:
    """Two or more GPUs named without counts, the fastest asked for, serving with no throughput
    or latency target, and each GPU holding the model (at the users stated) on one card."""
    w = request.workload
    targets = {"tokens_per_s", "tokens_per_s_per_user", "ttft_s"}
    if w.is_training or w.objective != "fastest" or targets & w.model_fields_set:
        return False
    if len(named) < 2 or any(c.count is not None for c in named):
        return False
    sized = [m for m in memory if m.gpu is not None]
    return len(sized) == len(named) and all(
        m.estimate is not None and m.estimate.fits for m in sized
    )


def cost_inputs(
    rec: Recommendation, load: PriceLoad, extra: list[Option]
) -> tuple[list[ServingCostInput], list[TrainingCostInput], bool]:
    """What to price: the options that fit and meet the targets (at most MAX_PRICED), plus
    `extra` (a headline outside them); with none meeting them, the nearest fitting ones."""
    chosen = [o for o in rec.options if o.fits and o.meets_targets][:MAX_PRICED]
    nearest = not chosen
    if nearest:
        chosen = [o for o in rec.options if o.fits][:MAX_PRICED]
    chosen += [o for o in extra if not any(o.gpu == c.gpu and o.count == c.count for c in chosen)]
    serving: list[ServingCostInput] = []
    jobs: list[TrainingCostInput] = []
    for o in chosen:
        if not priceable(o):
            continue
        if o.training_hours is not None and o.training_hours > 0:
            jobs.append(
                TrainingCostInput(
                    gpu=o.gpu, count=o.count, training_hours=o.training_hours, tp=o.tp
                )
            )
            continue
        rate = o.full_load_tokens_per_s if load.basis == "full_load" else o.aggregate_tokens_per_s
        serving.append(
            ServingCostInput(gpu=o.gpu, count=o.count, aggregate_tokens_per_s=rate or None, tp=o.tp)
        )
    return serving, jobs, nearest and bool(chosen)


def priceable(option: Option) -> bool:
    """Within what the cost tool prices: at most `MAX_GPUS` GPUs, a job of `MIN_RATE` to
    `MAX_HOURS` hours and a rate within its bounds. A layout of 150,000 GPUs, a job of a few
    milliseconds or of a century is sized (the recommendation shows it) but not priced."""
    if option.count > MAX_GPUS:
        return False
    if option.training_hours is not None and option.training_hours > 0:
        return MIN_RATE <= option.training_hours <= MAX_HOURS
    rates = (option.full_load_tokens_per_s, option.aggregate_tokens_per_s)
    return all(r is None or r == 0 or MIN_RATE <= r <= MAX_TOKENS_PER_S for r in rates)


def _scale_out(
    request: SizingRequest,
    search: Workload,
    memory: list[SizedConfiguration],
    rec: Recommendation,
    prices: Any,
) -> ScaleOut | None:
    """For the first named serving configuration (several GPUs, or one the user named: 'my
    3090') whose GPUs hold no layout that meets the targets (QA round 4, 2: '4 A100 40GB for 10
    users'): the largest layout they hold, and
    the recommender without the GPU limit (its own order unless an objective was asked for).
    With no user count the load is one sequence at a time ('Llama 3.1 70B on 2× L40S': what
    holds the model), said as such; no user count is invented."""
    w = request.workload
    if w.is_training:
        return None
    for sized in memory:
        # One GPU counts when the user named it ('my 3090'): the search was held to it.
        if sized.gpu is None or (sized.count < 2 and not sized.count_named):
            continue
        _named_pipeline_layout(search, sized, rec, prices)
        held = any(
            o.gpu == sized.gpu and o.count <= sized.count and o.fits and o.meets_targets
            for o in [*rec.options, *rec.rejected]
        )
        if held:
            continue
        within = [
            o
            for o in [*rec.options, *rec.rejected]
            if o.gpu == sized.gpu and o.fits and o.tp * o.pp <= sized.count
        ]
        data = search.model_dump(mode="json", exclude_unset=True)
        constraints = dict(data.get("constraints") or {})
        constraints.pop("max_gpus", None)
        data["constraints"] = constraints
        if "objective" not in w.model_fields_set:
            data.pop("objective", None)  # the recommender's own order: fewest GPUs that fit
        unlimited: Recommendation | None
        try:
            unlimited = recommend(revalidated(w, data), prices)
        except ToolInputError:
            unlimited = None
        holds = None
        if unlimited is not None:
            holds = unlimited.fitting_on(sized.gpu)
        return ScaleOut(
            gpu=sized.gpu,
            count=sized.count,
            weights_format=None if sized.estimate is None else sized.estimate.weights_format,
            within=_within_named(search, within, sized.count, prices),
            recommendation=unlimited,
            holds=holds,
        )
    return None


def _named_pipeline_layout(
    search: Workload, sized: SizedConfiguration, rec: Recommendation, prices: Any
) -> None:
    """A named count the recommender's layouts do not reach (3× A100 for Llama 3.1 70B: TP 3
    cannot split its heads, so the memory tool sized TP 1 × PP 3): that layout evaluated as the
    search evaluates it and kept with its others (`rejected`), so what the named GPUs hold is
    judged on the layout their verdict was sized on, not on a smaller one within them."""
    est = sized.estimate
    if est is None or sized.gpu is None or est.pp < 2 or est.tp * est.pp != sized.count:
        return
    evaluated = [*rec.options, *rec.rejected]
    if any((o.gpu, o.tp, o.pp) == (sized.gpu, est.tp, est.pp) for o in evaluated):
        return
    try:
        rec.rejected.append(serving_layout_at(search, sized.gpu, est.tp, est.pp, prices))
    except ToolInputError:
        return


def _within_named(search: Workload, within: list[Option], count: int, prices: Any) -> Option | None:
    """The widest fitting layout of `within` with the replicas `count` named GPUs hold: the
    search planned its replicas for the users (16 × TP 4 for 200 users on '4× L40S'), so the
    layout is evaluated again with that many replicas fixed — the users past its batch cap
    wait for a slot — and the option's count is the GPUs named, as every surface states it.
    None when no layout fits within them."""
    if not within:
        return None
    best = max(within, key=lambda o: o.tp * o.pp)
    replicas = max(1, count // (best.tp * best.pp))
    if best.dp <= replicas:
        return best
    data = search.model_dump(mode="json", exclude_unset=True) | {"replicas": replicas}
    try:
        held = serving_layout_at(revalidated(search, data), best.gpu, best.tp, best.pp, prices)
    except ToolInputError:
        return None
    return held if held.fits else None


def named_training_layouts(
    request: SizingRequest,
    memory: list[SizedConfiguration],
    search: Workload,
    rec: Recommendation,
    prices: Any,
) -> None:
    """A training cluster named with its count ('on 256 H100s') that the search did not size
    at exactly that count (it stops at the smallest layout that fits, and doubles DP): every
    layout of that count evaluated and kept with the recommender's others (`rejected`), so the
    headline can be the cluster named (issue 18, class 7)."""
    named = named_with_count(memory)
    if not request.workload.is_training or named is None or named.gpu is None:
        return
    evaluated = [*rec.options, *rec.rejected]
    exact = [o for o in evaluated if o.gpu == named.gpu and o.count == named.count]
    if any(o.fits and o.meets_targets for o in exact):
        return
    for option in training_layouts_at(search, named.gpu, named.count, prices):
        if not any((o.tp, o.pp, o.dp) == (option.tp, option.pp, option.dp) for o in exact):
            rec.rejected.append(option)


def _budget(request: SizingRequest, report: SizingReport) -> BudgetCheck | None:
    if request.budget is None:
        return None
    period = request.budget.period
    field = "usd_per_hour" if period == "hour" else "usd_per_month"
    priced = [p for p in report.priced if getattr(p, field) is not None]
    cheapest = min(priced, key=lambda p: float(getattr(p, field))) if priced else None
    budget = request.budget
    # A EUR budget is compared in USD at the rate every EUR price of the report is.
    rate = None
    if budget.currency == "EUR":
        used = report.exchange_rate or rate_used(request.pricing.eur_to_usd)
        rate = used.usd_per_eur
    amount_usd = budget.amount * (rate or 1.0)
    within = None
    if cheapest is not None:
        within = float(getattr(cheapest, field)) <= amount_usd
    return BudgetCheck(
        amount=budget.amount,
        currency=budget.currency,
        usd_per_eur=rate,
        amount_usd=amount_usd,
        period=period,
        within=within,
        cheapest=cheapest,
    )


def _longest_contexts(
    request: SizingRequest, memory: list[SizedConfiguration], report: SizingReport
) -> ContextFit | None:
    """A max-context question (serving): the longest context each named configuration holds,
    each sized again at it (`memory` updated in place); the first that holds any."""
    if not request.longest_context or request.workload.is_training:
        return None
    found: ContextFit | None = None
    for index, sized in enumerate(memory):
        fit = longest_context(request, sized)
        if fit is None:
            continue
        report.longest_context.append(fit)
        if fit.context_tokens > 0:
            memory[index] = sized.model_copy(update={"estimate": fit.estimate})
            found = found or fit
    report.memory = memory
    return found


def _lower_formats(
    request: SizingRequest, memory: list[SizedConfiguration], scale_out: ScaleOut | None
) -> list[FormatFit]:
    """The lower weight formats sized on the named GPUs that do not hold the load: those of
    the scale-out, else (serving) the first named GPU that does not hold the model as asked
    ('can my 3090 run Qwen3 32B?' → 4-bit fits one 3090), the hardware kept."""
    if scale_out is not None:
        named = next(m for m in memory if m.gpu == scale_out.gpu)
        return lower_format_fits(request, named)
    if request.workload.is_training:
        return []
    short = next((m for m in memory if m.gpu is not None and _short(m)), None)
    return [] if short is None else lower_format_fits(request, short)


def _price(
    request: SizingRequest,
    rec: Recommendation,
    serving: list[ServingCostInput],
    jobs: list[TrainingCostInput],
    book: PriceBook,
    flt: PriceFilter,
    today: date,
) -> tuple[CostComparison | None, SizingError | None]:
    """The cost tool over the options to price, or why none is priced."""
    if serving or jobs:
        training = request.workload.is_training
        try:
            costs = price_configurations(
                serving,
                jobs,
                book,
                flt,
                request.pricing.usage,
                rec.model_id,
                (today, request.pricing.max_price_age_days),
                deadline_hours=request.workload.deadline_hours if training else None,
                spot_interruption_overhead=request.pricing.spot_interruption_overhead,
            )
        except ToolInputError as exc:
            return None, _error(exc)
        return costs, None
    if any(o.fits for o in rec.options):
        return None, SizingError(
            field="workload",
            problem="every option is outside what is priced (more than "
            f"{MAX_GPUS:,} GPUs, a job shorter than {MIN_RATE:g} or longer than "
            f"{MAX_HOURS:,.0f} hours, or a rate out of bounds), so none is priced",
        )
    return None, None


def size(
    request: SizingRequest, book: PriceBook | None = None, today: date | None = None
) -> SizingReport:
    """Answer `request` (see the module docstring). `book`: the prices (default the built-in
    catalog); `today`: the date prices are judged fresh on (default today). A bad model or GPU
    name raises ToolInputError naming the field; a part that cannot run (the recommender, the
    costs) is reported as that part's error.

    A request rate with no user count is sized twice: the recommender searches its layouts
    for a count of concurrent sequences, so the first pass (one sequence) offers the narrowest
    layout only, whose replicas may each hold a few requests; the requests in flight that
    pass finds (Little's law) are then sized as concurrent sequences, and the cheaper per
    hour of the two rate answers is kept, said in a note (a 70B model at 69 requests/s: 2× H100
    replicas holding 8 requests each, or TP 8 replicas holding hundreds)."""
    today = today or date.today()
    book = book or builtin_price_book()
    report = size_pass(request, book, today)
    wider = _at_requests_in_flight(request, report)
    if wider is None:
        return report
    second = size_pass(wider, book, today, users_stated=False)
    first_usd, second_usd = _rate_usd(report), _rate_usd(second)
    if second_usd is None or first_usd is None or second_usd >= first_usd:
        return report
    users = wider.workload.users
    second.notes.append(
        Note(
            code="rate_concurrency",
            text=f"No user count stated: the rate's ≈{users:,} requests in flight (Little's law "
            f"on the narrowest layout, {first_usd:,.2f} USD/h) are sized as {users:,} concurrent "
            f"sequences, which a wider layout serves for {second_usd:,.2f} USD/h.",
        )
    )
    return second


def _rate_usd(report: SizingReport) -> float | None:
    """The rate answer's USD per hour when the rate chose the headline, else None."""
    rate = report.request_rate
    if rate is None or report.headline is None or report.headline.rule != "request_rate":
        return None
    return rate.usd_per_hour


def _at_requests_in_flight(request: SizingRequest, report: SizingReport) -> SizingRequest | None:
    """`request` with the requests in flight its rate answer found as the user count (see
    `size`), or None when users were stated or one replica holds the rate."""
    rate = report.request_rate
    w = request.workload
    if rate is None or "users" in w.model_fields_set or _rate_usd(report) is None:
        return None
    if rate.replicas <= 1:
        return None
    users = math.ceil(rate.concurrency)
    if users <= 1:
        return None
    try:
        workload = Workload.model_validate({**w.model_dump(exclude_unset=True), "users": users})
        return request.model_copy(update={"workload": workload})
    except ValueError:
        return None


def size_pass(
    request: SizingRequest, book: PriceBook, today: date, users_stated: bool | None = None
) -> SizingReport:
    """One sizing pass of `request` (see `size`). `users_stated`: False when the user count
    is the rate's requests in flight, not the user's (default: whether the request sets it)."""
    configs = resolved_configurations(request)
    load = price_load(request)
    memory = [
        size_configuration(request, c.gpu, c.count or 1).model_copy(
            update={"count_named": c.count is not None}
        )
        for c in configs
    ]
    report = SizingReport(
        request=request,
        memory=memory,
        price_load=load,
        users_stated="users" in request.workload.model_fields_set
        if users_stated is None
        else users_stated,
    )
    report.local, report.local_errors = local_plans(request, configs)
    report.leads_with_local = local_leads(request, report.local)
    report.claim_checks = check_claims(request)
    report.alternative = alternative_reading(request, memory)
    first = next((m.estimate for m in memory if m.estimate is not None), None)
    if first is not None:
        report.model_id, report.weights_format = first.model_id, first.weights_format
    found = _longest_contexts(request, memory, report)
    report.question = variant_question(configs, memory)
    if report.question is not None:
        return report
    report.shape_question = next(
        (
            q
            for m in memory
            if (q := shape_question(configuration_fields(request, m.gpu, m.count), m))
        ),
        None,
    )
    # EUR prices are compared in USD at the user's rate, else the catalog's dated ECB
    # reference rate; the report says which (issue 18, class 10).
    report.exchange_rate = rate_used(request.pricing.eur_to_usd)
    rate = report.exchange_rate.usd_per_eur
    flt: PriceFilter = request.pricing.model_copy(update={"eur_to_usd": rate}).price_filter()
    prices = cost_ranking_prices(book, flt, today, request.pricing.max_price_age_days)
    try:
        search = search_workload(request, configs, found, memory)
        report.search = search
        rec = recommend(search, prices)
    except ToolInputError as exc:
        report.recommendation_error = _error(exc)
        return report
    named_training_layouts(request, memory, search, rec, prices)
    report.recommendation = rec
    report.model_id, report.weights_format = rec.model_id, rec.weights_format
    report.scale_out = _scale_out(request, search, memory, rec, prices)
    report.lower_formats = _lower_formats(request, memory, report.scale_out)
    # The headline chosen before prices (a named configuration, a scale-out) is priced too.
    early = choose_headline(request, rec, memory, [], report.scale_out, search)
    extra = (
        []
        if early is None or early.rule not in ("named_configuration", "scale_out")
        else [early.option]
    )
    pricing = (book, flt, today)
    _price_options(request, report, rec, extra, pricing)
    headline = choose_headline(request, rec, memory, report.priced, report.scale_out, search)
    headline = rate_headline(request, rec, headline, report.price_of, search)  # issue 30 item 5
    deployed = (
        None
        if headline is None
        else rate_deployment(request, search, headline, prices, report.users_stated)
    )
    if headline is not None and deployed is not None:
        # The rate's replicas of the headline's layout, priced as one configuration.
        headline.option, report.request_rate = deployed
        _price_options(request, report, rec, extra, pricing, headline.option)
    if headline is not None:
        headline.price = report.price_of(headline.option.gpu, headline.option.count)
    report.headline = headline
    report.zero3_resize = [z for m in memory if (z := zero3_resize(request, m)) is not None]
    report.ways_out = ways_out(request, memory, rec, report.zero3_resize)
    report.ways_out += serving_ways_out(request, report.memory)
    if headline is not None:
        report.layout_breakdown = layout_breakdown(
            request, memory[0], headline.option, scale_out=headline.rule == "scale_out"
        )
    report.budget_check = _budget(request, report)
    # issue 30 items 5-7
    report.engine_plan, report.engine_plan_error = headline_engine_plan(request, headline)
    report.buy_vs_rent = headline_buy_vs_rent(request, headline, book, today)
    report.speedups, report.speedups_error = headline_speedups(request, report.model_id, headline)
    report.asked_answer = answer_asked(report)
    report.notes = _notes(report)
    report.workloads_error = size_workload_parts(request, report, book, today)  # issue 30
    report.engine_plan, report.lora_serving = one_lora_launch_line(
        report.engine_plan, report.lora_serving
    )
    return report


def _price_options(
    request: SizingRequest,
    report: SizingReport,
    rec: Recommendation,
    extra: list[Option],
    pricing: tuple[PriceBook, PriceFilter, date],
    deployed: Option | None = None,
) -> None:
    """Price the recommender's options, `extra` (a headline outside them) and `deployed` (a
    rate's deployment) into `report`: its costs, whether they are the nearest options, and
    the rows quoted at the load."""
    book, flt, today = pricing
    load = report.price_load
    first = [] if deployed is None else [deployed]
    serving, jobs, nearest = cost_inputs(rec, load, [*extra, *first])
    report.costs, report.costs_error = _price(request, rec, serving, jobs, book, flt, today)
    report.priced_nearest = nearest
    # Options priced: a rate's deployment first (its GPU and count are its own), the
    # search's, then the scale-out search's (a scale-out headline's layout is only there), so
    # each price carries the throughput at its load.
    evaluated = [*first, *rec.evaluated()]
    scaled = report.scale_out.recommendation if report.scale_out is not None else None
    evaluated += [] if scaled is None else scaled.evaluated()
    report.priced = [
        with_load(p, evaluated, load)
        for p in quoted_prices(report.costs, request.pricing.quote_tier)
    ]


def _notes(report: SizingReport) -> list[Note]:
    """The report's own notes (the tools' notes stay on their results)."""
    notes: list[Note] = []
    if report.priced_nearest:
        notes.append(
            Note(
                code="nearest_priced",
                text="No option meets every target: the nearest options that fit are priced, "
                "not offered.",
            )
        )
    return notes


def _short(sized: SizedConfiguration) -> bool:
    """Whether a sized configuration was found not to fit."""
    return sized.estimate is not None and sized.estimate.fits is False
