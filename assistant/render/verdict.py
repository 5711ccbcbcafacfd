"""The verdict an answer leads with, from the sizing report: fits or not per configuration
sized, the recommender's layout when a named one does not fit, the headline option when no GPU
was named (`SizingReport.headline`, chosen in `tools.sizing.headline`), what the named GPUs
hold when they cannot hold the load, and which GPU a recommender note is about.

`verdict_text(report)` is the verdict alone: what the LLM mode's answer leads with too.

The lines the app's verdict card states too (fits or not per configuration, what holds the
load, the headline option) are made as `CardLine`s, so a surface showing the card leaves them
out; the card takes its words from here (`HOLDS_THE_LOAD`, `headline_verb`,
`headline_price_text`), so the two never word one verdict differently.
"""

from __future__ import annotations

from assistant.answer import Answer, AnswerSection, CardLine
from assistant.render.asked import asked_lines, with_yes_no, yes_no
from assistant.render.costs import (
    billed_as,
    budget_line,
    cheaper_per_token_line,
    offer_text,
    usd_in_period,
)
from assistant.render.local import DATACENTER_HEADING, owned_lead
from assistant.render.questions import faster_lines, max_context_lines, past_maximum_line
from assistant.render.results import (
    config_label,
    gib,
    gib_as_gb,
    gpu_name,
    option_label,
    priced_by,
)
from tools.memory.request import MemoryEstimate
from tools.notes import Note
from tools.recommend import Option
from tools.sizing import Headline, SizedConfiguration, SizingReport, WayOut
from tools.sizing.headline import candidates
from tools.sizing.verdict import (
    ConfigurationFit,
    configuration_fit,
    leading_cautions,
    states_headline,
    working_option,
)
from tools.units import format_count


def sequences_held(option: Option, context: int) -> str:
    """'5 sequences of 4,096 tokens at once' (per replica × replicas when there are several):
    what a layout's KV capacity holds (text and card)."""
    n = option.max_concurrent_sequences
    held = f"{n:,} sequence{'s' if n != 1 else ''} of {context:,} tokens at once"
    return held + (f" per replica × {option.dp} replicas" if option.dp > 1 else "")


def needs_line(option: Option, verb: str = "Needs", why: str = "") -> str:
    """'**Needs 2× H100 SXM5** (TP 2 × PP 1 × 1 replica(s)) — 35.5 GiB per GPU, …'."""
    layout = f"TP {option.tp} × PP {option.pp} × {option.dp} replica(s)"
    tokens = option.kv_cache_capacity_tokens
    kv = "" if not tokens else f", {tokens:,} KV-cache tokens per replica"
    per_gpu = gib(option.per_gpu_bytes)
    return f"**{verb} {option_label(option)}**{why} ({layout}) — {per_gpu} per GPU{kv}."


HOLDS_THE_LOAD = "What holds this load"
"""The words for the configuration that holds the load the named GPUs cannot (text and card)."""


def holds_label(report: SizingReport) -> str:
    """`HOLDS_THE_LOAD`, or with no user count given, the load it holds in words: one sequence
    at a time (no user count is invented; its KV capacity says how many more it holds)."""
    if report.users_stated:
        return HOLDS_THE_LOAD
    rec = report.recommendation
    context = None if rec is None else rec.context_tokens
    length = "" if context is None else f" of {context:,} tokens"
    return f"What holds one sequence{length} (no user count given)"


def _per_token_headline(report: SizingReport, headline: Headline) -> bool:
    price = headline.price
    return (
        headline.rule == "cheapest"
        and price is not None
        and report.request.workload.objective == "cheapest_per_token"
        and price.usd_job is None
        and price.usd_per_million_tokens is not None
    )


def headline_verb(report: SizingReport, headline: Headline) -> str:
    """The rule that chose the headline option, as the verdict says it: 'Cheapest priced option
    that fits and meets the targets:', or 'Recommended:' (the recommender's first option)."""
    # 'on 4 GPUs' (no GPU type named): chosen among that many GPUs, said so.
    on = "" if headline.gpus_named is None else f" on {headline.gpus_named} GPUs"
    if headline.rule == "request_rate":
        return "Cheapest layout for the request rate (its replicas serve it for the least USD/h):"
    if headline.rule != "cheapest" or headline.price is None:
        return f"Recommended{on}:"
    if _per_token_headline(report, headline):
        return (
            f"Cheapest per million output tokens{report.price_load.label} of the options{on} "
            "that fit and meet the targets:"
        )
    where = " in the EU" if report.request.pricing.eu_only else ""
    return f"Cheapest priced option{where}{on} that fits and meets the targets:"


