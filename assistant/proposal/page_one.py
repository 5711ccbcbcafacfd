"""Page one: the decision, for a manager, in at most `PAGE_ONE_MAX_LINES` lines of Markdown.

In order: the recommendation (exact configuration, engine, weight format, and the rule that
chose it; when it is under the report's own headroom rule, that, and the option one step up),
why (memory per GPU against its budget, the speed at the load sized, the targets), the cost (a
month of the configuration, its $/M tokens at the labelled load, with provider, tier and as_of;
a training job's total; a hosted API that costs less, named), the main risk
(`tools.sizing.risks.main_risk`), the alternative (`tools.sizing.alternative`) and how the
request was read. The risks that qualify the recommendation itself
(`tools.sizing.risks.caveats`) are said where the recommendation and its cost are, whichever
risk leads. Every figure is a field of
the report, with its unit; catalog figures carry their as_of, speeds their basis.
"""

from __future__ import annotations

from assistant.proposal.deployment import deployment_blocks
from assistant.proposal.document import Block, BulletList, Item, Paragraph, sectioned
from assistant.proposal.extract import ProposalInputs
from assistant.proposal.figures import count_of, format_number, gib, money, usd
from assistant.proposal.labels import (
    basis,
    gpus,
    layout_words,
    price_date,
    servers,
    tier,
)
from assistant.proposal.local_page import (
    datacenter_alternative_blocks,
    local_cost_blocks,
    local_recommendation_blocks,
    local_risk_blocks,
    local_why_blocks,
)
from assistant.proposal.quotes import (
    engine_of,
    estimate_of,
    gpu_name,
    serving_row,
    training_row,
    unconverted_text,
)
from assistant.proposal.request_words import sized_as, sized_locally_as
from assistant.proposal.risk_text import RISK_NAMES, RISK_TITLES, alternative_text, risk_text
from assistant.render.assumptions import defaults_filled_in, local_defaults_filled_in
from tools.local_serving import LocalServingPlan
from tools.memory import engine_name
from tools.recommend import Option
from tools.sizing import PricedConfiguration, SizingReport
from tools.sizing.alternative import alternative
from tools.sizing.risks import TIGHT_HEADROOM_FRACTION, caveats, main_risk, risks, step_up

PAGE_ONE_MAX_LINES = 60
"""Issue 14: the first page fits in 60 lines of Markdown (title and blank lines included)."""

RECOMMENDATION = "Recommendation"
WHY = "Why"
MONTHLY_COST = "Monthly cost"
JOB_COST = "Cost of the training job"
MAIN_RISK = "Main risk"
ALTERNATIVE = "Alternative"
DATACENTER = "Datacenter alternative"
"""How the datacenter sizing is named where the user's own hardware is the decision."""
READ_AS = "How the request was read"
PAGE_ONE_SECTIONS = (RECOMMENDATION, WHY, MONTHLY_COST, MAIN_RISK, ALTERNATIVE, READ_AS)
"""Page one's section headings (a training job's cost section is `JOB_COST`)."""

QUESTION_CHARS = 300
"""Page one quotes the question up to this many characters (the appendix quotes it whole)."""
NAMED_ITEMS = 4
"""Configurations the user named shown on page one; the rest are in the memory table."""
READ_ITEMS = 8
"""Readings and defaults shown on page one; the rest are in Appendix A."""


