"""`OfflineEngine`: the Engine protocol without a model endpoint.

A turn: parse the text (refining the previous turn's workload, which is stored on the assistant
message that carries the tool calls, so it is derivable from the saved conversation), ask one
question if a verdict-changing fact is missing, else run the planned calls through the same
tool registry the LLM engine uses, append them as OpenAI-format `tool_calls` + `tool` messages,
then stream the rendered Markdown answer and end with `Done`.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, Literal

from assistant.conversation import WORKLOAD_KEY, Conversation
from assistant.cost_tool import MAX_OPTIONS
from assistant.events import Done, ErrorEvent, Event, TextDelta, ToolCallStarted, ToolResult
from assistant.offline.max_context import longest_context_calls
from assistant.offline.parsed import ParsedWorkload
from assistant.offline.parser import parse_workload
from assistant.offline.planner import (
    PlannedCall,
    layout_memory_call,
    plan_cost_call,
    plan_tool_calls,
    scale_out_calls,
    zero3_alternative,
)
from assistant.offline.render import (
    CallResult,
    bytes_from,
    headline_option,
    per_gpu_figure,
    render_answer,
    render_question,
)
from assistant.tool_calls import TOOL_TIMEOUT_S, in_thread, run_tool_call
from tools.catalog import get_catalog

if TYPE_CHECKING:
    from assistant.registry import Registry

# Fitting options priced per turn, as many as the cost tool takes: the recommender ranks
# without prices, so the cheapest option is often far down its list (a 7B model: B300 first,
# the L4 further down).
_PRICED_OPTIONS = MAX_OPTIONS


def previous_workload(conversation: Conversation) -> ParsedWorkload | None:
    """The workload of the latest turn that had one, rebuilt from the conversation."""
    for message in reversed(conversation.messages):
        data = message.get(WORKLOAD_KEY)
        if isinstance(data, dict):
            try:
                return ParsedWorkload.model_validate(data)
            except ValueError:
                return None
    return None


def ambiguous_gpu_question(parsed: ParsedWorkload, memory: list[CallResult]) -> str | None:
    """A question when a GPU name covers variants on which the memory verdict differs.

    The verdict per variant compares the estimate's per-GPU need with that variant's usable
    memory scaled by the same engine utilisation the tool applied (budget / usable).
    """
    catalog = get_catalog()
    for mention in parsed.gpus:
        if mention.gpu is None or not mention.variants:
            continue
        call = next((c for c in memory if c.arguments.get("gpu") == mention.gpu), None)
        if call is None or call.is_error:
            continue
        needed = bytes_from(call.result, "per_gpu")
        budget = per_gpu_figure(call.result, "budget")
        usable = per_gpu_figure(call.result, "usable")
        if needed is None or budget is None or usable is None or usable <= 0:
            continue
        utilisation = budget / usable
        verdicts: dict[bool, list[str]] = {True: [], False: []}
        for gpu_id in mention.variants:
            gpu = catalog.gpus[gpu_id]
            fits = needed <= gpu.usable_memory_bytes * utilisation
            verdicts[fits].append(gpu.name.removeprefix("NVIDIA "))
        if verdicts[True] and verdicts[False]:
            return (
                f"Which '{mention.text}' do you mean? It fits on {', '.join(verdicts[True])} "
                f"but not on {', '.join(verdicts[False])}."
            )
    return None


_VARIANT_REPLY = re.compile(
    r"^\s*(?:the\s+)?(?P<v>sxm\d?|nvl|pcie)(?:\s+(?:one|version|variant|card))?\s*[.!]?\s*$",
    re.IGNORECASE,
)


def variant_reply(text: str, previous: ParsedWorkload | None) -> str:
    """A bare variant answering "Which 'H100' do you mean?" ('SXM', 'the PCIe one') as the
    catalog GPU it picks, keeping the count asked about: 'SXM' → '8× h100-sxm'. Any other text
    is returned unchanged (so 'SXM' is not read as a wish for an NVLink interconnect)."""
    match = _VARIANT_REPLY.match(text)
    if match is None or previous is None:
        return text
    want = match.group("v").lower()
    for mention in previous.gpus:
        ids = {v for v in [mention.gpu, *mention.variants] if v}
        picked = sorted(v for v in ids if want in v)
        if len(ids) > 1 and len(picked) == 1:
            count = f"{mention.count}× " if mention.count else ""
            return f"{count}{picked[0]}"
    return text


class OfflineEngine:
    """Answers sizing questions with the parser, the tools and Markdown templates."""

    mode: Literal["llm", "offline"] = "offline"
    label: str = "offline · built-in parser + tools"

    def __init__(self, registry: Registry | None = None) -> None:
        self._registry = registry

    @property
    def registry(self) -> Registry:
        if self._registry is None:
            from assistant.registry import default_registry

            self._registry = default_registry()
        return self._registry

    def _call(self, name: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        """One tool call through the registry, not recorded (a search step)."""
        outcome = self.registry.call(name, arguments)
        return outcome.result, outcome.is_error

    async def _run(
        self, conversation: Conversation, planned: list[PlannedCall], parsed: ParsedWorkload
    ) -> tuple[list[Event], list[CallResult]]:
        """Run one round of calls: events plus the OpenAI-format messages appended."""
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
        for call_id, call in zip(ids, planned, strict=True):
            events.append(ToolCallStarted(call_id, call.name, call.arguments))
            outcome = await run_tool_call(self.registry, call.name, call.arguments)
            events.append(ToolResult(call_id, call.name, outcome.result, outcome.is_error))
            conversation.add(
                {
                    "role": "tool",
                    "tool_call_id": call_id,
                    "name": call.name,
                    "content": outcome.content,
                }
            )
            results.append(CallResult(call.name, call.arguments, outcome.result, outcome.is_error))
        return events, results

    async def run_turn(self, conversation: Conversation, user_text: str) -> AsyncIterator[Event]:
        """One turn; see the module docstring. Always ends with exactly one `Done`."""
        conversation.add({"role": "user", "content": user_text})
        partial: list[str] = []
        try:
            previous = previous_workload(conversation)
            parsed = parse_workload(variant_reply(user_text, previous), previous)
            planned = await in_thread(
                lambda: longest_context_calls(parsed, plan_tool_calls(parsed), self._call),
                TOOL_TIMEOUT_S,
            )
            results: list[CallResult] = []
            text: str
            question: str | None = None
            if not planned:
                text = render_question(parsed)
            else:
                events, results = await self._run(conversation, planned, parsed)
                for event in events:
                    yield event
                memory = [r for r in results if r.name == "estimate_memory"]
                question = ambiguous_gpu_question(parsed, memory)
                recommend = next((r for r in results if r.name == "recommend"), None)
                cost_call = None
                if question is None and recommend is not None and not recommend.is_error:
                    cost_call = plan_cost_call(parsed, recommend.result, limit=_PRICED_OPTIONS)
                if cost_call is not None and cost_call.name in self.registry.specs:
                    events, more = await self._run(conversation, [cost_call], parsed)
                    results += more
                    for event in events:
                        yield event
                cost = next((r for r in results if r.name == "compare_costs"), None)
                follow = (
                    follow_up_memory_calls(parsed, memory, recommend, cost)
                    if question is None
                    else []
                )
                if follow:
                    events, more = await self._run(conversation, follow, parsed)
                    results += more
                    for event in events:
                        yield event
                text = (
                    render_question(parsed, question)
                    if question
                    else render_answer(parsed, results)
                )
            for paragraph in _paragraphs(text):
                partial.append(paragraph)
                yield TextDelta(paragraph)
                await asyncio.sleep(0)
            final: dict[str, Any] = {"role": "assistant", "content": text}
            if not planned or question:
                # A clarifying question keeps the workload read so far: the reply refines it
                # rather than starting over (issue 18, class 3).
                asked = (
                    parsed
                    if question is None
                    else parsed.model_copy(update={"questions": [*parsed.questions, question]})
                )
                final[WORKLOAD_KEY] = asked.model_dump(mode="json", exclude_defaults=True)
            conversation.add(final)
            yield Done(text=text, conversation=conversation)
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


def follow_up_memory_calls(
    parsed: ParsedWorkload,
    memory: list[CallResult],
    recommend: CallResult | None,
    cost: CallResult | None,
) -> list[PlannedCall]:
    """Memory calls that depend on the first round's results: a named multi-GPU full-training
    configuration that does not fit as plain data parallelism, sized again with ZeRO-3 / FSDP;
    and, with no GPU named, the layout the answer's headline recommends (its breakdown is the
    table shown). The renderer tells them from the named configurations by their place after
    the recommend call."""
    calls: list[PlannedCall] = []
    for call in memory:
        fits = None if call.is_error else call.result.get("fits")
        alternative = zero3_alternative(
            parsed, PlannedCall(call.name, call.arguments), fits if isinstance(fits, bool) else None
        )
        if alternative is not None and alternative not in calls:
            calls.append(alternative)
    calls += _scale_out(parsed, memory, recommend)
    option = headline_option(recommend, cost)
    layout = None if option is None else layout_memory_call(parsed, option)
    if layout is not None:
        calls.append(layout)
    return calls


def _scale_out(
    parsed: ParsedWorkload, memory: list[CallResult], recommend: CallResult | None
) -> list[PlannedCall]:
    """For the first named multi-GPU serving configuration whose GPUs hold no layout that meets
    the targets (QA round 4, 2: '4 A100 40GB for 10 users'): the recommender without the GPU
    limit and the named GPUs at lower weight formats (planner.scale_out_calls)."""
    if recommend is None or recommend.is_error or (parsed.users or parsed.batch) is None:
        return []
    for call in memory:
        gpu_id, count = call.arguments.get("gpu"), int(call.arguments.get("gpus", 1))
        if gpu_id is None or count < 2:
            continue
        options = [*recommend.result.get("options", []), *recommend.result.get("rejected", [])]
        held = any(
            o.get("gpu") == gpu_id
            and int(o.get("count", 0)) <= count
            and o.get("fits")
            and o.get("meets_targets")
            for o in options
        )
        if not held:
            result = None if call.is_error else call.result
            return scale_out_calls(parsed, PlannedCall(call.name, call.arguments), result)
    return []


def _paragraphs(text: str) -> list[str]:
    parts = text.split("\n\n")
    return [p + ("\n\n" if i < len(parts) - 1 else "") for i, p in enumerate(parts)]
