"""The verdict an answer leads with, from the sizing report: fits or not per configuration
sized, the recommender's layout when a named one does not fit, the headline option when no GPU
was named (`SizingReport.headline`, chosen in `tools.sizing.headline`), what the named GPUs
hold when they cannot hold the load, and which GPU a recommender note is about.

`verdict_text(report)` is the verdict alone: what the LLM mode's answer leads with too.
"""

from __future__ import annotations

from assistant.offline.render.costs import billed_as, budget_line, cheaper_per_token_line
from assistant.offline.render.questions import max_context_lines
from assistant.offline.render.results import config_label, gib, gpu_name, option_label, priced_by
from tools.memory.request import MemoryEstimate
from tools.notes import Note
from tools.recommend import Option, Recommendation
from tools.sizing import Headline, SizedConfiguration, SizingReport
from tools.sizing.headline import candidates


def _fitting_option(
    rec: Recommendation | None, gpu_id: str | None, above: int = 0, at_most: int | None = None
) -> Option | None:
    """The recommender's first fitting option on `gpu_id` with more than `above` and at most
    `at_most` GPUs."""
    if rec is None or gpu_id is None:
        return None
    return next(
        (
            o
            for o in rec.options
            if o.gpu == gpu_id
            and o.fits
            and o.count > above
            and (at_most is None or o.count <= at_most)
        ),
        None,
    )


def _evaluated(rec: Recommendation | None) -> list[Option]:
    return [] if rec is None else [*rec.options, *rec.rejected]


def _kv_capacity(rec: Recommendation | None, gpu_id: str | None, count: int) -> str | None:
    for option in _evaluated(rec):
        if option.gpu == gpu_id and option.count == count and option.fits:
            tokens = option.kv_cache_capacity_tokens
            return gib(option.kv_cache_capacity_bytes) + f" ({tokens:,} tokens)"
    return None


def needs_line(option: Option, verb: str = "Needs", why: str = "") -> str:
    """'**Needs 2× H100 SXM5** (TP 2 × PP 1 × 1 replica(s)) — 35.5 GiB per GPU, …'."""
    layout = f"TP {option.tp} × PP {option.pp} × {option.dp} replica(s)"
    tokens = option.kv_cache_capacity_tokens
    kv = "" if not tokens else f", {tokens:,} KV-cache tokens per replica"
    per_gpu = gib(option.per_gpu_bytes)
    return f"**{verb} {option_label(option)}**{why} ({layout}) — {per_gpu} per GPU{kv}."


def _same(a: Option, b: Option) -> bool:
    return (a.gpu, a.count, a.tp, a.pp, a.dp) == (b.gpu, b.count, b.tp, b.pp, b.dp)


def _headline_line(report: SizingReport, headline: Headline) -> str:
    """The headline option with its quoted price and the rule that chose it."""
    price = headline.price
    option = headline.option
    if headline.rule != "cheapest" or price is None:
        return needs_line(option, "Recommended:", " (the recommender's first option)")
    tier = "on demand" if price.tier == "on_demand" else price.tier
    source = f"{billed_as(price)} ({priced_by(price)})"
    per_token = report.request.workload.objective == "cheapest_per_token" and price.usd_job is None
    if per_token and price.usd_per_million_tokens is not None:
        verb = (
            f"Cheapest per million output tokens{report.price_load.label} of the options that "
            "fit and meet the targets:"
        )
        basis = f", {price.throughput_basis} throughput" if price.throughput_basis else ""
        return (
            needs_line(option, verb)
            + f" {price.usd_per_million_tokens:,.3f} USD/M ({price.usd_per_hour or 0:,.2f} USD "
            f"per hour {tier}{source}{basis})."
        )
    unit = "total" if price.usd_job is not None else "per hour"
    return (
        needs_line(option, "Cheapest priced option that fits and meets the targets:")
        + f" {price.usd:,.2f} USD {unit} {tier}{source}."
    )


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
    lines = [_headline_line(report, headline)]
    if headline.rule == "cheapest" and not _same(headline.option, meeting[0]):
        # The recommender ranks by its objective (fewest GPUs, then fastest, or its own
        # prices); when the priced rows put another option first, say what it ranked first.
        lines.append(needs_line(meeting[0], "Fewest GPUs, then fastest:"))
    return lines


