"""`OfflineEngine`: the Engine protocol without a model endpoint.

A turn: parse the text (refining the previous turn's workload, which is stored on the assistant
message that carries the tool calls, so it is derivable from the saved conversation), ask one
question if a verdict-changing fact is missing, else run the planned calls — one `size` call
(`tools.sizing`: memory, recommend, cost and the follow-ups) and any llama.cpp / Ollama plans —
through the same tool registry the LLM engine uses, append them as OpenAI-format `tool_calls` +
`tool` messages, then stream the answer rendered from the sizing report and end with `Done`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, Literal

from assistant.answer import ANSWER_KEY, Answer
from assistant.conversation import WORKLOAD_KEY, Conversation
from assistant.events import (
    Done,
    ErrorEvent,
    Event,
    ReadAs,
    TextDelta,
    ToolCallStarted,
    ToolResult,
)

if TYPE_CHECKING:
    from assistant.offline.planner import PlannedCall
    from assistant.reading.parsed import ParsedWorkload
    from assistant.registry import Registry
    from assistant.render import CallResult
    from tools.sizing import SizingReport

TURN_MODULES = (
    "assistant.offline.parser",
    "assistant.offline.planner",
    "assistant.reading.of_parsed",
    "assistant.reading.parsed",
    "assistant.render.answer",
    "assistant.results",
    "assistant.tool_calls",
    "assistant.registry",
    "tools.sizing.plan",
)
"""What a turn runs on — the parser, the planner, the tools and the answer templates —, imported
by the turn, not with the engine: the app paints its first screen with the engine made but these
not yet loaded, then imports them (`turn_modules`; issue 32, fast start)."""


class OfflineEngine:
    """Answers sizing questions with the parser, the tools and Markdown templates."""

    mode: Literal["llm", "offline"] = "offline"
    label: str = "offline · built-in parser + tools"
    turn_modules: tuple[str, ...] = TURN_MODULES
    """What the app imports after its first paint, so the first answer does not wait on it."""

    def __init__(self, registry: Registry | None = None) -> None:
        self._registry = registry

    @property
    def registry(self) -> Registry:
        if self._registry is None:
            from assistant.registry import default_registry

            self._registry = default_registry()
        return self._registry

    async def _run(
        self, conversation: Conversation, planned: list[PlannedCall], parsed: ParsedWorkload
    ) -> tuple[list[Event], list[CallResult]]:
        """Run one round of calls: events plus the OpenAI-format messages appended."""
        from assistant.render import CallResult
        from assistant.results import tool_message
        from assistant.tool_calls import run_tool_call

        events: list[Event] = []
        results: list[CallResult] = []
        base = len([m for m in conversation.messages if m.get("role") == "tool"])
        ids = [f"offline_{base + i + 1}" for i in range(len(planned))]
        conversation.add(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
                    }
                    for call_id, call in zip(ids, planned, strict=True)
                ],
                WORKLOAD_KEY: parsed.model_dump(mode="json", exclude_defaults=True),
            }
        )
        stored = conversation.messages[-1]
        for call_id, call in zip(ids, planned, strict=True):
            events.append(ToolCallStarted(call_id, call.name, call.arguments))
            # Off the event loop, time-limited and cleaned (assistant.tool_calls).
            outcome = await run_tool_call(self.registry, call.name, call.arguments)
            events.append(ToolResult(call_id, call.name, outcome.value, outcome.is_error))
            conversation.add(tool_message(call_id, call.name, outcome.value))
            results.append(CallResult(call.name, call.arguments, outcome.value, outcome.is_error))
        report = _report(results)
        if report is not None and report.headline is not None:
            # What the answer led with, so 'double the cards' next turn has a count to double.
            option = report.headline.option
            stored[WORKLOAD_KEY] = {
                **stored[WORKLOAD_KEY],
                "answered_gpu": option.gpu,
                "answered_count": option.count,
            }
        return events, results

    async def run_turn(self, conversation: Conversation, user_text: str) -> AsyncIterator[Event]:
        """One turn; see the module docstring. Always ends with exactly one `Done`."""
        from assistant.offline.parser import parse_workload
        from assistant.offline.planner import default_reading, plan_tool_calls, scope_only
        from assistant.reading.of_parsed import reading_of
        from assistant.reading.parsed import previous_workload
        from assistant.render import render_out_of_scope, render_question

        conversation.add({"role": "user", "content": user_text})
        partial: list[str] = []
        try:
            previous = previous_workload(conversation)
            parsed = parse_workload(user_text, previous)
            yield ReadAs(reading_of(parsed))
            planned = plan_tool_calls(parsed)
            answer: Answer
            question: str | None = None
            if scope_only(parsed):
                # Only something gpu-sizer cannot answer: said, nothing sized in its place.
                answer = render_out_of_scope(parsed)
            elif not planned:
                # A question to ask: the figures of the default reading come with it.
                reading = default_reading(parsed)
                calls = [] if reading is None else plan_tool_calls(reading.workload)
                report = None
                if reading is not None and calls:
                    events, results = await self._run(conversation, calls, reading.workload)
                    for event in events:
                        yield event
                    report = _report(results)
                readings = None if reading is None else reading.readings
                answer = render_question(parsed, None, report, readings)
            else:
                events, results = await self._run(conversation, planned, parsed)
                for event in events:
                    yield event
                question = _question(results)
                answer = answer_text(parsed, results)
            text = answer.text
            # Only the visible part streams; the folded part comes with `Done.answer`.
            for paragraph in _paragraphs(answer.visible):
                partial.append(paragraph)
                yield TextDelta(paragraph)
                await asyncio.sleep(0)
            final: dict[str, Any] = {
                "role": "assistant",
                "content": text,
                ANSWER_KEY: answer.stored(),
            }
            if not planned or question:
                # A clarifying question keeps the workload read so far: the reply refines it
                # rather than starting over (issue 18, class 3).
                asked = parsed.model_copy(deep=True)
                if question is not None:
                    asked.ask("gpu_variant", "ambiguous", question, _question_words(results))
                final[WORKLOAD_KEY] = asked.model_dump(mode="json", exclude_defaults=True)
            conversation.add(final)
            yield Done(text=text, conversation=conversation, answer=answer)
        except (asyncio.CancelledError, GeneratorExit):
            if partial:
                conversation.add(
                    {"role": "assistant", "content": "".join(partial), "cancelled": True}
                )
            raise
        except Exception as exc:  # a bug must end the turn cleanly, with the reason shown
            message = f"The offline engine failed ({type(exc).__name__}: {exc})."
            yield ErrorEvent(message, kind="internal")
            conversation.add({"role": "assistant", "content": message, "error": True})
            yield Done(text=message, conversation=conversation)


def _report(results: list[CallResult]) -> SizingReport | None:
    """The turn's sizing report, if its `size` call ran."""
    from tools.sizing import SizingReport

    return next((r.value for r in results if isinstance(r.value, SizingReport)), None)


