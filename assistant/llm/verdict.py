"""The deterministic verdict an LLM-mode answer leads with, from the turn's typed results.

The verdict never depends on the model's words (issue 17): it is rendered from tool results,
streamed as a `Verdict` event ahead of the model's text, carried in `Done.verdict` and saved
on the answer message. Which results it is rendered from follows one rule (issue 28,
`assistant.reading.reconcile`): the built-in parser's reading at once, provisionally
(`parser_verdict`), and the model's grounded `size` reading instead when it differs on a
verdict slot (`model_verdict`: the model's reading, the difference named, the parser's verdict
in one line).

The parser's verdict has the parts the offline answer leads with (issue 28, point 4): the
reading ('Read as …'), the llama.cpp / Ollama plan for the user's own GPU before any cloud
figure, the report's verdict (`assistant.render.verdict_answer`, standalone: it points
to no table) with its ways out, and on a clarifying turn the figures of the default reading
before the question (`assistant.render.render_question`). A turn the model sized with
`estimate_memory` only gets those estimates' fit lines (`memory_verdict_text`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from assistant.answer import Answer, AnswerSection, CardLine
from assistant.conversation import WORKLOAD_KEY
from assistant.reading.model import Reading
from assistant.reading.of_parsed import reading_of
from assistant.reading.parsed import ParsedWorkload
from assistant.reading.reconcile import Difference
from assistant.render import memory_verdict_text, render_question, verdict_answer
from assistant.render.local import local_serving_lines
from assistant.render.reading import difference_line, read_as_line, reading_lead
from assistant.render.results import CallResult
from assistant.results import StoredCall, stored_calls
from tools.catalog import get_catalog
from tools.memory.request import MemoryEstimate
from tools.sizing import SizingReport


def _lines(section: AnswerSection) -> list[str]:
    """A section's lines with the card lines marked again (to merge into another section)."""
    return [CardLine(s) if i in section.card_lines else s for i, s in enumerate(section.lines)]


def _report_lines(report: SizingReport) -> list[str]:
    answer = verdict_answer(report)
    return _lines(answer.sections[0]) if answer.sections else []


def _local(calls: Sequence[StoredCall]) -> list[CallResult]:
    return [
        CallResult(c.name, c.arguments, c.value, c.is_error)
        for c in calls
        if c.name == "plan_local_serving"
    ]


def _reading_lead(reading: Reading | None) -> list[str]:
    return [] if reading is None else reading_lead(reading)


def _trimmed(lines: list[str]) -> list[str]:
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def parser_verdict(
    parsed: ParsedWorkload | None,
    calls: Sequence[StoredCall],
    default_readings: list[str] | None = None,
) -> Answer | None:
    """The verdict of the parser's reading: its planned calls' results (`calls`: the size
    report, llama.cpp / Ollama plans), or — when the parser asks a question first — the
    figures of its default reading (`default_readings`: how that reading was made) and the
    question. None when nothing was sized and nothing is asked."""
    report = next((c.value for c in calls if isinstance(c.value, SizingReport)), None)
    local = _local(calls)
    if parsed is not None and parsed.questions:
        answer = render_question(parsed, None, report, default_readings)
        return Answer.of([answer.sections[0]]) if answer.sections else None
    if report is not None and report.question is not None:
        reading = None if parsed is None else reading_of(parsed)
        lines = [*_reading_lead(reading), *_report_lines(report)]
        return Answer.of([AnswerSection.of_lines(_trimmed(lines))])
    body = local_serving_lines(local)
    if report is not None:
        body += _report_lines(report)
    if not body:
        return None
    reading = None if parsed is None else reading_of(parsed)
    return Answer.of([AnswerSection.of_lines(_trimmed([*_reading_lead(reading), *body]))])


def one_line(report: SizingReport) -> str:
    """A report's verdict in one line, from its typed fields: the first configuration named,
    fits or not, and the headline option with its hourly price."""
    gpus = get_catalog().gpus

    def name(gpu_id: str | None) -> str:
        if gpu_id is None:
            return "GPUs"
        return gpus[gpu_id].name.removeprefix("NVIDIA ") if gpu_id in gpus else gpu_id

    parts: list[str] = []
    named = next((m for m in report.memory if m.gpu and m.estimate is not None), None)
    if named is not None and named.estimate is not None and named.estimate.fits is not None:
        verb = "fits on" if named.estimate.fits else "does not fit on"
        parts.append(f"{verb} {named.count}× {name(named.gpu)}")
    if report.headline is not None:
        option = report.headline.option
        price = report.headline.price
        hourly = None if price is None else price.usd_per_hour
        cost = "" if hourly is None else f", {hourly:,.2f} USD per hour"
        parts.append(f"{option.count}× {name(option.gpu)}{cost}")
    if report.question is not None:
        parts.append(f"asks: {report.question.question}")
    return "; ".join(parts) or "nothing it could size"


def model_verdict(
    reading: Reading,
    report: SizingReport,
    diffs: list[Difference],
    parser_report: SizingReport | None,
    parser_question: str | None = None,
) -> Answer:
    """The verdict of the model's reading (the rule chose it): its 'Read as' line, how it
    differs from the parser's reading with the parser's verdict in one line (or the question
    the parser asked instead of sizing), then the report's verdict."""
    other = None if parser_report is None else one_line(parser_report)
    lines = [CardLine(read_as_line(reading)), ""]
    if diffs:
        lines += [difference_line(diffs, other, parser_question), ""]
    elif parser_question:
        lines += [f"**The built-in parser could not size this; it asked:** {parser_question}", ""]
    lines += _report_lines(report)
    return Answer.of([AnswerSection.of_lines(_trimmed(lines))])


def turn_parsed(messages: Sequence[dict[str, Any]]) -> ParsedWorkload | None:
    """The parser's reading of this turn, stored on its user message (None: not read)."""
    user = next((m for m in reversed(messages) if m.get("role") == "user"), None)
    stored = None if user is None else user.get(WORKLOAD_KEY)
    if not isinstance(stored, dict):
        return None
    try:
        return ParsedWorkload.model_validate(stored)
    except ValueError:
        return None


def turn_verdict_answer(messages: Sequence[dict[str, Any]]) -> Answer | None:
    """The verdict of the last turn's results when no reading was chosen otherwise: the
    parser's reading of its first sizing report (or its local plans), else the model's memory
    estimates' fit lines; None when the turn sized nothing."""
    last = sum(1 for m in messages if m.get("role") == "user")
    calls = [c for c in stored_calls(messages, turn=last) if not c.is_error]
    if not calls:
        return None
    report = next((c for c in calls if isinstance(c.value, SizingReport)), None)
    local = [c for c in calls if c.name == "plan_local_serving"]
    if report is not None or local:
        return parser_verdict(turn_parsed(messages), [*local, *([report] if report else [])])
    estimates = [c.value for c in calls if isinstance(c.value, MemoryEstimate)]
    lines = memory_verdict_text(estimates).splitlines()
    return Answer.of([AnswerSection.of_lines(lines)]) if lines else None
