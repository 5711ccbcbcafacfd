"""`gpu-sizer ask "QUESTION"`: one-shot answer on stdout.

The answer is Markdown: written as it arrives in a pipe, rendered (and paged when long) on a
terminal, with a progress line on stderr until its first word (`assistant/commands/_stream.py`).

Uses the configured endpoint when there is one (`assistant.engines.make_engine`), the offline
engine otherwise or with `--offline`. The offline answer's folded part (its typed sections,
`Done.answer`: the tables and notes past one screen, the tools' assumptions on sources,
formulas and constants) is replaced by one line naming what it holds; `--details` prints it.

With a model endpoint, the answer printed leads with the deterministic verdict rendered from
the turn's sizing report (the engine's `Verdict` event: `assistant.render.verdict_text`,
the lines the offline answer leads with), then the model's explanation, then the figures of it
no tool result supports and its claims the tools contradict.

`--json` prints the reading of the question (`reading`: each slot with its value, the value in
words and where it came from — a span of the question or an earlier turn —, the words not read
and whether they could change the verdict, the questions asked back, the figure asked for), the
parsed workload, the tool calls with their results (lean JSON, as the
model reads them), the sizing report's headline, weight format and price load, its clarifying
questions typed (`variant_question`, `shape_question`: fields and the question in words), what
would fit when the GPUs named do not hold the load (`ways_out`, each lever re-sized, and `holds`:
the count of that GPU that does), the tools' assumptions, and the full answer. The offline
path never imports openai or textual.

Every answer is saved as a session (assistant/sessions.py; `--no-save` skips it), so
`gpu-sizer proposal --session ID` renders it and a later `ask` continues it, as `llm -c` does:
`--continue` (`-c`) adds the question to the most recent session, `--session ID` to that one.
A follow-up ("and what if we use fp8 instead?") then refines the workload asked about before.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from assistant.cli_examples import help_with_examples
from assistant.commands._flags import CommandFlags, request
from assistant.commands._stream import AnswerStream
from assistant.conversation import Conversation
from assistant.engine_base import Engine
from assistant.events import (
    Done,
    ErrorEvent,
    Notice,
    ReadAs,
    TextDelta,
    ToolCallStarted,
    ToolResult,
    Verdict,
)
from assistant.render.output import add_pager_option
from assistant.sanitize import clean_text
from assistant.turn_stream import clean_events
from tools.cost import PriceFilter
from tools.errors import ToolInputError
from tools.sizing import ShapeQuestion, SizingReport, VariantQuestion, WayOut
from tools.sizing.verdict import verdict
from tools.workloads.embedding import EmbeddingResult

_T = TypeVar("_T")

if TYPE_CHECKING:
    from assistant.session_store import SessionStore


def add_parser(subparsers: Any, help_text: str) -> None:
    """Register `ask` and its flags (endpoint overrides from assistant.config)."""
    from assistant.config import add_config_arguments

    parser = subparsers.add_parser(
        "ask", help=help_text, description=help_text, **help_with_examples("ask")
    )
    parser.add_argument("question", nargs="+", help="the sizing question, in plain language")
    parser.add_argument(
        "--json", action="store_true", help="print workload, tool calls, results and answer"
    )
    parser.add_argument(
        "--all-layouts",
        action="store_true",
        help="with --json: also list every rejected layout in the tool results (as `recommend`)",
    )
    parser.add_argument(
        "--details",
        action="store_true",
        help="print every assumption (model sources, formulas, constants), not only the count",
    )
    parser.add_argument(
        "--proposal",
        metavar="FILE",
        help="also write a hardware proposal from this answer (.html → HTML, else Markdown)",
    )
    parser.add_argument(
        "--force", action="store_true", help="overwrite the --proposal file if it exists"
    )
    # The rate flag is the price filter's field, so `ask` and `cost` read and refuse it alike.
    CommandFlags(parser).add(PriceFilter, only=("eur_to_usd",))
    thread = parser.add_mutually_exclusive_group()
    thread.add_argument(
        "-c",
        "--continue",
        dest="continue_session",
        action="store_true",
        help="continue the most recent session: a follow-up refines what was asked before",
    )
    thread.add_argument(
        "--session",
        "--cid",
        metavar="ID",
        help="continue the saved session ID (the id `ask` prints after each answer)",
    )
    parser.add_argument(
        "--no-save",
        action="store_true",
        help="do not save this turn as a session (nothing to continue or write a proposal from)",
    )
    add_pager_option(parser)
    add_config_arguments(parser)


def _conversation(args: argparse.Namespace, engine: Engine, store: SessionStore) -> Conversation:
    """The conversation this question joins: the session named, the latest readable one, or a
    new one, opened through `store` so saving it never overwrites what another gpu-sizer wrote
    meanwhile. Unknown ids and nothing to continue are a ToolInputError naming the flag."""
    from assistant.sessions import list_sessions, open_session

    if getattr(args, "session", None):
        loaded = open_session(args.session)  # a friendly error for an unknown id
        return store.open(loaded.path).conversation
    if getattr(args, "continue_session", False):
        latest = [s for s in list_sessions() if s.problem is None]
        if not latest:
            raise ToolInputError(
                "--continue", "there is no saved session to continue", "ask a question first"
            )
        return store.open(latest[0].path).conversation
    return Conversation(mode=engine.mode)


def _engine(args: argparse.Namespace) -> Engine:
    """The engine for this question. The settings are read and checked first, `--offline`
    included: a broken config.toml or a bad `--timeout` is exit 2, never an answer that
    carries the error as its text; an endpoint named with `--base-url` that cannot be used
    (no model) is exit 2 too, never a silent offline answer."""
    from assistant.config import load_config, overrides_from_args
    from assistant.engines import make_engine, offline_engine

    settings = load_config(overrides_from_args(args))
    if getattr(args, "offline", False):
        return offline_engine()
    reason = settings.offline_reason()
    if getattr(args, "base_url", None) and reason is not None:
        raise ToolInputError("--base-url", f"cannot be used: {reason}", "add --model NAME")
    return make_engine(settings)


async def _run_turn(
    engine: Engine,
    question: str,
    out: AnswerStream | None,
    conversation: Conversation | None = None,
) -> tuple[Done | None, list[Any]]:
    """Run one turn on `conversation` (a new one when None), streaming the answer to `out`
    (None: nothing streamed, `--json`; engines stream only an answer's visible part:
    `_after_answer` prints the folded part with `details`). An LLM answer is led by the
    engine's `Verdict` (the turn's sizing report rendered), printed before the model's first
    word."""
    conversation = conversation if conversation is not None else Conversation(mode=engine.mode)
    done: Done | None = None
    events: list[Any] = []
    printed: str | None = None
    pending: str | None = None

    def show(verdict: str) -> None:
        nonlocal printed, pending
        if verdict != printed and out is not None:
            out.write(verdict.rstrip("\n") + "\n\n")
        printed, pending = verdict, None

    async for event in clean_events(engine.run_turn(conversation, question)):
        events.append(event)
        if isinstance(event, Verdict) and out is not None:
            # The tools' verdict leads, whatever the model then writes (issue 17); the
            # parser's provisional verdict waits until the model's reading confirms or
            # replaces it (issue 28), or its first word comes.
            if event.provisional:
                pending = event.text
            else:
                show(event.text)
        elif isinstance(event, TextDelta) and out is not None:
            if pending is not None:
                show(pending)
            out.write(event.text)
        elif isinstance(event, Notice | ErrorEvent):
            print(event.message, file=sys.stderr)
        elif isinstance(event, Done):
            if pending is not None:
                show(pending)
            done = event
    return done, events


def _model_read(events: list[Any]) -> ReadAs | None:
    """The model's reading, when the verdict follows it (LLM mode; issue 28)."""
    readings = [e for e in events if isinstance(e, ReadAs)]
    if readings and any(s.source.origin == "model" for s in readings[-1].reading.slots):
        return readings[-1]
    return None


