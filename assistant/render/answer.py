"""One turn's answer from the sizing report, as typed sections (`assistant.answer.Answer`): the
lead (the asked number or the verdict), then the table the question is about, how the words
were read, what to ask next; what does not fit one screen is folded (`fold.fold`), the tools'
own assumptions always. Or a clarifying question, with the figures of the default reading.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel

from assistant.answer import Answer, AnswerSection
from assistant.reading.of_parsed import reading_of
from assistant.render.asked import asked_lines, with_yes_no, yes_no
from assistant.render.assumptions import defaults_filled_in, follow_ups
from assistant.render.claims import claim_lines
from assistant.render.costs import (
    api_comparison_lines,
    exchange_rate_lines,
    price_load_lines,
    unconverted_lines,
)
from assistant.render.deployment import deployment_lines
from assistant.render.fold import Part, fold, tool_assumptions_topic
from assistant.render.local import (
    DATACENTER_HEADING,
    fits_lines,
    local_serving_lines,
    owned_lead,
)
from assistant.render.questions import capacity_lines, speed_lines
from assistant.render.reading import out_of_scope_lines, reading_lead
from assistant.render.results import CallResult, config_label
from assistant.render.tables import breakdown_table, key_figures, options_table
from assistant.render.verdict import (
    about_headline,
    caution_lines,
    named_training_lines,
    verdict_block,
    verdict_lines,
)
from assistant.render.workloads import (
    embedding_call_lines,
    job_lead_lines,
    workload_follow_ups,
    workload_lines,
)
from tools.local_serving import LocalServingPlan
from tools.sizing import SizedConfiguration, SizingReport
from tools.workloads.embedding import EmbeddingResult

if TYPE_CHECKING:
    from assistant.reading.parsed import ParsedWorkload

# Importance of each part (0: the lead, always shown): the order sections are kept visible in
# while the answer fits one screen. The table the question is about ranks above the other.
_LEAD, _READ_AS, _PRIMARY, _ASK_NEXT, _KEY_FIGURES, _SECONDARY, _NOTES, _PRICING = range(8)


def _tool_notes(values: list[BaseModel]) -> tuple[list[str], list[str]]:
    """(assumptions, warnings) the tools stated, in order."""
    assumptions: list[str] = []
    warnings: list[str] = []
    for value in values:
        assumptions += [str(a) for a in getattr(value, "assumptions", [])]
        warnings += [str(w) for w in getattr(value, "warnings", [])]
    return assumptions, warnings


def _part(rank: int, topic: str, lines: list[str], title: str | None = None) -> Part:
    # The lines the verdict card states too stay marked (`AnswerSection.card_lines`).
    return Part(AnswerSection.of_lines(lines, title), rank, topic)


def render_answer(
    parsed: ParsedWorkload,
    report: SizingReport | None,
    local: list[CallResult] | None = None,
    error: str | None = None,
) -> Answer:
    """The full answer for one turn: `report` from the `size` call (None when only llama.cpp /
    Ollama plans ran, or `error` says why it could not run), `local` the plans."""
    local = local or []
    # The reading first (issue 27): what the verdict below answers.
    lead = reading_lead(reading_of(parsed))
    if report is not None and report.leads_with_local:
        # Owned hardware (issue 29): the local plan is the verdict; the datacenter sizing
        # follows as the alternative.
        lead += with_yes_no(owned_lead(report, local), yes_no(report))
        lead.append(DATACENTER_HEADING)
    else:
        lead += local_serving_lines(local)
    lead += embedding_call_lines(local)  # issue 30 item 2
    if error is not None:
        lead.append(f"- Could not size this: {error}")
    values: list[BaseModel] = [
        c.value for c in local if isinstance(c.value, LocalServingPlan | EmbeddingResult)
    ]
    parts: list[Part] = []
    if report is not None:
        report_lead, report_parts = _report_parts(parsed, report)
        lead += report_lead
        parts += report_parts
        # issue 30 items 5-7: what was asked leads; an engine only named is a secondary part.
        asked = report.request.serve_engine is None or parsed.launch_asked
        deployment = deployment_lines(report)
        parts += [_part(_LEAD if asked else _SECONDARY, "deployment", deployment)] * bool(
            deployment
        )
        values = [*report.results(), *values]
    read_as = [f"Could not place: {'; '.join(repr(u) for u in parsed.unplaced)}"]
    read_as = read_as if parsed.unplaced else []
    read_as += parsed.notes
    if report is not None:
        read_as += defaults_filled_in(parsed, report)
        read_as += exchange_rate_lines(report)
    assumptions, warnings = _tool_notes(values)
    read_as += [f"warning: {w}" for w in warnings]
    read_as = list(dict.fromkeys(read_as))
    pricing = [] if report is None else price_load_lines(report)
    folded = [a for a in dict.fromkeys(assumptions) if a not in read_as]
    parts = [
        _part(_LEAD, "verdict", lead),
        *parts,
        _part(_READ_AS, "how the question was read", _bullets(read_as), "Assumptions"),
        _part(
            _ASK_NEXT,
            "what to ask next",
            [f"- {a}" for a in workload_follow_ups(parsed) or follow_ups(parsed)],
            "What to ask next",
        ),
        _part(_PRICING, "how $/M is priced", _bullets(pricing), "How $/M tokens are priced"),
    ]
    tools = AnswerSection(
        title=f"Tool assumptions ({len(folded)})", lines=tuple(_bullets(folded)), folded=True
    )
    parts.append(Part(tools, _PRICING, tool_assumptions_topic(len(folded))))
    return fold(parts)


def _primary_is_breakdown(parsed: ParsedWorkload, report: SizingReport) -> bool:
    """Whether the memory breakdown is the table the question is about (a memory question, a
    training job, GPUs the user named) rather than the options."""
    named = any(m.gpu is not None for m in report.memory)
    memory = parsed.asked in ("memory", "kv_cache") or bool(parsed.claims)
    return memory or report.is_training or named or parsed.capacity


def _report_parts(parsed: ParsedWorkload, report: SizingReport) -> tuple[list[str], list[Part]]:
    """The lead lines of the report, and its other parts: memory breakdown, options, notes,
    key figures, cost errors."""
    # Asked "self-hosting or an API?": that answer leads (issue 18, class 2).
    api = api_comparison_lines(parsed, report)
    lead = caution_lines(report)  # what bears on the verdict, before it
    lead += job_lead_lines(report)  # issue 30 item 3: a batch job leads with its hours and cost
    lead += asked_lines(report, named_training=bool(named_training_lines(report)))
    lead += claim_lines(report)
    lead += api if parsed.api_comparison else []
    lead += capacity_lines(parsed, report)
    lead += speed_lines(parsed, report)
    lead += with_yes_no(
        verdict_block(
            report, memory_first=parsed.asked in ("memory", "kv_cache") or bool(parsed.claims)
        ),
        None if report.leads_with_local else yes_no(report),
    )
    lead += [] if parsed.api_comparison else api
    lead += workload_lines(report)  # issue 30 items 1-4
    lead += unconverted_lines(report)
    breakdown_first = _primary_is_breakdown(parsed, report)
    parts: list[Part] = []
    title, rows = _breakdown(report)
    breakdown = _part(_PRIMARY if breakdown_first else _SECONDARY, "memory breakdown", rows, title)
    options: list[str] = []
    notes: list[str] = []
    rec = report.recommendation
    if report.recommendation_error is not None:
        notes.append(f"- The recommender could not run: {report.recommendation_error.text}")
    elif rec is not None:
        options = options_table(report)
        headline = None if parsed.gpus or report.headline is None else report.headline.option
        notes += [f"- {about_headline(n, headline)}" for n in rec.notes[:4]]
        # The scale-out answer above supersedes the search within the named count.
        if rec.nearest_feasible and report.scale_out is None:
            notes.append(f"- Nearest feasible: {rec.nearest_feasible}")
    # The report's own notes (why the rate sized what it did, nearest options priced): the
    # app's card and the proposal state them too.
    notes += [f"- {n.text}" for n in report.notes]
    if report.costs_error is not None:
        lead.append(f"- Cost comparison unavailable: {report.costs_error.text}")
    table = _part(
        _SECONDARY if breakdown_first else _PRIMARY, "options", options, "Best option per GPU"
    )
    parts += [breakdown, table] if breakdown_first else [table, breakdown]
    parts.append(_part(_NOTES, "notes", notes, "Notes"))
    parts.append(_part(_KEY_FIGURES, "key figures", key_figures(report), "Key figures"))
    return lead, parts


def _breakdown(report: SizingReport) -> tuple[str, list[str]]:
    """The memory breakdown shown: the headline's layout when the report sized it, else the
    first configuration sized; its title says which."""
    layout = report.layout_breakdown
    if layout is not None and layout.estimate is not None:
        return f"Memory per GPU ({_layout_label(report, layout)})", breakdown_table(layout)
    first = next((m for m in report.memory if m.estimate is not None), None)
    if first is None:
        return "Memory per GPU", []
    label = config_label(first)
    if first.plain_data_parallel:
        label += ", plain data parallelism"
    return f"Memory per GPU ({label})", breakdown_table(first)


def _layout_label(report: SizingReport, layout: SizedConfiguration) -> str:
    """'8× MI300X, TP 8 × PP 1 — the recommended layout' for the headline's layout estimate."""
    est = layout.estimate
    tp, pp = (1, 1) if est is None else (est.tp, est.pp)
    split = f"TP {tp} × PP {pp}"
    if layout.zero and layout.count > tp * pp:
        split += f", ZeRO-{layout.zero}"
    replica = "" if report.is_training else ", one replica"
    return f"{config_label(layout, zero=False)}, {split}{replica} — the recommended layout"


