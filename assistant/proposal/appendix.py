"""The proposal's appendix: what a reviewer checks, not what a manager reads first — every
question of the session, the raw tool arguments, every option evaluated, the tools' assumptions,
the memory formulas and the sources (catalog entries with as_of, price and API sources, the
performance model's). Quoted from the report; nothing is computed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

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
from assistant.proposal.figures import bytes_as_gib, text_value
from assistant.proposal.labels import component, gpus, layout_code
from assistant.proposal.page_one import QUESTION_CHARS, READ_ITEMS, readings
from assistant.proposal.quotes import (
    estimate_of,
    first_estimate,
    gpu_name,
    serving_row,
    training_row,
)
from assistant.proposal.tables import MAX_APIS, compared_options
from tools.memory import MemoryEstimate
from tools.sizing import SizingReport

QUESTIONS = "Appendix A. The questions and how they were read"
ARGUMENTS = "Appendix B. Tool arguments"
OPTIONS = "Appendix C. Every option evaluated"
ASSUMPTIONS = "Appendix D. Assumptions and notes of the tools"
FORMULAS = "Appendix E. Memory formulas"
SOURCES = "Appendix F. Sources"


def _flatten(arguments: dict[str, Any], prefix: str = "") -> Iterable[tuple[str, Any]]:
    for key, value in arguments.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            yield from _flatten(value, name + ".")
        else:
            yield name, value


def _headline_label(report: SizingReport) -> str:
    if report.question is not None:
        return "asked which GPU was meant"
    if report.headline is None:
        return "no configuration met every target"
    return f"{gpus(report.headline.option)} ({layout_code(report.headline.option)})"


def questions_blocks(inputs: ProposalInputs) -> list[Block]:
    """Every user message, numbered, the covered one marked, each sizing turn's headline."""
    if not inputs.requests:
        return [Paragraph("The session holds no question.")]
    sized: dict[int, list[str]] = {}
    for turn in inputs.sizing_turns:
        sized.setdefault(turn.turn, []).append(_headline_label(turn.report))
    found = readings(inputs)
    whole = len(inputs.question) <= QUESTION_CHARS and len(found) <= READ_ITEMS
    if len(inputs.requests) == 1 and whole and not inputs.notices:
        return [Paragraph("One question, quoted whole on page one with every reading of it.")]
    items: list[str | Item] = []
    for number, text in enumerate(inputs.requests, start=1):
        marks = []
        if number == inputs.turn:
            marks.append("covered by this proposal")
        if number in sized:
            marks.append("sized: " + "; ".join(sized[number]))
        lead = f"Question {number}" + (f" ({', '.join(marks)})" if marks else "") + ":"
        items.append(Item(f"“{text}”", lead=lead))
    blocks: list[Block] = [BulletList(tuple(items))]
    if len(found) > READ_ITEMS:
        blocks.append(Paragraph("How the covered question was read, and the defaults filled in:"))
        blocks.append(BulletList(tuple(found)))
    if inputs.notices:
        blocks.append(Paragraph("Left out of this proposal:", note=True))
        blocks.append(BulletList(inputs.notices))
    return blocks


def arguments_blocks(inputs: ProposalInputs) -> list[Block]:
    """The arguments each quoted call was sent with, field by field, as sent."""
    blocks: list[Block] = []
    for name, arguments in inputs.arguments:
        rows = tuple((key, text_value(value)) for key, value in _flatten(arguments))
        blocks.append(Heading(f"Arguments of {name}", 3))
        if rows:
            blocks.append(Table(("field", "value as sent"), rows))
        else:
            blocks.append(Paragraph("Called with the tool's defaults."))
    return blocks or [Paragraph("No tool call is quoted.")]


def options_blocks(report: SizingReport) -> list[Block]:
    """The recommender's best layout per GPU type, with its reasons and notes."""
    rec = report.recommendation
    if rec is None:
        return [Paragraph("The recommender did not run.")]
    headers = (
        "option",
        "layout",
        "fits",
        "meets targets",
        "needed per GPU (GiB)",
        "budget per GPU (GiB)",
        "reasons",
    )
    rows = tuple(
        (
            gpus(o),
            layout_code(o),
            text_value(o.fits),
            text_value(o.meets_targets),
            bytes_as_gib(o.per_gpu_bytes),
            bytes_as_gib(o.budget_bytes_per_gpu),
            "; ".join(o.reasons) or "—",
        )
        for o in rec.options
    )
    blocks: list[Block] = [
        Paragraph(
            f"The recommender's best layout per GPU type, ranked by its objective "
            f"({rec.objective}); other layouts of the same GPUs were evaluated and set aside."
        ),
        Table(headers, rows, frozenset({4, 5})),
    ]
    if rec.notes:
        blocks.append(Heading("Notes from the recommender", 3))
        blocks.append(BulletList(tuple(n.text for n in rec.notes)))
    if rec.nearest_feasible:
        blocks.append(Paragraph(rec.nearest_feasible, note=True))
    return blocks