def _sizing_record(events: list[Any]) -> tuple[dict[str, Any] | None, list[str]]:
    """The turn's sizing report as `--json` shows it (headline, weight format, price load)
    and every assumption the tools stated (report first, then other results)."""
    from assistant.commands.recommend import headline_record
    from assistant.wire import local_record

    values = [e.value for e in events if isinstance(e, ToolResult)]
    reports = [v for v in values if isinstance(v, SizingReport) and v.model_id]
    # The report of the reading the verdict follows: the model's latest when its reading
    # was chosen (issue 28: the last `ReadAs` is of origin "model"), else the first.
    report = (reports[-1] if _model_read(events) else reports[0]) if reports else None
    report = report or next((v for v in values if isinstance(v, SizingReport)), None)
    assumptions = [] if report is None else list(report.assumptions)
    for value in values:
        if not isinstance(value, SizingReport):
            assumptions += [str(a) for a in getattr(value, "assumptions", [])]
    if report is None:
        return None, list(dict.fromkeys(assumptions))
    record = {
        "model_id": report.model_id,
        "weights_format": report.weights_format,
        "headline": headline_record(report),
        # The figure the question asked for (yes/no, the GPU count, throughput …), typed.
        "asked": None
        if report.asked_answer is None
        else report.asked_answer.model_dump(mode="json", exclude_none=True),
        "price_load": report.price_load.model_dump(mode="json"),
        "question": None if report.question is None else report.question.question,
        # The clarifying questions typed: a GPU name whose variants differ, and a model known
        # only by its size whose verdict depends on its architecture (with their figures).
        "variant_question": _typed_question(report.question),
        "shape_question": _typed_question(report.shape_question),
        # What would fit when the GPUs named do not hold the load: each lever re-sized, and
        # the count of the named GPU that holds it (the full report is in `tool_calls`).
        "ways_out": [_way_out(w) for w in report.ways_out],
        "holds": _holds(report),
        # The verdict items every surface words (`tools.sizing.verdict`): fits or not per
        # configuration, what works, the longest contexts, a yes/no answer.
        "verdict": verdict(report).record(),
        # Owned hardware (issue 29): the local plan leads; the headline is the alternative.
        "leads_with_local": report.leads_with_local,
        "local": [local_record(p) for p in report.local],
        # issue 30 items 5-7: the leading option under the engine asked for, with its command.
        "engine_plan": None
        if report.engine_plan is None
        else report.engine_plan.model_dump(mode="json"),
        "buy_vs_rent": None
        if report.buy_vs_rent is None
        else report.buy_vs_rent.model_dump(mode="json"),
        "speedups": None if report.speedups is None else report.speedups.model_dump(mode="json"),
        # issue 30 items 1-4: the workload parts, typed (lora_serving, …).
        "workloads": _workload_parts(report),
    }
    return record, list(dict.fromkeys(assumptions))


