"""The proposal for a session without a sizing report: saved before reports existed, or a model
that called only the finer tools (memory, recommend, cost). The same three parts as a report's
proposal, from what those results hold: the recommender's first option that fits and meets the
targets (its own ranking: no headline rule ran), its memory, speed and quoted price; the risk
and alternative rules need a report, so page one says so instead of guessing, and lists the
memory calculator's warnings.
"""

from __future__ import annotations

from assistant.proposal.document import (
    Block,
    BulletList,
    Heading,
    Item,
    Paragraph,
    Table,
    sectioned,
)
from assistant.proposal.extract import ProposalInputs
from assistant.proposal.figures import gib, money, text_value, usd
from assistant.proposal.labels import LAYOUT_LEGEND, gpus, layout_words, price_date, servers, tier
from assistant.proposal.page_one import (
    ALTERNATIVE,
    JOB_COST,
    MAIN_RISK,
    MONTHLY_COST,
    READ_AS,
    RECOMMENDATION,
    WHY,
    memory_item,
    speed_item,
)
from assistant.proposal.quotes import catalog_name
from assistant.proposal.tables import PER_TIER_WORDS, memory_table, options_table, per_tier
from tools.cost import ServingCostRow
from tools.memory import MemoryEstimate
from tools.recommend import Option

NO_REPORT = (
    "This session holds no sizing report (it was saved before sizing reports existed, or the "
    "model called only the finer tools), so no headline, risk or alternative rule ran; ask the "
    "question again for them."
)


def _meeting(inputs: ProposalInputs) -> list[Option]:
    rec = inputs.recommend
    return [] if rec is None else [o for o in rec.result.options if o.fits and o.meets_targets]


def _training(inputs: ProposalInputs) -> bool:
    if inputs.memory:
        return inputs.memory[-1].result.task != "inference"
    options = _meeting(inputs)
    return bool(options) and options[0].training_hours is not None


def _row_for(inputs: ProposalInputs, option: Option) -> ServingCostRow | None:
    """The cost result's cheapest on-demand row for the option's GPU and count, else its
    first row for it (the cost tool's order)."""
    serving = None if inputs.cost is None else inputs.cost.result.serving
    if serving is None:
        return None
    rows = [r for r in serving.rows if r.gpu == option.gpu and r.count == option.count]
    cheapest = serving.cheapest_by_tier.get("on_demand")
    return next((r for r in rows if r.price_id == cheapest), rows[0] if rows else None)


def _memory_line(est: MemoryEstimate) -> Item:
    where = f"{est.num_gpus:,}× {catalog_name(est.gpu)}" if est.gpu else "one GPU"
    verdict = {True: "fits", False: "does not fit", None: "sized without a GPU"}[est.fits]
    budget = f" of a {gib(est.budget_bytes_per_gpu)} budget" if est.budget_bytes_per_gpu else ""
    return Item(
        f"{verdict}: {gib(est.per_gpu_bytes)} needed per GPU{budget} ({est.model_name}, "
        f"{est.weights_format} weights, {est.engine} engine).",
        lead=f"{where}:",
    )


def _recommendation(inputs: ProposalInputs, best: Option | None) -> list[Block]:
    if best is None:
        rec = inputs.recommend
        if rec is None:
            lines = tuple(_memory_line(r.result) for r in inputs.memory)
            if not lines:
                return [Paragraph("The session holds no memory, recommendation or cost result.")]
            return [Paragraph(NO_REPORT, lead="Memory checks only."), BulletList(lines)]
        nearest = rec.result.nearest_feasible or "Nothing fits within the constraints."
        return [Paragraph(nearest, lead="No configuration evaluated meets every target.")]
    fmt = inputs.recommend.result.weights_format if inputs.recommend else ""
    text = f"{servers(best)}: {layout_words(best, _training(inputs))}; {fmt} weights."
    return [
        Paragraph(text, lead=gpus(best)),
        Paragraph(
            "the recommender's first option that fits and meets the targets. " + NO_REPORT,
            lead="Chosen as",
        ),
    ]


def _cost(inputs: ProposalInputs, best: Option | None) -> list[Block]:
    row = None if best is None else _row_for(inputs, best)
    if row is None:
        return [Paragraph("no price for this configuration in this session.", lead="Not priced:")]
    text = (
        f"({usd(row.usd_per_hour)} per hour × {text_value(row.billed_hours_per_month)} h "
        f"billed), {tier(row.tier)} at {row.provider}"
        + (f", {row.instance}" if row.instance else "")
        + f"; {price_date(row)}."
    )
    items = [Item(text, lead=f"{usd(row.usd_per_month)} per month")]
    if row.usd_per_million_tokens is not None:
        items.append(
            Item(
                "at the throughput the cost call was given.",
                lead=f"{usd(row.usd_per_million_tokens)} per million output tokens",
            )
        )
    return [BulletList(tuple(items))]