def recommendation_blocks(report: SizingReport) -> list[Block]:
    """The headline configuration in words, and the rule that chose it."""
    headline = report.headline
    if report.question is not None:
        return [Paragraph(report.question.question, lead="Not decided yet: one question first.")]
    if headline is None:
        rec = report.recommendation
        if rec is None:
            error = report.recommendation_error
            why = "The recommender did not run" + (f": {error.text}." if error else ".")
        else:
            why = (rec.nearest_feasible or "").removeprefix("No configuration meets every target.")
        lead = "No configuration evaluated meets every target."
        return [Paragraph(why.strip() or "Nothing fits within the constraints.", lead=lead)]
    o = headline.option
    training = report.is_training
    estimate = estimate_of(report, o)
    setup = [f"{servers(o)}: {layout_words(o, training)}"]
    engine = engine_of(report, o)
    if engine:
        setup.append(engine_name(engine))
    fmt = f"{headline.weights_format} weights"
    if estimate is not None and not training:
        fmt += f", {estimate.kv_dtype} KV cache"
    setup.append(fmt)
    blocks: list[Block] = [
        Paragraph("; ".join(setup) + ".", lead=gpus(o)),
        Paragraph(headline.reason + ".", lead="Chosen because:"),
    ]
    tight = next((r for r in caveats(report) if r.code == "tight_memory"), None)
    if tight is not None:
        blocks.append(headroom_caveat(report, o, main=main_risk(report).code == tight.code))
    return blocks + deployment_blocks(report)  # issue 30 items 5-7


def headroom_caveat(report: SizingReport, o: Option, main: bool = False) -> Paragraph:
    """The recommended layout is under the report's own headroom rule: said where it is
    recommended (`tools.sizing.risks.caveats`), with the option one step up that keeps the
    rule (`step_up`), priced, when there is one. `main`: the main risk section below says
    why in full, so this says only how far under and what to choose instead."""
    share = o.headroom_bytes / o.budget_bytes_per_gpu if o.budget_bytes_per_gpu else 0.0
    rule = f"under the {TIGHT_HEADROOM_FRACTION:.0%} the risk rule asks"
    if main:
        text = f"{share:.1%} of the budget per GPU, {rule} (the main risk, below)"
    else:
        text = (
            f"{gib(o.headroom_bytes)} per GPU is {share:.1%} of the "
            f"{gib(o.budget_bytes_per_gpu)} budget, {rule}: test at the real load before "
            "ordering"
        )
    up = step_up(report)
    if up is None:
        text += "; no other option evaluated keeps that headroom."
    else:
        up_share = up.headroom_bytes / up.budget_bytes_per_gpu if up.budget_bytes_per_gpu else 0.0
        text += (
            f"; one step up, {gpus(up)} keeps {gib(up.headroom_bytes)} ({up_share:.0%}) of its "
            f"{gib(up.budget_bytes_per_gpu)} budget"
        )
        priced = report.price_of(up.gpu, up.count)
        if priced is not None and priced.usd_per_hour is not None:
            text += (
                f", {usd(priced.usd_per_hour)} per hour ({tier(priced.tier)}, {priced.provider})"
            )
        text += "."
    return Paragraph(text, lead="Headroom under the risk rule:")


def memory_item(o: Option, context_tokens: int | None, training: bool) -> Item:
    """Memory per GPU against the budget, and (serving) what the KV cache holds."""
    text = (
        f"{gib(o.per_gpu_bytes)} needed per GPU of a {gib(o.budget_bytes_per_gpu)} budget "
        f"({gib(o.headroom_bytes)} headroom)"
    )
    if not training and context_tokens and o.kv_cache_capacity_tokens:
        text += (
            f"; each replica's KV cache holds {o.kv_cache_capacity_tokens:,} tokens, "
            f"{count_of(o.max_concurrent_sequences, 'sequence')} of {context_tokens:,} tokens"
        )
    dated = f" GPU figures: catalog entry as_of {o.gpu_as_of}." if o.gpu_as_of else ""
    return Item(text + "." + dated, lead="Memory:")