def _workload_parts(report: SizingReport) -> dict[str, Any]:
    """The report's workload parts as JSON, each its typed result (issue 30 items 1-4)."""
    parts = {
        "lora_serving": report.lora_serving,
        "batch_job": report.batch_job,
        "request_rate": report.request_rate,
    }
    out: dict[str, Any] = {k: v.model_dump(mode="json") for k, v in parts.items() if v}
    if report.workloads_error is not None:
        out["error"] = report.workloads_error.model_dump(mode="json")
    return out


def _way_out(way: WayOut) -> dict[str, Any]:
    """A way out as JSON: the lever, its subject, what it changed and the re-sized fit."""
    est = way.estimate
    return {
        "lever": way.lever,
        "gpu": way.gpu,
        "count": way.count,
        "zero": way.zero,
        "changes": way.changes,
        "fits": way.fits,
        "per_gpu_bytes": None if est is None else est.per_gpu_bytes,
        "budget_bytes_per_gpu": None if est is None else est.budget_bytes_per_gpu,
    }


def _holds(report: SizingReport) -> dict[str, Any] | None:
    """The count of the named GPU that holds the load they do not (`SizingReport.scale_out`),
    as `recommend --json` writes an option."""
    from assistant.commands.recommend import option_record

    scale = report.scale_out
    if scale is None or scale.holds is None:
        return None
    return option_record(scale.holds, report.is_training)