def headline_price_text(report: SizingReport, headline: Headline) -> str:
    """The headline's quoted price as the verdict says it ('12.34 USD per hour on demand
    (offer …)'); '' when no price chose it."""
    price = headline.price
    if headline.rule != "cheapest" or price is None:
        return ""
    tier = "on demand" if price.tier == "on_demand" else price.tier
    source = offer_text(price, report)
    if _per_token_headline(report, headline):
        basis = f", {price.throughput_basis} throughput" if price.throughput_basis else ""
        return (
            f"{price.usd_per_million_tokens or 0:,.3f} USD/M ({price.usd_per_hour or 0:,.2f} USD "
            f"per hour {tier}{source}{basis})"
        )
    return f"{usd_in_period(price, report)} {tier}{source}"


def _headline_line(report: SizingReport, headline: Headline) -> str:
    """The headline option with its quoted price and the rule that chose it."""
    option = headline.option
    verb = headline_verb(report, headline)
    price = headline_price_text(report, headline)
    if not price:
        chose = "" if headline.rule == "request_rate" else " (the recommender's first option)"
        return needs_line(option, verb, chose)
    return needs_line(option, verb) + f" {price}."


_RANKED_FIRST = {
    "cheapest": "The recommender's cheapest by its ranking prices",
    "cheapest_per_token": "The recommender's cheapest per million tokens",
    "fastest": "Fastest",
    "fewest_gpus": "Fewest GPUs, then fastest",
}
"""How the recommender's own first option is named, by its objective."""


def recommended_lines(report: SizingReport) -> list[str]:
    """The verdict when no GPU was named: the headline option (with its price when a price
    decided it), the recommender's first option when that is another one, or why nothing
    qualifies."""
    rec = report.recommendation
    if rec is None:
        return []
    limit = None if report.search is None else report.search.constraints.max_gpus
    meeting = candidates(rec, limit if limit is not None else max(o.count for o in rec.options))
    headline = report.headline
    if not meeting or headline is None:
        fitting = [o for o in rec.options if o.fits]
        head = "No option meets every target" if fitting else "Nothing fits"
        nearest = (rec.nearest_feasible or "").removeprefix("No configuration meets every target.")
        nearest = nearest.strip()
        return [f"**{head}.**" + (f" {nearest}" if nearest else "")]
    line = _headline_line(report, headline)
    lines = [CardLine(line) if states_headline(report) else line]
    if headline.rule == "cheapest" and not headline.option.same_layout(meeting[0]):
        # The recommender ranks by its objective (its own ranking prices, or fewest GPUs,
        # then fastest); when the priced rows put another option first, say what it ranked
        # first, and by what.
        ranked = _RANKED_FIRST.get(rec.objective, "The recommender's first option")
        lines.append(needs_line(meeting[0], f"{ranked}:"))
    return lines


NotFitting = tuple[str, str, str]
"""The key of a "does not fit" line GPUs share: need, budget and excess per GPU, as shown."""


def _need_lines(
    report: SizingReport, sized: SizedConfiguration, est: MemoryEstimate, memory_first: bool
) -> list[str]:
    """A configuration sized without a GPU verdict (no GPU named): the memory it needs, the
    recommended layout's need, and the headline option (first, or after the need for a memory
    question)."""
    headline = recommended_lines(report)
    parts = (
        "weights, gradients, optimizer state, activations and runtime"
        if report.is_training
        else "weights, KV cache and runtime"
    )
    need = gib(est.per_gpu_bytes)
    where = "on a single GPU"
    if sized.count > 1:
        # 'on 4 GPUs': sized over that many (per GPU), not on one.
        split = f"TP {est.tp}" if est.tp > 1 else f"{est.num_gpus} GPUs"
        where = f"per GPU on {sized.count} GPUs ({split})"
    whole = f"of GPU memory for this load {where} ({parts}; {gib_as_gb(est.per_gpu_bytes)})."
    differs = _one_gpu_headline_differs(report, est.per_gpu_bytes)
    lines: list[str] = []
    if memory_first:
        # A memory question: the whole need leads, then the layout that holds it.
        lines += [f"**Needs {need}** {whole}", *differs]
    else:
        lines += headline
    layout = report.layout_breakdown
    if layout is not None and layout.estimate is not None:
        # The recommended layout sized at the sequences it serves per replica: the figure the
        # options table shows, not one sequence on one GPU.
        batch = layout.estimate.batch
        load = "" if report.is_training else f", {batch:,} sequences per replica"
        # Sized per replica: with several, the label is one replica's, said so (not "1×"
        # under a headline of 26×).
        head = report.headline
        replicas = 1 if head is None or report.is_training else head.option.dp
        one = "one replica of " if replicas > 1 else ""
        lines.append(
            f"Needs {gib(layout.estimate.per_gpu_bytes)} per GPU for this load on {one}the "
            f"recommended layout ({config_label(layout, zero=False)}{load})."
        )
    elif not memory_first:
        lines += [f"Needs {need} {whole}", *differs]
    return lines + (headline if memory_first else [])