def verdict_lines(report: SizingReport, breakdown_below: bool = True) -> list[str]:
    """One line per configuration sized: fits or not, needed vs budget per GPU. When a sized
    configuration does not fit but the recommender found a larger one on the same GPU, that
    answer comes first: it is the verdict the user asked for ("on H100s" → how many). With no
    GPU named, the headline option leads and the one-GPU need follows. GPUs with the same need
    and budget (a '24 GB GPU' matches several) share one line. When the named GPUs cannot hold
    the load (`report.scale_out`), `scale_out_lines` says what does, so no larger option of
    the same search leads."""
    rec = report.recommendation
    layout = report.layout_breakdown
    scaled = report.scale_out is not None
    # Each entry is a finished line, or the key of a "does not fit" line shared by GPUs.
    entries: list[str | tuple[str, str, str]] = []
    not_fitting: dict[tuple[str, str, str], list[str]] = {}
    for sized in [*report.memory, *report.zero3_resize]:
        est = sized.estimate
        if est is None:
            if sized.gpu is None:
                entries += recommended_lines(report)
            problem = "rejected" if sized.error is None else sized.error.text
            entries.append(f"- Could not size {config_label(sized)}: {problem}")
            continue
        label = config_label(sized)
        if sized.gpu is None or est.fits is None:
            entries += recommended_lines(report)
            below = "; breakdown below" if breakdown_below else ""
            if layout is not None and layout.estimate is not None:
                # The recommended layout sized at the sequences it serves per replica: the
                # figure the options table shows, not one sequence on one GPU.
                batch = layout.estimate.batch
                load = "" if report.is_training else f", {batch:,} sequences per replica"
                entries.append(
                    f"Needs {gib(layout.estimate.per_gpu_bytes)} per GPU for this load on the "
                    f"recommended layout ({config_label(layout, zero=False)}{load}; breakdown "
                    "below)."
                )
                continue
            parts = (
                "weights, gradients, optimizer state, activations and runtime"
                if report.is_training
                else "weights, KV cache and runtime"
            )
            entries.append(
                f"Needs {gib(est.per_gpu_bytes)} of GPU memory for this load on a single GPU "
                f"({parts}{below})."
            )
            continue
        if est.fits:
            kv = None if report.is_training else _kv_capacity(rec, sized.gpu, sized.count)
            extra = (
                f"; KV-cache capacity {kv}"
                if kv
                else f"; {gib(est.headroom_bytes)} headroom per GPU"
            )
            entries.append(
                f"**Fits on {label}** — needs {gib(est.per_gpu_bytes)} of "
                f"{gib(est.budget_bytes_per_gpu)} per GPU{extra}."
            )
            entries += _named_targets(rec, sized.gpu, sized.count)
            continue
        larger = None if scaled else _fitting_option(rec, sized.gpu, above=sized.count)
        within = None
        if sized.plain_data_parallel:
            # The recommender shards with TP/PP where plain replicas cannot: its layout on the
            # GPUs named is the answer, the replicated estimate says why it is not plain DP.
            within = _fitting_option(rec, sized.gpu, at_most=sized.count)
            label += " as plain data parallelism (whole training state on every GPU)"
        if within is not None:
            entries.append(
                needs_line(
                    within, "Fits as", f", the recommender's layout within the {sized.count} named"
                )
            )
        elif larger is not None:
            # Under the per-token objective the recommender's layout is the cheapest per token,
            # not the fewest GPUs that fit: say which.
            per_token = rec is not None and rec.objective == "cheapest_per_token"
            entries.append(needs_line(larger, "Cheapest per token:" if per_token else "Needs"))
        headroom = est.headroom_bytes
        key = (
            gib(est.per_gpu_bytes),
            gib(est.budget_bytes_per_gpu),
            gib(None if headroom is None else -headroom),
        )
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
            f"**Does not fit on {', '.join(not_fitting[entry])}** — needs {needed_text} per GPU, "
            f"budget {budget_text} ({over_text} over)."
        )
    return lines