def _bullets(items: list[str]) -> list[str]:
    # One line per item.
    return ["- " + " ".join(item.split()) for item in items]


def render_out_of_scope(parsed: ParsedWorkload) -> Answer:
    """The answer to a question gpu-sizer cannot answer: one sentence per topic saying so and
    what it answers instead, and an example of that — never a sizing of something else."""
    reading = reading_of(parsed)
    model = reading.slot("model")
    example = (
        f"e.g. 'how much memory does {model.shown} need in Q4_K_M?' or 'will it fit on a 24 GB "
        "GPU?'"
        if model is not None
        else "e.g. 'will Llama 3.1 70B in 4-bit fit on 2× RTX 3090?'"
    )
    lines = [
        *out_of_scope_lines(reading),
        "",
        f"It can size memory, speed and cost for the model and hardware you name ({example}).",
    ]
    return fold([_part(_LEAD, "verdict", lines)])


def render_question(
    parsed: ParsedWorkload,
    question: str | None = None,
    report: SizingReport | None = None,
    readings: list[str] | None = None,
) -> Answer:
    """A clarifying question instead of an answer (issue 18, class 12): the figures of the
    default reading first when there are any (`report`: the sizing of the workload read so far
    without what is in doubt, `readings`: how it was read; or the report whose GPU name is in
    question, at the catalog's default for it), then the question; what was understood so far
    is folded."""
    ask = question or (parsed.questions[0].text if parsed.questions else "Which model?")
    # What could change the verdict and was not read is said before any figure, then the reading.
    lead = reading_lead(reading_of(parsed))
    figures_shown = False
    if report is not None:
        figures = verdict_lines(report) if report.question is not None else verdict_block(report)
        # The number asked for leads the default reading's figures too (classes 11 and 12).
        figures = [*speed_lines(parsed, report), *figures] if figures else figures
        if figures:
            how = "; ".join(readings or []) or _variant_reading(report)
            lead += [f"For the default reading ({how}):", *figures, ""]
            figures_shown = True
    lead.append(f"**One question before I size this{' exactly' if figures_shown else ''}:** {ask}")
    parts = [_part(_LEAD, "verdict", lead)]
    if parsed.unplaced:
        unplaced = ["I could not place: " + "; ".join(f"'{u}'" for u in parsed.unplaced) + "."]
        parts.append(_part(_READ_AS, "what I could not place", unplaced))
    return fold(parts)


def _variant_reading(report: SizingReport) -> str:
    """'A100 80GB SXM4, the catalog's default for 'A100'' for a variant question."""
    named = [m for m in report.memory if m.gpu is not None]
    question = report.question
    if not named or question is None:
        return "the catalog defaults"
    return f"{config_label(named[0])}, the catalog's default for '{question.text}'"


def render_fits(parsed: ParsedWorkload, calls: list[CallResult]) -> Answer:
    """The answer to 'what can I run on my …?': the reading, then the models that fit."""
    lead = reading_lead(reading_of(parsed)) + fits_lines(calls)
    notes = [a for c in calls for a in getattr(c.value, "assumptions", [])]
    return fold(
        [
            _part(_LEAD, "verdict", lead),
            _part(_READ_AS, "how the question was read", _bullets(notes), "Assumptions"),
        ]
    )