def _fits_lines(
    report: SizingReport, sized: SizedConfiguration, fit: ConfigurationFit, standalone: bool
) -> list[str]:
    """A configuration that fits: need of budget, its KV capacity (serving) or headroom, then
    how it does against the targets and what it costs (unless a named training cluster
    leads)."""
    option = fit.option
    if option is not None:
        tokens = option.kv_cache_capacity_tokens
        held = ""
        rec = report.recommendation
        if not report.users_stated and rec is not None and rec.context_tokens:
            held = f", so it holds {sequences_held(option, rec.context_tokens)}"
            held += " (no user count given)"
        extra = (
            f"; KV-cache capacity {gib(option.kv_cache_capacity_bytes)} ({tokens:,} tokens){held}"
        )
    else:
        extra = f"; {gib(fit.headroom_bytes)} headroom per GPU"
    lines: list[str] = [
        CardLine(
            f"**Fits on {config_label(sized)}** — needs {gib(fit.need_bytes_per_gpu)} of "
            f"{gib(fit.capacity_bytes_per_gpu)} per GPU{extra}."
        )
    ]
    if _named_training(report) is None:
        targets = _named_targets(report, sized, standalone)
        answer = report.asked_answer
        # A yes/no answered no for a target missed (a deadline): the miss leads, the fit in
        # memory follows ('No. 8× H100 SXM5 misses a target: …').
        missed = answer is not None and answer.asked == "fits" and answer.yes is False
        lines = [*targets, *lines] if missed else [*lines, *targets]
        lines += _named_cost(report, sized)
    return lines


def _short_lead(report: SizingReport, fit: ConfigurationFit) -> list[str]:
    """Before a configuration's "does not fit": the recommender's layout within the GPUs named
    (plain data parallelism that does not fit, where TP/PP does), else the larger option on
    the same GPU that fits — the count the user asked about ("on H100s" → how many); both
    chosen by the verdict items (`ConfigurationFit.within` / `.larger`)."""
    if fit.within is not None:
        why = f", the recommender's layout within the {fit.count} named"
        return [needs_line(fit.within, "Fits as", why)]
    larger = fit.larger
    if larger is None:
        return []
    # Under the per-token objective the recommender's layout is the cheapest per token, not
    # the fewest GPUs that fit: say which.
    rec = report.recommendation
    per_token = rec is not None and rec.objective == "cheapest_per_token"
    line = needs_line(larger, "Cheapest per token:" if per_token else "Needs")
    working = working_option(report)
    # The card says 'Needs' the headline option: the same statement, when it is this.
    on_card = working is not None and working.role == "headline"
    on_card = on_card and working is not None and working.option.same_layout(larger)
    return [CardLine(line) if on_card and not per_token else line]


def _not_fitting_key(fit: ConfigurationFit) -> NotFitting:
    headroom = fit.headroom_bytes
    return (
        gib(fit.need_bytes_per_gpu),
        gib(fit.capacity_bytes_per_gpu),
        gib(None if headroom is None else -headroom),
    )


