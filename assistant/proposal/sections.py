"""The proposal's sections, built from stored tool results only (see `figures.py` for numbers).

Every figure placed in a block is a value read from a memory / recommend / cost result or from
the arguments the tools were called with; strings the tools wrote (reasons, notes, assumptions,
formulas, break-even explanations) are quoted verbatim. Nothing here computes a figure; memory
is shown in GiB, the unit of the tools' own notes (figures.py converts and rounds for reading).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from assistant.proposal.document import Block, BulletList, Heading, Paragraph, Table
from assistant.proposal.extract import ProposalInputs
from assistant.proposal.figures import bytes_as_gib, format_number, text_value
from tools.cost import ServingCostResult, ServingCostRow
from tools.cost.results import ApiComparisonRow, PricedRow
from tools.memory import MemoryEstimate
from tools.recommend import Option

PERFORMANCE_WORDS = ("mfu", "ttft", "all-reduce", "memory bandwidth", "static batching")
"""An assumption mentioning one of these belongs to the performance model (section 5)."""

CITATION_WORDS = (
    "paper",
    "docs",
    "et al",
    "table",
    "arxiv",
    "http",
    "§",
    "gpt-fast",
    "nccl",
    "datasheet",
)
"""A formula or assumption mentioning one of these cites a source (listed in section 8)."""

NUMERIC_RIGHT = frozenset(range(1, 32))


def _options(inputs: ProposalInputs) -> list[Option]:
    return [] if inputs.recommend is None else list(inputs.recommend.result.options)


def _recommended(inputs: ProposalInputs) -> Option | None:
    """The option the proposal recommends: the sizing report's headline (`tools.sizing`, the
    option every surface leads with); for a session without a report, `_legacy_recommended`."""
    if inputs.report is not None:
        return inputs.headline
    return _legacy_recommended(inputs)


def _legacy_recommended(inputs: ProposalInputs) -> Option | None:
    """The option the proposal recommends: the GPUs the user named ('on 8× H200', the last
    turn's sized configuration) when the recommender's layout at exactly that count meets the
    targets (QA round 4, 1: not a smaller layout within them), else the recommender's first
    option that meets the targets (it ranks best first)."""
    meeting = [o for o in _options(inputs) if o.meets_targets]
    named = _named_configurations(inputs)
    for option in [*meeting, *_rejected(inputs)]:
        key = (option.gpu, option.count)
        if key in named and option.fits and option.meets_targets:
            return option
    return meeting[0] if meeting else None


def _named_configurations(inputs: ProposalInputs) -> set[tuple[Any, int]]:
    """(GPU id, count) of the last turn's serving memory estimates that name a GPU and several
    GPUs: the hardware the user asked about. A training count only bounds the search (the
    recommender's smallest layout within it that meets the deadline is the answer)."""
    return {
        (record.result.gpu, record.result.num_gpus)
        for record in inputs.memory
        if record.result.gpu and record.result.num_gpus > 1 and record.result.task == "inference"
    }


def _layout(option: Option) -> str:
    return (
        f"{text_value(option.count)}× {option.gpu_name or option.gpu} "
        f"(TP={text_value(option.tp)}, PP={text_value(option.pp)}, DP={text_value(option.dp)})"
    )


def _serving(inputs: ProposalInputs) -> ServingCostResult | None:
    return None if inputs.cost is None else inputs.cost.result.serving


def _cost_rows(inputs: ProposalInputs) -> list[ServingCostRow]:
    serving = _serving(inputs)
    return [] if serving is None else list(serving.rows)


def _cheapest_rows(inputs: ProposalInputs) -> list[tuple[str, ServingCostRow]]:
    """(tier, row) for the cost tool's cheapest row of each tier, in the tool's order."""
    serving = _serving(inputs)
    if serving is None:
        return []
    by_id = {r.price_id: r for r in serving.rows}
    return [(tier, by_id[pid]) for tier, pid in serving.cheapest_by_tier.items() if pid in by_id]


def _money(value: float | None, currency: str) -> str:
    """A price in `currency`, rounded for reading."""
    if value is None:
        return "—"
    return f"{format_number(value)} {currency}".strip()


def _unconverted_note(inputs: ProposalInputs) -> str | None:
    """The cost tool's line about offers it could not compare in USD (no EUR→USD rate)."""
    if inputs.cost is None:
        return None
    notes = inputs.cost.result.unconverted_notes
    return "; ".join(n.rstrip(".") for n in notes) or None


# --- 1. summary -------------------------------------------------------------------------------


def summary_paragraph(inputs: ProposalInputs) -> str:
    """The recommendation in one paragraph, every figure quoted from the results."""
    rec = inputs.recommend
    best = _recommended(inputs)
    parts: list[str] = []
    if rec is not None:
        model = rec.result.model_id
        if best is not None:
            parts.append(
                f"For {model}, the recommended configuration is {_layout(best)}: it fits in "
                f"{bytes_as_gib(best.per_gpu_bytes)} GiB per GPU of a "
                f"{bytes_as_gib(best.budget_bytes_per_gpu)} GiB budget and meets the "
                "workload's targets."
            )
            perf = []
            if best.aggregate_tokens_per_s is not None:
                perf.append(
                    f"{format_number(best.aggregate_tokens_per_s)} output tokens/s in total"
                    " at the stated load"
                )
            full = best.full_load_tokens_per_s
            if full is not None and full != best.aggregate_tokens_per_s:
                # The cost section's $/M tokens may be priced at full load: say that rate too.
                each = f", {format_number(best.full_load_sequences_per_replica)} per replica"
                perf.append(
                    f"{format_number(full)} output tokens/s at full load (every KV slot in "
                    f"use{each})"
                )
            if best.decode_tokens_per_s_per_seq is not None:
                perf.append(
                    f"{format_number(best.decode_tokens_per_s_per_seq)} tokens/s per sequence"
                )
            if best.ttft_s is not None:
                perf.append(f"a time to first token of {format_number(best.ttft_s)} s")
            if best.training_hours is not None:
                perf.append(f"{format_number(best.training_hours)} h of training")
            if perf:
                basis = best.basis_label or "estimated"
                parts.append(f"Performance ({basis}): " + ", ".join(perf) + ".")
        else:
            nearest = rec.result.nearest_feasible
            parts.append(
                f"For {model}, no evaluated configuration meets every target."
                + (f" {nearest}" if nearest else "")
            )
    priced = _headline_price(inputs)
    if priced:
        parts.append(priced)
    cheapest = _cheapest_rows(inputs)
    if cheapest:
        tier, row = cheapest[0]
        parts.append(
            f"The cheapest {tier} price compared in USD is {row.provider} "
            f"{row.instance or row.gpu_label or ''}".rstrip()
            + f" at {_money(row.usd_per_hour, 'USD')} per hour (as of {_dated(row)})."
        )
    unconverted = _unconverted_note(inputs)
    if unconverted:
        parts.append(f"Not compared: {unconverted}.")
    if not parts:
        parts.append("The session holds no memory, recommendation or cost result to report.")
    return " ".join(parts)


def _headline_price(inputs: ProposalInputs) -> str | None:
    """The recommended configuration's quoted price and $/M tokens at the report's price load
    (with its reason): the same figures every other surface quotes."""
    report = inputs.report
    if report is None or report.headline is None or report.headline.price is None:
        return None
    price = report.headline.price
    tier = price.tier.replace("_", " ")
    where = f"({tier}, {price.provider}, as of {price.as_of})"
    if price.usd_job is not None:
        job = f"Priced at {format_number(price.usd_job)} USD for the job {where}."
        return f"{job} {report.price_load.reason}"
    text = f"Priced at {_money(price.usd_per_hour, 'USD')} per hour {where}"
    if price.usd_per_million_tokens is not None:
        text += (
            f": {format_number(price.usd_per_million_tokens)} USD per million output tokens"
            f"{report.price_load.label}"
        )
    return f"{text}. {report.price_load.reason}"


# --- 2. workload and assumptions ---------------------------------------------------------------


def _flatten(arguments: dict[str, Any], prefix: str = "") -> Iterable[tuple[str, Any]]:
    for key, value in arguments.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            yield from _flatten(value, name + ".")
        else:
            yield name, value


def workload_blocks(inputs: ProposalInputs) -> list[Block]:
    """The arguments each tool was called with, and the assumptions the tools stated."""
    blocks: list[Block] = []
    if inputs.requests:
        blocks.append(Paragraph("What was asked, in the user's words:"))
        blocks.append(BulletList(tuple(inputs.requests)))
    if inputs.readings:
        blocks.append(Paragraph("How those words were read (check these first):"))
        blocks.append(BulletList(inputs.readings))
    if inputs.notices:
        blocks.append(Paragraph("Left out of this proposal:", note=True))
        blocks.append(BulletList(inputs.notices))
    for name, arguments in inputs.arguments:
        rows = tuple((key, text_value(value)) for key, value in _flatten(arguments))
        blocks.append(Heading(f"Arguments of {name}", 3))
        if rows:
            blocks.append(Table(("field", "value as sent"), rows))
        else:
            blocks.append(Paragraph("Called with the tool's defaults."))
    general = [a for a in _assumptions(inputs) if not _is_performance(a)]
    if general:
        blocks.append(Heading("Assumptions stated by the tools", 3))
        blocks.append(BulletList(tuple(general)))
    return blocks


def _assumptions(inputs: ProposalInputs) -> list[str]:
    seen: dict[str, None] = {}
    for record in inputs.memory:
        seen.update(dict.fromkeys(str(a) for a in record.result.assumptions))
    if inputs.recommend is not None:
        seen.update(dict.fromkeys(str(a) for a in inputs.recommend.result.assumptions))
    return list(seen)


def _is_performance(text: str) -> bool:
    low = text.lower()
    return any(word in low for word in PERFORMANCE_WORDS)


# --- 3. memory ---------------------------------------------------------------------------------

MEMORY_OPTION_HEADERS = (
    "configuration",
    "needed per GPU (GiB)",
    "budget per GPU (GiB)",
    "headroom per GPU (GiB)",
    "KV capacity per GPU (GiB)",
    "KV capacity (tokens)",
    "max concurrent sequences",
    "fits",
)


def memory_blocks(inputs: ProposalInputs) -> list[Block]:
    """Per option: memory needed vs budget and KV capacity; per memory call: the breakdown."""
    blocks: list[Block] = []
    options = _options(inputs)
    if options:
        rows = tuple(
            (
                _layout(o),
                bytes_as_gib(o.per_gpu_bytes),
                bytes_as_gib(o.budget_bytes_per_gpu),
                bytes_as_gib(o.headroom_bytes),
                bytes_as_gib(o.kv_cache_capacity_bytes),
                text_value(o.kv_cache_capacity_tokens),
                text_value(o.max_concurrent_sequences),
                text_value(o.fits),
            )
            for o in options
        )
        blocks.append(
            Paragraph(
                "Best layout per GPU type, as ranked by the recommender (memory in GiB, "
                "the unit of the tools' notes):"
            )
        )
        blocks.append(Table(MEMORY_OPTION_HEADERS, rows, frozenset(range(1, 7))))
    for estimate in _shown_breakdowns([r.result for r in inputs.memory]):
        blocks.extend(_breakdown_blocks(estimate))
    if not blocks:
        blocks.append(Paragraph("No memory result in this session."))
    return blocks


def _shown_breakdowns(memory: list[MemoryEstimate]) -> list[MemoryEstimate]:
    """The breakdowns to show: a layout that does not fit (a GPU named without a count, sized
    as one GPU) is left out when the same turn also sized a multi-GPU layout on that GPU (the
    recommended layout's breakdown) and it fits."""
    fitting_layouts = {e.gpu for e in memory if e.num_gpus > 1 and e.fits is True}
    return [e for e in memory if not (e.fits is False and e.gpu in fitting_layouts)]


def _breakdown_blocks(r: MemoryEstimate) -> list[Block]:
    where = f"{text_value(r.num_gpus)}× {r.gpu or 'GPU'}"
    title = (
        f"Memory breakdown: {r.model_name or r.model_id}, {r.weights_format} weights, {where} "
        f"(TP={text_value(r.tp)}, PP={text_value(r.pp)})"
    )
    blocks: list[Block] = [Heading(title, 3)]
    rows = [(c.name, bytes_as_gib(c.bytes_per_gpu), c.formula) for c in r.components]
    rows.append(("total on the most loaded GPU", bytes_as_gib(r.per_gpu_bytes), ""))
    if r.budget_bytes_per_gpu is not None:
        rows.append(("budget (usable × utilisation)", bytes_as_gib(r.budget_bytes_per_gpu), ""))
    if r.headroom_bytes is not None:
        rows.append(("headroom", bytes_as_gib(r.headroom_bytes), ""))
    blocks.append(Table(("component", "per GPU (GiB)", "formula"), tuple(rows), frozenset({1})))
    facts = [
        f"context {text_value(r.context)} tokens, batch {text_value(r.batch)}, "
        f"KV cache {r.kv_dtype}, engine {r.engine}",
        f"KV cache per token (whole model): {text_value(r.kv_cache_bytes_per_token)} bytes",
        f"parameters: {text_value(r.total_params)} total, "
        f"{text_value(r.active_params)} active per token",
    ]
    if r.fits is not None:
        facts.append(f"fits: {text_value(r.fits)}")
    facts += [f"component assumption ({c.name}): {a}" for c in r.components for a in c.assumptions]
    facts += [f"warning: {w}" for w in r.warnings]
    blocks.append(BulletList(tuple(facts)))
    return blocks


# --- 4. recommendation and alternatives ---------------------------------------------------------


def recommendation_blocks(inputs: ProposalInputs) -> list[Block]:
    """The recommended option, the alternatives, and why the others were rejected."""
    if inputs.recommend is None:
        return [Paragraph("No recommendation in this session.")]
    result = inputs.recommend.result
    best = _recommended(inputs)
    blocks: list[Block] = []
    if best is not None:
        blocks.append(Paragraph(f"Recommended: {_layout(best)}, {text_value(best.nodes)} node(s)."))
        if best.reasons:
            blocks.append(BulletList(tuple(str(x) for x in best.reasons)))
    elif result.nearest_feasible:
        blocks.append(Paragraph(result.nearest_feasible, note=True))
    others = [o for o in _options(inputs) if o is not best]
    meeting = [o for o in others if o.meets_targets]
    if meeting:
        blocks.append(Heading("Alternatives that also meet the targets", 3))
        blocks.append(BulletList(tuple(_layout(o) + _reasons(o) for o in meeting)))
    failing = [o for o in others if not o.meets_targets]
    rejected = _rejected(inputs)
    if failing or rejected:
        blocks.append(Heading("Rejected configurations and why", 3))
        items = [_layout(o) + _reasons(o, "does not meet the targets") for o in failing]
        items += [
            _layout(o) + _reasons(o, "a smaller or better layout of this GPU was chosen")
            for o in rejected
        ]
        blocks.append(BulletList(tuple(items)))
    if result.notes:
        blocks.append(Heading("Notes from the recommender", 3))
        blocks.append(BulletList(tuple(str(n) for n in result.notes)))
    return blocks


def _reasons(option: Option, fallback: str = "") -> str:
    reasons = [str(r) for r in option.reasons]
    if reasons:
        return ": " + "; ".join(reasons)
    return f": {fallback}" if fallback else ""


# --- 5. performance -----------------------------------------------------------------------------

PERFORMANCE_HEADERS = (
    "configuration",
    "decode per sequence (tokens/s)",
    "aggregate output (tokens/s)",
    "prefill (tokens/s)",
    "TTFT (s)",
    "training (h)",
    "GPU-hours",
    "basis",
)


def performance_blocks(inputs: ProposalInputs) -> list[Block]:
    """Speed estimates of each option and the performance model's stated assumptions."""
    options = [o for o in _options(inputs) if o.fits]
    blocks: list[Block] = []
    if options:
        rows = tuple(
            (
                _layout(o),
                text_value(o.decode_tokens_per_s_per_seq),
                text_value(o.aggregate_tokens_per_s),
                text_value(o.prefill_tokens_per_s),
                text_value(o.ttft_s),
                text_value(o.training_hours),
                text_value(o.gpu_hours),
                o.basis_label or "n/a",
            )
            for o in options
        )
        blocks.append(Table(PERFORMANCE_HEADERS, rows, frozenset(range(1, 7))))
    model = [a for a in _assumptions(inputs) if _is_performance(a)]
    if model:
        blocks.append(Heading("The model behind these estimates", 3))
        blocks.append(BulletList(tuple(model)))
    if not blocks:
        blocks.append(Paragraph("No performance estimate in this session."))
    return blocks


# --- 6. cost ------------------------------------------------------------------------------------

PRICE_HEADERS = (
    "tier",
    "provider",
    "instance",
    "region",
    "GPUs",
    "USD per hour",
    "USD per month",
    "USD per million output tokens",
    "published per hour",
    "as_of",
)


def _price_row(tier: str, row: ServingCostRow) -> tuple[str, ...]:
    billed = f" (billed {text_value(row.billed_gpus)})" if row.billed_gpus != row.count else ""
    return (
        tier,
        row.provider,
        row.instance or row.gpu_label or "",
        row.region or "—",
        f"{text_value(row.count)}× {row.gpu}{billed}",
        _usd(row, row.usd_per_hour),
        _usd(row, row.usd_per_month),
        _usd(row, row.usd_per_million_tokens),
        _money(row.per_hour, row.currency),
        _dated(row),
    )


def _dated(row: PricedRow | ApiComparisonRow) -> str:
    """A price's as_of and, when the stored result carries it, its age when it was priced
    (a proposal is read later than the session ran, so the age is labelled with that time)."""
    return row.as_of + (f" ({row.age} when priced)" if row.age else "")


def _usd(row: PricedRow, value: float | None) -> str:
    """A USD column: the converted figure, or why there is none (no rate for its currency)."""
    if value is None and row.currency != "USD":
        return f"not compared (no {row.currency}→USD rate)"
    return _money(value, "USD")


def cost_blocks(inputs: ProposalInputs) -> list[Block]:
    """Cheapest price per tier, all matching prices, the hosted-API comparison, break-even."""
    if inputs.cost is None:
        return [Paragraph("No cost result in this session.")]
    result = _serving(inputs)
    blocks: list[Block] = []
    cheapest = _cheapest_rows(inputs)
    if cheapest:
        blocks.append(Heading("Cheapest cloud option per price tier", 3))
        blocks.append(Table(PRICE_HEADERS, tuple(_price_row(t, r) for t, r in cheapest)))
    apis = [] if result is None else result.api_comparison
    if apis:
        blocks.append(Heading("Hosted API alternative", 3))
        rows = tuple(
            (
                a.provider,
                a.model,
                a.match,
                f"{format_number(a.input_per_mtok)} {a.currency}",
                f"{format_number(a.output_per_mtok)} {a.currency}",
                f"{format_number(a.blended_per_mtok)} {a.currency}",
                _dated(a),
            )
            for a in apis
        )
        headers = (
            "provider",
            "model",
            "match",
            "input per Mtok",
            "output per Mtok",
            "blended per Mtok",
            "as_of",
        )
        blocks.append(Table(headers, rows))
    evens = [] if result is None else result.break_even
    if evens:
        blocks.append(Heading("Break-even against the hosted API", 3))
        blocks.append(
            BulletList(
                tuple(
                    f"{b.provider} {b.tier} vs {b.api_provider} ({b.api_id}): {b.explanation}"
                    for b in evens
                )
            )
        )
    unconverted = _unconverted_note(inputs)
    if unconverted:
        blocks.append(Paragraph(f"Not compared in USD: {unconverted}.", note=True))
    rows_all = _cost_rows(inputs)
    if rows_all:
        blocks.append(Heading("Every matching cloud price", 3))
        blocks.append(Table(PRICE_HEADERS, tuple(_price_row(r.tier, r) for r in rows_all)))
    excluded = [] if result is None else result.excluded
    if excluded:
        blocks.append(Heading("Prices the cost tool left out", 3))
        blocks.append(BulletList(tuple(f"{e.id} ({e.provider}): {e.reason}" for e in excluded)))
    if result is not None and result.assumptions:
        blocks.append(Heading("Cost assumptions", 3))
        blocks.append(BulletList(tuple(str(a) for a in result.assumptions)))
    return blocks


# --- 7. risks -----------------------------------------------------------------------------------


def risk_blocks(inputs: ProposalInputs) -> list[Block]:
    """What would change the answer, each point tied to a figure from the results."""
    best = _recommended(inputs)
    rec = inputs.recommend.result if inputs.recommend else None
    items: list[str] = []
    if best is not None:
        context = text_value(None if rec is None else rec.context_tokens)
        items.append(
            f"Context growth: one replica holds {text_value(best.kv_cache_capacity_tokens)}"
            f" KV tokens ({bytes_as_gib(best.kv_cache_capacity_bytes)} GiB per GPU), i.e. "
            f"{text_value(best.max_concurrent_sequences)} sequences of "
            f"{context} tokens; longer contexts leave room for "
            "fewer concurrent sequences."
        )
        items.append(
            f"More users: the plan runs {text_value(best.dp)} replica(s) of at most "
            f"{text_value(best.max_concurrent_sequences)} concurrent sequences each; "
            "beyond that, add replicas or re-run the sizing."
        )
        items.append(
            f"Headroom: {bytes_as_gib(best.headroom_bytes)} GiB per GPU is left under the "
            f"{bytes_as_gib(best.budget_bytes_per_gpu)} GiB budget at the requested load."
        )
    # The format every surface states: the report's (the recommender's sized format), else
    # the first estimate's.
    fmt = inputs.report.weights_format if inputs.report is not None else None
    fmt = fmt or next((m.result.weights_format for m in inputs.memory), None)
    if fmt is None and rec is not None:
        fmt = rec.weights_format
    if rec is not None or fmt:
        items.append(
            "Quantization quality: the weights are sized as "
            f"{fmt or 'the default format'}"
            + (f" ({bytes_as_gib(rec.weight_bytes)} GiB)" if rec is not None else "")
            + "; a lower-bit format shrinks them but its output quality must be checked on "
            "your own evaluation set before it changes this plan."
        )
    cheapest = _cheapest_rows(inputs)
    if cheapest:
        dated = "; ".join(
            f"{tier}: {row.provider} {_money(row.usd_per_hour, 'USD')} per hour as of {_dated(row)}"
            for tier, row in cheapest
        )
        items.append(f"Price changes: cloud prices move; the cheapest found were {dated}.")
    serving = _serving(inputs)
    for even in [] if serving is None else serving.break_even:
        if even.reachable is None:
            continue
        volume = text_value(even.break_even_output_tokens_per_month)
        capacity = text_value(even.capacity_output_tokens_per_month)
        hosted = f"{even.provider} {even.tier}"
        api = f"the hosted API ({even.api_provider})"
        if even.reachable:
            text = (
                f"Volume: below {volume} output tokens a month {api} costs less than "
                f"{hosted}; fewer or less active users than planned favour the API."
            )
        else:
            text = (
                f"Volume: {hosted} cannot reach the break-even of {volume} output "
                f"tokens a month (capacity {capacity}); {api} stays cheaper unless "
                "prices or the load change."
            )
        items.append(text)
    for warning in [w for m in inputs.memory for w in m.result.warnings]:
        items.append(f"Memory warning: {warning}")
    if not items:
        return [Paragraph("No result in this session to derive risks from.")]
    return [BulletList(tuple(dict.fromkeys(items)))]


# --- 8. sources ---------------------------------------------------------------------------------


def source_blocks(inputs: ProposalInputs) -> list[Block]:
    """Catalog entries behind the figures (with as_of) and the sources the formulas cite."""
    entries: dict[str, None] = {}
    for option in [*_options(inputs), *_rejected(inputs)]:
        if option.gpu_as_of:
            entries.setdefault(
                f"GPU {option.gpu_name or option.gpu} (catalog {option.gpu}), "
                f"as_of {option.gpu_as_of}",
                None,
            )
    used = {row.price_id for _, row in _cheapest_rows(inputs)}
    for row in _cost_rows(inputs):
        if row.price_id in used:
            entries.setdefault(f"Price {row.price_id}: {row.source}, as_of {row.as_of}", None)
    serving = _serving(inputs)
    for api in [] if serving is None else serving.api_comparison:
        entries.setdefault(f"API price {api.api_id}: {api.source}, as_of {api.as_of}", None)
    cited: dict[str, None] = {}
    for text in _cited_texts(inputs):
        if any(word in text.lower() for word in CITATION_WORDS):
            cited.setdefault(text, None)
    blocks: list[Block] = []
    if entries:
        blocks.append(Heading("Catalog entries", 3))
        blocks.append(BulletList(tuple(entries)))
    if cited:
        blocks.append(Heading("Formulas and the sources they cite", 3))
        blocks.append(BulletList(tuple(cited)))
    return blocks or [Paragraph("No sourced result in this session.")]


def _rejected(inputs: ProposalInputs) -> list[Option]:
    return [] if inputs.recommend is None else list(inputs.recommend.result.rejected)


def _cited_texts(inputs: ProposalInputs) -> Sequence[str]:
    texts = list(_assumptions(inputs))
    for record in inputs.memory:
        texts += [f"{c.name}: {c.formula}" for c in record.result.components]
    return texts