def named_items(report: SizingReport, o: Option | None) -> list[Item]:
    """The configurations the user named that are not the recommendation: fit or not, each
    with its need and budget per GPU (why the recommendation differs)."""
    items: list[Item] = []
    for sized in report.memory:
        est = sized.estimate
        if sized.gpu is None or est is None or est.fits is None:
            continue
        if o is not None and (sized.gpu, sized.count) == (o.gpu, o.count):
            continue
        verdict = "fits" if est.fits else "does not fit"
        name = gpu_name(report, sized.gpu)
        lead = f"{sized.count:,}× {name} named:" if sized.count_named else f"{name} named:"
        one = "" if sized.count_named else " (one GPU sized)"
        items.append(
            Item(
                f"{verdict}{one}: {gib(est.per_gpu_bytes)} needed per GPU of a "
                f"{gib(est.budget_bytes_per_gpu)} budget at this load.",
                lead=lead,
            )
        )
    if len(items) > NAMED_ITEMS:
        more = len(items) - NAMED_ITEMS + 1
        items = [*items[: NAMED_ITEMS - 1], Item(f"{more} more, in the memory table.")]
    return items


def speed_item(o: Option) -> Item | None:
    """The speed at the load sized (serving) or the training time, each with its basis."""
    if o.training_hours is not None:
        hours = f"{format_number(o.training_hours)} h of training ({basis(o.speed_basis)})"
        if o.gpu_hours is not None:
            hours += f", {format_number(o.gpu_hours)} GPU-hours"
        return Item(hours + ".", lead="Time:")
    figures: list[str] = []
    if o.decode_tokens_per_s_per_seq is not None:
        figures.append(
            f"{format_number(o.decode_tokens_per_s_per_seq)} tokens/s per user "
            f"({basis(o.speed_basis)})"
        )
    if o.aggregate_tokens_per_s is not None:
        figures.append(
            f"{format_number(o.aggregate_tokens_per_s)} output tokens/s in total "
            f"({basis(o.throughput_basis)})"
        )
    if o.ttft_s is not None:
        figures.append(f"first token after {format_number(o.ttft_s)} s ({basis(o.ttft_basis)})")
    if not figures:
        return None
    load = f"With {count_of(o.sequences_per_replica, 'concurrent sequence')} per replica: "
    return Item(load + ", ".join(figures) + ".", lead="Speed:")


def _targets_item(report: SizingReport, o: Option) -> Item | None:
    w = report.request.workload
    stated: list[str] = []
    if w.tokens_per_s_per_user is not None:
        stated.append(f"at least {format_number(w.tokens_per_s_per_user)} tokens/s per user")
    if w.tokens_per_s is not None:
        stated.append(f"at least {format_number(w.tokens_per_s)} output tokens/s in total")
    if w.ttft_s is not None:
        stated.append(f"first token within {format_number(w.ttft_s)} s")
    if w.is_training and w.deadline_hours is not None:
        stated.append(f"a deadline of {format_number(w.deadline_hours)} h")
    if not stated:
        return None
    verdict = "met" if o.meets_targets else "not met"
    return Item(", ".join(stated) + f": {verdict}.", lead="Targets:")


def why_blocks(report: SizingReport) -> list[Block]:
    """The figures that decide: memory per GPU against its budget, speed at the load sized,
    the targets stated."""
    headline = report.headline
    named = named_items(report, None if headline is None else headline.option)
    if headline is None:
        if named:
            return [BulletList(tuple(named))]
        return [Paragraph("Nothing evaluated fits and meets the targets; see the tables.")]
    o = headline.option
    rec = report.recommendation
    context = None if rec is None else rec.context_tokens
    items = [*named, memory_item(o, context, report.is_training)]
    items += [i for i in (speed_item(o), _targets_item(report, o)) if i is not None]
    return [BulletList(tuple(items))]