def verdict_lines(
    report: SizingReport, memory_first: bool = False, standalone: bool = False
) -> list[str]:
    """One line per configuration sized: fits or not, needed vs budget per GPU (the report's
    verdict items, `tools.sizing.verdict`). When a sized configuration does not fit but the
    recommender found a larger one on the same GPU, that answer comes first: it is the verdict
    the user asked for ("on H100s" → how many). With no GPU named, the headline option leads
    and the one-GPU need follows. GPUs with the same need and budget (a '24 GB GPU' matches
    several) share one line. When the named GPUs cannot hold the load (`report.scale_out`),
    `scale_out_lines` says what does, so no larger option of the same search leads.
    `memory_first`: a memory question — with no GPU named, the memory needed leads and the
    headline option follows. `standalone`: shown without the answer's tables (`verdict_text`),
    so no line refers to them."""
    # Each entry is a finished line, or the key of a "does not fit" line shared by GPUs.
    entries: list[str | NotFitting] = []
    not_fitting: dict[NotFitting, list[str]] = {}
    resized = [(m, False) for m in report.memory] + [(z, True) for z in report.zero3_resize]
    for sized, zero3 in resized:
        est = sized.estimate
        if est is None:
            if sized.gpu is None:
                entries += recommended_lines(report)
            problem = "rejected" if sized.error is None else sized.error.text
            entries.append(f"- Could not size {config_label(sized)}: {problem}")
            continue
        fit = None if sized.gpu is None else configuration_fit(report, sized, zero3)
        if fit is None:
            entries += _need_lines(report, sized, est, memory_first)
        elif fit.fits:
            entries += _fits_lines(report, sized, fit, standalone)
        else:
            entries += _short_lead(report, fit)
            label = config_label(sized)
            if sized.plain_data_parallel:
                label += " as plain data parallelism (whole training state on every GPU)"
            key = _not_fitting_key(fit)
            if key not in not_fitting:
                entries.append(key)
            not_fitting.setdefault(key, []).append(label)
    lines: list[str] = []
    for entry in entries:
        if isinstance(entry, str):
            lines.append(entry)
            continue
        needed_text, budget_text, over_text = entry
        lines.append(
            CardLine(
                f"**Does not fit on {', '.join(not_fitting[entry])}** — needs {needed_text} per "
                f"GPU, budget {budget_text} ({over_text} over)."
            )
        )
    return lines


def _headline_on_one_gpu(report: SizingReport) -> bool:
    """The headline option is one GPU (its line already says what it needs per GPU)."""
    return report.headline is not None and report.headline.option.count == 1


def _one_gpu_headline_differs(report: SizingReport, need: int) -> list[str]:
    """Why the one-GPU headline's need differs from the GPU-agnostic one just stated (else the
    two figures read as a contradiction): with one GPU and the same load, only vLLM's default
    batch limits (which size the activation peak and the sampler reserve) depend on the GPU."""
    if report.headline is None or not _headline_on_one_gpu(report):
        return []
    option = report.headline.option
    if gib(option.per_gpu_bytes) == gib(need):
        return []
    return [
        f"On {option_label(option)} it is {gib(option.per_gpu_bytes)}: vLLM's default batch "
        "limits, which size the activation peak and the sampler reserve, differ by GPU."
    ]


def _named_cost(report: SizingReport, sized: SizedConfiguration) -> list[str]:
    """What the configuration the user named costs (issue 18, class 7): its quoted price per
    hour and month and, serving, per million output tokens at the report's price load."""
    headline = report.headline
    if headline is None or headline.rule != "named_configuration" or sized.gpu is None:
        return []
    o, price = headline.option, headline.price
    if (o.gpu, o.count) != (sized.gpu, sized.count) or price is None:
        return []
    if price.usd_per_hour is None:
        return []
    tier = "on demand" if price.tier == "on_demand" else price.tier
    text = f"- {option_label(o)} costs {price.usd_per_hour:,.2f} USD per hour {tier}"
    if price.usd_per_month is not None:
        text += f" ({price.usd_per_month:,.0f} USD a month)"
    if price.usd_per_million_tokens is not None:
        text += (
            f", {price.usd_per_million_tokens:,.3f} USD per million output tokens"
            f"{report.price_load.label}"
        )
    return [f"{text}{offer_text(price, report)}."]