def _typed_question(question: VariantQuestion | ShapeQuestion | None) -> dict[str, Any] | None:
    """A report's question as JSON: its fields, and the question in words."""
    if question is None:
        return None
    return {**question.model_dump(mode="json"), "question": question.question}


def _tool_result(event: ToolResult, all_layouts: bool) -> dict[str, Any]:
    """A tool's result as `ask --json` lists it: the lean form the model reads, with a sizing
    report's rejected layouts counted instead of listed unless `all_layouts` (as `recommend
    --json` does): a training search rejects ~1,600 layouts, ~2 MB of JSON."""
    report = event.value
    if all_layouts or not isinstance(report, SizingReport) or report.recommendation is None:
        return event.result
    rec = report.recommendation
    if not rec.rejected:
        return event.result
    shown = report.model_copy(update={"recommendation": rec.model_copy(update={"rejected": []})})
    from assistant.wire import lean_result

    result = lean_result(shown)
    del result["recommendation"]["rejected"]
    result["recommendation"]["rejected_layouts"] = len(rec.rejected)
    return result


def _json_report(
    question: str,
    engine: Engine,
    done: Done | None,
    events: list[Any],
    conversation: Conversation | None = None,
    all_layouts: bool = False,
) -> str:
    calls: dict[str, dict[str, Any]] = {}
    for event in events:
        if isinstance(event, ToolCallStarted):
            calls[event.call_id] = {"name": event.name, "arguments": event.arguments}
        elif isinstance(event, ToolResult) and event.call_id in calls:
            result = _tool_result(event, all_layouts)
            calls[event.call_id] |= {"result": result, "is_error": event.is_error}
    sizing, assumptions = _sizing_record(events)
    workload: dict[str, Any] | None = None
    reading: dict[str, Any] | None = None
    from assistant.reading.parsed import previous_workload

    # The workload this turn sized: a follow-up's is the merge with the earlier turns'. In LLM
    # mode it is the built-in parser's reading of the question (stored on the user message);
    # the reading is the model's when the verdict follows it (`workload` stays the parser's).
    parsed = None if conversation is None else previous_workload(conversation)
    if parsed is None and engine.mode == "offline":
        from assistant.offline.parser import parse_workload

        parsed = parse_workload(question)
    if parsed is not None:
        from assistant.reading.of_parsed import reading_of

        workload = parsed.model_dump(mode="json", exclude_defaults=True)
        reading = reading_of(parsed).model_dump(mode="json")
    model_read = _model_read(events)
    if model_read is not None:
        reading = model_read.reading.model_dump(mode="json")
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    report = {
        "question": question,
        "session": None if conversation is None else conversation.id,
        "engine": engine.mode,
        "reading": reading,
        "workload": workload,
        "tool_calls": list(calls.values()),
        "sizing": sizing,
        # issue 30 item 2: an embedding corpus's typed result (no sizing report for it).
        "embedding": next(
            (
                e.value.model_dump(mode="json")
                for e in events
                if isinstance(e, ToolResult) and isinstance(e.value, EmbeddingResult)
            ),
            None,
        ),
        "assumptions": assumptions,
        "verdict": done.verdict if done else "",
        "answer": done.text if done else None,
        "unverified_figures": list(done.unverified_figures) if done else [],
        "contradictions": list(done.contradictions) if done else [],
        "stopped": done.stopped if done else None,
        "notices": [e.message for e in events if isinstance(e, Notice)],
        "error": {"kind": errors[-1].kind, "message": errors[-1].message} if errors else None,
    }
    return json.dumps(report, indent=2, ensure_ascii=False)


