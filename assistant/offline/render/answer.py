"""One turn's Markdown from the sizing report: the full answer (verdict first, then figures,
breakdown, options with cost, how the question was read, what to ask next, and last the
folded tool assumptions), or a clarifying question with what was understood so far.
"""

from __future__ import annotations

from pydantic import BaseModel

from assistant.offline.parsed import ParsedWorkload
from assistant.offline.render.assumptions import defaults_filled_in, follow_ups
from assistant.offline.render.costs import api_comparison_lines, price_load_lines, unconverted_lines
from assistant.offline.render.details import details_title
from assistant.offline.render.local import local_serving_lines
from assistant.offline.render.questions import capacity_lines
from assistant.offline.render.results import CallResult, config_label
from assistant.offline.render.tables import breakdown_table, key_figures, options_table
from assistant.offline.render.verdict import about_headline, verdict_block
from tools.local_serving import LocalServingPlan
from tools.sizing import SizedConfiguration, SizingReport


def _section(title: str, lines: list[str]) -> list[str]:
    return [f"\n**{title}**\n", *lines] if lines else []


def _tool_notes(values: list[BaseModel]) -> tuple[list[str], list[str]]:
    """(assumptions, warnings) the tools stated, in order."""
    assumptions: list[str] = []
    warnings: list[str] = []
    for value in values:
        assumptions += [str(a) for a in getattr(value, "assumptions", [])]
        warnings += [str(w) for w in getattr(value, "warnings", [])]
    return assumptions, warnings


def render_answer(
    parsed: ParsedWorkload,
    report: SizingReport | None,
    local: list[CallResult] | None = None,
    error: str | None = None,
) -> str:
    """The full answer for one turn (Markdown): `report` from the `size` call (None when only
    llama.cpp / Ollama plans ran, or `error` says why it could not run), `local` the plans."""
    local = local or []
    out: list[str] = local_serving_lines(local)
    if error is not None:
        out.append(f"- Could not size this: {error}")
    values: list[BaseModel] = [c.value for c in local if isinstance(c.value, LocalServingPlan)]
    if report is not None:
        out += _report_lines(parsed, report)
        values = [*report.results(), *values]
    read_as = [*parsed.notes]
    if report is not None:
        read_as += defaults_filled_in(parsed, report)
        read_as += price_load_lines(report)
    assumptions, warnings = _tool_notes(values)
    read_as += [f"warning: {w}" for w in warnings]
    read_as = list(dict.fromkeys(read_as))
    folded = [a for a in dict.fromkeys(assumptions) if a not in read_as]
    out += _section("Assumptions", _bullets(read_as))
    asks = follow_ups(parsed)
    if parsed.unplaced:
        asks.insert(0, "I could not place: " + "; ".join(f"'{u}'" for u in parsed.unplaced))
    out += _section("What to ask next", [f"- {a}" for a in asks])
    # Last, so that folding it leaves every other part of the answer in place.
    out += _section(details_title(len(folded)), _bullets(folded))
    return "\n".join(out).strip() + "\n"


def _report_lines(parsed: ParsedWorkload, report: SizingReport) -> list[str]:
    """Verdict, costs, key figures, breakdown, options and notes of the report."""
    layout = report.layout_breakdown
    has_layout = layout is not None and layout.estimate is not None
    # Asked "self-hosting or an API?": that answer leads (issue 18, class 2).
    api = api_comparison_lines(parsed, report)
    out = api if parsed.api_comparison else []
    out += capacity_lines(parsed, report)
    out += verdict_block(report)
    out += [] if parsed.api_comparison else api
    out += _section("Key figures", key_figures(report))
    first = next((m for m in report.memory if m.estimate is not None), None)
    if layout is not None and has_layout:
        out += _section(
            f"Memory per GPU ({_layout_label(report, layout)})", breakdown_table(layout)
        )
    elif first is not None:
        label = config_label(first)
        if first.plain_data_parallel:
            label += ", plain data parallelism"
        out += _section(f"Memory per GPU ({label})", breakdown_table(first))
    rec = report.recommendation
    if report.recommendation_error is not None:
        error = report.recommendation_error.text
        out += _section("Options", [f"- The recommender could not run: {error}"])
    elif rec is not None:
        out += _section("Best option per GPU", options_table(report))
        headline = None if parsed.gpus or report.headline is None else report.headline.option
        notes = [f"- {about_headline(n, headline)}" for n in rec.notes[:4]]
        out += ["", *notes] if notes else []
        # The scale-out answer above supersedes the search within the named count.
        if rec.nearest_feasible and report.scale_out is None:
            out.append(f"- Nearest feasible: {rec.nearest_feasible}")
    if report.costs_error is not None:
        error = report.costs_error.text
        out += _section("Cost", [f"- Cost comparison unavailable: {error}"])
    out += unconverted_lines(report)
    return out


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
    # One line per item: the fold below is recognised by its bullet lines.
    return ["- " + " ".join(item.split()) for item in items]


def render_question(parsed: ParsedWorkload, question: str | None = None) -> str:
    """A clarifying question instead of an answer, with what was understood so far."""
    ask = question or (parsed.questions[0] if parsed.questions else "Which model?")
    understood = [
        f"{name}: {value}"
        for name, value in parsed.model_dump(
            exclude_defaults=True, exclude={"text", "notes", "questions", "unplaced", "gpus"}
        ).items()
    ]
    understood += [f"GPU: {m.count or ''}{'× ' if m.count else ''}{m.text}" for m in parsed.gpus]
    lines = [f"**One question before I size this:** {ask}"]
    if understood:
        lines += ["", "So far I have: " + "; ".join(understood) + "."]
    if parsed.unplaced:
        lines += ["", "I could not place: " + "; ".join(f"'{u}'" for u in parsed.unplaced) + "."]
    return "\n".join(lines) + "\n"