def _named_targets(
    report: SizingReport, sized: SizedConfiguration, standalone: bool = False
) -> list[str]:
    """How the named configuration does against the targets (a deadline), from the recommender's
    fitting option with exactly the named count: '32× H100 SXM5 misses a target: 25.7 h on 32
    GPUs > deadline 24.0 h'. Empty when it meets them or the recommender did not size it."""
    rec = report.recommendation
    option = None if rec is None else rec.fitting_at(sized.gpu, sized.count)
    if option is None:
        return []
    label = f"{sized.count}× {gpu_name(sized.gpu)}"
    hours = option.training_hours
    took = "" if hours is None else f" ({hours:,.1f} h)"
    if option.meets_targets:
        return [f"- {label} meets the targets{took}."] if hours is not None else []
    reasons = "; ".join(str(r) for r in option.reasons)
    # Standalone, there is no options table below to point to.
    fallback = (
        "it misses a target the recommender checks" if standalone else "see the options below"
    )
    return [f"**{label} misses a target**: {reasons or fallback}."]


def about_headline(note: Note, headline: Option | None) -> str:
    """A recommender note as shown under the answer's headline option: a note about one GPU
    configuration ("Fits on 1× NVIDIA H100 SXM5 … stop there") under a headline on another GPU
    or count says which configuration it is about, from the note's subject (never its text)."""
    if headline is None or note.gpu is None or note.about(headline.gpu, headline.count):
        return note.text
    subject = f"{note.count or 1}× {gpu_name(note.gpu)}"
    return f"About {subject}, not the {option_label(headline)} recommended above: {note.text}"


def scale_out_lines(report: SizingReport) -> list[str]:
    """When the GPUs the user named do not hold the load (QA round 4, 2): what they hold (the
    recommender's largest fitting layout within them), what count holds the load (the
    recommender asked again without the GPU limit) and which lower weight formats fit the named
    GPUs. Empty without a scale-out."""
    scale = report.scale_out
    named: SizedConfiguration | None = next(
        (m for m in report.memory if m.gpu is not None and m.estimate is not None), None
    )
    if scale is None or named is None or named.estimate is None:
        return []
    label = f"{scale.count}× {gpu_name(scale.gpu)}"
    users = named.estimate.batch
    asked = f", not the {users:,} users asked" if report.users_stated else ""
    rec = report.recommendation
    context = None if rec is None else rec.context_tokens
    length = "" if context is None else f" of {context:,} tokens"
    lines: list[str] = []
    within = scale.within
    single = scale.count == 1
    if within is None and single:
        pass  # one GPU: its "Does not fit" line says so
    elif within is None:
        lines.append(
            f"**{label} hold no sequence{length}** at {named.estimate.weights_format} "
            "weights: no layout within them fits."
        )
    else:
        replicas = scale.count // (within.tp * within.pp)
        seqs = within.max_concurrent_sequences
        held = f"{seqs:,} concurrent sequence{'s' if seqs != 1 else ''}{length}"
        if replicas > 1:
            held += f" per replica × {replicas} replicas"
        kv = f"; {within.kv_cache_capacity_tokens:,} KV-cache tokens per replica"
        verb = "holds" if single else "hold"
        lines.append(f"**{label} {verb} {held}**{asked} (TP {within.tp} × PP {within.pp}{kv}).")
    lower = lower_format_lines(report)
    if single:
        # The GPU the user has, kept: its lower formats come before buying more of it.
        lines, lower = lines + lower, []
    if scale.holds is not None:
        n = scale.holds.max_concurrent_sequences
        seqs_text = f"; it holds {n:,} concurrent sequence{'s' if n != 1 else ''} per replica"
        holds = needs_line(
            scale.holds,
            f"{holds_label(report)}:",
            f", the recommender without the {scale.count}-GPU limit",
        )
        holds = holds.removesuffix(".") + f"{seqs_text}."
        # The card states it only as what works (no configuration sized fits).
        working = working_option(report)
        lines.append(CardLine(holds) if working and working.role == "holds_load" else holds)
    elif single and not any(w.fits for w in report.ways_out) and not _lower_fits(report):
        lines.append(
            f"**Nothing the tools try fits on {label}**: no shorter context, 8-bit KV cache or "
            f"lower weight format, and no count of {gpu_name(scale.gpu)} the recommender tries "
            "holds this load."
        )
    else:
        lines.append(f"No count of {gpu_name(scale.gpu)} the recommender tries holds this load.")
    return lines + lower


def _lower_fits(report: SizingReport) -> bool:
    """Whether a lower weight format fits the named GPUs (as asked or at a shorter context)."""
    return any(
        f.estimate is not None and (f.estimate.fits or f.shorter_context is not None)
        for f in report.lower_formats
    )