def _after_answer(done: Done, details: bool) -> str:
    """What follows the streamed answer: its folded part (with `details`) or one line naming
    it, or a final newline; then the checks' flags and why the answer is incomplete, if it is."""
    text = done.text
    answer = done.answer
    if answer is not None and answer.details_title is not None:
        out = (
            f"\n**{answer.details_title}**\n\n{answer.details}"
            if details
            else f"+ {answer.details_title}: add --details to see them.\n"
        )
    else:
        out = "" if not text or text.endswith("\n") else "\n"
    if done.unverified_figures:
        out += (
            f"⚠ Unverified: {', '.join(done.unverified_figures)} — not found in this turn's "
            "tool results.\n"
        )
    for contradiction in done.contradictions:
        out += f"⚠ Contradicts the tools: {contradiction}\n"
    if done.error:
        what = "partial answer" if text else "no answer from the model"
        out += f"({what}: the turn ended with an error — {done.error})\n"
    elif done.stopped:
        out += {
            "repetition": "(answer stopped: the model was repeating itself)\n",
            "length": "(answer stopped at the token cap)\n",
            "cut_off": "(answer cut off at the endpoint's token limit)\n",
        }[done.stopped]
    return out


def _run(turn: Coroutine[Any, Any, _T]) -> _T:
    """`asyncio.run(turn)`, its result handed back outside the task: Python 3.11's
    `asyncio.run` restores the SIGINT handler through `signal.signal`, whose enum lookup formats
    the old handler (a partial holding the finished main task, so its result) with `%r` — the
    whole turn, every event and sizing report in it, written out twice and dropped."""
    box: list[_T] = []

    async def main() -> None:
        box.append(await turn)

    asyncio.run(main())
    return box[0]


def run(args: argparse.Namespace) -> int:
    """Answer one question; exit 0, or 1 when the turn ended in an error."""
    # A pasted question can hold escape sequences: never echoed, stored or sent.
    question = clean_text(" ".join(args.question)).strip()
    if not question:
        raise ToolInputError("question", "is empty", "a sizing question in plain language")
    if args.proposal:
        # Refuse before spending a model call on an answer whose proposal cannot be written.
        from assistant.proposal import check_output

        check_output(args.proposal, "--proposal")
        if Path(args.proposal).exists() and not args.force:
            raise ToolInputError(
                "--proposal",
                f"{args.proposal} already exists",
                "a new path, or --force to overwrite",
            )
    from assistant.cost_tool import price_book, use_eur_to_usd
    from assistant.session_store import SessionStore

    rate = request(PriceFilter, args).eur_to_usd
    engine = _engine(args)
    # The price files in force, read before the turn: a broken prices.toml (or refreshed file)
    # is exit 2 with the file named, as `cost` and `recommend` say it, never an answer whose
    # text is the error.
    price_book()
    store = SessionStore()
    conversation = _conversation(args, engine, store)
    out = None if args.json else AnswerStream(page=not args.no_pager)
    if out is not None:
        out.waiting("sizing" if engine.mode == "offline" else "asking the model")
    try:
        with use_eur_to_usd(rate):
            done, events = _run(_run_turn(engine, question, out, conversation=conversation))
    except BaseException:
        if out is not None:
            out.close()  # what arrived stays on screen
        raise
    finally:
        # Saved even when the turn is interrupted: the engine appended the question first.
        if not args.no_save:
            saved = store.save(conversation)
            if saved.forked_from is not None:
                print(
                    f"session {saved.forked_from} changed meanwhile (another gpu-sizer saved "
                    f"it): this turn is saved as session {conversation.id}",
                    file=sys.stderr,
                )
    if args.json:
        print(_json_report(question, engine, done, events, conversation, args.all_layouts))
    elif out is not None:
        out.close(_after_answer(done, args.details) if done is not None else "")
    if not args.no_save:
        print(
            f"session {conversation.id}: `gpu-sizer ask -c ...` continues it, "
            f"`gpu-sizer proposal --session {conversation.id}` writes its proposal",
            file=sys.stderr,
        )
    if args.proposal and done is not None:
        from assistant.proposal import write_proposal

        written = write_proposal(
            done.conversation, Path(args.proposal), force=args.force, field="--proposal"
        )
        print(f"proposal written to {written}", file=sys.stderr)
    return 1 if any(isinstance(e, ErrorEvent) for e in events) else 0