def _serving_cost(report: SizingReport, p: PricedConfiguration, o: Option) -> list[Item]:
    row = serving_row(report, p)
    hours = f" × {format_number(row.billed_hours_per_month)} h billed" if row else ""
    where = p.provider + (f", {row.instance}" if row and row.instance else "")
    text = f"({usd(p.usd_per_hour)} per hour{hours}), {tier(p.tier)} at {where}; {price_date(p)}."
    if p.billed_gpus != p.count:
        text += f" Billed for {p.billed_gpus:,} GPUs (whole instances)."
    if p.currency != "USD":
        rate = report.request.pricing.eur_to_usd
        at = f", converted at {format_number(rate)} USD per {p.currency}" if rate else ""
        text += f" Published at {money(p.per_hour, p.currency)} per hour{at}."
    items = [Item(text, lead=f"{usd(p.usd_per_month)} per month")]
    if p.usd_per_million_tokens is not None:
        full = report.price_load.basis == "full_load"
        # The rate the cost tool divided by (tools.sizing.plan.cost_inputs): the quoted row's,
        # else the option's own figure at that load.
        tokens = p.tokens_per_s
        if tokens is None:
            tokens = o.full_load_tokens_per_s if full else o.aggregate_tokens_per_s
        rate_text = f"{format_number(tokens)} output tokens/s ({basis(o.throughput_basis)})"
        per = p.sequences_per_replica
        seqs = f", {count_of(per, 'sequence')} per replica" if per else ""
        load = "at full load (every KV slot in use)" if full else "at the stated load"
        items.append(
            Item(
                f"{load}: {rate_text}{seqs}.",
                lead=f"{usd(p.usd_per_million_tokens)} per million output tokens",
            )
        )
    return items


def _job_cost(report: SizingReport, p: PricedConfiguration, o: Option) -> list[Item]:
    row = training_row(report, p)
    hours = f", {format_number(row.wall_hours)} h wall-clock" if row is not None else ""
    text = (
        f"{tier(p.tier)} at {p.provider}: {gpus(o)}{hours} "
        f"({basis(o.speed_basis)}); {price_date(p)}."
    )
    if p.billed_gpus != p.count:
        text += f" Billed for {p.billed_gpus:,} GPUs (whole instances)."
    return [Item(text, lead=f"{usd(p.usd_job)} for the job,")]


def cost_blocks(report: SizingReport) -> list[Block]:
    """The headline's quoted price: a month (serving) or the job (training), its $/M tokens at
    the labelled load, the budget, the offers not compared."""
    headline = report.headline
    items: list[Item] = []
    p = None if headline is None else headline.price
    if headline is not None and p is not None:
        o = headline.option
        if p.usd_job is not None:
            items += _job_cost(report, p, o)
        else:
            items += _serving_cost(report, p, o)
    elif report.question is not None:
        items.append(
            Item("the answer to the open question decides what to price.", lead="Not yet:")
        )
    elif headline is None:
        items.append(Item("no configuration fits and meets the targets.", lead="Nothing to price:"))
    else:
        error = report.costs_error
        why = error.text if error else "no catalog price in the scope asked hosts it"
        items.append(Item(why + ".", lead="Not priced:"))
    b = report.budget_check
    if b is not None:
        if b.within is None:
            verdict = "nothing was priced to check it against."
        else:
            cheapest = b.cheapest
            assert cheapest is not None
            state = "within it" if b.within else "over it"
            verdict = (
                f"the cheapest option priced, {cheapest.count:,}× "
                f"{gpu_name(report, cheapest.gpu)}, costs "
                f"{usd(b.cheapest_usd)} per {b.period}: {state}."
            )
        items.append(Item(f"{usd(b.amount_usd)} per {b.period}; {verdict}", lead="Budget:"))
    cheaper = next((r for r in caveats(report) if r.code == "api_cheaper"), None)
    if cheaper is not None:
        # A hosted API that costs less is named beside the price, wherever the risks rank it
        # (in full here unless the main risk below says it).
        if main_risk(report).code == cheaper.code and cheaper.break_even is not None:
            even = cheaper.break_even
            text = (
                f"{even.api_provider} ({even.api_id}) at "
                f"{usd(even.api_usd_per_million_output_tokens)} per million output tokens, its "
                "input tokens included (the main risk, below)."
            )
        else:
            text = risk_text(cheaper, report)
        items.append(Item(text, lead="A hosted API costs less:"))
    note = unconverted_text(report)
    if note:
        items.append(Item(note, lead="Not compared:"))
    return [BulletList(tuple(items))]