def lower_format_lines(report: SizingReport) -> list[str]:
    """Which lower weight formats fit the named GPUs that do not hold the model as asked
    (`report.lower_formats`, decided in `tools.sizing`): 'At lower weight precision on 1×
    GeForce RTX 3090 at this load: fp8 does not fit (…); **int4-awq fits** (19.8 of 21.6
    GiB per GPU, 18.3 GiB of weights).'"""
    fits = [f for f in report.lower_formats if f.estimate is not None]
    if not fits:
        return []
    label = f"{fits[0].count}× {gpu_name(fits[0].gpu)}"
    verdicts = []
    for fit in fits:
        est = fit.estimate
        assert est is not None
        need = f"{gib(est.per_gpu_bytes)} of {gib(est.budget_bytes_per_gpu)} per GPU"
        if est.fits:
            weights = gib(est.breakdown.get("weights"))
            verdicts.append(f"**{fit.weights} fits** ({need}, {weights} of weights)")
        elif fit.shorter_context is not None:
            verdicts.append(
                f"{fit.weights} does not fit at {est.context:,} tokens ({need}) but "
                f"**fits at up to {fit.shorter_context:,} tokens** per sequence"
            )
        else:
            verdicts.append(f"{fit.weights} does not fit ({need})")
    return [f"At lower weight precision on {label} at this load: " + "; ".join(verdicts) + "."]


def _named_training(report: SizingReport) -> Headline | None:
    """The headline when it is a training cluster the user named with its count."""
    headline = report.headline
    if headline is None or headline.rule != "named_configuration" or not report.is_training:
        return None
    return headline


def named_training_lines(report: SizingReport) -> list[str]:
    """A training cluster named with its count leads (issue 18, class 7): its layout, the
    job's hours, GPU-hours and total cost on that cluster ('pretrain a 7B on 1T tokens on 256
    H100s' → the 256, not the cheapest 2-GPU layout that takes years)."""
    headline = _named_training(report)
    if headline is None:
        return []
    o = headline.option
    layout = f"TP {o.tp} × PP {o.pp} × DP {o.dp}"
    head = f"**{option_label(o)} as {layout}"
    hours, gpu_hours = o.training_hours, o.gpu_hours
    tokens = report.request.workload.train_tokens
    price = headline.price
    tier = "" if price is None else ("on demand" if price.tier == "on_demand" else price.tier)
    if hours is None or tokens is None:
        need = f"{gib(o.per_gpu_bytes)} of {gib(o.budget_bytes_per_gpu)} per GPU"
        cost = ""
        if price is not None and price.usd_per_hour is not None:
            cost = (
                f", {price.usd_per_hour:,.2f} USD per hour {tier} ({priced_by(price)}"
                f"{billed_as(price)})"
            )
        return [
            f"{head}: fits**{cost} — {need}; give the training tokens (dataset × epochs) for "
            "its hours and total cost."
        ]
    days = f" ({hours / 24:,.1f} days)" if hours >= 48 else ""
    lines = [f"{head}: {hours:,.1f} h{days} for {format_count(tokens)} tokens"]
    if gpu_hours is not None:
        lines[0] += f", {gpu_hours:,.0f} GPU-hours"
    if price is not None and price.usd_job is not None:
        hourly = f"{price.per_hour:,.2f} {price.currency} per hour, "
        lines[0] += (
            f", {price.usd_job:,.0f} USD {tier}** ({hourly}{priced_by(price)}"
            f"{billed_as(price)}; {gib(o.per_gpu_bytes)} per GPU)."
        )
    else:
        lines[0] += f"** ({gib(o.per_gpu_bytes)} per GPU; not priced)."
    if not o.meets_targets and o.reasons:
        lines.append(f"It misses a target: {'; '.join(str(r) for r in o.reasons)}.")
    return lines