def _question(results: list[CallResult]) -> str | None:
    """The question the sizing report asks first (a GPU name whose variants differ), if any."""
    report = _report(results)
    return None if report is None or report.question is None else report.question.question


def _question_words(results: list[CallResult]) -> str | None:
    """The GPU words the sizing report's question is about ('H100')."""
    report = _report(results)
    return None if report is None or report.question is None else report.question.text


def answer_text(parsed: ParsedWorkload, results: list[CallResult]) -> Answer:
    """The turn's answer from its results: rendered from the sizing report (and the
    llama.cpp / Ollama plans), or the question the report asks first."""
    from assistant.render import render_answer, render_fits, render_question
    from assistant.results import ToolError
    from tools.sizing import SizingReport

    if any(r.name == "fits_on_hardware" for r in results):
        return render_fits(parsed, results)
    sizing = next((r for r in results if r.name == "size"), None)
    local = [r for r in results if r.name in ("plan_local_serving", "embed_corpus")]
    report = sizing.value if sizing is not None else None
    if isinstance(report, SizingReport):
        if report.question is not None:
            return render_question(parsed, report.question.question, report)
        return render_answer(parsed, report, local)
    error = report.text if isinstance(report, ToolError) else None
    return render_answer(parsed, None, local, error)


def _paragraphs(text: str) -> list[str]:
    parts = text.split("\n\n")
    return [p + ("\n\n" if i < len(parts) - 1 else "") for i, p in enumerate(parts)]