def _risk(inputs: ProposalInputs) -> list[Block]:
    warnings = list(dict.fromkeys(w.text for m in inputs.memory for w in m.result.warnings))
    if warnings:
        blocks: list[Block] = [Paragraph(warnings[0], lead="A tool warning about this request.")]
        if warnings[1:]:
            blocks.append(BulletList(tuple(warnings[1:])))
        return blocks
    return [
        Paragraph(
            "the risk rules read a sizing report, which this session does not hold; the memory "
            "calculator gave no warning.",
            lead="Not assessed:",
        )
    ]


def _alternative(best: Option | None, inputs: ProposalInputs) -> list[Block]:
    others = [o for o in _meeting(inputs) if o is not best]
    if not others:
        return [
            Paragraph("no other option in this session fits and meets the targets.", lead="None:")
        ]
    o = others[0]
    row = _row_for(inputs, o)
    price = "" if row is None else f"; {usd(row.usd_per_hour)} per hour ({price_date(row)})"
    text = (
        f"{layout_words(o, _training(inputs))}; {gib(o.per_gpu_bytes)} needed of "
        f"{gib(o.budget_bytes_per_gpu)} per GPU{price}. The recommender's next option."
    )
    return [Paragraph(text, lead=gpus(o) + ":")]


def _read(inputs: ProposalInputs) -> list[Block]:
    items: list[str | Item] = []
    if inputs.question:
        total = len(inputs.requests)
        lead = "Question:" if total == 1 else f"Question {inputs.turn} of {total}:"
        items.append(Item(f"“{inputs.question}”", lead=lead))
    items += list(inputs.readings)
    if not items:
        return [Paragraph("No question in this session.")]
    return [BulletList(tuple(items))]


def legacy_page_one(inputs: ProposalInputs) -> list[Block]:
    """Page one from the memory / recommend / cost results (module docstring)."""
    meeting = _meeting(inputs)
    best = meeting[0] if meeting else None
    training = _training(inputs)
    why: list[Block]
    if best is None:
        why = [Paragraph("No option that fits and meets the targets was recorded.")]
    else:
        context = inputs.recommend.result.context_tokens if inputs.recommend else None
        named = [_memory_line(r.result) for r in inputs.memory if r.result.gpu]
        items = [*named, memory_item(best, context, training)]
        speed = speed_item(best)
        why = [BulletList(tuple([*items, *([speed] if speed else [])]))]
    sections = [
        (RECOMMENDATION, _recommendation(inputs, best)),
        (WHY, why),
        (JOB_COST if training else MONTHLY_COST, _cost(inputs, best)),
        (MAIN_RISK, _risk(inputs)),
        (ALTERNATIVE, _alternative(best, inputs)),
        (READ_AS, _read(inputs)),
    ]
    return sectioned(sections)


def legacy_tables(inputs: ProposalInputs) -> list[Block]:
    """Options, memory breakdowns and every price the session holds."""
    blocks: list[Block] = []
    rec = inputs.recommend
    if rec is not None and rec.result.options:
        blocks += [Heading("Options compared", 2), Paragraph(LAYOUT_LEGEND)]
        blocks.append(options_table(list(rec.result.options), _training(inputs)))
    columns = [(f"{r.result.num_gpus:,}× {r.result.gpu or 'GPU'}", r.result) for r in inputs.memory]
    if columns:
        blocks += [Heading("Memory per GPU", 2), *memory_table(columns)]
    serving = None if inputs.cost is None else inputs.cost.result.serving
    if serving is not None and serving.rows:
        cheapest = serving.cheapest_by_tier.get("on_demand")
        configs = list(dict.fromkeys((r.gpu, r.count) for r in serving.rows))
        shown = [
            row
            for gpu, count in configs
            for row in per_tier(
                [
                    r
                    for r in serving.rows
                    if (r.gpu, r.count) == (gpu, count) and r.usd_per_hour is not None
                ],
                cheapest,
            )
        ]
        headers = ("configuration", "tier", "provider", "USD per hour", "USD per month", "as_of")
        rows = tuple(
            (
                f"{r.count:,}× {catalog_name(r.gpu)}",
                tier(r.tier),
                r.provider,
                money(r.usd_per_hour, ""),
                money(r.usd_per_month, ""),
                price_date(r).removeprefix("as of "),
            )
            for r in shown
        )
        blocks += [
            Heading("Costs", 2),
            Paragraph(f"Per configuration, {PER_TIER_WORDS}; in USD."),
            Table(headers, rows, frozenset({3, 4})),
        ]
    return blocks or [Paragraph("No tool result to tabulate.")]


def legacy_assumptions(inputs: ProposalInputs) -> list[str]:
    """Every assumption the stored results state, once each."""
    seen: dict[str, None] = {}
    for record in inputs.memory:
        seen.update(dict.fromkeys(str(a) for a in record.result.assumptions))
    if inputs.recommend is not None:
        seen.update(dict.fromkeys(str(a) for a in inputs.recommend.result.assumptions))
    serving = None if inputs.cost is None else inputs.cost.result.serving
    if serving is not None:
        seen.update(dict.fromkeys(str(a) for a in serving.assumptions))
    return list(seen)