def verdict_block(
    report: SizingReport, memory_first: bool = False, standalone: bool = False
) -> list[str]:
    """The verdict of a report: the longest context found (a max-context question), fits or
    not per configuration, what holds the load, which option is cheaper per token, the
    recommended option when no GPU was named, and the budget check — the lines an offline
    answer leads with (after a capacity question's count); `memory_first`: see
    `verdict_lines`; `standalone`: shown without the answer's tables (no line points to them)."""
    per_token = report.request.workload.objective == "cheapest_per_token"
    cheaper = cheaper_per_token_line(report, per_token, standalone)
    # 'Is an L40S cheaper than an H100 per million tokens?': the comparison is the answer,
    # so it leads; the fit of each configuration follows.
    compared = per_token and len(report.memory) > 1 and bool(cheaper)
    lines = list(cheaper) if compared else []
    lines += named_training_lines(report)
    lines += max_context_lines(report)
    lines += verdict_lines(report, memory_first=memory_first, standalone=standalone)
    lines += faster_lines(report)
    lines += alternative_lines(report)
    if report.shape_question is not None:
        lines += ["", f"**One question:** {report.shape_question.question}"]
    lines += ways_out_lines(report)
    lines += scale_out_lines(report)
    # Without a scale-out, the lower formats that fit the named GPUs follow their verdict.
    lines += lower_format_lines(report) if report.scale_out is None else []
    lines += [] if compared else cheaper
    if not report.memory:
        lines += recommended_lines(report)
    budget = budget_line(report)
    if budget is not None:
        lines.append(budget)
    return lines


def caution_lines(report: SizingReport) -> list[str]:
    """The tools' warnings an answer states before its verdict (`VerdictItems.cautions`), in
    words from their typed figures (a context past the model's maximum)."""
    codes = {note.code for note in leading_cautions(report)}
    lines: list[str] = []
    if "context_above_maximum" in codes:
        past = past_maximum_line(report)
        lines += [f"**First:** {past}"] if past else []
    return lines


def verdict_answer(report: SizingReport, brief: bool = False) -> Answer:
    """The deterministic verdict of a report alone, as one section: the lines an offline answer
    leads with (`verdict_block`, standalone: no line points to a table, none follows), for
    surfaces that add their own explanation (the LLM mode's answer, MCP text), or the question
    to ask first. The lines the verdict card states are marked (`AnswerSection.card_lines`)."""
    if report.question is not None:
        lines = [f"**One question before I size this:** {report.question.question}"]
    else:
        named = bool(named_training_lines(report))
        local = report.leads_with_local
        # Owned hardware (issue 29): the local plan leads, the datacenter sizing follows.
        lead = owned_lead(report, [], brief=brief) if local else []
        lines = with_yes_no(lead, yes_no(report)) if local else []
        lines += [DATACENTER_HEADING] if local else []
        # The asked figure and a yes/no question's answer lead, as in the offline answer.
        lines += caution_lines(report)
        lines += asked_lines(report, named_training=named)
        lines += with_yes_no(
            verdict_block(report, standalone=True), None if local else yes_no(report)
        )
        while lines and not lines[0].strip():
            lines.pop(0)
        while lines and not lines[-1].strip():
            lines.pop()
    return Answer.of([AnswerSection.of_lines(lines)])


def verdict_text(report: SizingReport, brief: bool = False) -> str:
    """The text of `verdict_answer` (Markdown, one line per verdict line); `brief`: an
    owned-hardware report's local plan in its short form (MCP's few lines)."""
    return verdict_answer(report, brief).text


_METHOD = {"full": "a full fine-tune", "lora": "LoRA", "qlora": "QLoRA (adapters on a 4-bit base)"}


def _lever_label(way: WayOut, asked: int, task: str = "full") -> str:
    changes = way.changes
    parts: list[str] = []
    if "gpus" in changes:
        parts.append(f"{changes['gpus']:,}× {gpu_name(way.gpu)} with ZeRO-{changes.get('zero', 3)}")
    if "task" in changes:
        method = str(changes["task"])
        parts.append(f"{_METHOD.get(method, method)} instead of {_METHOD.get(task, task)}")
    if "lora_rank" in changes:
        parts.append(f"LoRA rank {changes['lora_rank']}")
    if "optimizer" in changes:
        parts.append("8-bit AdamW (bitsandbytes)")
    if "checkpointing" in changes:
        parts.append("gradient checkpointing")
    if "context" in changes:
        parts.append(f"{changes['context']:,}-token sequences (from {asked:,})")
    return " + ".join(parts)