def risk_blocks(report: SizingReport) -> list[Block]:
    """The main risk, and how many others the Risks table lists."""
    found = risks(report)
    main = found[0]
    blocks: list[Block] = [Paragraph(risk_text(main, report), lead=RISK_TITLES[main.code])]
    others = [RISK_NAMES[r.code] for r in found[1:]]
    if others:
        blocks.append(Paragraph("Also (see Risks): " + "; ".join(dict.fromkeys(others)) + "."))
    return blocks


def alternative_blocks(report: SizingReport) -> list[Block]:
    """The alternative, in one paragraph."""
    lead, text = alternative_text(alternative(report), report)
    return [Paragraph(text, lead=lead)]


def _local_plan(report: SizingReport | None) -> LocalServingPlan | None:
    """The plan on the user's own hardware when it is the decision (issue 29), else None."""
    if report is None or not report.leads_with_local or report.question is not None:
        return None
    return report.local[0] if report.local else None


def readings(inputs: ProposalInputs) -> list[str]:
    """How the covered turn's words were read and the defaults filled in, once each. On owned
    hardware the local plan's defaults come first; the datacenter sizing's are its
    alternative's, said so."""
    items = list(inputs.readings)
    if inputs.parsed is not None and inputs.report is not None:
        datacenter = defaults_filled_in(inputs.parsed, inputs.report)
        plan = _local_plan(inputs.report)
        if plan is not None:
            items += local_defaults_filled_in(inputs.parsed, plan)
            datacenter = [f"{DATACENTER}: {line[0].lower()}{line[1:]}" for line in datacenter]
        items += datacenter
    return list(dict.fromkeys(items))


def read_blocks(inputs: ProposalInputs) -> list[Block]:
    """The question covered, what was sized, and the readings (the rest in Appendix A)."""
    items: list[str | Item] = []
    question = inputs.question
    if question:
        shown = question if len(question) <= QUESTION_CHARS else question[:QUESTION_CHARS] + "…"
        total = len(inputs.requests)
        lead = "Question:" if total == 1 else f"Question {inputs.turn} of {total}:"
        items.append(Item(f"“{shown}”", lead=lead))
    if inputs.report is not None:
        arguments = inputs.arguments[0][1] if inputs.arguments else None
        plan = _local_plan(inputs.report)
        if plan is not None:
            items.append(Item(sized_locally_as(plan) + ".", lead="Sized on your hardware as:"))
        lead = "Sized as:" if plan is None else f"{DATACENTER} sized as:"
        items.append(Item(sized_as(inputs.report, arguments) + ".", lead=lead))
    found = readings(inputs)
    items += found[:READ_ITEMS]
    if len(found) > READ_ITEMS:
        items.append(f"… and {len(found) - READ_ITEMS} more, listed in Appendix A.")
    return [BulletList(tuple(items))]


def page_one_blocks(inputs: ProposalInputs) -> list[Block]:
    """Page one for a session with a sizing report (see the module docstring)."""
    report = inputs.report
    assert report is not None
    cost_title = JOB_COST if report.is_training else MONTHLY_COST
    if report.leads_with_local and report.local and report.question is None:
        # Owned hardware (issue 29): the local plan is the decision; the datacenter sizing
        # is the alternative.
        alternative = datacenter_alternative_blocks(
            report, recommendation_blocks(report), cost_blocks(report)
        )
        return sectioned(
            [
                (RECOMMENDATION, local_recommendation_blocks(report)),
                (WHY, local_why_blocks(report)),
                (cost_title, local_cost_blocks(report)),
                (MAIN_RISK, local_risk_blocks(report)),
                (ALTERNATIVE, alternative),
                (READ_AS, read_blocks(inputs)),
            ]
        )
    sections = [
        (RECOMMENDATION, recommendation_blocks(report)),
        (WHY, why_blocks(report)),
        (cost_title, cost_blocks(report)),
        (MAIN_RISK, risk_blocks(report)),
        (ALTERNATIVE, alternative_blocks(report)),
        (READ_AS, read_blocks(inputs)),
    ]
    return sectioned(sections)