def _named_targets(rec: Recommendation | None, gpu_id: str | None, count: int) -> list[str]:
    """How the named configuration does against the targets (a deadline), from the recommender's
    fitting option with exactly the named count: '32× H100 SXM5 misses a target: 25.7 h on 32
    GPUs > deadline 24.0 h'. Empty when it meets them or the recommender did not size it."""
    for option in _evaluated(rec):
        if option.gpu == gpu_id and option.count == count and option.fits:
            label = f"{count}× {gpu_name(gpu_id)}"
            hours = option.training_hours
            took = "" if hours is None else f" ({hours:,.1f} h)"
            if option.meets_targets:
                return [f"- {label} meets the targets{took}."] if hours is not None else []
            reasons = "; ".join(str(r) for r in option.reasons)
            return [f"**{label} misses a target**: {reasons or 'see the options below'}."]
    return []


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
    asked = f", not the {users:,} users asked"
    rec = report.recommendation
    context = None if rec is None else rec.context_tokens
    length = "" if context is None else f" of {context:,} tokens"
    lines: list[str] = []
    within = scale.within
    if within is None:
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
        lines.append(f"**{label} hold {held}**{asked} (TP {within.tp} × PP {within.pp}{kv}).")
    if scale.holds is not None:
        seqs_text = (
            f"; it holds {scale.holds.max_concurrent_sequences:,} concurrent sequences per replica"
        )
        lines.append(
            needs_line(
                scale.holds,
                "What holds this load:",
                f", the recommender without the {scale.count}-GPU limit",
            ).removesuffix(".")
            + f"{seqs_text}."
        )
    verdicts = []
    for fit in report.lower_formats:
        if fit.estimate is None:
            continue
        verb = "fits" if fit.estimate.fits else "does not fit"
        verdicts.append(
            f"{fit.weights} {verb} ({gib(fit.estimate.per_gpu_bytes)} of "
            f"{gib(fit.estimate.budget_bytes_per_gpu)} per GPU)"
        )
    if verdicts:
        lines.append(
            f"At lower weight precision on {label} at this load: " + "; ".join(verdicts) + "."
        )
    return lines


def verdict_block(report: SizingReport) -> list[str]:
    """The verdict of a report: the longest context found (a max-context question), fits or
    not per configuration, what holds the load, which option is cheaper per token, the
    recommended option when no GPU was named, and the budget check — the lines an offline
    answer leads with (after a capacity question's count)."""
    layout = report.layout_breakdown
    has_layout = layout is not None and layout.estimate is not None
    lines = max_context_lines(report)
    lines += verdict_lines(report, breakdown_below=not has_layout)
    if report.shape_question is not None:
        lines += ["", f"**One question:** {report.shape_question.question}"]
    lines += scale_out_lines(report)
    lines += cheaper_per_token_line(
        report, report.request.workload.objective == "cheapest_per_token"
    )
    if not report.memory:
        lines += recommended_lines(report)
    budget = budget_line(report)
    if budget is not None:
        lines.append(budget)
    return lines


def verdict_text(report: SizingReport) -> str:
    """The deterministic verdict of a report alone (Markdown): the lines an offline answer leads
    with (`verdict_block`), for surfaces that add their own explanation (the LLM mode's
    answer), or the question to ask first."""
    if report.question is not None:
        return f"**One question before I size this:** {report.question.question}\n"
    lines = verdict_block(report)
    return "\n".join(lines).strip() + "\n" if lines else ""


def memory_verdict_text(estimates: list[MemoryEstimate]) -> str:
    """The verdict of memory estimates alone (Markdown), in `verdict_lines`' words: for a turn
    in which the model sized the question itself with `estimate_memory` (no sizing report)."""
    lines: list[str] = []
    for est in estimates:
        label = config_label(SizedConfiguration(gpu=est.gpu, count=est.num_gpus, estimate=est))
        budget, headroom = est.budget_bytes_per_gpu, est.headroom_bytes
        if est.fits is None or budget is None or headroom is None:
            lines.append(f"Needs {gib(est.per_gpu_bytes)} of GPU memory per GPU on {label}.")
        elif est.fits:
            lines.append(
                f"**Fits on {label}** — needs {gib(est.per_gpu_bytes)} of {gib(budget)} per GPU; "
                f"{gib(headroom)} headroom per GPU."
            )
        else:
            lines.append(
                f"**Does not fit on {label}** — needs {gib(est.per_gpu_bytes)} per GPU, budget "
                f"{gib(budget)} ({gib(-headroom)} over)."
            )
    return "\n".join(dict.fromkeys(lines)) + "\n" if lines else ""