def serving_ways_out_lines(report: SizingReport) -> list[str]:
    """When a named GPU configuration does not hold a serving load (`report.ways_out`, decided
    in `tools.sizing.ways_out.serving_ways_out`): the longest context it holds at the format
    asked and an 8-bit KV cache, one line each with the memory calculator's figure."""
    lines: list[str] = []
    for way in report.ways_out:
        est = way.estimate
        if est is None or not way.fits:
            continue
        need = f"{gib(est.per_gpu_bytes)} of {gib(est.budget_bytes_per_gpu)} per GPU"
        per = " per sequence" if est.batch == 1 else f" for each of {est.batch:,} sequences"
        if way.lever == "shorter_context":
            lines.append(
                f"- A shorter context: **fits at up to {est.context:,} tokens**{per} at "
                f"{est.weights_format} weights ({need})."
            )
        elif way.lever == "fp8_kv_cache":
            flag = "--kv-cache-dtype fp8"
            at = f"at {est.context:,} tokens" + ("" if est.batch == 1 else per)
            lines.append(
                f"- An 8-bit KV cache ({est.kv_dtype}, `{flag}`): **fits {at}** "
                f"({gib(est.breakdown.get('kv_cache'))} of KV cache; {need})."
            )
    if not lines:
        return []
    first = report.ways_out[0]
    label = f"{first.count}× {gpu_name(first.gpu)}"
    return [f"**Ways out on {label}** (each sized by the memory calculator):", *lines]


def ways_out_lines(report: SizingReport) -> list[str]:
    """When no named GPU holds a training job (issue 18, class 9): each lever the memory
    calculator re-sized on the closest configuration, with its figure, all together last.
    Serving: `serving_ways_out_lines`."""
    ways = report.ways_out
    if not ways:
        return []
    if not report.is_training:
        return serving_ways_out_lines(report)
    first = ways[0]
    subjects = [*report.memory, *report.zero3_resize]
    named = next(
        (m for m in subjects if (m.gpu, m.count, m.zero) == (first.gpu, first.count, first.zero)),
        None,
    )
    asked = None if named is None or named.estimate is None else named.estimate.context
    task = "full" if named is None or named.estimate is None else named.estimate.task
    label = f"{first.count}× {gpu_name(first.gpu)}"
    label += f" with ZeRO-{first.zero}" if first.zero and first.count > 1 else ""
    lines = [f"**A way out on {label}** (each sized by the memory calculator):"]
    for way in ways:
        est = way.estimate
        if est is None:
            continue
        need = f"{gib(est.per_gpu_bytes)} of {gib(est.budget_bytes_per_gpu)} per GPU"
        what = _lever_label(way, asked or est.context, task)
        if way.lever == "shorter_sequence" and not way.fits:
            lines.append(f"- Shorter sequences alone: not even {what} fit ({need}).")
            continue
        verb = "**fits**" if way.fits else "does not fit"
        prefix = {
            "all_together": "All together: ",
            "lighter_method": "A lighter method: ",
            "more_gpus": "More GPUs: ",
        }.get(way.lever, "")
        what = what if prefix else what[:1].upper() + what[1:]
        lines.append(f"- {prefix}{what}: {verb} ({need}).")
    return lines


def alternative_lines(report: SizingReport) -> list[str]:
    """The other reading of the weight format, sized beside (issue 18, class 5): 'In FP32 (the
    other reading of full precision): does not fit 1× RTX 4090 …; 2× RTX 4090 hold it …'."""
    alt = report.alternative
    if alt is None:
        return []
    fmt = alt.weights.upper()
    parts: list[str] = []
    for sized in alt.memory:
        est = sized.estimate
        if est is None:
            continue
        weights = gib(est.breakdown.get("weights"))
        if sized.gpu is None or est.fits is None:
            parts.append(f"needs {gib(est.per_gpu_bytes)} on a single GPU ({weights} of weights)")
            continue
        verb = "fits" if est.fits else "does not fit"
        parts.append(
            f"{verb} {config_label(sized)} ({gib(est.per_gpu_bytes)} of "
            f"{gib(est.budget_bytes_per_gpu)} per GPU, {weights} of weights)"
        )
    for more in alt.fewest:
        if more.estimate is not None:
            parts.append(
                f"{config_label(more)} hold it as TP {more.estimate.tp} "
                f"({gib(more.estimate.per_gpu_bytes)} per GPU)"
            )
    if not parts:
        return []
    return [
        f"**In {fmt}** (the other reading of the precision you named): " + "; ".join(parts) + "."
    ]