def assumptions_blocks(report: SizingReport) -> list[Block]:
    """Every assumption and warning the tools stated, once each, in the order they ran."""
    blocks: list[Block] = []
    if report.assumptions:
        blocks.append(BulletList(tuple(report.assumptions)))
    if report.warnings:
        blocks.append(Heading("Warnings", 3))
        blocks.append(BulletList(tuple(report.warnings)))
    own = [n.text for n in report.notes]
    if own:
        blocks.append(Heading("Notes of the sizing report", 3))
        blocks.append(BulletList(tuple(own)))
    return blocks or [Paragraph("The tools stated no assumption.")]


def _formula_estimate(report: SizingReport) -> MemoryEstimate | None:
    if report.headline is not None:
        est = estimate_of(report, report.headline.option)
        if est is not None:
            return est
    return first_estimate(report)


def formulas_blocks(report: SizingReport) -> list[Block]:
    """The formula of each memory component of the recommended layout, and its facts."""
    est = _formula_estimate(report)
    if est is None:
        return [Paragraph("No memory estimate in this report.")]
    # The components' own assumptions are among the tools' assumptions (Appendix D).
    items = [Item(c.formula, lead=f"{component(c.name, short=True)}:") for c in est.components]
    where = gpu_name(report, est.gpu) if est.gpu else "GPU"
    facts = (
        f"{est.model_name}: {est.total_params:,} parameters in total, {est.active_params:,} "
        f"active per token; KV cache {est.kv_cache_bytes_per_token:,} bytes per token (whole "
        f"model, {est.kv_dtype}); sized for {est.num_gpus:,}× {where}, TP {est.tp} × PP {est.pp}, "
        f"{est.engine} engine."
    )
    return [Paragraph(facts), BulletList(tuple(items))]


def sources_blocks(report: SizingReport) -> list[Block]:
    """Catalog entries behind the figures (with as_of), price and API sources, speed sources."""
    entries: dict[str, None] = {}
    options = compared_options(report)
    for o in options:
        if o.gpu_as_of:
            entries.setdefault(f"GPU {o.gpu_name} (catalog {o.gpu}): as_of {o.gpu_as_of}", None)
    for p in report.priced:
        row = serving_row(report, p) or training_row(report, p)
        if row is not None:
            entries.setdefault(f"Price {row.price_id}: {row.source}, as_of {row.as_of}", None)
    costs = report.costs
    apis = [] if costs is None or costs.serving is None else costs.serving.api_comparison
    for api in apis[:MAX_APIS]:
        entries.setdefault(f"API price {api.api_id}: {api.source}, as_of {api.as_of}", None)
    for o in options:
        if o.speed_source:
            entries.setdefault(f"Speed of {o.gpu_name}: {o.speed_source}", None)
    blocks: list[Block] = [BulletList(tuple(entries))] if entries else []
    parts = [] if costs is None else [p for p in (costs.serving, costs.training) if p]
    excluded = [f"{e.id} ({e.provider}): {e.reason}" for p in parts for e in p.excluded]
    if excluded:
        blocks.append(Heading("Prices the cost tool left out", 3))
        blocks.append(BulletList(tuple(dict.fromkeys(excluded))))
    return blocks or [Paragraph("No sourced result in this report.")]


def appendix_blocks(inputs: ProposalInputs) -> list[Block]:
    """The whole appendix (sessions with a sizing report)."""
    report = inputs.report
    assert report is not None
    sections = [
        (QUESTIONS, questions_blocks(inputs)),
        (ARGUMENTS, arguments_blocks(inputs)),
        (OPTIONS, options_blocks(report)),
        (ASSUMPTIONS, assumptions_blocks(report)),
        (FORMULAS, formulas_blocks(report)),
        (SOURCES, sources_blocks(report)),
    ]
    return sectioned(sections)
